// Migration 0010_login_log_admin: whether a sign-in was an administrator's.
import type { FwMigration } from './migration-type.js';

export const loginLogAdmin: FwMigration = {
  name: '0010_login_log_admin',
  up(knex) {
    // Whether a sign-in was an administrator's. A login hook may make one without touching the
    // stored flag; the grant rules read this to keep such accounts out of non-administrators'
    // hands after the token is gone (a new password would make its setter an administrator).
    return knex.schema.alterTable('fw_login_log', (t) => {
      t.boolean('is_admin').notNullable().defaultTo(false);
    });
  },
  down(knex) {
    return knex.schema.alterTable('fw_login_log', (t) => {
      t.dropColumn('is_admin');
    });
  },
};
