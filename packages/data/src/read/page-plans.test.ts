import { expect } from 'chai';
import { createRegistry, defineModel, type Condition, type DataHookContext } from '@fw/core';
import { createStore, type FwStore } from '@fw/store';
import { describeEachSql } from '@fw/test-utils';
import { applyConditions } from './query.js';
import { DataService } from '../service.js';

// Table pages are compiled once per shape (model, sort, size, offset or not, each condition's
// field, operator and number of values) and sent again with new values. Every page here is
// checked against the same query built afresh by the query builder, with the same shape asked
// again with other values, so a plan that kept a value of an earlier request would show.
const Item = defineModel({
  name: 'Item',
  table: 'pp_item',
  fields: {
    title: {},
    stock: { edit: { type: 'NUMBER', integer: true } },
    added: { edit: { type: 'DATE' } },
    active: { edit: { type: 'BOOLEAN' } },
    owner: { edit: { type: 'NUMBER', integer: true } },
  },
  // Users other than 1 see only their own rows: a visibility condition with a per-user value.
  dataProxy: { beforeFetch: ({ user }: DataHookContext) => (user.id === 1 ? [] : [{ field: 'owner', op: 'eq', value: user.id }]) },
});

describeEachSql('table pages through compiled plans, conditions included', (db) => {
  let store: FwStore;
  let service: DataService;
  const actor = (id: number) => ({ user: { id, account: `u${id}`, isAdmin: false }, ip: null, source: 'http' as const });

  before(async () => {
    store = createStore(db().url);
    await store.migrate.latest();
    await store.createModelTables([Item]);
    const rows = Array.from({ length: 60 }, (_, i) => ({
      title: i % 7 === 0 ? null : `Item ${i} ${i % 2 ? 'Red' : 'blue'}${i === 5 ? ' 50%_off' : ''}`,
      stock: i % 10,
      added: `2024-0${(i % 9) + 1}-15`,
      active: i % 3 !== 0,
      owner: (i % 3) + 1,
    }));
    await store.knex('pp_item').insert(rows);
    service = new DataService({ store, registry: createRegistry([Item]) });
    (service as unknown as { power: () => Promise<Record<string, boolean>> }).power = async () => ({ query: true, add: true, edit: true, delete: true, viewDetails: true });
  });
  after(() => store?.destroy());

  /** The ids and total the query builder gives for these conditions (visibility added as the reader adds it). */
  const expected = async (userId: number, conditions: Condition[], page: number, size: number) => {
    const all = [...conditions, ...(userId === 1 ? [] : [{ field: 'owner', op: 'eq' as const, value: userId }])];
    const ids: Array<{ id: number }> = await applyConditions(store.knex('pp_item').select('pp_item.id'), Item, all)
      .orderBy('pp_item.id')
      .limit(size)
      .offset((page - 1) * size);
    const [counted] = (await applyConditions(store.knex('pp_item').count({ n: '*' }), Item, all)) as Array<{ n: unknown }>;
    return { ids: ids.map((r) => Number(r.id)), total: Number(counted?.n) };
  };

  const cases: Condition[][] = [
    [],
    [{ field: 'stock', op: 'eq', value: 3 }],
    [{ field: 'stock', op: 'eq', value: 7 }],
    [{ field: 'stock', op: 'in', value: [1, 2] }],
    [{ field: 'stock', op: 'in', value: [4, 8] }],
    [{ field: 'stock', op: 'in', value: [4, 8, 9] }],
    [{ field: 'stock', op: 'between', value: [2, 4] }],
    [{ field: 'stock', op: 'between', value: [6, 9] }],
    [{ field: 'added', op: 'gte', value: '2024-05-01' }],
    [{ field: 'added', op: 'lt', value: '2024-03-01' }],
    [{ field: 'active', op: 'eq', value: true }],
    [{ field: 'active', op: 'eq', value: false }],
    [{ field: 'title', op: 'like', value: 'red' }],
    [{ field: 'title', op: 'like', value: 'BLUE' }],
    [{ field: 'title', op: 'like', value: '50%_' }],
    [{ field: 'title', op: 'ne', value: 'Item 1 Red' }],
    [{ field: 'title', op: 'isNull' }],
    [{ field: 'title', op: 'notNull' }, { field: 'stock', op: 'gt', value: 5 }],
    [{ field: 'title', op: 'notNull' }, { field: 'stock', op: 'gt', value: 1 }],
  ];

  it('gives every page and total the query builder gives, the same shape asked with other values included', async () => {
    for (const userId of [1, 2, 3]) {
      for (const conditions of cases) {
        for (const page of [1, 2, 1]) {
          const got = await service.query('Item', actor(userId), { page, size: 5, conditions });
          const want = await expected(userId, conditions, page, 5);
          expect({ ids: got.rows.map((r) => r.id), total: got.total }, `user ${userId} page ${page} ${JSON.stringify(conditions)}`).to.deep.equal(want);
        }
      }
    }
  });

  it('keeps the values of concurrent requests of one shape apart', async () => {
    const asked = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9].map((stock) => ({ stock, userId: (stock % 3) + 1 }));
    const pages = await Promise.all(asked.map(({ stock, userId }) => service.query('Item', actor(userId), { page: 1, size: 50, conditions: [{ field: 'stock', op: 'eq', value: stock }] })));
    for (const [i, { stock, userId }] of asked.entries()) {
      const want = await expected(userId, [{ field: 'stock', op: 'eq', value: stock }], 1, 50);
      expect({ ids: pages[i]!.rows.map((r) => r.id), total: pages[i]!.total }).to.deep.equal(want);
      expect(pages[i]!.rows.every((r) => r.stock === stock)).to.equal(true);
    }
  });
});
