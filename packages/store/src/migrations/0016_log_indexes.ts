// Migration 0016: the indexes the built-in log pages read (issue 21 §3). The logs grow without
// bound, and their pages show the newest rows first, alone or for one user, account or model.
import type { Knex } from 'knex';
import { dialectOfKnex } from '../dialect.js';
import type { FwMigration } from './migration-type.js';

/**
 * The new indexes, named as `defineModel` names the built-in models' declared ones
 * (`indexName(table, columns)`), spelled out so this migration never changes. Indexes the logs
 * already have stay: `fw_login_log (success, login_time)` (0012), `fw_operate_log (model,
 * created_at)` (0002) and `(user_id, created_at)` (0015).
 */
export const LOG_INDEXES: ReadonlyArray<{ table: 'fw_login_log' | 'fw_operate_log'; name: string; columns: readonly string[] }> = Object.freeze([
  // Newest first: the order of both pages (`orderBy` time desc, id desc), walked backwards.
  { table: 'fw_operate_log', name: 'fw_ix_fw_operate_log_created_at_id', columns: ['created_at', 'id'] },
  { table: 'fw_login_log', name: 'fw_ix_fw_login_log_login_time_id', columns: ['login_time', 'id'] },
  // One user's and one account's sign-ins, newest first.
  { table: 'fw_login_log', name: 'fw_ix_fw_login_log_user_id_login_time_id', columns: ['user_id', 'login_time', 'id'] },
  { table: 'fw_login_log', name: 'fw_ix_fw_login_log_account_login_time_id', columns: ['account', 'login_time', 'id'] },
]);

export const logIndexes: FwMigration = {
  name: '0016_log_indexes',
  // A busy deployment's logs are large: on PostgreSQL each index is built CONCURRENTLY, so sign-ins
  // and edits keep writing log rows meanwhile; that cannot run inside a transaction. (MySQL/MariaDB
  // build them online anyway; SQLite and SQL Server lock the table while they build.)
  transaction: false,
  up(knex: Knex) {
    if (dialectOfKnex(knex) === 'postgres') {
      let s = knex.schema;
      for (const index of LOG_INDEXES) {
        s = s.raw(
          knex.raw(`create index concurrently if not exists ?? on ?? (${index.columns.map(() => '??').join(', ')})`, [index.name, index.table, ...index.columns]).toQuery(),
        );
      }
      return s;
    }
    let s = knex.schema;
    for (const index of LOG_INDEXES) s = s.alterTable(index.table, (t) => t.index([...index.columns], index.name));
    return s;
  },
  down(knex: Knex) {
    if (dialectOfKnex(knex) === 'postgres') {
      let s = knex.schema;
      for (const index of [...LOG_INDEXES].reverse()) s = s.raw(knex.raw('drop index concurrently if exists ??', [index.name]).toQuery());
      return s;
    }
    let s = knex.schema;
    for (const index of [...LOG_INDEXES].reverse()) s = s.alterTable(index.table, (t) => t.dropIndex([...index.columns], index.name));
    return s;
  },
};
