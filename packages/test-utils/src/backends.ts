import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import knexFactory, { type Knex } from 'knex';

/** The SQL dialects Fw supports. */
export type SqlDialect = 'sqlite' | 'postgres' | 'mysql' | 'mssql';

/** A SQL backend the suites can run on, and the variable that enables it. */
export interface SqlBackendSpec {
  dialect: SqlDialect;
  /** Human name used in describe titles. */
  label: string;
  /** Environment variable holding the server URL; undefined for the embedded SQLite. */
  envVar?: string;
  /** Server URL (with a database the tests may create databases from), when set. */
  serverUrl?: string;
}

const LIVE: Array<{ dialect: SqlDialect; label: string; envVar: string }> = [
  { dialect: 'postgres', label: 'PostgreSQL', envVar: 'FW_TEST_PG_URL' },
  { dialect: 'mysql', label: 'MariaDB/MySQL', envVar: 'FW_TEST_MYSQL_URL' },
  { dialect: 'mssql', label: 'SQL Server', envVar: 'FW_TEST_MSSQL_URL' },
];

/** SQLite always, then every live dialect, with its URL when its variable is set. */
export function sqlBackends(): SqlBackendSpec[] {
  const out: SqlBackendSpec[] = [{ dialect: 'sqlite', label: 'SQLite' }];
  for (const live of LIVE) {
    const url = process.env[live.envVar];
    out.push(url ? { ...live, serverUrl: url } : { ...live });
  }
  return out;
}

/** A fresh, empty database of its own for one suite. */
export interface TestDatabase {
  dialect: SqlDialect;
  /** URL to hand to `createStore`. */
  url: string;
  /** Drops the database (or deletes the SQLite file). */
  drop(): Promise<void>;
}

function uniqueName(): string {
  return `fw_test_${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`;
}

function withDatabase(serverUrl: string, database: string): string {
  const url = new URL(serverUrl);
  url.pathname = `/${database}`;
  return url.toString();
}

function adminKnex(dialect: SqlDialect, serverUrl: string): Knex {
  const client = dialect === 'postgres' ? 'pg' : dialect === 'mysql' ? 'mysql2' : 'mssql';
  if (dialect === 'mssql') {
    const url = new URL(serverUrl);
    return knexFactory({
      client,
      connection: {
        server: url.hostname,
        port: Number(url.port || 1433),
        user: decodeURIComponent(url.username),
        password: decodeURIComponent(url.password),
        options: { trustServerCertificate: true, encrypt: url.searchParams.get('encrypt') !== 'false' },
      },
      pool: { min: 0, max: 1 },
    });
  }
  return knexFactory({ client, connection: serverUrl, pool: { min: 0, max: 1 } });
}

/**
 * Creates a database of its own on the backend: a temporary SQLite file, or a new database on
 * the live server named by the backend's variable. Leaves the server as it found it on `drop()`.
 */
export async function createTestDatabase(spec: SqlBackendSpec): Promise<TestDatabase> {
  if (spec.dialect === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'fw-test-'));
    return {
      dialect: 'sqlite',
      url: `sqlite:${join(dir, 'test.db')}`,
      async drop() {
        rmSync(dir, { recursive: true, force: true });
      },
    };
  }
  if (!spec.serverUrl) throw new Error(`${spec.envVar} is not set: cannot create a ${spec.label} test database`);
  const name = uniqueName();
  const admin = adminKnex(spec.dialect, spec.serverUrl);
  try {
    await admin.raw(spec.dialect === 'mysql' ? `CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4` : `CREATE DATABASE ${name}`);
  } finally {
    await admin.destroy();
  }
  const serverUrl = spec.serverUrl;
  return {
    dialect: spec.dialect,
    url: withDatabase(serverUrl, name),
    async drop() {
      const again = adminKnex(spec.dialect, serverUrl);
      try {
        if (spec.dialect === 'postgres') await again.raw(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
        else if (spec.dialect === 'mysql') await again.raw(`DROP DATABASE IF EXISTS \`${name}\``);
        else await again.raw(`ALTER DATABASE ${name} SET SINGLE_USER WITH ROLLBACK IMMEDIATE; DROP DATABASE ${name}`);
      } finally {
        await again.destroy();
      }
    },
  };
}

/**
 * Declares `body` once per SQL backend, inside `describe('<title> on <backend>')`. A live backend
 * whose variable is not set gets one pending test saying so, so the skip shows in the output.
 * `body` receives a getter for a fresh database created in `before` and dropped in `after`.
 */
export function describeEachSql(title: string, body: (db: () => TestDatabase, spec: SqlBackendSpec) => void, dialects?: SqlDialect[]): void {
  for (const spec of sqlBackends()) {
    if (dialects && !dialects.includes(spec.dialect)) continue;
    describe(`${title} on ${spec.label}`, function () {
      if (spec.envVar && !spec.serverUrl) {
        it(`skipped: ${spec.envVar} is not set, so the ${spec.label} suite did not run`, function () {
          this.skip();
        });
        return;
      }
      let database: TestDatabase | undefined;
      before(async function () {
        database = await createTestDatabase(spec);
      });
      after(async function () {
        await database?.drop();
      });
      body(() => {
        if (!database) throw new Error('the test database is not ready (before hook failed?)');
        return database;
      }, spec);
    });
  }
}

/**
 * A knex configuration for a test database URL (`sqlite:<file>`, `postgres://`, `mysql://`,
 * `mssql://`), for suites that test code taking a bare knex instance.
 */
export function knexConfigFor(url: string): Knex.Config {
  if (url.startsWith('sqlite:')) {
    return { client: 'better-sqlite3', connection: { filename: url.slice('sqlite:'.length) }, useNullAsDefault: true };
  }
  const parsed = new URL(url);
  const pool = { min: 0, max: 4 };
  switch (parsed.protocol) {
    case 'postgres:':
    case 'postgresql:':
      return { client: 'pg', connection: url, pool };
    case 'mysql:':
      return { client: 'mysql2', connection: url, pool };
    case 'mssql:':
      return {
        client: 'mssql',
        connection: {
          server: parsed.hostname,
          port: Number(parsed.port || 1433),
          user: decodeURIComponent(parsed.username),
          password: decodeURIComponent(parsed.password),
          database: parsed.pathname.slice(1),
          options: { trustServerCertificate: true, encrypt: parsed.searchParams.get('encrypt') !== 'false' },
        },
        pool,
      };
    default:
      throw new Error(`no knex client for ${parsed.protocol}`);
  }
}
