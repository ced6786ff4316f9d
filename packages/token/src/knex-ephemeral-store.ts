import { FwDefinitionError } from '@fw/core';
import type { Knex } from 'knex';
import { checkEphemeralKey, checkEphemeralValue, checkTtl, expiryOf, parseCount, readClock, type EphemeralStore } from './ephemeral-store.js';
import { TABLE_NAME, toNumber } from './knex-store.js';

/** Options of {@link KnexEphemeralStore}. */
export interface KnexEphemeralStoreOptions {
  /** A knex instance on any supported dialect (SQLite, PostgreSQL, MySQL/MariaDB, SQL Server). */
  knex: Knex;
  /**
   * Table holding the entries, optionally schema-qualified. It must exist with the columns
   * `key` varchar(191) primary key, `value` varchar(1024) not null and `expires_at` bigint not
   * null (epoch ms, indexed); `@fw/store`'s migrations create it. On MySQL/MariaDB give `key` a
   * binary collation (`utf8mb4_bin`), or keys differing only in case share one entry.
   * @default 'fw_kv'
   */
  table?: string;
  /**
   * The clock, epoch milliseconds; inject one to move time in tests. Every instance sharing the
   * table compares expiries with its own clock, so keep the servers' clocks synchronised (NTP).
   * @default Date.now
   */
  now?: () => number;
}

interface KvRow {
  key: string;
  value: string;
  expires_at: number | string;
}

// Each turn of a write loop fails only when another instance changed the same row between two
// statements of this one (created, restarted, replaced or deleted it), so a handful of turns is
// plenty; the bound turns a pathological table (say, a trigger rewriting rows) into an error
// instead of a hung request.
const MAX_ATTEMPTS = 50;

// A deadlock between racing writers of one key (InnoDB locks the gap a missing row would fill, so
// a restart and an insert of the same key can deadlock; PostgreSQL's 40P01 likewise): the
// database rolled the statement back, so it is a lost race like a duplicate, and is tried again.
function isDeadlock(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { code, errno } = error as { code?: unknown; errno?: unknown };
  return code === 'ER_LOCK_DEADLOCK' || errno === 1213 || code === '40P01';
}

// Codes of a primary-key violation: PostgreSQL, MySQL/MariaDB, SQLite, SQL Server (2627, 2601).
function isDuplicateKey(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { code, number } = error as { code?: unknown; number?: unknown };
  return code === '23505' || code === 'ER_DUP_ENTRY' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY' || number === 2627 || number === 2601;
}

/**
 * Counters and short-lived values in a SQL table through knex, for app instances that share a
 * database. Increments and takes are atomic across instances and work on SQLite, PostgreSQL,
 * MySQL/MariaDB and SQL Server without long transactions:
 *
 * - `increment` adds 1 to a live row in one `UPDATE … WHERE expires_at > now`, which the
 *   database serialises on the row (the new count comes back through `RETURNING`/`OUTPUT`; on
 *   MySQL, which has neither, a `SELECT` in the same short transaction reads it under the row
 *   lock the `UPDATE` holds). A missing key is inserted; an expired one restarted by one
 *   conditional `UPDATE`; a caller that loses either race to another instance tries again.
 * - `take` reads the row, then deletes it only if it still holds what was read: of two takes,
 *   one deletes it and returns the value, the other deletes nothing and finds it gone.
 * - `set` updates the row, or inserts it when there is none, again retrying after a lost race.
 *
 * Reads ignore expired rows; `purgeExpired()` deletes them (run it from a timer or a job).
 *
 * @throws {FwDefinitionError} when `knex` is not a knex instance, `table` is not a plain
 * (optionally schema-qualified) identifier, or `now` is not a function.
 * @example
 * const ephemeral = new KnexEphemeralStore({ knex: store.knex });
 * const failures = await ephemeral.increment('login-fail:ip:203.0.113.9', 15 * 60_000);
 */
export class KnexEphemeralStore implements EphemeralStore {
  /** The knex instance the store queries. */
  readonly knex: Knex;
  /** The table of entries. */
  readonly table: string;
  private readonly now: () => number;
  /** MySQL/MariaDB: no `UPDATE … RETURNING`, so increments read the count back in a transaction. */
  private readonly readBackInTransaction: boolean;

  constructor(options: KnexEphemeralStoreOptions) {
    if (typeof options !== 'object' || options === null) throw new FwDefinitionError('KnexEphemeralStore', 'options must be an object');
    const { knex, table = 'fw_kv', now = Date.now } = options;
    if (typeof knex !== 'function' || typeof knex.raw !== 'function' || typeof knex.transaction !== 'function' || typeof knex.client !== 'object') {
      throw new FwDefinitionError('KnexEphemeralStore.knex', 'must be a knex instance');
    }
    if (typeof table !== 'string' || !TABLE_NAME.test(table)) {
      throw new FwDefinitionError('KnexEphemeralStore.table', `must be a table name such as fw_kv or schema.fw_kv, got ${JSON.stringify(table)}`);
    }
    if (typeof now !== 'function') throw new FwDefinitionError('KnexEphemeralStore.now', 'must be a function returning epoch milliseconds');
    this.knex = knex;
    this.table = table;
    this.now = now;
    this.readBackInTransaction = knex.client.dialect === 'mysql';
  }

  async increment(key: string, ttlMs: number): Promise<number> {
    checkEphemeralKey(key);
    checkTtl(ttlMs);
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      try {
        const now = readClock(this.now);
        const count = await this.addOne(key, now);
        if (count !== undefined) return count;
        const expiresAt = expiryOf(now, ttlMs);
        // Missing or expired. Only one of several callers can restart an expired row (the others
        // no longer match `expires_at <= now`) or insert a missing one (the others hit the primary
        // key); they go round again and find it live.
        const restarted = await this.rows().where('key', key).andWhere('expires_at', '<=', now).update({ value: '1', expires_at: expiresAt });
        if (restarted > 0) return 1;
        if (await this.insert(key, '1', expiresAt)) return 1;
      } catch (error) {
        if (!isDeadlock(error)) throw error;
      }
    }
    throw this.gaveUp('increment');
  }

  async get(key: string): Promise<string | undefined> {
    checkEphemeralKey(key);
    const row = await this.rows().where('key', key).andWhere('expires_at', '>', readClock(this.now)).first('value');
    return row?.value;
  }

  async set(key: string, value: string, ttlMs: number): Promise<void> {
    checkEphemeralKey(key);
    checkEphemeralValue(value);
    checkTtl(ttlMs);
    const expiresAt = expiryOf(readClock(this.now), ttlMs);
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      // mysql2 and mysql report matched rows (their default FOUND_ROWS flag), so rewriting an
      // identical row still counts as done.
      if ((await this.rows().where('key', key).update({ value, expires_at: expiresAt })) > 0) return;
      if (await this.insert(key, value, expiresAt)) return;
    }
    throw this.gaveUp('set');
  }

  async take(key: string): Promise<string | undefined> {
    checkEphemeralKey(key);
    const now = readClock(this.now);
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const row = await this.rows().where('key', key).first('value', 'expires_at');
      if (!row) return undefined;
      // Deleting only the row as it was read makes read and delete one step: a concurrent take
      // (or set) changes the row, this DELETE then matches nothing and the loop reads again.
      const deleted = await this.rows().where('key', key).andWhere('value', row.value).andWhere('expires_at', row.expires_at).del();
      if (deleted > 0) return toNumber(row.expires_at, 'expires_at') > now ? row.value : undefined;
    }
    throw this.gaveUp('take');
  }

  async delete(key: string): Promise<void> {
    checkEphemeralKey(key);
    await this.rows().where('key', key).del();
  }

  async ttl(key: string): Promise<number | undefined> {
    checkEphemeralKey(key);
    const now = readClock(this.now);
    const row = await this.rows().where('key', key).andWhere('expires_at', '>', now).first('expires_at');
    return row ? toNumber(row.expires_at, 'expires_at') - now : undefined;
  }

  async purgeExpired(): Promise<number> {
    return this.rows().where('expires_at', '<=', readClock(this.now)).del();
  }

  /** Adds 1 to a row live at `now` and resolves the new count, or `undefined` when there is none. */
  private async addOne(key: string, now: number): Promise<number | undefined> {
    if (!this.readBackInTransaction) {
      const rows = await this.rows()
        .where('key', key)
        .andWhere('expires_at', '>', now)
        .update({ value: this.knex.raw('CAST(CAST(?? AS BIGINT) + 1 AS VARCHAR(1024))', ['value']) }, ['value']);
      const row = rows[0];
      return row ? parseCount(row.value) : undefined;
    }
    return this.knex.transaction(async (trx) => {
      const changed = await trx<KvRow, KvRow[]>(this.table)
        .where('key', key)
        .andWhere('expires_at', '>', now)
        .update({ value: trx.raw('CAST(?? AS SIGNED) + 1', ['value']) });
      if (changed === 0) return undefined;
      const row = await trx<KvRow, KvRow[]>(this.table).where('key', key).first('value');
      return row ? parseCount(row.value) : undefined;
    });
  }

  /** Inserts a row; resolves `false` when a row with this key already exists (a lost race). */
  private async insert(key: string, value: string, expiresAt: number): Promise<boolean> {
    try {
      await this.rows().insert({ key, value, expires_at: expiresAt });
      return true;
    } catch (error) {
      if (isDuplicateKey(error)) return false;
      // An unrecognised driver error code: asking for the row tells a duplicate from a failure.
      if ((await this.rows().where('key', key).first('key')) !== undefined) return false;
      throw error;
    }
  }

  private gaveUp(method: string): Error {
    return new Error(`KnexEphemeralStore.${method}: the row kept changing under concurrent writes; gave up after ${MAX_ATTEMPTS} attempts`);
  }

  private rows(): Knex.QueryBuilder<KvRow, KvRow[]> {
    return this.knex<KvRow, KvRow[]>(this.table);
  }
}
