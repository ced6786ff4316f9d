import { expect } from 'chai';
import { BUILTIN_MODELS, createRegistry, defineModel } from '@fw/core';
import { describeEachSql } from '@fw/test-utils';
import { setupData, type DataFixture } from '../test-setup.js';
import { csvLines } from './csv.js';

const api = '/fw-api';

const KbShelf = defineModel({ name: 'KbShelf', table: 'kb_shelf', fields: { name: {} } });

/** No per-row write hook: its added rows go in by multi-row INSERTs. `validate` still judges each row. */
const KbItem = defineModel({
  name: 'KbItem',
  table: 'kb_item',
  power: { importable: true },
  fields: {
    title: { views: { title: 'Title' }, edit: { notNull: true } },
    code: { views: { title: 'Code' } },
    qty: { views: { title: 'Qty' }, edit: { type: 'NUMBER', integer: true } },
    status: { views: { title: 'Status' }, edit: { defaultValue: 'new' } },
    shelfId: { column: 'shelf_id', views: { title: 'Shelf' }, edit: { type: 'REFERENCE_TABLE', reference: { model: 'KbShelf' } } },
  },
  dataProxy: {
    validate: (row) => (row.title === 'refuse me' ? [{ path: 'title', message: 'is refused by the validate hook' }] : []),
  },
});

/** Hooks around every added row: they must still run once per row. */
const calls = { before: 0, after: 0, transactions: new Set<unknown>() };
const KbHooked = defineModel({
  name: 'KbHooked',
  table: 'kb_hooked',
  power: { importable: true },
  fields: { title: { views: { title: 'Title' } }, stamp: { views: { title: 'Stamp' } } },
  dataProxy: {
    beforeAdd: (row, { transaction }) => {
      calls.before += 1;
      calls.transactions.add(transaction);
      row.stamp = `before:${String(row.title)}`;
    },
    afterAdd: () => {
      calls.after += 1;
    },
  },
});

const ROWS = 2000;

describeEachSql('fwData import in batches (issue 21 §4)', (db) => {
  let f: DataFixture;
  let admin: string;
  let shelf: number;
  const inserts: string[] = [];

  before(async () => {
    f = await setupData(db().url, { registry: createRegistry([...BUILTIN_MODELS, KbShelf, KbItem, KbHooked]), importBatchRows: 50, importMaxRows: 5000 });
    await f.store.createModelTables([KbShelf, KbItem, KbHooked]);
    // A unique index the host added: only the database knows that a value is taken.
    await f.store.knex.schema.alterTable('kb_item', (t) => t.unique(['code'], { indexName: 'kb_item_code_unique' }));
    const [row] = f.store.dialect === 'mysql' ? await f.store.knex('kb_shelf').insert({ name: 'Top' }) : await f.store.knex('kb_shelf').insert({ name: 'Top' }, ['id']);
    shelf = Number(typeof row === 'object' ? (row as { id: unknown }).id : row);
    admin = await f.token('admin');
    f.store.knex.on('query', (q: { sql: string }) => {
      if (/^insert into [`"[]?kb_item/i.test(q.sql)) inserts.push(q.sql);
    });
  });
  after(() => f?.destroy());
  beforeEach(async () => {
    inserts.length = 0;
    await f.store.knex('kb_item').delete();
    await f.store.knex('kb_hooked').delete();
  });

  /** A CSV of `n` good rows; `last` replaces the cells of the final row. */
  const file = (n: number, last?: Partial<Record<'title' | 'code' | 'qty' | 'shelf', unknown>>) => {
    const rows = Array.from({ length: n }, (_, i) => ({ title: `Item ${i + 1}`, code: `C${i + 1}`, qty: i % 50, shelf: i % 3 === 0 ? '' : shelf }));
    if (last) Object.assign(rows[n - 1]!, last);
    return csvLines([['Title', 'Code', 'Qty', 'Shelf'], ...rows.map((r) => [r.title, r.code, r.qty, r.shelf])]);
  };
  const post = (model: string, text: string) => f.agent.post(`${api}/data/import/${model}`).set('token', admin).set('Content-Type', 'text/csv').send(text);
  const count = async (table: string) => Number((await f.store.knex(table).count('* as n'))[0]!.n);

  it(`writes ${ROWS} rows by multi-row INSERTs of importBatchRows rows, with the values and defaults of single adds`, async () => {
    const res = await post('KbItem', file(ROWS));
    expect(res.status, res.text).to.equal(200);
    expect(res.body).to.deep.include({ imported: ROWS, added: ROWS, updated: 0 });
    expect(await count('kb_item')).to.equal(ROWS);
    expect(inserts.length, 'one INSERT per 50 rows').to.equal(ROWS / 50);
    const rows = await f.store.knex('kb_item').whereIn('code', ['C1', 'C2', `C${ROWS}`]).orderBy('id').select('title', 'code', 'qty', 'status', 'shelf_id');
    expect(rows.map((r) => ({ ...r, qty: Number(r.qty), shelf_id: r.shelf_id === null ? null : Number(r.shelf_id) }))).to.deep.equal([
      { title: 'Item 1', code: 'C1', qty: 0, status: 'new', shelf_id: null },
      { title: 'Item 2', code: 'C2', qty: 1, status: 'new', shelf_id: shelf },
      { title: `Item ${ROWS}`, code: `C${ROWS}`, qty: (ROWS - 1) % 50, status: 'new', shelf_id: shelf },
    ]);
  });

  it('writes nothing when the last row names a row that does not exist, and names that row', async () => {
    const res = await post('KbItem', file(ROWS, { shelf: 999_999 }));
    expect(res.status, res.text).to.equal(422);
    expect(res.body.error.code).to.equal('IMPORT_FAILED');
    expect(res.body.error.message).to.match(new RegExp(`^Row ${ROWS}:`));
    const [detail] = res.body.error.details as Array<{ path: string; type: string; row: number; column: string }>;
    expect(detail).to.include({ path: `rows[${ROWS}].shelfId`, type: 'reference', row: ROWS + 1, column: 'D' });
    expect(inserts.length, 'the batches before it were written, then rolled back').to.equal(ROWS / 50 - 1);
    expect(await count('kb_item')).to.equal(0);
  });

  it('writes nothing when the database refuses the last row (a taken unique value), and names that row', async () => {
    const res = await post('KbItem', file(ROWS, { code: 'C7' }));
    expect(res.status, res.text).to.equal(409);
    expect(res.body.error.code).to.equal('CONFLICT');
    expect(res.body.error.message).to.match(new RegExp(`^Row ${ROWS}:`));
    expect((res.body.error.details as Array<{ row: number }>)[0]!.row).to.equal(ROWS + 1);
    expect(await count('kb_item')).to.equal(0);
  });

  it("writes nothing when the model's validate hook refuses the last row, and names that row", async () => {
    const res = await post('KbItem', file(ROWS, { title: 'refuse me' }));
    expect(res.status, res.text).to.equal(422);
    expect(res.body.error.message).to.match(new RegExp(`^Row ${ROWS}:`));
    expect((res.body.error.details as Array<{ path: string }>)[0]!.path).to.equal(`rows[${ROWS}].title`);
    expect(await count('kb_item')).to.equal(0);
  });

  it('runs beforeAdd and afterAdd once per row, in the one transaction, for a model that has them', async () => {
    calls.before = calls.after = 0;
    calls.transactions.clear();
    const text = csvLines([['Title'], ...Array.from({ length: 120 }, (_, i) => [`T${i}`])]);
    const res = await post('KbHooked', text);
    expect(res.status, res.text).to.equal(200);
    expect(calls).to.deep.include({ before: 120, after: 120 });
    expect(calls.transactions.size).to.equal(1);
    const stamps = await f.store.knex('kb_hooked').orderBy('id').pluck('stamp');
    expect(stamps).to.have.length(120);
    expect(stamps[0]).to.equal('before:T0');
    expect(stamps[119]).to.equal('before:T119');
  });
});
