// Migration 0017: saved views of the table (issue 23 §1). A view is a user's named table query
// (conditions, sort, page size, columns) on one model; its owner may share it with roles. The
// roles sit in a link table, so "the views shared with any role I hold" is one indexed join
// (fw_user_role by user, then fw_saved_view_role by role) rather than a scan of JSON text.
import type { Knex } from 'knex';
import { dialectOfKnex, nowDefault } from '../dialect.js';
import type { FwMigration } from './migration-type.js';

function utf8(knex: Knex, t: Knex.CreateTableBuilder): void {
  if (dialectOfKnex(knex) === 'mysql') t.charset('utf8mb4');
}

export const savedViews: FwMigration = {
  name: '0017_saved_views',
  up(knex) {
    const dialect = dialectOfKnex(knex);
    return knex.schema
      .createTable('fw_saved_view', (t) => {
        utf8(knex, t);
        t.increments('id');
        t.integer('user_id').unsigned().notNullable().references('id').inTable('fw_user').onDelete('CASCADE');
        // Model names are case-sensitive registry keys: a binary collation where the default
        // one folds case (MariaDB/MySQL, SQL Server), as fw_user_pref's keys.
        if (dialect === 'mssql') t.specificType('model', 'nvarchar(64) collate Latin1_General_BIN2').notNullable();
        else {
          const model = t.string('model', 64).notNullable();
          if (dialect === 'mysql') model.collate('utf8mb4_bin');
        }
        t.string('name', 100).notNullable();
        // JSON documents, bounded by the views routes (a few kilobytes), so plain TEXT everywhere.
        t.text('conditions').notNullable();
        t.text('sort').notNullable();
        t.integer('page_size').nullable();
        t.text('columns').nullable();
        t.datetime('created_at', { precision: 3 }).notNullable().defaultTo(nowDefault(knex));
        t.datetime('updated_at', { precision: 3 }).notNullable().defaultTo(nowDefault(knex));
        // A user's own views of one model.
        t.index(['user_id', 'model'], 'fw_saved_view_user_model_index');
      })
      .createTable('fw_saved_view_role', (t) => {
        utf8(knex, t);
        t.integer('view_id').unsigned().notNullable().references('id').inTable('fw_saved_view').onDelete('CASCADE');
        t.integer('role_id').unsigned().notNullable().references('id').inTable('fw_role').onDelete('CASCADE');
        t.primary(['view_id', 'role_id']);
        // The views shared with a role, found from the roles a user holds.
        t.index(['role_id'], 'fw_saved_view_role_role_index');
      });
  },
  down(knex) {
    return knex.schema.dropTableIfExists('fw_saved_view_role').dropTableIfExists('fw_saved_view');
  },
};
