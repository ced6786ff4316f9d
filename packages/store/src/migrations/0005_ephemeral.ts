// Migration 0005_ephemeral: short-lived shared values (failed-login counters, lockouts, captchas).
import { dialectOfKnex } from '../dialect.js';
import type { FwMigration } from './migration-type.js';
import { createTable, dropAll } from './tables.js';

export const ephemeral: FwMigration = {
  name: '0005_ephemeral',
  up(knex) {
    // Short-lived values of @fw/token's KnexEphemeralStore: failed-login counters, lockouts and
    // captcha answers, shared by every instance on this database.
    const dialect = dialectOfKnex(knex);
    return createTable(knex, knex.schema, 'fw_kv', (t) => {
      // Keys are case-sensitive (base64url hashes among them): MySQL's and SQL Server's default
      // collations would fold "aB" and "Ab" into one row.
      if (dialect === 'mssql') t.specificType('key', 'nvarchar(191) collate Latin1_General_BIN2').notNullable().primary();
      else {
        const key = t.string('key', 191).notNullable().primary();
        if (dialect === 'mysql') key.collate('utf8mb4_bin');
      }
      t.string('value', 1024).notNullable();
      t.bigInteger('expires_at').notNullable().index();
    });
  },
  down(knex) {
    return dropAll(knex, ['fw_kv']);
  },
};
