// Migration 0013_token_last_seen: when a token was last used, and a token's sign-in row by hash.
import type { FwMigration } from './migration-type.js';

export const tokenLastSeen: FwMigration = {
  name: '0013_token_last_seen',
  up(knex) {
    // Live sessions a person can see and end (issue 19 §6): when each token was last used
    // (written at most about once a minute per token), and a lookup of a token's sign-in row (IP,
    // user agent, method) that does not scan the whole login log.
    return knex.schema
      .alterTable('fw_token', (t) => {
        t.bigInteger('last_seen_at').nullable();
      })
      .alterTable('fw_login_log', (t) => {
        t.index(['token_hash'], 'fw_login_log_token_hash_index');
      });
  },
  down(knex) {
    return knex.schema
      .alterTable('fw_login_log', (t) => {
        t.dropIndex(['token_hash'], 'fw_login_log_token_hash_index');
      })
      .alterTable('fw_token', (t) => {
        t.dropColumn('last_seen_at');
      });
  },
};
