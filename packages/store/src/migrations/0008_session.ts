// Migration 0008_session: server-side browser sessions of the sign-on bridge.
import type { FwMigration } from './migration-type.js';
import { longText, createTable, dropAll } from './tables.js';

export const session: FwMigration = {
  name: '0008_session',
  up(knex) {
    // Server-side browser sessions (koa-session's external store, used by the sign-on bridge):
    // the OAuth exchange state outgrows a cookie, and several instances must share it.
    return createTable(knex, knex.schema, 'fw_session', (t) => {
      t.string('id', 128).notNullable().primary();
      longText(t, 'data').notNullable();
      t.bigInteger('expires_at').notNullable().index();
    });
  },
  down(knex) {
    return dropAll(knex, ['fw_session']);
  },
};
