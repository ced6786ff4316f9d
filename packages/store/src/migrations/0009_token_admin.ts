// Migration 0009_token_admin: whether a token carries administrator power.
import type { FwMigration } from './migration-type.js';

export const tokenAdmin: FwMigration = {
  name: '0009_token_admin',
  up(knex) {
    // A login hook may make a sign-in an administrator (an LDAP group, say) without touching the
    // stored user: the token carries that power for its life, on every instance (issue 10 §7).
    return knex.schema.alterTable('fw_token', (t) => {
      t.boolean('is_admin').notNullable().defaultTo(false);
    });
  },
  down(knex) {
    return knex.schema.alterTable('fw_token', (t) => {
      t.dropColumn('is_admin');
    });
  },
};
