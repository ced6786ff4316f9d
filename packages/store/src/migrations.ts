// The built-in migrations in order, the source knex's migrator reads them from, and their SQL
// compiled for a dialect. Each migration is a file of its own under migrations/, named as
// `fw_migrations` records it; migrations/tables.ts holds the tables they create and the column
// builders they share.
import knexFactory, { type Knex } from 'knex';
import { KNEX_CLIENT, type FwDialect } from './dialect.js';
import { builtinTables } from './migrations/0001_builtin_tables.js';
import { logs } from './migrations/0002_logs.js';
import { openApi } from './migrations/0003_open_api.js';
import { token } from './migrations/0004_token.js';
import { ephemeral } from './migrations/0005_ephemeral.js';
import { meta } from './migrations/0006_meta.js';
import { aiConfig } from './migrations/0007_ai_config.js';
import { session } from './migrations/0008_session.js';
import { tokenAdmin } from './migrations/0009_token_admin.js';
import { loginLogAdmin } from './migrations/0010_login_log_admin.js';
import { file } from './migrations/0011_file.js';
import { loginLogFailures } from './migrations/0012_login_log_failures.js';
import { tokenLastSeen } from './migrations/0013_token_last_seen.js';
import { userPrefs } from './migrations/0014_user_prefs.js';
import { operateLogUser } from './migrations/0015_operate_log_user.js';
import { logIndexes } from './migrations/0016_log_indexes.js';
import { savedViews } from './migrations/0017_saved_views.js';
import { trash } from './migrations/0018_trash.js';
import { operateLogBatch } from './migrations/0019_operate_log_batch.js';
import type { FwMigration } from './migrations/migration-type.js';

export { BUILTIN_TABLES } from './migrations/tables.js';
export type { BuiltinTable } from './migrations/tables.js';
export type { FwMigration } from './migrations/migration-type.js';

/** knex's bookkeeping table for Fw's migrations (its lock table is `fw_migrations_lock`). */
export const MIGRATION_TABLE = 'fw_migrations';

/** The built-in migrations, oldest first. */
export const MIGRATIONS: readonly FwMigration[] = Object.freeze([
  builtinTables,
  logs,
  openApi,
  token,
  ephemeral,
  meta,
  aiConfig,
  session,
  tokenAdmin,
  loginLogAdmin,
  file,
  loginLogFailures,
  tokenLastSeen,
  userPrefs,
  operateLogUser,
  logIndexes,
  savedViews,
  trash,
  operateLogBatch,
]);

/**
 * The in-code migration source handed to knex's migrator: no migration files to locate at run
 * time, so the package works the same bundled, from `dist/` or from source.
 */
export function fwMigrationSource(): Knex.MigrationSource<FwMigration> {
  return {
    getMigrations: async () => [...MIGRATIONS],
    getMigrationName: (migration) => migration.name,
    getMigration: async (migration) => ({
      up: (knex: Knex) => migration.up(knex),
      down: (knex: Knex) => migration.down(knex),
      ...(migration.transaction === false ? { config: { transaction: false } } : {}),
    }),
  };
}

/** The SQL of one migration for one dialect. */
export interface CompiledMigration {
  /** The migration's name, as recorded in `fw_migrations`. */
  name: string;
  /** Statements `latest()` runs, in order. */
  up: string[];
  /** Statements `rollback()` runs, in order. */
  down: string[];
}

function statements(knex: Knex, builder: Knex.SchemaBuilder): string[] {
  return builder.toSQL().map((q) => (q.bindings && q.bindings.length > 0 ? knex.raw(q.sql, q.bindings).toQuery() : q.sql));
}

/**
 * The SQL every built-in migration runs on `dialect`, compiled by a knex of that client with no
 * connection: how the SQL Server schema is checked where no SQL Server can run.
 * @example compileMigrations('mssql')[0].up[0] // 'CREATE TABLE [fw_user] (…)'
 */
export async function compileMigrations(dialect: FwDialect): Promise<CompiledMigration[]> {
  const knex = knexFactory({ client: KNEX_CLIENT[dialect], useNullAsDefault: true });
  try {
    return MIGRATIONS.map((m) => ({ name: m.name, up: statements(knex, m.up(knex)), down: statements(knex, m.down(knex)) }));
  } finally {
    await knex.destroy();
  }
}
