// Migration 0006_meta: counters of the framework itself (the grants version).
import type { FwMigration } from './migration-type.js';
import { createTable, dropAll } from './tables.js';

export const meta: FwMigration = {
  name: '0006_meta',
  up(knex) {
    // Small counters of the framework itself, such as the grants version that power caches key on.
    return createTable(knex, knex.schema, 'fw_meta', (t) => {
      t.string('name', 64).notNullable().primary();
      t.bigInteger('value').notNullable().defaultTo(0);
    });
  },
  down(knex) {
    return dropAll(knex, ['fw_meta']);
  },
};
