// Migration 0017: the operate log's batch id and a row's history (issue 23 §2, §3). A bulk edit,
// a bulk delete and a restore stamp each of their log rows with one batch id; the History tab of
// a row reads that row's entries, newest first.
import type { Knex } from 'knex';
import { dialectOfKnex } from '../dialect.js';
import type { FwMigration } from './migration-type.js';

/**
 * The new indexes, named as `defineModel` names declared ones (`indexName(table, columns)`),
 * spelled out so this migration never changes.
 */
export const BATCH_INDEXES: ReadonlyArray<{ table: 'fw_operate_log'; name: string; columns: readonly string[] }> = Object.freeze([
  // Every log row of one batch (undo of a batch, the answer of a bulk edit).
  { table: 'fw_operate_log', name: 'fw_ix_fw_operate_log_batch', columns: ['batch'] },
  // One row's history, newest first: `model = ? and target_id = ? order by id desc`.
  { table: 'fw_operate_log', name: 'fw_ix_fw_operate_log_model_target_id_id', columns: ['model', 'target_id', 'id'] },
]);

export const operateLogBatch: FwMigration = {
  name: '0019_operate_log_batch',
  // As 0016: on PostgreSQL the indexes are built CONCURRENTLY so the log keeps taking rows, which
  // cannot run in a transaction. Adding a nullable column without a default only changes the
  // catalog on every dialect, so it needs no transaction of its own either.
  transaction: false,
  up(knex: Knex) {
    let s = knex.schema.alterTable('fw_operate_log', (t) => {
      t.string('batch', 36).nullable();
    });
    if (dialectOfKnex(knex) === 'postgres') {
      for (const index of BATCH_INDEXES) {
        s = s.raw(
          knex.raw(`create index concurrently if not exists ?? on ?? (${index.columns.map(() => '??').join(', ')})`, [index.name, index.table, ...index.columns]).toQuery(),
        );
      }
      return s;
    }
    for (const index of BATCH_INDEXES) s = s.alterTable(index.table, (t) => t.index([...index.columns], index.name));
    return s;
  },
  down(knex: Knex) {
    let s = knex.schema;
    if (dialectOfKnex(knex) === 'postgres') {
      for (const index of [...BATCH_INDEXES].reverse()) s = s.raw(knex.raw('drop index concurrently if exists ??', [index.name]).toQuery());
    } else {
      for (const index of [...BATCH_INDEXES].reverse()) s = s.alterTable(index.table, (t) => t.dropIndex([...index.columns], index.name));
    }
    return s.alterTable('fw_operate_log', (t) => {
      t.dropColumn('batch');
    });
  },
};
