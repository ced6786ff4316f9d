// The shape of one migration, apart from the list (migrations.ts) so that a migration in a file
// of its own can name it without importing the list that imports it.
import type { Knex } from 'knex';

/**
 * One versioned schema change. `up` and `down` only build schema statements on the knex they are
 * given (they never read data), so the same code runs as a migration and compiles to SQL on a
 * knex with no connection (see {@link compileMigrations}).
 */
export interface FwMigration {
  /** Sortable, never renamed: it is what `fw_migrations` records. */
  readonly name: string;
  up(knex: Knex): Knex.SchemaBuilder;
  down(knex: Knex): Knex.SchemaBuilder;
  /**
   * `false`: runs outside a transaction (PostgreSQL's `CREATE INDEX CONCURRENTLY` refuses one).
   * @default true
   */
  readonly transaction?: boolean;
}
