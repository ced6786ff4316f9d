import { expect } from 'chai';
import fc from 'fast-check';
import { createRegistry, defineModel, type Condition, type DataHookContext } from '@fw/core';
import { createStore, type FwStore } from '@fw/store';
import { describeEachSql } from '@fw/test-utils';
import { ANCHOR_MAX_ROWS, ANCHOR_TTL_MS, MAX_ANCHOR_CHARS, MIN_ANCHOR_STEP, PageAnchors, anchorKeys } from './page-anchors.js';
import { applyConditions } from './query.js';
import { DataService } from '../service.js';
import type { TablePage } from '../service-types.js';

// Deep pages by number are placed by anchors (page-anchors.ts): the same rows as OFFSET would
// give, for any order, conditions and row visibility; dropped the moment Fw writes the model.

describe('PageAnchors', () => {
  const clock = { now: 1_000_000 };
  const at = (n: number) => [n * 10, n];
  const built = async (generation = 0, rows = 5000) => {
    const anchors = new PageAnchors(() => clock.now);
    let steps: number[] = [];
    anchors.want('k', MIN_ANCHOR_STEP, rows, generation, () => generation, async (step) => {
      steps.push(step);
      return [at(1), at(2), at(3)];
    });
    await anchors.settled();
    const taken = steps;
    steps = [];
    return { anchors, steps: taken };
  };

  it('places a page after the nearest anchor before it, skipping the rest', async () => {
    const { anchors, steps } = await built();
    expect(steps).to.deep.equal([MIN_ANCHOR_STEP]);
    const step = MIN_ANCHOR_STEP;
    expect(anchors.locate('k', step - 1, 0), 'shallower than one step').to.equal(undefined);
    expect(anchors.locate('k', step, 0)).to.deep.equal({ values: at(1), skip: 0 });
    expect(anchors.locate('k', 2.5 * step, 0)).to.deep.equal({ values: at(2), skip: step / 2 });
    // Past the last anchor (the table grew): from the last one, skipping the difference.
    expect(anchors.locate('k', 10 * step, 0)).to.deep.equal({ values: at(3), skip: 7 * step });
    expect(anchors.locate('other', 2 * step, 0), 'another order or condition').to.equal(undefined);
    expect(anchors.placed).to.equal(3);
  });

  it('drops anchors after a write through Fw or when they are older than the time limit', async () => {
    let { anchors } = await built();
    expect(anchors.locate('k', 2 * MIN_ANCHOR_STEP, 1), 'a write since').to.equal(undefined);
    expect(anchors.locate('k', 2 * MIN_ANCHOR_STEP, 0), 'dropped for good').to.equal(undefined);
    ({ anchors } = await built());
    clock.now += ANCHOR_TTL_MS + 1;
    expect(anchors.locate('k', 2 * MIN_ANCHOR_STEP, 0)).to.equal(undefined);
  });

  it('keeps nothing read across a write, reads nothing for huge tables, and spreads the step over large ones', async () => {
    const anchors = new PageAnchors(() => clock.now);
    let generation = 0;
    anchors.want('k', MIN_ANCHOR_STEP, 5000, generation, () => generation, async () => {
      generation++;
      return [at(1)];
    });
    await anchors.settled();
    expect(anchors.locate('k', MIN_ANCHOR_STEP, generation)).to.equal(undefined);
    let read = 0;
    anchors.want('huge', MIN_ANCHOR_STEP, ANCHOR_MAX_ROWS + 1, 0, () => 0, async () => (read++, []));
    anchors.want('shallow', MIN_ANCHOR_STEP - 1, 5000, 0, () => 0, async () => (read++, []));
    anchors.want('small', MIN_ANCHOR_STEP, MIN_ANCHOR_STEP - 1, 0, () => 0, async () => (read++, []));
    await anchors.settled();
    expect(read).to.equal(0);
    const steps: number[] = [];
    anchors.want('big', MIN_ANCHOR_STEP, ANCHOR_MAX_ROWS, 0, () => 0, async (step) => (steps.push(step), []));
    // Asked again at once: one read.
    anchors.want('big', MIN_ANCHOR_STEP, ANCHOR_MAX_ROWS, 0, () => 0, async (step) => (steps.push(step), []));
    await anchors.settled();
    expect(steps).to.deep.equal([ANCHOR_MAX_ROWS / 1000]);
  });

  it('keeps no set whose keys cannot be bound or take too much memory', () => {
    const rows = [{ k: 'a'.repeat(10) }, { k: 'b'.repeat(10) }];
    const keyOf = (row: Record<string, unknown>) => [row.k];
    expect(anchorKeys(rows, keyOf, 100)).to.deep.equal([['a'.repeat(10)], ['b'.repeat(10)]]);
    expect(anchorKeys(rows, keyOf, 20), 'over the limit').to.equal(undefined);
    expect(anchorKeys(rows, (row) => (row.k === 'a'.repeat(10) ? undefined : [row.k]))).to.equal(undefined);
    expect(MAX_ANCHOR_CHARS).to.be.at.most(1024 * 1024);
  });

  it('leaves a failed read to OFFSET', async () => {
    const anchors = new PageAnchors(() => clock.now);
    anchors.want('k', MIN_ANCHOR_STEP, 5000, 0, () => 0, async () => {
      throw new Error('no window functions here');
    });
    await anchors.settled();
    expect(anchors.locate('k', MIN_ANCHOR_STEP, 0)).to.equal(undefined);
  });
});

const ROWS = 3500;
const Item = defineModel({
  name: 'PaItem',
  table: 'pa_item',
  fields: {
    score: { edit: { type: 'NUMBER', integer: true } },
    name: {},
    owner: { edit: { type: 'NUMBER', integer: true } },
  },
  // User 1 sees every row; user 2 only its own.
  dataProxy: { beforeFetch: ({ user }: DataHookContext) => (user.id === 1 ? [] : [{ field: 'owner', op: 'eq', value: user.id }]) },
});

type Sort = Array<{ field: 'score' | 'name'; order: 'asc' | 'desc' }>;

describeEachSql('DataService.query: deep pages by number placed by anchors', (db) => {
  let store: FwStore;
  let service: DataService;
  const actor = (id: number) => ({ user: { id, account: `u${id}`, isAdmin: false }, ip: null, source: 'http' as const });

  before(async function () {
    this.timeout(60_000);
    store = createStore(db().url);
    await store.migrate.latest();
    await store.createModelTables([Item]);
    service = new DataService({ store, registry: createRegistry([Item]) });
    (service as unknown as { power: () => Promise<Record<string, boolean>> }).power = async () => ({ query: true, add: true, edit: true, cellEdit: true, delete: true, viewDetails: true });
    // Many ties in score, NULLs in both sort fields, names out of insertion order.
    const rows = Array.from({ length: ROWS }, (_, i) => ({
      score: i % 11 === 0 ? null : (i * 7) % 13,
      name: i % 17 === 0 ? null : `n${(i * 7919) % 1000}`,
      owner: i % 3 === 0 ? 2 : 1,
    }));
    for (let i = 0; i < rows.length; i += 250) await store.knex('pa_item').insert(rows.slice(i, i + 250));
  });
  after(() => store?.destroy());

  /** The ids the database's own ORDER BY gives (Fw's order: the sort, then the id the way the last sort field runs). */
  const ordered = async (sort: Sort, conditions: Condition[], userId: number): Promise<number[]> => {
    const all = [...conditions, ...(userId === 1 ? [] : [{ field: 'owner', op: 'eq' as const, value: userId }])];
    const qb = applyConditions(store.knex('pa_item').select('pa_item.id'), Item, all);
    for (const s of sort) qb.orderBy(`pa_item.${Item.fields[s.field]!.column}`, s.order);
    const rows: Array<{ id: unknown }> = await qb.orderBy('pa_item.id', sort.at(-1)?.order ?? 'asc');
    return rows.map((r) => Number(r.id));
  };
  const ids = (p: TablePage) => p.rows.map((r) => Number(r.id));

  it('gives the rows OFFSET gives, before and after the anchors are read, for any order, condition and visibility', async function () {
    this.timeout(300_000);
    const caseArb = fc.record({
      sort: fc.uniqueArray(fc.record({ field: fc.constantFrom('score' as const, 'name' as const), order: fc.constantFrom('asc' as const, 'desc' as const) }), { maxLength: 2, selector: (s) => s.field }),
      conditions: fc.constantFrom<Condition[]>([], [{ field: 'score', op: 'notNull' }], [{ field: 'score', op: 'gte', value: 4 }]),
      userId: fc.constantFrom(1, 2),
      size: fc.constantFrom(7, 20, 50),
      // Where in the table, as a share of its visible rows (past the end included).
      depth: fc.double({ min: 0, max: 1.05, noNaN: true }),
    });
    await fc.assert(
      fc.asyncProperty(caseArb, async ({ sort, conditions, userId, size, depth }) => {
        const all = await ordered(sort, conditions, userId);
        const lastPage = Math.ceil(all.length / size) + 1;
        const number = Math.max(Math.ceil(MIN_ANCHOR_STEP / size) + 1, Math.min(lastPage, Math.round(depth * lastPage)));
        const want = all.slice((number - 1) * size, number * size);
        const body = { size, sort, conditions, page: number };
        const first = await service.query('PaItem', actor(userId), body);
        expect(ids(first), 'the first read').to.deep.equal(want);
        await service.settled();
        const placed = service.anchoredPages;
        const second = await service.query('PaItem', actor(userId), body);
        expect(ids(second), 'placed by an anchor').to.deep.equal(want);
        // Fewer visible rows than one step apart: no anchor to start from (the page is past the end).
        expect(service.anchoredPages, 'an anchor placed it').to.equal(placed + (all.length >= MIN_ANCHOR_STEP ? 1 : 0));
        // The ends of the page and its cursors as on a page read by OFFSET.
        expect(second.cursors.prev !== null).to.equal(want.length > 0);
        expect(second.cursors.next !== null).to.equal(want.length > 0 && all.length > number * size);
        if (second.cursors.next) {
          const next = await service.query('PaItem', actor(userId), { size, sort, conditions, after: second.cursors.next });
          expect(ids(next)).to.deep.equal(all.slice(number * size, (number + 1) * size));
        }
        // A placed page never proves a total: the total is the page's own count (exact: 10,000 rows at most).
        expect(second.total).to.equal(all.length);
      }),
      { numRuns: 30 },
    );
  });

  it('drops the anchors the moment Fw writes the model: adds, deletes and cell edits move the rows at once', async function () {
    this.timeout(60_000);
    const sort: Sort = [{ field: 'score', order: 'asc' }];
    const body = { size: 20, sort, page: 101 };
    const check = async (label: string) => {
      const all = await ordered(sort, [], 1);
      expect(ids(await service.query('PaItem', actor(1), body)), label).to.deep.equal(all.slice(2000, 2020));
    };
    const prime = async () => {
      await service.query('PaItem', actor(1), body);
      await service.settled();
      const placed = service.anchoredPages;
      await check('primed');
      expect(service.anchoredPages, 'anchors in use').to.equal(placed + 1);
    };
    // The anchors of a key are read again a second on at the soonest; each write below needs fresh ones.
    const rebuild = () => new Promise((resolve) => setTimeout(resolve, 1050));
    await prime();
    // A row that sorts first, added through Fw: every row of page 101 moves one place down.
    const added = await service.add('PaItem', actor(1), { score: -5, name: 'first', owner: 1 });
    await check('after an add');
    await rebuild();
    await prime();
    await service.updateCell('PaItem', actor(1), { id: added.id, field: 'score', value: 99 });
    await check('after a cell edit of the sort field');
    await rebuild();
    await prime();
    const early: Array<{ id: unknown }> = await store.knex('pa_item').select('id').whereNotNull('score').orderBy([{ column: 'score' }, { column: 'id' }]).limit(3);
    await service.delete('PaItem', actor(1), { ids: early.map((r) => Number(r.id)) });
    await check('after a delete');
  });

  it('reads no anchors for shallow pages, and places none for a cursor page', async () => {
    const placed = service.anchoredPages;
    const all = await ordered([], [], 1);
    const shallow = await service.query('PaItem', actor(1), { size: 20, page: 3 });
    expect(ids(shallow)).to.deep.equal(all.slice(40, 60));
    await service.settled();
    await service.query('PaItem', actor(1), { size: 20, page: 3 });
    expect(service.anchoredPages).to.equal(placed);
  });
});
