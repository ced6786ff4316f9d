// Migration 0011_file: uploaded files of ATTACHMENT fields.
import { nowDefault } from '../dialect.js';
import type { FwMigration } from './migration-type.js';
import { datetime, createTable, dropAll } from './tables.js';

export const file: FwMigration = {
  name: '0011_file',
  up(knex) {
    // Uploaded files of ATTACHMENT fields. `id` is the storage key (random, made by the server);
    // `row_id` stays null while the upload is pending, until a save of the row claims it.
    return createTable(knex, knex.schema, 'fw_file', (t) => {
      t.string('id', 64).notNullable().primary();
      t.string('model', 128).notNullable();
      t.string('field', 128).notNullable();
      t.string('row_id', 64).nullable();
      t.string('name', 255).notNullable();
      t.string('type', 255).notNullable();
      t.bigInteger('size').notNullable();
      t.integer('created_by').unsigned().nullable();
      datetime(t, 'created_at').notNullable().defaultTo(nowDefault(knex));
      t.index(['model', 'row_id']);
      t.index(['created_at']);
    });
  },
  down(knex) {
    return dropAll(knex, ['fw_file']);
  },
};
