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
    /**
     * The user holds a local password an administrator set and has not changed since
     * (`password_hash` set, `reset_pwd_time` null): read here so that the authentication path
     * can hold such a token to the password change without another query (issue 19 §3).
     */
    mustChangePassword: boolean;
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
 * id. Both answer with the committed rows as of the call, so a lock, an expiry or a deletion
 * written by any instance applies to the next request. (On a SQLite file, rows are kept while
 * nothing is committed to the file: see `CommittedRows`.)
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

/** 1 when the user must change the password first (see `mustChangePassword`); portable to every dialect. */
const MUST_CHANGE = 'case when u.password_hash is not null and u.reset_pwd_time is null then 1 else 0 end as must_change_pwd';

const SQL = `select t.user_id, t.expires_at, t.is_admin as token_admin, u.account, u.name, u.is_admin, u.status, u.expire_date, u.white_ip,
  ${MUST_CHANGE}, ${GRANTS_VERSION}
from fw_token t inner join fw_user u on u.id = t.user_id
where t.token_hash = ? and t.expires_at > ?`;

/** {@link SQL} on the SQLite reader, without the expiry (compared in JS, so the row can be kept). */
const SQLITE_SQL = SQL.replace(' and t.expires_at > ?', '');

/** SQLite's count of commits by other connections, as this connection has seen them. */
const DATA_VERSION = 'PRAGMA data_version';

/**
 * The grants version for MariaDB/MySQL: joined (a constant row by primary key; absent, it reads as
 * null, as the subquery does) rather than a subquery, which MariaDB plans for less.
 */
const mysqlGrantsJoined = (sql: string, where: string) =>
  sql.replace(GRANTS_VERSION, 'm.value as grants_version').replace(where, `left join fw_meta m on m.name = 'grants_version'\n${where}`);

/** {@link SQL} for MariaDB/MySQL, the grants version joined. */
const MYSQL_SQL = mysqlGrantsJoined(SQL, 'where t.token_hash');

/** {@link SQL} with PostgreSQL's numbered parameters. */
const PG_SQL = SQL.replace('t.token_hash = ?', 't.token_hash = $1').replace('t.expires_at > ?', 't.expires_at > $2');

const USER_SQL = `select u.id as user_id, u.account, u.name, u.is_admin, u.status, u.expire_date, u.white_ip,
  ${MUST_CHANGE}, ${GRANTS_VERSION}
from fw_user u
where u.id = ?`;

/** {@link USER_SQL} for MariaDB/MySQL, the grants version joined. */
const MYSQL_USER_SQL = mysqlGrantsJoined(USER_SQL, 'where u.id');

/** {@link USER_SQL} with PostgreSQL's numbered parameter. */
const PG_USER_SQL = USER_SQL.replace('u.id = ?', 'u.id = $1');

/** The columns both queries select from `fw_user` and `fw_meta`, for the query builder path. */
const USER_COLUMNS = ['u.account', 'u.name', 'u.is_admin', 'u.status', 'u.expire_date', 'u.white_ip'] as const;

/**
 * Rows read on the SQLite read-only connection, kept while the database is unchanged.
 * `PRAGMA data_version` on that connection changes whenever any other connection, in this
 * process or another, commits a change to the file (and that connection never writes itself), so
 * a row kept under the version read just before answers exactly what reading it again would: a
 * logout, a lock, a new role or a deleted user, committed anywhere, clears everything kept. With
 * no write in between, a request's token check costs the version read and a map lookup.
 */
class CommittedRows {
  #version = Number.NaN;
  readonly #rows = new Map<string, Record<string, unknown>>();

  /** Drops every kept row unless the database is still at `version`. */
  at(version: number): void {
    if (version === this.#version) return;
    this.#version = version;
    this.#rows.clear();
  }

  get(key: string): Record<string, unknown> | undefined {
    return this.#rows.get(key);
  }

  /** Keeps a row found (never an absence: unknown tokens are not remembered), up to a bound. */
  set(key: string, row: Record<string, unknown>): void {
    if (this.#rows.size >= 10_000) this.#rows.clear();
    this.#rows.set(key, row);
  }
}

/**
 * The part of a better-sqlite3 connection read here (structural, so that the declarations of this
 * package need no better-sqlite3 types: the driver is an optional peer).
 */
export interface SqliteConnection {
  prepare(sql: string): SqliteStatement;
}
/** The part of a better-sqlite3 statement read here. */
export interface SqliteStatement {
  get(...bindings: unknown[]): unknown;
}

/** The parts of knex's client (PostgreSQL, MariaDB/MySQL) and of a node-postgres connection the direct lookups use. */
interface PgKnexClient {
  acquireConnection(): Promise<unknown>;
  releaseConnection(connection: unknown): unknown;
}
interface PgConnection {
  query(config: { name: string; text: string; values: unknown[] }): Promise<{ rows: Array<Record<string, unknown>> }>;
}
/** The part of a mysql2 (or mysqljs, without `execute`) connection the lookup uses, callback form as knex uses it. */
type MysqlCallback = (error: (Error & { errno?: number }) | null, rows: unknown) => void;
interface MysqlConnection {
  execute?(sql: string, values: unknown[], callback: MysqlCallback): unknown;
  query(sql: string, values: unknown[], callback: MysqlCallback): unknown;
}

/** MariaDB/MySQL's ER_MAX_PREPARED_STMT_COUNT_REACHED: the server-wide count of prepared statements is full. */
const MAX_PREPARED_REACHED = 1461;

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
      mustChangePassword: toBoolean(row.must_change_pwd),
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
export function createSessionRepository(
  ctx: RepositoryContext,
  sqliteFile: string | undefined,
  idleWriter: () => SqliteConnection | undefined = () => undefined,
): SessionRepository {
  let reader: Database.Database | undefined;
  const statements = new Map<string, Database.Statement>();
  let prepared = sqliteFile !== undefined;
  const rows = new CommittedRows();
  const writerStatements = new WeakMap<SqliteConnection, Map<string, SqliteStatement>>();
  const knexConfig = (ctx.knex.client as unknown as { config?: { postProcessResponse?: unknown; wrapIdentifier?: unknown } }).config;
  const plainKnex = !knexConfig?.postProcessResponse && !knexConfig?.wrapIdentifier;
  const pgPrepared = ctx.dialect === 'postgres' && plainKnex;
  // MariaDB/MySQL: the fixed text straight to the pooled connection, without the query builder.
  const mysqlText = ctx.dialect === 'mysql' && plainKnex;

  /**
   * The row `sql` answers for `key`, on the read-only SQLite connection: from {@link CommittedRows}
   * while nothing was committed since it was read, else read now. Undefined when the statement
   * cannot be prepared yet.
   */
  function committedRow(sql: string, key: string, binding: string | number): { row: Record<string, unknown> | undefined } | undefined {
    const statement = preparedStatement(sql);
    const version = statement && preparedStatement(DATA_VERSION);
    if (!statement || !version) return undefined;
    rows.at(version.get() as number);
    const known = rows.get(key);
    if (known) return { row: known };
    const row = readFresh(sql, statement, binding);
    if (row) rows.set(key, row);
    return { row };
  }

  /**
   * The row read now, on the pool's own connection when it is free (between statements of this
   * single-threaded process, outside any transaction, it reads committed data like the read-only
   * connection does), else on the read-only connection. Any commit empties a SQLite connection's
   * page cache except the committing connection's own: after the writes of this process, the
   * pool's connection still holds the pages this read needs, where the read-only one reads them
   * from the file again.
   */
  function readFresh(sql: string, onReader: Database.Statement, binding: string | number): Record<string, unknown> | undefined {
    const writer = idleWriter();
    if (writer) {
      try {
        let own = writerStatements.get(writer);
        if (!own) writerStatements.set(writer, (own = new Map()));
        let statement = own.get(sql);
        if (!statement) own.set(sql, (statement = writer.prepare(sql)));
        return statement.get(binding) as Record<string, unknown> | undefined;
      } catch {
        // Busy with a statement still being stepped (an open iterator), or not migrated: the reader answers.
      }
    }
    return onReader.get(binding) as Record<string, unknown> | undefined;
  }

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
      if (sql === DATA_VERSION) statement.pluck();
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

  /**
   * MariaDB/MySQL: a server-side prepared statement on a pooled connection (mysql2 prepares it once
   * per connection and keeps it), skipping knex's query builder and runner. The server then parses
   * the text once per connection: it costs MariaDB a quarter less per lookup than the same text sent
   * each time, with the process's own work about the same. The plain text instead on a driver
   * without prepared statements (a host's knex on mysqljs), and when the server's count of
   * prepared statements, shared by all its clients, is full.
   */
  async function mysqlRow(text: string, values: unknown[]): Promise<Record<string, unknown> | undefined> {
    const client = ctx.knex.client as unknown as PgKnexClient;
    const connection = (await client.acquireConnection()) as MysqlConnection;
    const run = (prepared: boolean) =>
      new Promise<unknown>((resolve, reject) => {
        const done: MysqlCallback = (error, result) => (error ? reject(error) : resolve(result));
        if (prepared) connection.execute!(text, values, done);
        else connection.query(text, values, done);
      });
    try {
      const rows = await (typeof connection.execute === 'function'
        ? run(true).catch((error: { errno?: unknown }) => (error?.errno === MAX_PREPARED_REACHED ? run(false) : Promise.reject(error)))
        : run(false));
      return (rows as Array<Record<string, unknown>>)[0];
    } finally {
      client.releaseConnection(connection);
    }
  }

  const grantsVersion = () => ctx.knex('fw_meta').where('name', 'grants_version').select('value').as('grants_version');

  return {
    async lookup(tokenHash, now) {
      // The row is read (and kept) whatever its expiry, which is then compared with `now` here, as
      // the SQL statement does: an expired token is no session, however it was found.
      const fast = committedRow(SQLITE_SQL, `t${tokenHash}`, tokenHash);
      if (fast) return fast.row && Number(fast.row.expires_at) > now ? toSession(fast.row) : undefined;
      if (pgPrepared) {
        const row = await pgRow('fw_session_lookup', PG_SQL, [tokenHash, now]);
        return row ? toSession(row) : undefined;
      }
      if (mysqlText) {
        const row = await mysqlRow(MYSQL_SQL, [tokenHash, now]);
        return row ? toSession(row) : undefined;
      }
      const row: Record<string, unknown> | undefined = await ctx
        .knex('fw_token as t')
        .join('fw_user as u', 'u.id', 't.user_id')
        .where('t.token_hash', tokenHash)
        .andWhere('t.expires_at', '>', now)
        .first('t.user_id', 't.expires_at', 't.is_admin as token_admin', ...USER_COLUMNS, ctx.knex.raw(MUST_CHANGE), grantsVersion());
      return row ? toSession(row) : undefined;
    },
    async user(userId) {
      if (!isRowId(userId)) return undefined;
      const fast = committedRow(USER_SQL, `u${userId}`, userId);
      if (fast) return fast.row ? toSessionUser(fast.row) : undefined;
      if (pgPrepared) {
        const row = await pgRow('fw_session_user', PG_USER_SQL, [userId]);
        return row ? toSessionUser(row) : undefined;
      }
      if (mysqlText) {
        const row = await mysqlRow(MYSQL_USER_SQL, [userId]);
        return row ? toSessionUser(row) : undefined;
      }
      const row: Record<string, unknown> | undefined = await ctx
        .knex('fw_user as u')
        .where('u.id', userId)
        .first('u.id as user_id', ...USER_COLUMNS, ctx.knex.raw(MUST_CHANGE), grantsVersion());
      return row ? toSessionUser(row) : undefined;
    },
    close() {
      prepared = false;
      statements.clear();
      rows.at(Number.NaN);
      reader?.close();
      reader = undefined;
    },
  };
}
