import { createRequire } from 'node:module';
import type Database from 'better-sqlite3';
import type { RepositoryContext } from './context.js';
import { isRowId, toBoolean, toDate, toId } from './values.js';

/** A live token with its user and the current grants version, from one lookup. */
export interface SessionRecord {
  userId: number;
  /** Token expiry, epoch milliseconds. */
  expiresAt: number;
  /**
   * The token itself makes its user an administrator (`fw_token.is_admin`: a login hook said so
   * at sign-in), separately from the stored `user.isAdmin`.
   */
  tokenAdmin: boolean;
  user: {
    id: number;
    account: string;
    name: string | null;
    isAdmin: boolean;
    status: string;
    expireDate: Date | null;
    whiteIp: string | null;
  };
  /** `store.grants.version()` as of the same read. */
  grantsVersion: number;
}

/** A user as the authentication path needs it, with the grants version of the same read. */
export interface SessionUserRecord {
  user: SessionRecord['user'];
  /** `store.grants.version()` as of the same read. */
  grantsVersion: number;
}

/**
 * The per-request lookups of the authentication path: a token hash of `fw_token` (as
 * `@fw/token`'s `KnexTokenStore` writes it), its user and the grants version, in one query
 * instead of three; or, for tokens kept elsewhere (memory, Redis), the user and grants version by
 * id. Both read fresh rows on every call (no cache), so a lock, an expiry or a deletion written by
 * any instance applies to the next request.
 */
export interface SessionRepository {
  /** The session of a live token (expiry after `now`), or undefined. */
  lookup(tokenHash: string, now: number): Promise<SessionRecord | undefined>;
  /**
   * The user with this id (admin flag, status, expiry, allowlist) and the grants version, in one
   * query, or undefined when there is no such user.
   */
  user(userId: number): Promise<SessionUserRecord | undefined>;
  /** Releases the extra read connection, if one was opened. @internal */
  close(): void;
}

const GRANTS_VERSION = `(select m.value from fw_meta m where m.name = 'grants_version') as grants_version`;

const SQL = `select t.user_id, t.expires_at, t.is_admin as token_admin, u.account, u.name, u.is_admin, u.status, u.expire_date, u.white_ip,
  ${GRANTS_VERSION}
from fw_token t inner join fw_user u on u.id = t.user_id
where t.token_hash = ? and t.expires_at > ?`;

/** {@link SQL} with PostgreSQL's numbered parameters. */
const PG_SQL = SQL.replace('t.token_hash = ?', 't.token_hash = $1').replace('t.expires_at > ?', 't.expires_at > $2');

const USER_SQL = `select u.id as user_id, u.account, u.name, u.is_admin, u.status, u.expire_date, u.white_ip,
  ${GRANTS_VERSION}
from fw_user u
where u.id = ?`;

/** {@link USER_SQL} with PostgreSQL's numbered parameter. */
const PG_USER_SQL = USER_SQL.replace('u.id = ?', 'u.id = $1');

/** The columns both queries select from `fw_user` and `fw_meta`, for the query builder path. */
const USER_COLUMNS = ['u.account', 'u.name', 'u.is_admin', 'u.status', 'u.expire_date', 'u.white_ip'] as const;

/** The parts of knex's PostgreSQL client and of a node-postgres connection the prepared lookup uses. */
interface PgKnexClient {
  acquireConnection(): Promise<unknown>;
  releaseConnection(connection: unknown): unknown;
}
interface PgConnection {
  query(config: { name: string; text: string; values: unknown[] }): Promise<{ rows: Array<Record<string, unknown>> }>;
}

function toSessionUser(row: Record<string, unknown>): SessionUserRecord {
  return {
    user: {
      id: toId(row.user_id),
      account: String(row.account),
      name: row.name === null || row.name === undefined ? null : String(row.name),
      isAdmin: toBoolean(row.is_admin),
      status: String(row.status),
      expireDate: toDate(row.expire_date),
      whiteIp: row.white_ip === null || row.white_ip === undefined ? null : String(row.white_ip),
    },
    grantsVersion: row.grants_version === null || row.grants_version === undefined ? 0 : Number(row.grants_version),
  };
}

function toSession(row: Record<string, unknown>): SessionRecord {
  const { user, grantsVersion } = toSessionUser(row);
  return { userId: user.id, expiresAt: Number(row.expires_at), tokenAdmin: toBoolean(row.token_admin), user, grantsVersion };
}

/**
 * @param sqliteFile for a SQLite file database: the lookup runs as a prepared statement on a
 * read-only connection of its own. In WAL mode that connection sees committed data only and never
 * waits for the writer, and it skips the query builder on the hottest query of the app.
 * @internal
 */
export function createSessionRepository(ctx: RepositoryContext, sqliteFile: string | undefined): SessionRepository {
  let reader: Database.Database | undefined;
  const statements = new Map<string, Database.Statement>();
  let prepared = sqliteFile !== undefined;
  const knexConfig = (ctx.knex.client as unknown as { config?: { postProcessResponse?: unknown; wrapIdentifier?: unknown } }).config;
  const pgPrepared = ctx.dialect === 'postgres' && !knexConfig?.postProcessResponse && !knexConfig?.wrapIdentifier;

  function preparedStatement(sql: string): Database.Statement | undefined {
    if (!prepared) return undefined;
    let statement = statements.get(sql);
    if (statement) return statement;
    try {
      // Loaded here, not imported: better-sqlite3 is an optional peer of @fw/store, present whenever
      // the store is on SQLite (knex needs it too).
      const BetterSqlite = createRequire(import.meta.url)('better-sqlite3') as typeof Database;
      reader ??= new BetterSqlite(sqliteFile!, { readonly: true, fileMustExist: true });
      statement = reader.prepare(sql);
      statements.set(sql, statement);
      return statement;
    } catch {
      // No file or tables yet (before migrations): the query builder path works and retries later.
      return undefined;
    }
  }

  /** PostgreSQL: a named statement, parsed and planned once per connection. */
  async function pgRow(name: string, text: string, values: unknown[]): Promise<Record<string, unknown> | undefined> {
    const client = ctx.knex.client as unknown as PgKnexClient;
    const connection = (await client.acquireConnection()) as PgConnection;
    try {
      return (await connection.query({ name, text, values })).rows[0];
    } finally {
      client.releaseConnection(connection);
    }
  }

  const grantsVersion = () => ctx.knex('fw_meta').where('name', 'grants_version').select('value').as('grants_version');

  return {
    async lookup(tokenHash, now) {
      const fast = preparedStatement(SQL);
      if (fast) {
        const row = fast.get(tokenHash, now) as Record<string, unknown> | undefined;
        return row ? toSession(row) : undefined;
      }
      if (pgPrepared) {
        const row = await pgRow('fw_session_lookup', PG_SQL, [tokenHash, now]);
        return row ? toSession(row) : undefined;
      }
      const row: Record<string, unknown> | undefined = await ctx
        .knex('fw_token as t')
        .join('fw_user as u', 'u.id', 't.user_id')
        .where('t.token_hash', tokenHash)
        .andWhere('t.expires_at', '>', now)
        .first('t.user_id', 't.expires_at', 't.is_admin as token_admin', ...USER_COLUMNS, grantsVersion());
      return row ? toSession(row) : undefined;
    },
    async user(userId) {
      if (!isRowId(userId)) return undefined;
      const fast = preparedStatement(USER_SQL);
      if (fast) {
        const row = fast.get(userId) as Record<string, unknown> | undefined;
        return row ? toSessionUser(row) : undefined;
      }
      if (pgPrepared) {
        const row = await pgRow('fw_session_user', PG_USER_SQL, [userId]);
        return row ? toSessionUser(row) : undefined;
      }
      const row: Record<string, unknown> | undefined = await ctx
        .knex('fw_user as u')
        .where('u.id', userId)
        .first('u.id as user_id', ...USER_COLUMNS, grantsVersion());
      return row ? toSessionUser(row) : undefined;
    },
    close() {
      prepared = false;
      statements.clear();
      reader?.close();
      reader = undefined;
    },
  };
}
