// Migration 0003_open_api: open-API keys (app id, hashed secret, owner).
import type { FwMigration } from './migration-type.js';
import { datetime, timestamps, userId, cascade, createTable, dropAll } from './tables.js';

export const openApi: FwMigration = {
  name: '0003_open_api',
  up(knex) {
    return createTable(knex, knex.schema, 'fw_open_api', (t) => {
      t.increments('id');
      t.string('app_id', 64).notNullable().unique();
      t.string('secret_hash', 128).notNullable();
      t.string('secret_salt', 64).notNullable();
      t.string('name', 128).notNullable();
      cascade(userId(t), 'fw_user');
      datetime(t, 'expire_date').nullable();
      t.string('status', 16).notNullable().defaultTo('normal');
      timestamps(knex, t);
    });
  },
  down(knex) {
    return dropAll(knex, ['fw_open_api']);
  },
};
