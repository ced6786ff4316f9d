// Migration 0014_user_prefs: per-user UI preferences.
import { dialectOfKnex, nowDefault } from '../dialect.js';
import type { FwMigration } from './migration-type.js';
import { datetime, userId, cascade, createTable, dropAll } from './tables.js';

export const userPrefs: FwMigration = {
  name: '0014_user_prefs',
  up(knex) {
    // Per-user UI preferences (issue 20 §5: a table's columns, widths, order, density), kept on
    // the server so they follow the person across browsers. One row per user and key; the value
    // is a small JSON document the prefs routes bound and validate.
    return createTable(knex, knex.schema, 'fw_user_pref', (t) => {
      cascade(userId(t), 'fw_user');
      // Keys name models (`table:Book`), whose names are case-sensitive: a binary collation where
      // the default one folds case (MariaDB/MySQL, SQL Server).
      const dialect = dialectOfKnex(knex);
      if (dialect === 'mssql') t.specificType('key', 'nvarchar(128) collate Latin1_General_BIN2').notNullable();
      else {
        const key = t.string('key', 128).notNullable();
        if (dialect === 'mysql') key.collate('utf8mb4_bin');
      }
      t.text('value').notNullable();
      datetime(t, 'updated_at').notNullable().defaultTo(nowDefault(knex));
      t.primary(['user_id', 'key']);
    });
  },
  down(knex) {
    return dropAll(knex, ['fw_user_pref']);
  },
};
