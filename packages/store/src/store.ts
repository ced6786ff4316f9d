import { mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { FwDefinitionError, type ModelDefinition } from '@fw/core';
import knexFactory, { type Knex } from 'knex';
import type { RepositoryContext } from './context.js';
import { dialectOfKnex, type FwDialect } from './dialect.js';
import { createLoginLogRepository, createOperateLogRepository, type LoginLogRepository, type OperateLogRepository } from './logs.js';
import { createGrantsRepository, type GrantsRepository } from './grants.js';
import { createSessionRepository, type SessionRepository, type SqliteConnection } from './sessions.js';
import { createFileRepository, type FileRepository } from './files.js';
import { createUserPrefRepository, type UserPrefRepository } from './prefs.js';
import { createSavedViewRepository, type SavedViewRepository } from './views.js';
import { createTrashRepository, type TrashRepository } from './trash.js';
import { createMenuRepository, type MenuRepository } from './menus.js';
import { fwMigrationSource, MIGRATION_TABLE, type FwMigration } from './migrations.js';
import { createModelTables, planModelTables, type ModelTablesPlan } from './model-tables.js';
import { bindModels } from './models.js';
import { createOpenApiRepository, type OpenApiRepository } from './open-apis.js';
import { createOrgRepository, type OrgRepository } from './orgs.js';
import { createRoleRepository, type RoleRepository } from './roles.js';
import { DatabaseHealth, CLIENT_GRACE_MS, classifyAcquireTimeouts, limitRawQueries } from './query-limit.js';
import { parseStoreUrl, type ParsedStoreUrl } from './url.js';
import { createUserRepository, type UserRepository } from './users.js';

/** Connection-pool bounds for a store that opens its own connections. */
export interface StorePoolOptions {
  /** Connections kept open while idle. @default 0 (1 for SQLite) */
  min?: number;
  /** Most connections at once. @default 10 (1 for SQLite: one writer at a time, and an in-memory database lives in one connection) */
  max?: number;
}

/** A store that opens its own connections from a URL. */
export interface StoreUrlOptions {
  /**
   * Database URL: `sqlite:data/app.db`, `sqlite:///abs/app.db`, `sqlite::memory:`,
   * `postgres://…`, `postgresql://…`, `mysql://…`, `mariadb://…`, `mssql://…`.
   * @example 'postgres://app:secret@db.internal:5432/app'
   */
  url: string;
  /** Connection-pool bounds. */
  pool?: StorePoolOptions;
  /** Log every query through knex's debug output. @default false */
  debug?: boolean;
  /**
   * Longest wait, in milliseconds, for a new connection to the server to be established
   * (`pg` `connectionTimeoutMillis`, `mysql2` `connectTimeout`, `tedious` `connectTimeout`). A
   * server that is down or black-holed then fails the request with 503 `UNAVAILABLE` after this
   * long instead of the drivers' 10 s to forever. Not used by SQLite.
   * @default 2000
   */
  connectTimeoutMs?: number;
  /**
   * Longest wait, in milliseconds, for a connection from the pool (knex
   * `acquireConnectionTimeout`): when every connection is stuck on a server that stopped
   * answering, further requests get 503 `UNAVAILABLE` after this long instead of knex's 60 s.
   * @default 3000 on a server database; 60000 on SQLite, where the wait is only for the one
   * writer, never for a network
   */
  acquireTimeoutMs?: number;
  /**
   * Longest time, in milliseconds, one query may take (issue 19 §4). Enforced twice: by the server
   * (PostgreSQL `statement_timeout`, MariaDB `max_statement_time`, MySQL `max_execution_time` for
   * reads, SQL Server's request timeout), which cancels a slow query and keeps the connection; and
   * by the client, a moment later, which stops waiting for a server that does not answer at all (a
   * frozen database, a network that holds the traffic) and closes that connection. Either way the
   * request answers 503 `UNAVAILABLE` with `Retry-After`. On SQLite it is the busy timeout: how
   * long a write waits for another process's lock.
   *
   * Migrations and `createModelTables` run without it, on a connection of their own. Each page of
   * an export (1,000 rows) and each row of an import is its own statement, so big transfers stay within it.
   * @default 5000
   */
  queryTimeoutMs?: number;
}

/** Default of {@link StoreUrlOptions.connectTimeoutMs}. */
export const DEFAULT_CONNECT_TIMEOUT_MS = 2000;
/** Default of {@link StoreUrlOptions.acquireTimeoutMs} on a server database. */
export const DEFAULT_ACQUIRE_TIMEOUT_MS = 3000;
const SQLITE_ACQUIRE_TIMEOUT_MS = 60_000;
/** Default of {@link StoreUrlOptions.queryTimeoutMs}. */
export const DEFAULT_QUERY_TIMEOUT_MS = 5000;

/** A store over a knex instance the host already owns (and keeps owning: `destroy()` leaves it open). */
export interface StoreKnexOptions {
  /**
   * The host's knex. Its client must be better-sqlite3 / sqlite3, pg, mysql2 / mysql or mssql. On
   * SQLite, the host turns foreign keys on for each connection (`PRAGMA foreign_keys = ON`), or
   * deletes do not cascade; on MySQL, the session time zone should be UTC (`+00:00`).
   */
  knex: Knex;
}

/** What {@link createStore} accepts besides a bare URL. */
export type StoreOptions = StoreUrlOptions | StoreKnexOptions;

/** Fw's built-in migrations, run through knex's migrator (bookkeeping in `fw_migrations`). */
export interface FwMigrator {
  /** Runs every pending migration. @returns the names it ran, oldest first. */
  latest(): Promise<string[]>;
  /** Reverts every applied migration, leaving none of the built-in tables. @returns the names it reverted, newest first. */
  rollback(): Promise<string[]>;
  /** Which migrations ran and which are pending, each oldest first. */
  status(): Promise<{ applied: string[]; pending: string[] }>;
}

/** A connection to Fw's database with its migrations and repositories. */
export interface FwStore {
  /** The knex instance every repository uses. */
  readonly knex: Knex;
  /** The SQL dialect. */
  readonly dialect: FwDialect;
  /** The built-in migrations. */
  readonly migrate: FwMigrator;
  /** `fw_user` and the user-role / user-org links. */
  /** The grants version (for power caches) and the menu codes granted to a user. */
  readonly grants: GrantsRepository;
  /** Token, user and grants version in one lookup: the authentication hot path. */
  readonly sessions: SessionRepository;
  readonly users: UserRepository;
  /** `fw_role` and the role-menu links. */
  readonly roles: RoleRepository;
  /** `fw_menu` and menu grants. */
  readonly menus: MenuRepository;
  /** `fw_org`. */
  readonly orgs: OrgRepository;
  /** `fw_login_log`. */
  readonly loginLogs: LoginLogRepository;
  /** `fw_operate_log`. */
  readonly operateLogs: OperateLogRepository;
  /** `fw_open_api`. */
  readonly openApis: OpenApiRepository;
  /** `fw_file`: uploaded files of ATTACHMENT fields. */
  readonly files: FileRepository;
  /** `fw_user_pref`: a user's own UI preferences (table layouts). */
  readonly prefs: UserPrefRepository;
  /** `fw_saved_view`: saved table views, private or shared with roles (issue 23 §1). */
  readonly views: SavedViewRepository;
  /** `fw_trash`: deleted rows of models that keep a trash, until undeleted or purged. */
  readonly trash: TrashRepository;
  /**
   * Creates the missing tables (and COLLECTION join tables) of Fw model definitions and adds the
   * columns of new fields; throws a `ModelTablesError` listing the differences that cannot be
   * applied safely, before changing anything.
   * @returns the tables created.
   */
  createModelTables(models: readonly ModelDefinition[]): Promise<string[]>;
  /** What {@link FwStore.createModelTables} would do, changing nothing (see `planModelTables`). */
  planModelTables(models: readonly ModelDefinition[]): Promise<ModelTablesPlan>;
  /**
   * Runs `close` when the store is destroyed, before its connections close: for connections other
   * packages open on the same database (e.g. the data API's read-only SQLite reader), and for work
   * that must end while they are still open (a promise `close` returns is waited for; closers run
   * one after the other, in the order they were added).
   */
  onDestroy?(close: () => void | Promise<void>): void;
  /**
   * Closes the store's connections, once what {@link onDestroy} registered has run (and the data
   * API's background counts have finished); a host-owned knex (`{ knex }`) is left open.
   */
  destroy(): Promise<void>;
}

// Minimal shapes of the raw driver connections the pool hands to `afterCreate`.
interface SqliteRawConnection {
  pragma(source: string): unknown;
}

/** The SQLite connections a store's pool opened (better-sqlite3 databases), for reads that need no pool turn. */
class OpenedConnections {
  readonly #all = new Set<SqliteRawConnection>();

  add(connection: SqliteRawConnection): void {
    this.#all.add(connection);
  }

  /** An open connection with no transaction in progress, or undefined. */
  idle(): SqliteRawConnection | undefined {
    for (const connection of this.#all) {
      const state = connection as { open?: boolean; inTransaction?: boolean };
      if (state.open === false) this.#all.delete(connection);
      else if (state.inTransaction === false) return connection;
    }
    return undefined;
  }
}
interface MysqlRawConnection {
  query(...args: unknown[]): unknown;
  stream?: { destroy(): void };
}
interface PgRawConnection {
  query(...args: unknown[]): unknown;
  connection?: { stream?: { destroy(): void } };
}
type Done = (error: Error | null, connection: unknown) => void;

function isPoolBound(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}

function checkPool(pool: unknown, dialect: FwDialect, memory: boolean): { min: number; max: number } {
  const defaults = dialect === 'sqlite' ? { min: 1, max: 1 } : { min: 0, max: 10 };
  if (pool === undefined) return defaults;
  if (typeof pool !== 'object' || pool === null) throw new FwDefinitionError('store.pool', 'must be an object { min?, max? }');
  const { min = defaults.min, max = defaults.max } = pool as StorePoolOptions;
  if (!isPoolBound(min)) throw new FwDefinitionError('store.pool.min', `must be a non-negative integer, got ${String(min)}`);
  if (!isPoolBound(max) || max < 1) throw new FwDefinitionError('store.pool.max', `must be a positive integer, got ${String(max)}`);
  if (min > max) throw new FwDefinitionError('store.pool.min', `must not exceed pool.max (${max}), got ${min}`);
  // Each connection to :memory: is a separate, empty database.
  if (memory && max !== 1) throw new FwDefinitionError('store.pool.max', 'must be 1 for sqlite::memory: (each connection would see its own empty database)');
  return { min, max };
}

function checkTimeout(key: string, value: unknown, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1)
    throw new FwDefinitionError(key, `must be a positive whole number of milliseconds, got ${String(value)}`);
  return value;
}

const requireCjs = createRequire(import.meta.url);

interface Timeouts {
  connectMs: number;
  acquireMs: number;
  /** 0: no query limit (the migrations' own connection). */
  queryMs: number;
}

// knex prints a warning with the driver's stack for every failed connection attempt, and then
// throws the same error to the query that wanted the connection: the caller reports it (an
// outage answers 503 and reaches app.on('error')), so the warning is only noise, a stack trace per
// request during an outage and in place of fwAdmin's one-line start-up message. A connection the
// server closed is dropped and replaced on its own. Other knex warnings still print.
const QUIET_WARNINGS = /^(?:Acquire connection error|Connection Error): /;
const knexLog: Knex.Config['log'] = {
  warn(message: unknown) {
    if (typeof message === 'string' && QUIET_WARNINGS.test(message)) return;
    console.warn(message);
  },
};

// One SET per connection; MariaDB names the limit in seconds, MySQL (reads only) in milliseconds.
function setMysqlSession(conn: MysqlRawConnection, queryMs: number, done: (error: Error | null) => void): void {
  conn.query("SET time_zone = '+00:00'", (error: Error | null) => {
    if (error || queryMs === 0) return done(error);
    conn.query(`SET SESSION max_statement_time = ${queryMs / 1000}`, (mariadb: (Error & { errno?: number }) | null) => {
      // 1193: unknown system variable, i.e. MySQL rather than MariaDB.
      if (mariadb?.errno !== 1193) return done(mariadb);
      conn.query(`SET SESSION max_execution_time = ${queryMs}`, (mysql: Error | null) => done(mysql));
    });
  });
}

function knexConfig(
  parsed: ParsedStoreUrl,
  pool: { min: number; max: number },
  debug: boolean,
  timeouts: Timeouts,
  opened: OpenedConnections,
  health: DatabaseHealth,
): Knex.Config {
  // The client's own limit comes a moment after the server's, so a live server cancels first.
  const clientMs = timeouts.queryMs + CLIENT_GRACE_MS;
  const base = { client: parsed.client, debug, pool: { ...pool }, acquireConnectionTimeout: timeouts.acquireMs, log: knexLog };
  switch (parsed.dialect) {
    case 'sqlite':
      return {
        ...base,
        connection: { filename: parsed.connection.filename },
        useNullAsDefault: true,
        pool: {
          ...base.pool,
          // A pooled in-memory database must never be reaped, or its data goes with it.
          ...(parsed.memory ? { min: 1, idleTimeoutMillis: Number.MAX_SAFE_INTEGER } : {}),
          afterCreate(conn: SqliteRawConnection, done: Done) {
            try {
              // SQLite leaves foreign keys off per connection unless asked: cascades depend on it.
              conn.pragma('foreign_keys = ON');
              // How long a statement waits for another process's write lock before SQLITE_BUSY (503).
              if (timeouts.queryMs > 0) conn.pragma(`busy_timeout = ${timeouts.queryMs}`);
              // WAL lets readers run beside the one writer, and several processes share the file.
              if (!parsed.memory) conn.pragma('journal_mode = WAL');
              opened.add(conn);
              done(null, conn);
            } catch (error) {
              done(error instanceof Error ? error : new Error(String(error)), conn);
            }
          },
        },
      };
    case 'postgres':
      return {
        ...base,
        connection: {
          connectionString: parsed.connection,
          connectionTimeoutMillis: timeouts.connectMs,
          // Sent at connection start-up: the server cancels a statement past it (SQLSTATE 57014).
          ...(timeouts.queryMs > 0 ? { statement_timeout: timeouts.queryMs } : {}),
        },
        pool: {
          ...base.pool,
          afterCreate(conn: PgRawConnection, done: Done) {
            if (timeouts.queryMs > 0) limitRawQueries(conn, clientMs, health, () => conn.connection?.stream, 'promise');
            done(null, conn);
          },
        },
      };
    case 'mysql':
      return {
        ...base,
        // 'Z': Dates are written and read as UTC, whatever the server's or this process's zone.
        connection: { ...parsed.connection, charset: 'utf8mb4', timezone: 'Z', connectTimeout: timeouts.connectMs },
        pool: {
          ...base.pool,
          afterCreate(conn: MysqlRawConnection, done: Done) {
            // Bounded from its first query: the session's own SETs may meet a frozen server too.
            if (timeouts.queryMs > 0) limitRawQueries(conn, clientMs, health, () => conn.stream, 'stream');
            // Column defaults (CURRENT_TIMESTAMP) use the session zone; keep them UTC like the rest.
            setMysqlSession(conn, timeouts.queryMs, (error) => done(error, conn));
          },
        },
      };
    case 'mssql':
      return {
        ...base,
        connection: {
          ...parsed.connection,
          // knex hands it to tedious as options.connectTimeout.
          connectionTimeout: timeouts.connectMs,
          // tedious cancels a request past it; 0 is tedious' "no limit".
          requestTimeout: timeouts.queryMs,
          options: {
            ...parsed.connection.options,
            // knex binds Dates as DATETIME (3.33 ms steps); DATETIME2 keeps the exact millisecond.
            mapBinding(value: unknown) {
              if (!(value instanceof Date)) return undefined;
              const tedious: typeof import('tedious') = requireCjs('tedious');
              return { value, type: tedious.TYPES.DateTime2 };
            },
          },
        },
      };
  }
}

function isKnexOptions(options: StoreOptions): options is StoreKnexOptions {
  return 'knex' in options && options.knex !== undefined;
}

/**
 * Opens Fw's database. Nothing connects until the first query, so a bad password shows up at
 * `migrate.latest()`, while a malformed URL or option fails here.
 *
 * @example
 * const store = createStore(process.env.FW_DB_URL ?? 'sqlite:data/fw.db');
 * await store.migrate.latest();
 * const admin = await store.users.create({ account: 'admin', password: 's3cret', isAdmin: true });
 * @throws {FwDefinitionError} key `store.url` for an unsupported or malformed URL (its password
 * never appears in the message), `store.pool.*` for bad pool bounds, `store.connectTimeoutMs`,
 * `store.acquireTimeoutMs` / `store.queryTimeoutMs` for a timeout that is not a positive integer, `store.knex` for an
 * unsupported knex client.
 */
export function createStore(urlOrOptions: string | StoreOptions): FwStore {
  if (typeof urlOrOptions !== 'string' && (typeof urlOrOptions !== 'object' || urlOrOptions === null)) {
    throw new FwDefinitionError('store', 'createStore takes a database URL or { url, pool?, debug?, connectTimeoutMs?, acquireTimeoutMs?, queryTimeoutMs? } or { knex }');
  }
  let knex: Knex;
  let owned: boolean;
  let sqliteFile: string | undefined;
  const opened = new OpenedConnections();
  // Migrations and model-table changes may take long (an ALTER of a big table): they get a knex of
  // their own without the query limit, opened for the run. undefined: use the store's own knex.
  let unlimited: (() => Knex) | undefined;
  if (typeof urlOrOptions !== 'string' && isKnexOptions(urlOrOptions)) {
    knex = urlOrOptions.knex;
    owned = false;
  } else {
    const options: StoreUrlOptions = typeof urlOrOptions === 'string' ? { url: urlOrOptions } : urlOrOptions;
    const parsed = parseStoreUrl(options.url);
    const pool = checkPool(options.pool, parsed.dialect, parsed.dialect === 'sqlite' && parsed.memory);
    if (options.debug !== undefined && typeof options.debug !== 'boolean') throw new FwDefinitionError('store.debug', 'must be true or false');
    const timeouts: Timeouts = {
      connectMs: checkTimeout('store.connectTimeoutMs', options.connectTimeoutMs, DEFAULT_CONNECT_TIMEOUT_MS),
      acquireMs: checkTimeout('store.acquireTimeoutMs', options.acquireTimeoutMs, parsed.dialect === 'sqlite' ? SQLITE_ACQUIRE_TIMEOUT_MS : DEFAULT_ACQUIRE_TIMEOUT_MS),
      queryMs: checkTimeout('store.queryTimeoutMs', options.queryTimeoutMs, DEFAULT_QUERY_TIMEOUT_MS),
    };
    if (parsed.dialect === 'sqlite' && !parsed.memory) mkdirSync(dirname(parsed.connection.filename), { recursive: true });
    const health = new DatabaseHealth(parsed.dialect === 'sqlite');
    knex = knexFactory(knexConfig(parsed, pool, options.debug ?? false, timeouts, opened, health));
    classifyAcquireTimeouts(knex, health);
    // SQLite's limit is only the busy timeout (a lock wait a migration may meet too); an in-memory
    // database lives in its one connection.
    if (parsed.dialect !== 'sqlite') {
      unlimited = () => knexFactory(knexConfig(parsed, { min: 0, max: 1 }, options.debug ?? false, { ...timeouts, queryMs: 0 }, new OpenedConnections(), health));
    }
    owned = true;
    if (parsed.dialect === 'sqlite' && !parsed.memory) sqliteFile = parsed.connection.filename;
  }
  const dialect = dialectOfKnex(knex);
  // The grants repository is built first: the others report grant changes to it.
  const ctx: RepositoryContext = { knex, dialect, models: bindModels(knex), grantsChanged: () => grants.bump() };
  const grants: GrantsRepository = createGrantsRepository(ctx);
  const sessions = createSessionRepository(ctx, sqliteFile, () => opened.idle() as SqliteConnection | undefined);
  const source = fwMigrationSource();
  const config: Knex.MigratorConfig = { migrationSource: source, tableName: MIGRATION_TABLE };
  // An older instance of a scale-out deployment must still start after a newer one migrated the
  // shared database, so applying and listing tolerate applied names this version does not know.
  const tolerant: Knex.MigratorConfig = { ...config, disableMigrationsListValidation: true };
  let destroying: Promise<void> | undefined;
  const closers: Array<() => void | Promise<void>> = [];
  /** Runs `work` on a knex without the query limit (see `unlimited`), closed afterwards. */
  const withoutLimit = async <T>(work: (db: Knex) => Promise<T>): Promise<T> => {
    if (unlimited === undefined) return work(knex);
    const db = unlimited();
    try {
      return await work(db);
    } finally {
      await db.destroy();
    }
  };

  return {
    knex,
    dialect,
    migrate: {
      async latest() {
        const [, names]: [number, string[]] = await withoutLimit((db) => db.migrate.latest(tolerant));
        return names;
      },
      async rollback() {
        const [, names]: [number, string[]] = await withoutLimit((db) => db.migrate.rollback(config, true));
        return names;
      },
      async status() {
        // Completed entries are rows of fw_migrations; pending ones are our source's migrations.
        const [applied, pending]: [Array<{ name: string }>, FwMigration[]] = await withoutLimit((db) => db.migrate.list(tolerant));
        return { applied: applied.map((m) => m.name), pending: pending.map((m) => source.getMigrationName(m)) };
      },
    },
    grants,
    sessions,
    users: createUserRepository(ctx),
    roles: createRoleRepository(ctx),
    menus: createMenuRepository(ctx),
    orgs: createOrgRepository(ctx),
    loginLogs: createLoginLogRepository(ctx),
    operateLogs: createOperateLogRepository(ctx),
    openApis: createOpenApiRepository(ctx),
    files: createFileRepository(ctx),
    prefs: createUserPrefRepository(ctx),
    views: createSavedViewRepository(ctx),
    trash: createTrashRepository(ctx),
    createModelTables: (models) => withoutLimit((db) => createModelTables(db, models)),
    planModelTables: (models) => planModelTables(knex, models),
    onDestroy(close) {
      closers.push(close);
    },
    destroy() {
      // A second call while the first still waits for its closers waits with it, rather than
      // closing the connections under them.
      if (destroying) return destroying;
      const run = (async () => {
        sessions.close();
        // A closer that fails does not keep the connections open: the first failure is thrown after.
        const failures: unknown[] = [];
        for (const close of closers.splice(0))
          await Promise.resolve()
            .then(close)
            .catch((error: unknown) => failures.push(error));
        if (owned) await knex.destroy();
        if (failures.length > 0) throw failures[0];
      })();
      // A host-owned knex stays open: a later destroy() runs what was added since.
      destroying = owned ? run : run.finally(() => (destroying = undefined));
      return destroying;
    },
  };
}
