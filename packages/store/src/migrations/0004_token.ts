// Migration 0004_token: sign-in tokens, stored by their hash.
import type { FwMigration } from './migration-type.js';
import { userId, createTable, dropAll } from './tables.js';

export const token: FwMigration = {
  name: '0004_token',
  up(knex) {
    return createTable(knex, knex.schema, 'fw_token', (t) => {
      t.specificType('token_hash', 'char(64)').notNullable().primary();
      // No foreign key: the token store is also used with hosts' own user tables.
      userId(t).notNullable().index();
      // Epoch milliseconds, so expiry checks compare numbers the same way on every dialect.
      t.bigInteger('expires_at').notNullable().index();
      t.bigInteger('created_at').notNullable();
    });
  },
  down(knex) {
    return dropAll(knex, ['fw_token']);
  },
};
