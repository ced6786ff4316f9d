import { FwDefinitionError } from '@fw/core';
import type { Knex } from 'knex';
import { checkNow, checkPage, checkRecord, checkUserId, isHashShape, type TokenRecord, type TokenStore, type TokenUserPage } from './store.js';

/** Options of {@link KnexTokenStore}. */
export interface KnexTokenStoreOptions {
  /** A knex instance on any supported dialect (SQLite, PostgreSQL, MySQL/MariaDB, SQL Server). */
  knex: Knex;
  /**
   * Table holding the tokens, optionally schema-qualified (`auth.fw_token`). It must exist with
   * the columns `token_hash` char(64) primary key, `user_id` int not null (indexed),
   * `expires_at` bigint not null (epoch ms, indexed), `created_at` bigint not null (epoch ms),
   * `is_admin` boolean not null default false, and for session listing `last_seen_at` bigint null
   * (epoch ms); `@fw/store`'s migrations create it.
   * @default 'fw_token'
   */
  table?: string;
}

interface TokenRow {
  token_hash: string;
  user_id: number | string;
  expires_at: number | string;
  created_at: number | string;
  is_admin: boolean | number | string | null;
  last_seen_at?: number | string | null;
}

/** A table name, optionally schema-qualified: plain identifiers only, so it is never SQL. */
export const TABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,62}(\.[A-Za-z_][A-Za-z0-9_]{0,62})?$/;

// pg returns bigint (and mysql2 may return big numbers) as strings, to avoid silent precision
// loss; epoch milliseconds stay far below 2^53, so the conversion is exact.
export function toNumber(value: unknown, column: string): number {
  const n = typeof value === 'number' ? value : typeof value === 'string' || typeof value === 'bigint' ? Number(value) : NaN;
  if (!Number.isSafeInteger(n)) throw new TypeError(`${column} read from the table is not a whole number`);
  return n;
}

/** A boolean column as each dialect returns it (true, 1, '1', 't'). */
export function toFlag(value: unknown): boolean {
  return value === true || value === 1 || value === '1' || value === 't' || value === 'true';
}

function toRecord(row: TokenRow): TokenRecord {
  const record: TokenRecord = {
    hash: row.token_hash,
    userId: toNumber(row.user_id, 'user_id'),
    expiresAt: toNumber(row.expires_at, 'expires_at'),
    createdAt: toNumber(row.created_at, 'created_at'),
  };
  if (toFlag(row.is_admin)) record.admin = true;
  return record;
}

/**
 * Tokens in a SQL table through knex: every app instance on the same database sees the same
 * tokens, so a logout on one instance holds on all of them at once. Expired rows are ignored by
 * every read and removed by `purgeExpired` (run it from a timer or a job).
 *
 * @throws {FwDefinitionError} when `knex` is not a knex instance or `table` is not a plain
 * (optionally schema-qualified) identifier.
 * @example
 * const store = new KnexTokenStore({ knex: knex({ client: 'pg', connection: process.env.DATABASE_URL }) });
 */
export class KnexTokenStore implements TokenStore {
  /** The knex instance the store queries. */
  readonly knex: Knex;
  /** The token table. */
  readonly table: string;

  constructor(options: KnexTokenStoreOptions) {
    if (typeof options !== 'object' || options === null) throw new FwDefinitionError('KnexTokenStore', 'options must be an object');
    const { knex, table = 'fw_token' } = options;
    if (typeof knex !== 'function' || typeof knex.raw !== 'function' || typeof knex.transaction !== 'function') {
      throw new FwDefinitionError('KnexTokenStore.knex', 'must be a knex instance');
    }
    if (typeof table !== 'string' || !TABLE_NAME.test(table)) {
      throw new FwDefinitionError('KnexTokenStore.table', `must be a table name such as fw_token or schema.fw_token, got ${JSON.stringify(table)}`);
    }
    this.knex = knex;
    this.table = table;
  }

  async save(record: TokenRecord, now: number): Promise<boolean> {
    checkRecord(record, now);
    // An expired row with the same hash may linger until the next purge; it must not block the
    // insert (the primary key would refuse it).
    await this.rows().where('token_hash', record.hash).andWhere('expires_at', '<=', now).del();
    try {
      await this.rows().insert({
        token_hash: record.hash,
        user_id: record.userId,
        expires_at: record.expiresAt,
        created_at: record.createdAt,
        is_admin: record.admin === true,
      });
      return true;
    } catch (error) {
      // Primary-key violations have a different code on every dialect; asking for the row is
      // the portable way to tell "already registered" from a real failure.
      const existing = await this.rows().where('token_hash', record.hash).first('token_hash');
      if (existing) return false;
      throw error;
    }
  }

  async find(hash: string, now: number): Promise<TokenRecord | undefined> {
    checkNow(now);
    if (!isHashShape(hash)) return undefined;
    const row = await this.rows().where('token_hash', hash).andWhere('expires_at', '>', now).first('token_hash', 'user_id', 'expires_at', 'created_at', 'is_admin');
    return row ? toRecord(row) : undefined;
  }

  async delete(hash: string): Promise<boolean> {
    if (!isHashShape(hash)) return false;
    return (await this.rows().where('token_hash', hash).del()) > 0;
  }

  async deleteByUser(userId: number, keepHash?: string): Promise<number> {
    checkUserId(userId);
    const rows = this.rows().where('user_id', userId);
    // A keepHash of another shape names no stored row, so nothing is kept.
    if (isHashShape(keepHash)) rows.andWhereNot('token_hash', keepHash);
    return rows.del();
  }

  async extend(hash: string, expiresAt: number, now: number): Promise<boolean> {
    checkNow(now);
    if (!Number.isSafeInteger(expiresAt)) throw new TypeError('expiresAt must be a whole number of epoch milliseconds');
    if (!isHashShape(hash)) return false;
    // One conditional UPDATE: a row deleted by another instance is not recreated, and two
    // instances renewing at once can only move the expiry forward.
    const changed = await this.rows().where('token_hash', hash).andWhere('expires_at', '>', now).andWhere('expires_at', '<', expiresAt).update({ expires_at: expiresAt });
    if (changed > 0) return true;
    return (await this.rows().where('token_hash', hash).andWhere('expires_at', '>', now).first('token_hash')) !== undefined;
  }

  async listByUser(userId: number, now: number): Promise<TokenRecord[]> {
    checkUserId(userId);
    checkNow(now);
    const rows = await this.rows()
      .where('user_id', userId)
      .andWhere('expires_at', '>', now)
      .orderBy('created_at', 'desc')
      .orderBy('token_hash', 'asc')
      .select('token_hash', 'user_id', 'expires_at', 'created_at', 'is_admin', 'last_seen_at');
    return rows.map((row) => {
      const record = toRecord(row);
      // char(64) pads on some dialects; the hash is 64 characters anyway, trimmed for safety.
      record.hash = record.hash.trimEnd();
      if (row.last_seen_at !== null && row.last_seen_at !== undefined) record.lastSeenAt = toNumber(row.last_seen_at, 'last_seen_at');
      return record;
    });
  }

  async touch(hash: string, at: number): Promise<void> {
    checkNow(at);
    if (!isHashShape(hash)) return;
    // Conditional, so instances racing to record the same minute write once, and an expired or
    // revoked row is never touched (nor recreated: an UPDATE cannot insert).
    await this.rows()
      .where('token_hash', hash)
      .andWhere('expires_at', '>', at)
      .andWhere((q) => q.whereNull('last_seen_at').orWhere('last_seen_at', '<', at))
      .update({ last_seen_at: at });
  }

  async listUsers(now: number, page: { offset: number; limit: number }): Promise<TokenUserPage> {
    checkNow(now);
    checkPage(page);
    const live = () => this.rows().where('expires_at', '>', now);
    const [counted] = await this.knex.from(live().distinct('user_id').as('u')).count({ n: '*' });
    const total = toNumber(counted?.n ?? 0, 'count');
    if (total === 0 || page.offset >= total) return { total, users: [] };
    // One grouped read over the live rows, served by the user_id and expires_at indexes.
    const rows: Array<Record<string, unknown>> = await live()
      .groupBy('user_id')
      .select('user_id')
      .count({ sessions: '*' })
      .max({ expires: 'expires_at', seen: 'last_seen_at', created: 'created_at' })
      .orderBy('expires', 'desc')
      .orderBy('user_id', 'asc')
      .offset(page.offset)
      .limit(page.limit);
    const users = rows.map((row) => {
      const created = toNumber(row.created, 'created_at');
      const seen = row.seen === null || row.seen === undefined ? created : toNumber(row.seen, 'last_seen_at');
      return {
        userId: toNumber(row.user_id, 'user_id'),
        sessions: toNumber(row.sessions, 'count'),
        lastSeenAt: Math.max(seen, created),
        expiresAt: toNumber(row.expires, 'expires_at'),
      };
    });
    return { total, users };
  }

  async purgeExpired(now: number): Promise<number> {
    checkNow(now);
    return this.rows().where('expires_at', '<=', now).del();
  }

  private rows(): Knex.QueryBuilder<TokenRow, TokenRow[]> {
    return this.knex<TokenRow, TokenRow[]>(this.table);
  }
}
