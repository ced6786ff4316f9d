// Red-team probe of declared indexes (issue 21 §3): index names are one namespace per schema on
// PostgreSQL and SQLite, so two tables whose table and column names join into the same
// `fw_ix_<table>_<columns>` must still each get their index, never one silently skipped by
// `create index if not exists`.
import { defineModel } from '@fw/core';
import { describeEachSql } from '@fw/test-utils';
import { expect } from 'chai';
import { covered, readIndexes } from './model-table-indexes.js';
import { createStore, type FwStore } from './store.js';

describeEachSql('Declared indexes whose plain names collide', (db) => {
  let store: FwStore;
  before(() => {
    store = createStore(db().url);
  });
  after(() => store?.destroy());

  it('creates both indexes of rt_ord_item (status) and rt_ord (item_status)', async () => {
    const lines = defineModel({ name: 'RtOrdItem', table: 'rt_ord_item', fields: { status: { index: true } } });
    const orders = defineModel({ name: 'RtOrd', table: 'rt_ord', fields: { itemStatus: { column: 'item_status', index: true } } });
    await store.createModelTables([lines, orders]);
    expect(covered(await readIndexes(store.knex, 'rt_ord_item'), ['status']), 'rt_ord_item (status)').to.equal(true);
    expect(covered(await readIndexes(store.knex, 'rt_ord'), ['item_status']), 'rt_ord (item_status)').to.equal(true);
  });

  it('creates both indexes of one table whose columns join into the same name: (a_b) and (a, b)', async () => {
    const model = defineModel({ name: 'RtJoin', table: 'rt_join', fields: { a: {}, b: {}, aB: { column: 'a_b', index: true } }, indexes: [['a', 'b']] });
    await store.createModelTables([model]);
    const indexes = await readIndexes(store.knex, 'rt_join');
    expect(covered(indexes, ['a_b']), 'rt_join (a_b)').to.equal(true);
    expect(covered(indexes, ['a', 'b']), 'rt_join (a, b)').to.equal(true);
  });
});
