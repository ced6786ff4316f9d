import type { Knex } from 'knex';
import { FwDefinitionError } from '@fw/core';

/** The SQL dialects a store can run on. */
export type FwDialect = 'sqlite' | 'postgres' | 'mysql' | 'mssql';

/** Every dialect, in the order the docs list them. */
export const DIALECTS: readonly FwDialect[] = Object.freeze(['sqlite', 'postgres', 'mysql', 'mssql'] as const);

/** The knex client a store uses for each dialect. */
export const KNEX_CLIENT: Readonly<Record<FwDialect, string>> = Object.freeze({
  sqlite: 'better-sqlite3',
  postgres: 'pg',
  mysql: 'mysql2',
  mssql: 'mssql',
});

// knex's own dialect names (`client.dialect`), shared by the clients of one SQL flavour.
const BY_KNEX_DIALECT: Readonly<Record<string, FwDialect>> = {
  sqlite3: 'sqlite',
  'better-sqlite3': 'sqlite',
  postgresql: 'postgres',
  postgres: 'postgres',
  pg: 'postgres',
  mysql: 'mysql',
  mysql2: 'mysql',
  mssql: 'mssql',
};

/**
 * The dialect of a knex instance (or transaction).
 * @throws {FwDefinitionError} key `store.knex` for a client Fw does not support.
 */
export function dialectOfKnex(knex: Knex): FwDialect {
  const name = knex.client.dialect;
  const dialect = typeof name === 'string' ? BY_KNEX_DIALECT[name] : undefined;
  if (dialect === undefined) {
    throw new FwDefinitionError('store.knex', `the knex client ${JSON.stringify(name)} is not supported (supported: better-sqlite3 / sqlite3, pg, mysql2 / mysql, mssql)`);
  }
  return dialect;
}

/**
 * The database's "now" as a column default, in UTC and with millisecond precision where the
 * dialect allows, matching what the repositories write: SQLite keeps datetimes as epoch
 * milliseconds (what knex's better-sqlite3 client binds a `Date` as), SQL Server's
 * `CURRENT_TIMESTAMP` is local server time and takes no precision.
 */
export function nowDefault(knex: Knex): Knex.Raw {
  switch (dialectOfKnex(knex)) {
    case 'sqlite':
      return knex.raw("(CAST(ROUND((julianday('now') - 2440587.5) * 86400000) AS INTEGER))");
    case 'postgres':
      return knex.raw('CURRENT_TIMESTAMP');
    case 'mysql':
      // UTC because every store connection sets time_zone = '+00:00' (see createStore).
      return knex.raw('CURRENT_TIMESTAMP(3)');
    case 'mssql':
      return knex.raw('SYSUTCDATETIME()');
  }
}
