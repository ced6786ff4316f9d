// Migration 0018: the trash (issue 23 §3). A deleted row of a model that keeps a trash is moved
// here, inside the delete's transaction, so it can be undeleted with its id until it is purged.
import type { Knex } from 'knex';
import { dialectOfKnex, nowDefault } from '../dialect.js';
import type { FwMigration } from './migration-type.js';

export const trash: FwMigration = {
  name: '0018_trash',
  up(knex: Knex) {
    const dialect = dialectOfKnex(knex);
    return knex.schema.createTable('fw_trash', (t) => {
      if (dialect === 'mysql') t.charset('utf8mb4');
      t.bigIncrements('id');
      // Model names are case-sensitive registry keys: a binary collation where the default one
      // folds case (MariaDB/MySQL, SQL Server), as for fw_user_pref's keys.
      if (dialect === 'mssql') t.specificType('model', 'nvarchar(128) collate Latin1_General_BIN2').notNullable();
      else {
        const model = t.string('model', 128).notNullable();
        if (dialect === 'mysql') model.collate('utf8mb4_bin');
      }
      t.string('row_id', 64).notNullable();
      // The row as the edit form holds it, with its collections' ids and its secrets as stored
      // (hashes): JSON, which may pass MySQL's 64 KiB TEXT.
      t.text('data', 'mediumtext').notNullable();
      // No foreign key: a trashed row outlives the user who deleted it.
      t.integer('deleted_by').unsigned().nullable();
      t.datetime('deleted_at', { precision: 3 }).notNullable().defaultTo(nowDefault(knex));
      // The delete's batch id, when the delete started one (bulk delete).
      t.string('batch', 36).nullable();
      // The trash page (one model, newest first) and the purge by age; undelete by row id.
      t.index(['model', 'deleted_at'], 'fw_trash_model_deleted_at_index');
      t.index(['model', 'row_id'], 'fw_trash_model_row_id_index');
    });
  },
  down(knex: Knex) {
    return knex.schema.dropTableIfExists('fw_trash');
  },
};
