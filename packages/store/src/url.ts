import { isAbsolute, resolve } from 'node:path';
import { FwDefinitionError } from '@fw/core';

/** A SQLite database: a file, or a private in-memory database. */
export interface SqliteConnection {
  /** Absolute path of the database file, or `:memory:`. */
  filename: string;
}

/** A MySQL / MariaDB server database, as handed to the `mysql2` driver. */
export interface MysqlConnection {
  host: string;
  port: number;
  user: string;
  password?: string;
  database: string;
  /** TLS on (`?ssl=true`): the driver's default certificate checks apply. */
  ssl?: Record<string, never>;
  /**
   * Several statements in one query text (`?multipleStatements=false` turns it off). Fw's cell
   * edit sends its transaction in two round trips this way (packages/data/src/write/mysql-write.ts);
   * every statement Fw sends binds its values, so no value can add a statement. Without it the
   * edit takes the general path.
   */
  multipleStatements: boolean;
}

/** A SQL Server database, as handed to knex's `mssql` client (driver `tedious`). */
export interface MssqlConnection {
  server: string;
  port: number;
  user: string;
  password?: string;
  database: string;
  options: {
    /** TLS for the whole session. @default true */
    encrypt: boolean;
    /** Accept a self-signed server certificate (development servers). @default false */
    trustServerCertificate: boolean;
  };
}

/** A database URL, taken apart. */
export type ParsedStoreUrl =
  | { dialect: 'sqlite'; client: 'better-sqlite3'; connection: SqliteConnection; memory: boolean; redacted: string }
  | { dialect: 'postgres'; client: 'pg'; connection: string; redacted: string }
  | { dialect: 'mysql'; client: 'mysql2'; connection: MysqlConnection; redacted: string }
  | { dialect: 'mssql'; client: 'mssql'; connection: MssqlConnection; redacted: string };

const KEY = 'store.url';
const SUPPORTED = 'sqlite:<path>, sqlite:///<absolute path>, sqlite::memory:, postgres://, postgresql://, mysql://, mariadb://, mssql://';

/**
 * The URL with any password replaced by `***`, safe for logs and error messages. Works on
 * strings that are not valid URLs too, so a malformed URL never leaks its password either.
 * @example redactUrl('postgres://app:s3cret@db/app') // 'postgres://app:***@db/app'
 */
export function redactUrl(url: string): string {
  // Greedy up to the last `@` of the authority, so a password holding a raw `@` is hidden whole.
  return url.replace(/^([A-Za-z][A-Za-z0-9+.-]*:\/\/[^/?#@:]*:)[^/?#]*@/, '$1***@').replace(/([?&](?:password|pwd)=)[^&#]*/gi, '$1***');
}

function fail(url: string, message: string): never {
  throw new FwDefinitionError(KEY, `${message} (got ${JSON.stringify(redactUrl(url))}; supported: ${SUPPORTED})`);
}

function parseServerUrl(url: string): URL {
  try {
    return new URL(url);
  } catch {
    return fail(url, 'is not a valid URL');
  }
}

function decode(url: string, part: string, what: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    return fail(url, `has a malformed percent-escape in its ${what}`);
  }
}

function serverParts(url: string, parsed: URL, defaultPort: number): { host: string; port: number; user: string; password?: string; database: string } {
  if (parsed.hostname === '') fail(url, 'names no host');
  const port = parsed.port === '' ? defaultPort : Number(parsed.port);
  const database = decode(url, parsed.pathname.replace(/^\//, ''), 'database name');
  if (database === '' || database.includes('/')) fail(url, 'must name one database as its path, e.g. /app');
  const user = decode(url, parsed.username, 'user name');
  if (user === '') fail(url, 'names no user');
  const password = parsed.password === '' ? undefined : decode(url, parsed.password, 'password');
  // IPv6 hosts come back bracketed from URL; drivers want them bare.
  const host = parsed.hostname.replace(/^\[(.*)\]$/, '$1');
  return { host, port, user, ...(password === undefined ? {} : { password }), database };
}

function booleanParam(url: string, parsed: URL, name: string, fallback: boolean): boolean {
  const value = parsed.searchParams.get(name);
  if (value === null) return fallback;
  if (value === 'true' || value === '1') return true;
  if (value === 'false' || value === '0') return false;
  return fail(url, `query parameter ${name} must be true or false`);
}

function onlyParams(url: string, parsed: URL, allowed: readonly string[]): void {
  for (const name of parsed.searchParams.keys()) {
    if (!allowed.includes(name)) fail(url, `has an unknown query parameter ${JSON.stringify(name)} (known: ${allowed.join(', ') || 'none'})`);
  }
}

function parseSqlite(url: string, cwd: string): ParsedStoreUrl {
  const rest = url.slice('sqlite:'.length);
  if (rest === ':memory:') {
    return { dialect: 'sqlite', client: 'better-sqlite3', connection: { filename: ':memory:' }, memory: true, redacted: url };
  }
  let path: string;
  if (rest.startsWith('///')) path = rest.slice(2);
  else if (rest.startsWith('//')) return fail(url, 'a SQLite URL has no host: use sqlite:relative/path.db or sqlite:///absolute/path.db');
  else path = rest;
  if (path === '' || path.endsWith('/')) fail(url, 'names no SQLite database file');
  if (/[?#]/.test(path)) fail(url, 'a SQLite URL takes no query string or fragment');
  return {
    dialect: 'sqlite',
    client: 'better-sqlite3',
    connection: { filename: isAbsolute(path) ? path : resolve(cwd, path) },
    memory: false,
    redacted: url,
  };
}

/**
 * Takes a database URL apart into the knex client and connection settings of its dialect.
 *
 * - `sqlite:data/app.db` (relative to `cwd`), `sqlite:///var/lib/app.db`, `sqlite::memory:`
 * - `postgres://user:pass@host:5432/db` or `postgresql://…` (query parameters such as
 *   `sslmode` go to the `pg` driver unchanged)
 * - `mysql://user:pass@host:3306/db` or `mariadb://…` (`?ssl=true` for TLS, `?multipleStatements=false`)
 * - `mssql://user:pass@host:1433/db` (`?encrypt=false`, `?trustServerCertificate=true`)
 *
 * User names and passwords are percent-decoded.
 *
 * @param cwd Directory a relative SQLite path is resolved against. @default process.cwd()
 * @throws {FwDefinitionError} key `store.url`, for an unsupported scheme or a malformed URL; the
 * message shows the URL with its password replaced by `***`.
 */
export function parseStoreUrl(url: string, cwd: string = process.cwd()): ParsedStoreUrl {
  if (typeof url !== 'string' || url.trim() === '') {
    throw new FwDefinitionError(KEY, `must be a non-empty database URL string (supported: ${SUPPORTED})`);
  }
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(url)?.[1]?.toLowerCase();
  if (scheme === undefined) return fail(url, 'has no scheme');
  if (scheme === 'sqlite') return parseSqlite(url, cwd);
  const redacted = redactUrl(url);
  switch (scheme) {
    case 'postgres':
    case 'postgresql': {
      const parsed = parseServerUrl(url);
      // Checked here so a missing host or database fails at start-up, not at the first query.
      serverParts(url, parsed, 5432);
      return { dialect: 'postgres', client: 'pg', connection: url, redacted };
    }
    case 'mysql':
    case 'mariadb': {
      const parsed = parseServerUrl(url);
      onlyParams(url, parsed, ['ssl', 'multipleStatements']);
      const parts = serverParts(url, parsed, 3306);
      const ssl = booleanParam(url, parsed, 'ssl', false);
      const multipleStatements = booleanParam(url, parsed, 'multipleStatements', true);
      return { dialect: 'mysql', client: 'mysql2', connection: { ...parts, ...(ssl ? { ssl: {} } : {}), multipleStatements }, redacted };
    }
    case 'mssql': {
      const parsed = parseServerUrl(url);
      onlyParams(url, parsed, ['encrypt', 'trustServerCertificate']);
      const { host, ...parts } = serverParts(url, parsed, 1433);
      return {
        dialect: 'mssql',
        client: 'mssql',
        connection: {
          server: host,
          ...parts,
          options: {
            encrypt: booleanParam(url, parsed, 'encrypt', true),
            trustServerCertificate: booleanParam(url, parsed, 'trustServerCertificate', false),
          },
        },
        redacted,
      };
    }
    default:
      return fail(url, `uses the unsupported scheme ${JSON.stringify(`${scheme}:`)}`);
  }
}
