// Migration 0015_operate_log_user: a person's own recent edits, by index.
import type { FwMigration } from './migration-type.js';

export const operateLogUser: FwMigration = {
  name: '0015_operate_log_user',
  up(knex) {
    // A person's own recent edits on the home page (issue 20 §6), read without scanning the log.
    return knex.schema.alterTable('fw_operate_log', (t) => {
      t.index(['user_id', 'created_at'], 'fw_operate_log_user_index');
    });
  },
  down(knex) {
    return knex.schema.alterTable('fw_operate_log', (t) => {
      t.dropIndex(['user_id', 'created_at'], 'fw_operate_log_user_index');
    });
  },
};
