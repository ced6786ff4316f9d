import { defineModel } from '@fw/core';
import { describeEachSql } from '@fw/test-utils';
import { expect } from 'chai';
import { adviseIndexes, tableRows } from './index-advice.js';
import { createStore, type FwStore } from './store.js';

describeEachSql('adviseIndexes(knex, models, { largeTableRows })', (db) => {
  let store: FwStore;
  before(function () {
    store = createStore(db().url);
  });
  after(async function () {
    await store.destroy();
  });

  it('lists the filtered or sorted fields of a large table that no index starts with, and none below the threshold', async function () {
    const m = defineModel({
      name: 'Order',
      table: 'adv_order',
      fields: {
        status: {},
        total: { edit: { type: 'NUMBER' } },
        customer: { edit: { type: 'HIDDEN', integer: true }, views: { sortable: false } },
        placedAt: { column: 'placed_at', edit: { type: 'DATETIME' } },
        note: { edit: { type: 'TEXTAREA' } },
      },
      indexes: [['placedAt', 'status']],
    });
    await store.createModelTables([m]);
    await store.knex('adv_order').insert([1, 2, 3, 4].map((n) => ({ status: 's', total: n, customer: n, placed_at: new Date() })));
    expect(await adviseIndexes(store.knex, [m], { largeTableRows: 5 })).to.deep.equal([]);
    const advice = await adviseIndexes(store.knex, [m], { largeTableRows: 4 });
    // placedAt leads an index; status is in one, not first; customer is hidden and not sortable.
    expect(advice.map((a) => [a.field, a.use, a.rows])).to.deep.equal([
      ['status', 'filter and sort', 4],
      ['total', 'filter and sort', 4],
    ]);
    await store.knex.schema.alterTable('adv_order', (t) => t.index(['total'], 'by_hand_total'));
    expect((await adviseIndexes(store.knex, [m], { largeTableRows: 4 })).map((a) => a.field)).to.deep.equal(['status']);
  });

  it('skips a table that does not exist yet, and refuses a threshold below 1', async function () {
    const m = defineModel({ name: 'Ghost', table: 'adv_ghost', fields: { status: {} } });
    expect(await adviseIndexes(store.knex, [m], { largeTableRows: 1 })).to.deep.equal([]);
    let error: unknown;
    await adviseIndexes(store.knex, [m], { largeTableRows: 0 }).catch((e: unknown) => (error = e));
    expect(error).to.be.instanceOf(RangeError);
  });

  it("tableRows counts no further than the threshold unless statistics say large, and on PostgreSQL takes the planner's estimate once it says large", async function () {
    const m = defineModel({ name: 'Row', table: 'adv_rows', fields: { v: {} } });
    await store.createModelTables([m]);
    await store.knex('adv_rows').insert(Array.from({ length: 10 }, (_, i) => ({ v: String(i) })));
    // MariaDB's table statistics may already know the 10 rows (then they answer); otherwise the
    // count stops at the threshold.
    if (store.dialect === 'mysql') expect(await tableRows(store.knex, 'adv_rows', 3)).to.be.oneOf([3, 10]);
    else expect(await tableRows(store.knex, 'adv_rows', 3)).to.equal(3);
    expect(await tableRows(store.knex, 'adv_rows', 100)).to.equal(10);
    if (store.dialect === 'postgres') {
      await store.knex.raw('analyze adv_rows');
      await store.knex('adv_rows').delete();
      // Statistics lag behind the delete: the estimate (10) is what doctor reads, without a scan.
      expect(await tableRows(store.knex, 'adv_rows', 5)).to.equal(10);
    }
  });
});
