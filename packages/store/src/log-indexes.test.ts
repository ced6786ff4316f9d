import { FwLoginLogModel, FwOperateLogModel, indexName } from '@fw/core';
import { describeEachSql } from '@fw/test-utils';
import { expect } from 'chai';
import { LOG_INDEXES } from './migrations/0016_log_indexes.js';
import { compileMigrations } from './migrations.js';
import { covered, readIndexes } from './model-table-indexes.js';
import { createStore, type FwStore } from './store.js';

describeEachSql('Migration 0016_log_indexes: the indexes of the log pages', (db) => {
  let store: FwStore;
  before(async function () {
    store = createStore(db().url);
    await store.migrate.latest();
  });
  after(async function () {
    await store?.destroy();
  });

  it('creates every index the built-in log models declare (newest first, by user, by account, by model)', async function () {
    for (const model of [FwLoginLogModel, FwOperateLogModel]) {
      const indexes = await readIndexes(store.knex, model.table);
      for (const index of model.indexes) expect(covered(indexes, index.columns), `${model.table} (${index.columns.join(', ')})`).to.equal(true);
    }
    const names = [...(await readIndexes(store.knex, 'fw_login_log')), ...(await readIndexes(store.knex, 'fw_operate_log'))].map((i) => i.name);
    for (const index of LOG_INDEXES) expect(names).to.include(index.name);
  });

  it('the newest-first page of each log reads its index, not the whole table', async function () {
    if (store.dialect === 'mysql') {
      // MariaDB's optimizer picks a sort over an index for a table this small; the catalog test above stands for it.
      expect(covered(await readIndexes(store.knex, 'fw_operate_log'), ['created_at', 'id'])).to.equal(true);
      return;
    }
    for (const [table, time] of [
      ['fw_operate_log', 'created_at'],
      ['fw_login_log', 'login_time'],
    ] as const) {
      const query = store
        .knex(table)
        .select('*')
        .orderBy([
          { column: time, order: 'desc' },
          { column: 'id', order: 'desc' },
        ])
        .limit(20)
        .toQuery();
      let plan: string;
      if (store.dialect === 'postgres') {
        plan = await store.knex.transaction(async (trx) => {
          // With a handful of rows a scan is cheaper; forbid it to see what the planner can use.
          await trx.raw('set local enable_seqscan = off');
          return ((await trx.raw(`explain ${query}`)).rows as Array<{ 'QUERY PLAN': string }>).map((r) => r['QUERY PLAN']).join('\n');
        });
      } else {
        plan = ((await store.knex.raw(`explain query plan ${query}`)) as Array<{ detail: string }>).map((r) => r.detail).join('\n');
      }
      // SQLite may pick the older one-column time index: its rows end with the rowid, the id.
      expect(plan, table).to.match(/Index Scan Backward using|USING (COVERING )?INDEX/);
      expect(plan, table).not.to.match(/TEMP B-TREE|Sort/);
    }
  });
});

describe('Migration 0016_log_indexes, compiled', function () {
  it('builds the indexes concurrently on PostgreSQL, outside a transaction', async function () {
    const migration = (await compileMigrations('postgres')).find((m) => m.name === '0016_log_indexes')!;
    expect(migration.up).to.deep.equal([
      'create index concurrently if not exists "fw_ix_fw_operate_log_created_at_id" on "fw_operate_log" ("created_at", "id")',
      'create index concurrently if not exists "fw_ix_fw_login_log_login_time_id" on "fw_login_log" ("login_time", "id")',
      'create index concurrently if not exists "fw_ix_fw_login_log_user_id_login_time_id" on "fw_login_log" ("user_id", "login_time", "id")',
      'create index concurrently if not exists "fw_ix_fw_login_log_account_login_time_id" on "fw_login_log" ("account", "login_time", "id")',
    ]);
    expect(migration.down[0]).to.equal('drop index concurrently if exists "fw_ix_fw_login_log_account_login_time_id"');
  });

  it('compiles plain CREATE INDEX statements for SQL Server', async function () {
    const migration = (await compileMigrations('mssql')).find((m) => m.name === '0016_log_indexes')!;
    expect(migration.up).to.include('CREATE INDEX [fw_ix_fw_operate_log_created_at_id] ON [fw_operate_log] ([created_at], [id])');
    expect(migration.up).to.include('CREATE INDEX [fw_ix_fw_login_log_account_login_time_id] ON [fw_login_log] ([account], [login_time], [id])');
    expect(migration.down).to.include('DROP INDEX [fw_ix_fw_login_log_login_time_id] ON [fw_login_log]');
  });

  it("names the indexes as defineModel names the built-in models' declared ones", function () {
    for (const index of LOG_INDEXES) expect(indexName(index.table, index.columns)).to.equal(index.name);
  });
});
