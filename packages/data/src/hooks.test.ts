import { expect } from 'chai';
import type { Knex } from 'knex';
import { FwError, createRegistry, defineModel } from '@fw/core';
import { createStore, type FwStore } from '@fw/store';
import { describeEachSql } from '@fw/test-utils';
import { DataService } from './service.js';

const Order = defineModel({
  name: 'Order',
  table: 'hk_order',
  fields: { title: { edit: { notNull: true } } },
  dataProxy: {
    // Related rows written through the operation's transaction commit or roll back with it.
    afterAdd: async (row, { transaction }) => {
      await (transaction as Knex.Transaction)('hk_audit').insert({ note: `added ${String(row.title)}` });
      if (row.title === 'refuse') throw new FwError('CONFLICT', 'refused after the audit row was written');
    },
    afterDelete: async (rows, { transaction }) => {
      await (transaction as Knex.Transaction)('hk_audit').insert({ note: `deleted ${rows.length}` });
    },
  },
});

describeEachSql('data-proxy hooks and context.transaction', (db) => {
  let store: FwStore;
  let service: DataService;
  const actor = { user: { id: 1, account: 'root', isAdmin: true }, ip: null, source: 'http' as const };
  before(async () => {
    store = createStore(db().url);
    await store.migrate.latest();
    await store.createModelTables([Order]);
    await store.knex.schema.createTable('hk_audit', (t) => {
      t.increments('id');
      t.string('note');
    });
    service = new DataService({ store, registry: createRegistry([Order]), onBackgroundError: () => undefined });
  });
  after(() => store?.destroy());

  it('commits the hook’s writes with the change, and rolls both back when a hook fails', async () => {
    const order = await service.add('Order', actor, { title: 'keep' });
    let refused: unknown;
    try {
      await service.add('Order', actor, { title: 'refuse' });
    } catch (error) {
      refused = error;
    }
    expect((refused as FwError).code).to.equal('CONFLICT');
    await service.delete('Order', actor, { ids: [order.id] });
    expect((await store.knex('hk_order').select('title')).map((r) => r.title)).to.deep.equal([]);
    expect((await store.knex('hk_audit').orderBy('id').select('note')).map((r) => r.note)).to.deep.equal(['added keep', 'deleted 1']);
  });
});
