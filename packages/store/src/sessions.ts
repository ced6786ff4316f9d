import { createRequire } from 'node:module';
import type Database from 'better-sqlite3';
import type { RepositoryContext } from './context.js';
import { toBoolean, toDate, toId } from './values.js';

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

/**
 * The per-request lookup of the authentication path: a token hash of `fw_token` (as
 * `@fw/token`'s `KnexTokenStore` writes it), its user and the grants version, in one query
 * instead of three.
 */
export interface SessionRepository {
  /** The session of a live token (expiry after `now`), or undefined. */
  lookup(tokenHash: string, now: number): Promise<SessionRecord | undefined>;
  /** Releases the extra read connection, if one was opened. @internal */
  close(): void;
}

const SQL = `select t.user_id, t.expires_at, t.is_admin as token_admin, u.account, u.name, u.is_admin, u.status, u.expire_date, u.white_ip,
  (select m.value from fw_meta m where m.name = 'grants_version') as grants_version
from fw_token t inner join fw_user u on u.id = t.user_id
where t.token_hash = ? and t.expires_at > ?`;

/** {@link SQL} with PostgreSQL's numbered parameters. */
const PG_SQL = SQL.replace('t.token_hash = ?', 't.token_hash = $1').replace('t.expires_at > ?', 't.expires_at > $2');

/** The parts of knex's PostgreSQL client and of a node-postgres connection the prepared lookup uses. */
interface PgKnexClient {
  acquireConnection(): Promise<unknown>;
  releaseConnection(connection: unknown): unknown;
}
interface PgConnection {
  query(config: { name: string; text: string; values: unknown[] }): Promise<{ rows: Array<Record<string, unknown>> }>;
}

function toSession(row: Record<string, unknown>): SessionRecord {
  const userId = toId(row.user_id);
  return {
    userId,
    expiresAt: Number(row.expires_at),
    tokenAdmin: toBoolean(row.token_admin),
    user: {
      id: userId,
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

/**
 * @param sqliteFile for a SQLite file database: the lookup runs as a prepared statement on a
 * read-only connection of its own. In WAL mode that connection sees committed data only and never
 * waits for the writer, and it skips the query builder on the hottest query of the app.
 * @internal
 */
export function createSessionRepository(ctx: RepositoryContext, sqliteFile: string | undefined): SessionRepository {
  let reader: Database.Database | undefined;
  let statement: Database.Statement | undefined;
  let prepared = sqliteFile !== undefined;
  const knexConfig = (ctx.knex.client as unknown as { config?: { postProcessResponse?: unknown; wrapIdentifier?: unknown } }).config;
  const pgPrepared = ctx.dialect === 'postgres' && !knexConfig?.postProcessResponse && !knexConfig?.wrapIdentifier;

  function preparedStatement(): Database.Statement | undefined {
    if (!prepared) return undefined;
    if (statement) return statement;
    try {
      // Loaded here, not imported: better-sqlite3 is an optional peer of @fw/store, present whenever
      // the store is on SQLite (knex needs it too).
      const BetterSqlite = createRequire(import.meta.url)('better-sqlite3') as typeof Database;
      reader ??= new BetterSqlite(sqliteFile!, { readonly: true, fileMustExist: true });
      statement ??= reader.prepare(SQL);
      return statement;
    } catch {
      // No file or tables yet (before migrations): the query builder path works and retries later.
      return undefined;
    }
  }

  return {
    async lookup(tokenHash, now) {
      const fast = preparedStatement();
      if (fast) {
        const row = fast.get(tokenHash, now) as Record<string, unknown> | undefined;
        return row ? toSession(row) : undefined;
      }
      const { knex } = ctx;
      if (pgPrepared) {
        // PostgreSQL: the same query as a named statement, parsed and planned once per connection.
        const client = knex.client as unknown as PgKnexClient;
        const connection = (await client.acquireConnection()) as PgConnection;
        try {
          const row = (await connection.query({ name: 'fw_session_lookup', text: PG_SQL, values: [tokenHash, now] })).rows[0];
          return row ? toSession(row) : undefined;
        } finally {
          client.releaseConnection(connection);
        }
      }
      const row: Record<string, unknown> | undefined = await knex('fw_token as t')
        .join('fw_user as u', 'u.id', 't.user_id')
        .where('t.token_hash', tokenHash)
        .andWhere('t.expires_at', '>', now)
        .first(
          't.user_id',
          't.expires_at',
          't.is_admin as token_admin',
          'u.account',
          'u.name',
          'u.is_admin',
          'u.status',
          'u.expire_date',
          'u.white_ip',
          knex('fw_meta').where('name', 'grants_version').select('value').as('grants_version'),
        );
      return row ? toSession(row) : undefined;
    },
    close() {
      prepared = false;
      statement = undefined;
      reader?.close();
      reader = undefined;
    },
  };
}
