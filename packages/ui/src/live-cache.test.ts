import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { expect } from 'chai';

// Issue 24 §3: a live event changes a cached table page in place (pure code of
// packages/ui/app/src/model/liveCache.ts, loaded by path: the app has its own tsconfig).
const CACHE = join(dirname(fileURLToPath(import.meta.url)), '..', 'app', 'src', 'model', 'liveCache.ts');

type Row = Record<string, unknown>;
interface Page {
  rows: Row[];
  total: number;
  totalIsEstimate?: boolean;
  cursors?: { prev: string | null; next: string | null };
  page: number;
  size: number;
}
interface Query {
  page: number;
  size: number;
  sort?: Array<{ field: string; order: 'asc' | 'desc' }>;
  conditions?: unknown[];
  after?: string;
}
interface Model {
  primaryKey: string;
  orderBy?: Array<{ field: string; order: 'asc' | 'desc' }>;
}
interface Cache {
  pageOrder(model: Model, query: Pick<Query, 'sort'>): Array<{ field: string; order: string }>;
  compareValues(a: unknown, b: unknown): number | undefined;
  patchPage(page: Page, key: string, id: unknown, values: Row): Page;
  dropFromPage(page: Page, key: string, ids: unknown[], query: Pick<Query, 'conditions'>): Page;
  insertIntoPage(page: Page, model: Model, query: Query, row: Row): { page: Page; placed: boolean };
}

async function load(): Promise<Cache> {
  return (await import(pathToFileURL(CACHE).href)) as Cache;
}

const BOOK: Model = { primaryKey: 'id' };
const rows = (...ids: number[]) => ids.map((id) => ({ id, title: `T${id}`, price: id * 10 }));
const page = (ids: number[], extra: Partial<Page> = {}): Page => ({ rows: rows(...ids), total: 10, page: 1, size: 5, cursors: { prev: null, next: 'c' }, ...extra });

describe('ui live tables: patching the cached pages', () => {
  it('the order of a page: the sort, else the model’s orderBy, then the key running like the last sort', async () => {
    const { pageOrder } = await load();
    expect(pageOrder(BOOK, {})).to.deep.equal([{ field: 'id', order: 'asc' }]);
    expect(pageOrder(BOOK, { sort: [{ field: 'price', order: 'desc' }] })).to.deep.equal([
      { field: 'price', order: 'desc' },
      { field: 'id', order: 'desc' },
    ]);
    expect(pageOrder({ primaryKey: 'id', orderBy: [{ field: 'at', order: 'desc' }] }, { sort: [] })).to.deep.equal([
      { field: 'at', order: 'desc' },
      { field: 'id', order: 'desc' },
    ]);
  });

  it('compares only what every database orders alike', async () => {
    const { compareValues } = await load();
    expect([compareValues(1, 2), compareValues(2, 1), compareValues(2, 2)]).to.deep.equal([-1, 1, 0]);
    expect(compareValues('2026-01-02', '2026-01-10')).to.equal(-1);
    expect(compareValues('apple', 'banana')).to.equal(-1);
    // Binary and case-insensitive collations disagree here; NULLs sort first or last by dialect.
    expect(compareValues('apple', 'Banana')).to.equal(undefined);
    expect(compareValues(null, 1)).to.equal(undefined);
    expect(compareValues(null, undefined)).to.equal(0);
    expect(compareValues(1, '1')).to.equal(undefined);
  });

  it('an update patches the row’s values in place and leaves other pages as they are (the same object)', async () => {
    const { patchPage } = await load();
    const before = page([1, 2, 3]);
    const after = patchPage(before, 'id', 2, { price: 99 });
    expect(after.rows[1]).to.deep.equal({ id: 2, title: 'T2', price: 99 });
    expect(after.rows[0]).to.equal(before.rows[0]);
    expect(before.rows[1]!.price, 'the cached page is not written').to.equal(20);
    expect(patchPage(before, 'id', 7, { price: 1 })).to.equal(before);
  });

  it('a delete takes the rows out; the total drops by every id without conditions, by the rows held with them', async () => {
    const { dropFromPage } = await load();
    const before = page([1, 2, 3]);
    const plain = dropFromPage(before, 'id', [2, 8], {});
    expect(plain.rows.map((r) => r.id)).to.deep.equal([1, 3]);
    expect(plain.total).to.equal(8);
    const searched = dropFromPage(before, 'id', [2, 8], { conditions: [{ field: 'title', op: 'like', value: 'T' }] });
    expect(searched.total).to.equal(9);
    expect(dropFromPage(before, 'id', [8], { conditions: [{}] })).to.equal(before);
    // Never below the rows shown.
    expect(dropFromPage(page([1, 2], { total: 2 }), 'id', [5, 6, 7], {}).total).to.equal(2);
  });

  it('an insert goes where the order puts it within the page; the total grows', async () => {
    const { insertIntoPage } = await load();
    const byPrice: Query = { page: 1, size: 5, sort: [{ field: 'price', order: 'asc' }] };
    const { page: after, placed } = insertIntoPage(page([1, 2, 4]), BOOK, byPrice, { id: 9, title: 'New', price: 30 });
    expect(placed).to.equal(true);
    expect(after.rows.map((r) => r.id)).to.deep.equal([1, 2, 9, 4]);
    expect(after.total).to.equal(11);
    // A tie is broken by the key, as the server does.
    expect(insertIntoPage(page([1, 2, 4]), BOOK, byPrice, { id: 3, price: 20 }).page.rows.map((r) => r.id)).to.deep.equal([1, 2, 3, 4]);
  });

  it('before the first row only on the first page, after the last only on the last page', async () => {
    const { insertIntoPage } = await load();
    const q: Query = { page: 1, size: 5 };
    expect(insertIntoPage(page([3, 4]), BOOK, { ...q, sort: [{ field: 'id', order: 'desc' }] }, { id: 9 }).page.rows.map((r) => r.id)).to.deep.equal([9, 3, 4]);
    const middle = page([3, 4], { cursors: { prev: 'p', next: 'n' }, page: 2 });
    const early = insertIntoPage(middle, BOOK, { ...q, page: 2, after: 'x' }, { id: 1 });
    expect(early.placed).to.equal(false);
    expect(early.page.rows.map((r) => r.id)).to.deep.equal([3, 4]);
    expect(early.page.total, 'counted though not shown').to.equal(11);
    expect(insertIntoPage(middle, BOOK, q, { id: 9 }).placed).to.equal(false);
    const last = page([3, 4], { cursors: { prev: 'p', next: null } });
    expect(insertIntoPage(last, BOOK, q, { id: 9 }).page.rows.map((r) => r.id)).to.deep.equal([3, 4, 9]);
    // Without cursors (an older server): the first and last pages by number and total.
    expect(insertIntoPage(page([3, 4], { cursors: undefined, total: 2 }), BOOK, q, { id: 9 }).placed).to.equal(true);
    expect(insertIntoPage(page([3, 4], { cursors: undefined, total: 20 }), BOOK, q, { id: 9 }).placed).to.equal(false);
  });

  it('not placed when the browser cannot tell: conditions in force, a value the databases order differently', async () => {
    const { insertIntoPage } = await load();
    const before = page([1, 2], { cursors: { prev: null, next: null } });
    const searched = insertIntoPage(before, BOOK, { page: 1, size: 5, conditions: [{ field: 'title', op: 'like', value: 'x' }] }, { id: 9 });
    expect(searched).to.deep.equal({ page: before, placed: false });
    const byTitle = insertIntoPage(before, BOOK, { page: 1, size: 5, sort: [{ field: 'title', order: 'asc' }] }, { id: 9, title: 'a' });
    expect(byTitle.placed).to.equal(false);
    const nulls = insertIntoPage(before, BOOK, { page: 1, size: 5, sort: [{ field: 'price', order: 'asc' }] }, { id: 9, price: null });
    expect(nulls.placed).to.equal(false);
  });

  it('a row the page already holds is replaced where it is (it entered the filter again, or the event repeats)', async () => {
    const { insertIntoPage } = await load();
    const before = page([1, 2, 3]);
    const { page: after, placed } = insertIntoPage(before, BOOK, { page: 1, size: 5 }, { id: 2, title: 'Back', price: 5 });
    expect(placed).to.equal(true);
    expect(after.rows.map((r) => [r.id, r.title])).to.deep.equal([
      [1, 'T1'],
      [2, 'Back'],
      [3, 'T3'],
    ]);
    expect(after.total).to.equal(10);
  });
});
