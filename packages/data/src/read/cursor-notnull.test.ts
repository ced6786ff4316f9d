import { expect } from 'chai';
import fc from 'fast-check';
import { createRegistry, defineModel } from '@fw/core';
import { createStore, type FwStore } from '@fw/store';
import { describeEachSql } from '@fw/test-utils';
import { notNullColumns } from './keyset-page.js';
import { DataService } from '../service.js';
import type { TablePage } from '../service-types.js';

// On a table whose sort columns are NOT NULL (the built-in logs' timestamps, host tables), the
// seek drops its IS NULL branches and becomes a plain range. Paging forward and backward through
// such a table must still give exactly the database's order.
const Strict = defineModel({
  name: 'KnItem',
  table: 'kn_item',
  fields: { score: { edit: { type: 'NUMBER', integer: true } }, at: { edit: { type: 'DATETIME' } }, label: {} },
});

describeEachSql('DataService.query: keyset pages on NOT NULL sort columns', (db) => {
  let store: FwStore;
  let service: DataService;
  const actor = { user: { id: 1, account: 'u1', isAdmin: false }, ip: null, source: 'http' as const };

  before(async () => {
    store = createStore(db().url);
    await store.migrate.latest();
    await store.knex.schema.dropTableIfExists('kn_item');
    await store.knex.schema.createTable('kn_item', (t) => {
      t.increments('id');
      t.integer('score').notNullable();
      t.datetime('at', { precision: 3 }).notNullable();
      t.string('label', 255).nullable();
    });
    service = new DataService({ store, registry: createRegistry([Strict]) });
    (service as unknown as { power: () => Promise<Record<string, boolean>> }).power = async () => ({ query: true, add: true, edit: true, delete: true, viewDetails: true });
  });
  after(() => store?.destroy());

  it('reads which columns are NOT NULL from the database', async () => {
    const notNull = await notNullColumns(store.knex, 'kn_item');
    expect([...notNull].sort()).to.include.members(['at', 'score']).and.not.include('label');
  });

  it('pages forward and backward in the database order, ties included', async function () {
    this.timeout(300_000);
    const row = fc.record({ score: fc.integer({ min: 0, max: 2 }), at: fc.constantFrom('2024-01-01T00:00:00.000Z', '2024-01-01T00:00:00.001Z', '2025-05-05T12:00:00.500Z'), label: fc.option(fc.constantFrom('a', 'b'), { nil: null }) });
    const sortArb = fc.uniqueArray(fc.record({ field: fc.constantFrom('score', 'at', 'label'), order: fc.constantFrom('asc' as const, 'desc' as const) }), { minLength: 1, maxLength: 3, selector: (s) => s.field });
    await fc.assert(
      fc.asyncProperty(fc.array(row, { maxLength: 15 }), sortArb, fc.integer({ min: 1, max: 4 }), async (rows, sort, size) => {
        await store.knex('kn_item').del();
        for (const r of rows) await store.knex('kn_item').insert({ ...r, at: new Date(r.at) });
        const qb = store.knex('kn_item').select('id');
        for (const s of sort) qb.orderBy(`kn_item.${s.field}`, s.order);
        const want = ((await qb.orderBy('kn_item.id', sort.at(-1)?.order ?? 'asc')) as Array<{ id: unknown }>).map((r) => Number(r.id));
        const ids = (p: TablePage) => p.rows.map((r) => Number(r.id));
        const forward: number[] = [];
        let page = await service.query('KnItem', actor, { size, sort });
        for (let guard = 0; guard < 100; guard++) {
          forward.push(...ids(page));
          if (!page.cursors.next) break;
          page = await service.query('KnItem', actor, { size, sort, after: page.cursors.next });
        }
        expect(forward).to.deep.equal(want);
        const backward: number[][] = [];
        page = await service.query('KnItem', actor, { size, sort, last: true });
        for (let guard = 0; guard < 100; guard++) {
          backward.unshift(ids(page));
          if (!page.cursors.prev) break;
          page = await service.query('KnItem', actor, { size, sort, before: page.cursors.prev });
        }
        expect(backward.flat()).to.deep.equal(want);
      }),
      { numRuns: 30 },
    );
  });
});
