// Migration 0012_login_log_failures: failed sign-ins in the login log.
import type { FwMigration } from './migration-type.js';

export const loginLogFailures: FwMigration = {
  name: '0012_login_log_failures',
  up(knex) {
    // Failed sign-ins are login-log rows too (issue 19 §6). Rows written before are successes,
    // hence the default. `reason` is a class (`bad-credentials`, `locked`, …), never a hook's own
    // text; `account_typed` is what the client sent, cleaned; `attempts` is 1 except on a summary
    // row, which counts the failures beyond the write caps.
    return knex.schema.alterTable('fw_login_log', (t) => {
      t.boolean('success').notNullable().defaultTo(true);
      t.string('reason', 32).nullable();
      t.string('account_typed', 128).nullable();
      t.integer('attempts').notNullable().defaultTo(1);
      // The login-log page's filter "failed, newest first".
      t.index(['success', 'login_time']);
    });
  },
  down(knex) {
    return knex.schema.alterTable('fw_login_log', (t) => {
      t.dropIndex(['success', 'login_time']);
      t.dropColumn('attempts');
      t.dropColumn('account_typed');
      t.dropColumn('reason');
      t.dropColumn('success');
    });
  },
};
