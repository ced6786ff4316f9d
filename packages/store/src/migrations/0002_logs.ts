// Migration 0002_logs: the sign-in log and the operate log.
import { nowDefault } from '../dialect.js';
import type { FwMigration } from './migration-type.js';
import { datetime, userId, longText, createTable, dropAll } from './tables.js';

export const logs: FwMigration = {
  name: '0002_logs',
  up(knex) {
    let s = knex.schema;
    s = createTable(knex, s, 'fw_login_log', (t) => {
      t.bigIncrements('id');
      // No foreign key: a log row outlives the user it names.
      userId(t).nullable().index();
      t.string('account', 64).notNullable();
      datetime(t, 'login_time').notNullable().index();
      t.string('ip', 64).nullable();
      t.string('user_agent', 512).nullable();
      t.string('method', 64).notNullable();
      t.specificType('token_hash', 'char(64)').nullable();
    });
    s = createTable(knex, s, 'fw_operate_log', (t) => {
      t.bigIncrements('id');
      userId(t).nullable();
      t.string('account', 64).nullable();
      t.string('ip', 64).nullable();
      t.string('model', 64).notNullable();
      t.string('action', 32).notNullable();
      t.string('source', 16).notNullable().defaultTo('http');
      t.string('target_id', 64).nullable();
      longText(t, 'before_data').nullable();
      longText(t, 'request').nullable();
      t.string('status', 16).notNullable();
      longText(t, 'error').nullable();
      t.integer('duration_ms').notNullable().defaultTo(0);
      datetime(t, 'created_at').notNullable().defaultTo(nowDefault(knex));
      t.index(['model', 'created_at']);
    });
    return s;
  },
  down(knex) {
    return dropAll(knex, ['fw_login_log', 'fw_operate_log']);
  },
};
