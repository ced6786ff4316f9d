import { expect } from 'chai';
import fc from 'fast-check';
import { createRegistry, defineModel, type Condition, type DataHookContext } from '@fw/core';
import { toDbValues } from '@fw/row-patch';
import { createStore, type FwStore } from '@fw/store';
import { describeEachSql } from '@fw/test-utils';
import { applyConditions } from './query.js';
import { DataService } from '../service.js';
import type { TablePage } from '../service-types.js';

// Paging by cursor must hold up while others write: reading a table page after page (forward by
// `after`, backward by `before` from `last`), with rows inserted, deleted and changed (in fields
// outside the sort) between the reads, every row that exists throughout is shown exactly once,
// no row is shown twice, and the rows come in the requested order. The database's own ORDER BY
// over the table at the end is the truth the order is checked against.
const Item = defineModel({
  name: 'KpItem',
  table: 'kp_item',
  fields: {
    score: { edit: { type: 'NUMBER', integer: true } },
    name: {},
    price: { edit: { type: 'NUMBER' } },
    day: { edit: { type: 'DATE' } },
    at: { edit: { type: 'DATETIME' } },
    flag: { edit: { type: 'BOOLEAN' } },
    owner: { edit: { type: 'NUMBER', integer: true } },
    note: {},
  },
  // User 1 sees every row; anyone else only their own (a visibility condition with a per-user value).
  dataProxy: { beforeFetch: ({ user }: DataHookContext) => (user.id === 1 ? [] : [{ field: 'owner', op: 'eq', value: user.id }]) },
});

const SORTABLE = ['score', 'name', 'price', 'day', 'at', 'flag'] as const;

const rowArb = fc.record({
  score: fc.option(fc.integer({ min: 0, max: 3 }), { nil: null }),
  // Ties under case-insensitive collations, an empty text beside NULL, text beyond ASCII.
  name: fc.option(fc.constantFrom('', 'a', 'A', 'b', 'é', 'Ω', '日本', 'z ', '😀'), { nil: null }),
  price: fc.option(fc.constantFrom(0, -1.5, 2.25, 0.1, 1e-7, 12345.678), { nil: null }),
  day: fc.option(fc.constantFrom('2024-01-01', '2024-02-29', '1999-12-31'), { nil: null }),
  // Milliseconds apart: a cursor that dropped them would skip or repeat rows.
  at: fc.option(fc.constantFrom('2024-01-01T00:00:00.000Z', '2024-01-01T00:00:00.001Z', '2024-01-01T00:00:00.002Z', '2023-06-30T23:59:59.999Z'), { nil: null }),
  flag: fc.option(fc.boolean(), { nil: null }),
  owner: fc.integer({ min: 1, max: 2 }),
});

type Op = { kind: 'insert'; row: Record<string, unknown> } | { kind: 'delete'; pick: number } | { kind: 'update'; pick: number };
const opArb: fc.Arbitrary<Op> = fc.oneof(
  rowArb.map((row) => ({ kind: 'insert' as const, row })),
  fc.nat().map((pick) => ({ kind: 'delete' as const, pick })),
  fc.nat().map((pick) => ({ kind: 'update' as const, pick })),
);

const caseArb = fc.record({
  rows: fc.array(rowArb, { minLength: 0, maxLength: 24 }),
  sort: fc.uniqueArray(fc.record({ field: fc.constantFrom(...SORTABLE), order: fc.constantFrom('asc' as const, 'desc' as const) }), { minLength: 1, maxLength: 3, selector: (s) => s.field }),
  size: fc.integer({ min: 1, max: 6 }),
  conditions: fc.constantFrom<Condition[]>([], [{ field: 'score', op: 'notNull' }], [{ field: 'flag', op: 'eq', value: true }], [{ field: 'price', op: 'gte', value: 0 }]),
  userId: fc.constantFrom(1, 2),
  ops: fc.array(opArb, { maxLength: 12 }),
});

describeEachSql('DataService.query: keyset pages by cursor under concurrent writes', (db) => {
  let store: FwStore;
  let service: DataService;
  const actor = (id: number) => ({ user: { id, account: `u${id}`, isAdmin: false }, ip: null, source: 'http' as const });

  before(async () => {
    store = createStore(db().url);
    await store.migrate.latest();
    await store.createModelTables([Item]);
    service = new DataService({ store, registry: createRegistry([Item]) });
    (service as unknown as { power: () => Promise<Record<string, boolean>> }).power = async () => ({ query: true, add: true, edit: true, delete: true, viewDetails: true });
  });
  after(() => store?.destroy());

  const insert = async (row: Record<string, unknown>) => {
    await store.knex('kp_item').insert(toDbValues(Item, row));
  };

  /** The ids the database's own ORDER BY gives for the whole visible table now. */
  const ordered = async (sort: Array<{ field: string; order: 'asc' | 'desc' }>, conditions: Condition[], userId: number): Promise<number[]> => {
    const all = [...conditions, ...(userId === 1 ? [] : [{ field: 'owner', op: 'eq' as const, value: userId }])];
    const qb = applyConditions(store.knex('kp_item').select('kp_item.id'), Item, all);
    for (const s of sort) qb.orderBy(`kp_item.${Item.fields[s.field]!.column}`, s.order);
    const rows: Array<{ id: unknown }> = await qb.orderBy('kp_item.id', sort.at(-1)?.order ?? 'asc');
    return rows.map((r) => Number(r.id));
  };

  /** Applies the next write of `ops` (if any) between two page reads; deleted ids are recorded. */
  const writer = (ops: Op[], deleted: Set<number>) => async () => {
    const op = ops.shift();
    if (!op) return;
    const ids = (await store.knex('kp_item').select('id').orderBy('id')).map((r: { id: unknown }) => Number(r.id));
    if (op.kind === 'insert') return insert(op.row);
    const id = ids[op.pick % Math.max(ids.length, 1)];
    if (id === undefined) return;
    if (op.kind === 'delete') {
      deleted.add(id);
      await store.knex('kp_item').where('id', id).del();
    } else {
      await store.knex('kp_item').where('id', id).update({ note: `changed ${op.pick}` });
    }
  };

  /** Checks what paging showed (`seen`, in the order shown) against the table at the end. */
  const check = (seen: number[], start: Set<number>, deleted: Set<number>, final: number[], label: string) => {
    expect(new Set(seen).size, `no row twice: ${label}`).to.equal(seen.length);
    const finalSet = new Set(final);
    // Rows there from start to end, and visible under the query: every one of them shown.
    const stable = final.filter((id) => start.has(id) && !deleted.has(id));
    const shown = new Set(seen);
    expect(stable.filter((id) => !shown.has(id)), `skipped rows: ${label}`).to.deep.equal([]);
    // Every row shown is a row of the query (or one deleted since); those still there come in the database's order.
    expect(seen.filter((id) => !finalSet.has(id) && !deleted.has(id)), `rows outside the query: ${label}`).to.deep.equal([]);
    const position = new Map(final.map((id, i) => [id, i]));
    const places = seen.filter((id) => finalSet.has(id)).map((id) => position.get(id)!);
    expect(places, `order: ${label}`).to.deep.equal([...places].sort((a, b) => a - b));
  };

  const reset = async (rows: Array<Record<string, unknown>>) => {
    await store.knex('kp_item').del();
    for (const row of rows) await insert(row);
    return new Set((await store.knex('kp_item').select('id')).map((r: { id: unknown }) => Number(r.id)));
  };

  it('pages forward by after: no row skipped or shown twice, in order, while rows are written between pages', async function () {
    this.timeout(300_000);
    await fc.assert(
      fc.asyncProperty(caseArb, async ({ rows, sort, size, conditions, userId, ops }) => {
        const start = await reset(rows);
        const deleted = new Set<number>();
        const write = writer([...ops], deleted);
        const seen: number[] = [];
        let page: TablePage = await service.query('KpItem', actor(userId), { size, sort, conditions });
        expect(page.cursors.prev, 'the first page has nothing before it').to.equal(null);
        for (let guard = 0; ; guard++) {
          expect(guard, 'paging ends').to.be.below(200);
          expect(page.rows.length).to.be.at.most(size);
          seen.push(...page.rows.map((r) => Number(r.id)));
          if (page.cursors.next === null) break;
          expect(page.rows.length, 'a page with a next cursor is full').to.equal(size);
          await write();
          page = await service.query('KpItem', actor(userId), { size, sort, conditions, after: page.cursors.next });
        }
        check(seen, start, deleted, await ordered(sort, conditions, userId), JSON.stringify({ sort, size, conditions, userId }));
      }),
      { numRuns: 40 },
    );
  });

  it('pages backward by before from the last page likewise, and the last page is the final slice', async function () {
    this.timeout(300_000);
    await fc.assert(
      fc.asyncProperty(caseArb, async ({ rows, sort, size, conditions, userId, ops }) => {
        const start = await reset(rows);
        const before = await ordered(sort, conditions, userId);
        let page: TablePage = await service.query('KpItem', actor(userId), { size, sort, conditions, last: true, page: 7 });
        expect(page.rows.map((r) => Number(r.id)), 'last: the final slice').to.deep.equal(before.slice(Math.max(before.length - size, 0)));
        expect(page.cursors.next, 'the last page has nothing after it').to.equal(null);
        expect(page.page, 'the page number is echoed').to.equal(7);
        const deleted = new Set<number>();
        const write = writer([...ops], deleted);
        const chunks: number[][] = [];
        for (let guard = 0; ; guard++) {
          expect(guard, 'paging ends').to.be.below(200);
          chunks.unshift(page.rows.map((r) => Number(r.id)));
          if (page.cursors.prev === null) break;
          expect(page.rows.length, 'a page with a prev cursor is full').to.equal(size);
          await write();
          page = await service.query('KpItem', actor(userId), { size, sort, conditions, before: page.cursors.prev });
        }
        check(chunks.flat(), start, deleted, await ordered(sort, conditions, userId), JSON.stringify({ sort, size, conditions, userId }));
      }),
      { numRuns: 40 },
    );
  });

  it('gives cursors on pages by number that continue exactly where the next page number would', async function () {
    this.timeout(300_000);
    await fc.assert(
      fc.asyncProperty(caseArb, fc.integer({ min: 1, max: 5 }), async ({ rows, sort, size, conditions, userId }, number) => {
        await reset(rows);
        const all = await ordered(sort, conditions, userId);
        const page = await service.query('KpItem', actor(userId), { size, sort, conditions, page: number });
        const ids = (p: TablePage) => p.rows.map((r) => Number(r.id));
        expect(ids(page)).to.deep.equal(all.slice((number - 1) * size, number * size));
        const hasRows = page.rows.length > 0;
        expect(page.cursors.prev !== null, 'prev when rows precede').to.equal(hasRows && number > 1);
        expect(page.cursors.next !== null, 'next when rows follow').to.equal(hasRows && all.length > number * size);
        if (page.cursors.next) expect(ids(await service.query('KpItem', actor(userId), { size, sort, conditions, after: page.cursors.next }))).to.deep.equal(all.slice(number * size, (number + 1) * size));
        if (page.cursors.prev) expect(ids(await service.query('KpItem', actor(userId), { size, sort, conditions, before: page.cursors.prev }))).to.deep.equal(all.slice((number - 2) * size, (number - 1) * size));
      }),
      { numRuns: 40 },
    );
  });
});
