import { describeEachSql } from '@fw/test-utils';
import { expect } from 'chai';
import { BATCH_INDEXES } from './migrations/0019_operate_log_batch.js';
import { compileMigrations } from './migrations.js';
import { covered, readIndexes } from './model-table-indexes.js';
import { createStore, type FwStore } from './store.js';

describeEachSql('Migration 0019_operate_log_batch: batch ids and row history on the operate log', (db) => {
  let store: FwStore;
  before(async function () {
    store = createStore(db().url);
    await store.migrate.latest();
  });
  after(async function () {
    await store?.destroy();
  });

  it('adds the batch column, read and written by the operate-log repository', async function () {
    const batch = '0b6c3f0e-8a51-4a4e-9a3b-3f1f7c1d2e4a';
    const written = await store.operateLogs.insert({ model: 'Book', action: 'update', status: 'success', targetId: 7, batch });
    expect(written.batch).to.equal(batch);
    const plain = await store.operateLogs.insert({ model: 'Book', action: 'update', status: 'success', targetId: 7 });
    expect(plain.batch).to.equal(null);
    const listed = await store.operateLogs.list({ model: 'Book' });
    expect(listed.map((l) => l.batch)).to.deep.equal([null, batch]);
    // A batch id is a UUID: longer text is refused, not cut.
    let refused: unknown;
    await store.operateLogs.insert({ model: 'Book', action: 'update', status: 'success', batch: 'x'.repeat(37) }).catch((e: unknown) => (refused = e));
    expect((refused as { code?: string }).code).to.equal('VALIDATION_FAILED');
  });

  it("creates the batch index and the (model, target_id, id) index a row's history reads", async function () {
    const indexes = await readIndexes(store.knex, 'fw_operate_log');
    expect(covered(indexes, ['batch'])).to.equal(true);
    expect(covered(indexes, ['model', 'target_id', 'id'])).to.equal(true);
    for (const index of BATCH_INDEXES) expect(indexes.map((i) => i.name)).to.include(index.name);
  });

  it('rolls back to the table without the column, and up again', async function () {
    await store.migrate.rollback();
    const columns = Object.keys(await store.knex('fw_operate_log').columnInfo());
    expect(columns).not.to.include('batch');
    await store.migrate.latest();
    expect(Object.keys(await store.knex('fw_operate_log').columnInfo())).to.include('batch');
  });
});

describe('Migration 0019_operate_log_batch, compiled', function () {
  it('builds the indexes concurrently on PostgreSQL, outside a transaction', async function () {
    const migration = (await compileMigrations('postgres')).find((m) => m.name === '0019_operate_log_batch')!;
    expect(migration.up).to.deep.equal([
      'alter table "fw_operate_log" add column "batch" varchar(36) null',
      'create index concurrently if not exists "fw_ix_fw_operate_log_batch" on "fw_operate_log" ("batch")',
      'create index concurrently if not exists "fw_ix_fw_operate_log_model_target_id_id" on "fw_operate_log" ("model", "target_id", "id")',
    ]);
    expect(migration.down[0]).to.equal('drop index concurrently if exists "fw_ix_fw_operate_log_model_target_id_id"');
  });

  it('compiles for SQL Server', async function () {
    const migration = (await compileMigrations('mssql')).find((m) => m.name === '0019_operate_log_batch')!;
    expect(migration.up).to.include('ALTER TABLE [fw_operate_log] ADD [batch] nvarchar(36) null');
    expect(migration.up).to.include('CREATE INDEX [fw_ix_fw_operate_log_model_target_id_id] ON [fw_operate_log] ([model], [target_id], [id])');
    expect(migration.down).to.include('DROP INDEX [fw_ix_fw_operate_log_batch] ON [fw_operate_log]');
  });
});
