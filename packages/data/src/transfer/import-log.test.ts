import { expect } from 'chai';
import { BUILTIN_MODELS, createRegistry, defineModel } from '@fw/core';
import { describeEachSql } from '@fw/test-utils';
import { Book, Frozen, Ledger, Note, Plan, Tag, setupData, type DataFixture } from '../test-setup.js';
import { assumeMysqlIdStep } from '../write/batch-insert.js';
import { csvLines } from './csv.js';

const api = '/fw-api';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** No per-row hook: its added rows go in by multi-row INSERTs, whose ids the log rows need. */
const IlItem = defineModel({
  name: 'IlItem',
  table: 'il_item',
  power: { importable: true },
  fields: {
    title: { views: { title: 'Title' }, edit: { notNull: true } },
    code: { views: { title: 'Code' } },
    qty: { views: { title: 'Qty' }, edit: { type: 'NUMBER', integer: true } },
  },
});

interface LogRow {
  id: number;
  action: string;
  source: string;
  status: string;
  target_id: string | null;
  account: string | null;
  batch: string | null;
  before_data: string | null;
  request: string | null;
}

describeEachSql('fwData import: one operate-log row per written row, with the batch id (issue 23)', (db) => {
  let f: DataFixture;
  let admin: string;
  const inserts: string[] = [];

  before(async () => {
    f = await setupData(db().url, { registry: createRegistry([...BUILTIN_MODELS, Tag, Book, Note, Ledger, Plan, Frozen, IlItem]), importBatchRows: 50 });
    await f.store.createModelTables([IlItem]);
    // Only the database knows that a code is taken: the refusal comes after batches were written.
    await f.store.knex.schema.alterTable('il_item', (t) => t.unique(['code'], { indexName: 'il_item_code_unique' }));
    admin = await f.token('admin');
    f.store.knex.on('query', (q: { sql: string }) => {
      if (/^insert into [`"[]?il_item/i.test(q.sql)) inserts.push(q.sql);
    });
  });
  after(() => f?.destroy());
  beforeEach(async () => {
    inserts.length = 0;
    for (const table of ['il_item', 't_book_tag', 't_book', 'fw_operate_log']) await f.store.knex(table).delete();
  });

  const post = (model: string, text: string, mode = 'add') => f.agent.post(`${api}/data/import/${model}?mode=${mode}`).set('token', admin).set('Content-Type', 'text/csv').send(text);
  const file = (n: number, from = 1) => csvLines([['Title', 'Code', 'Qty'], ...Array.from({ length: n }, (_, i) => [`Item ${from + i}`, `C${from + i}`, i])]);
  const logOf = async (batch: string) => (await f.store.knex('fw_operate_log').where({ batch }).orderBy('id')) as LogRow[];
  const json = (text: string | null) => (text === null ? null : (JSON.parse(text) as Record<string, unknown>));
  const stored = async () => new Map(((await f.store.knex('il_item').select('id', 'title')) as Array<{ id: unknown; title: string }>).map((r) => [String(Number(r.id)), r.title]));

  /** Every added row's log row names the id the row really got, and logs the values written to it. */
  const expectAddsMatchTable = async (rows: LogRow[], n: number) => {
    const adds = rows.filter((r) => r.action === 'add');
    expect(adds).to.have.length(n);
    const table = await stored();
    expect(new Set(adds.map((r) => r.target_id)).size, 'one log row per new row').to.equal(n);
    for (const r of adds) {
      expect(r).to.include({ source: 'import', status: 'success', before_data: null, account: f.users.admin.account });
      expect(table.get(r.target_id!), `row ${r.target_id}`).to.equal(json(r.request)!.title);
    }
  };

  it('an added file: a log row per row (across multi-row INSERTs, the last of one row) naming its new id, and the summary row, all with the answered batch', async () => {
    const res = await post('IlItem', file(101));
    expect(res.status, res.text).to.equal(200);
    expect(res.body).to.deep.equal({ imported: 101, added: 101, updated: 0, batch: res.body.batch });
    expect(res.body.batch).to.match(UUID);
    expect(inserts.length, 'two INSERTs of 50 rows, one of 1').to.equal(3);
    const rows = await logOf(res.body.batch as string);
    expect(rows).to.have.length(102);
    await expectAddsMatchTable(rows, 101);
    // The request of an add is the row's values, as a single add logs them.
    const first = rows.find((r) => json(r.request)!.title === 'Item 1')!;
    expect(json(first.request)).to.deep.include({ title: 'Item 1', code: 'C1', qty: 0 });
    // The file's summary row is still there, and written last.
    const summary = rows.at(-1)!;
    expect(summary).to.include({ action: 'import', source: 'import', status: 'success', target_id: null });
    expect(json(summary.request)).to.include({ format: 'csv', mode: 'add', rows: 101 });
  });

  it('updated rows: a log row each with the row before and the changed fields; history shows the import, before → after', async () => {
    const added = await post('IlItem', file(3));
    expect(added.status, added.text).to.equal(200);
    const ids = (await f.store.knex('il_item').orderBy('id').pluck('id')).map(Number);
    const text = csvLines([
      ['id', 'Title', 'Code', 'Qty'],
      [ids[0], 'Item 1', 'C1', 40],
      [ids[2], 'Third', 'C3', 2],
      ['', 'New one', 'N1', 7],
    ]);
    const res = await post('IlItem', text, 'upsert');
    expect(res.status, res.text).to.equal(200);
    expect(res.body).to.deep.equal({ imported: 3, added: 1, updated: 2, batch: res.body.batch });
    expect(res.body.batch).to.match(UUID).and.not.equal(added.body.batch);
    const rows = await logOf(res.body.batch as string);
    expect(rows.map((r) => [r.action, r.target_id])).to.deep.equal([
      ['update', String(ids[0])],
      ['update', String(ids[2])],
      ['add', rows[2]!.target_id],
      ['import', null],
    ]);
    await expectAddsMatchTable(rows, 1);
    expect(json(rows[0]!.before_data)).to.include({ id: ids[0], title: 'Item 1', qty: 0 });
    expect(json(rows[0]!.request)).to.deep.equal({ id: ids[0], changes: { qty: 40 } });
    expect(json(rows[1]!.request)).to.deep.equal({ id: ids[2], changes: { title: 'Third' } });

    const history = await f.agent.get(`${api}/data/IlItem/${ids[2]}/history`).set('token', admin).expect(200);
    const entries = history.body.rows as Array<{ source: string; action: string; batch: string; changes: unknown[] }>;
    expect(entries.map((e) => [e.source, e.action, e.batch])).to.deep.equal([
      ['import', 'update', res.body.batch],
      ['import', 'add', added.body.batch],
    ]);
    expect(entries[0]!.changes).to.deep.equal([{ field: 'title', before: 'Item 3', after: 'Third' }]);
    expect(entries[1]!.changes).to.deep.include.members([
      { field: 'title', before: null, after: 'Item 3' },
      { field: 'code', before: null, after: 'C3' },
      { field: 'qty', before: null, after: 2 },
    ]);
  });

  it('a model whose rows go in one by one (a collection): the same log rows, and history lists the add', async () => {
    const res = await post('Book', csvLines([['title', 'price'], ['Dune', 9.5], ['Emma', 3]]));
    expect(res.status, res.text).to.equal(200);
    const rows = await logOf(res.body.batch as string);
    expect(rows.map((r) => r.action)).to.deep.equal(['add', 'add', 'import']);
    const books = new Map(((await f.store.knex('t_book').select('id', 'title')) as Array<{ id: unknown; title: string }>).map((r) => [String(Number(r.id)), r.title]));
    for (const r of rows.slice(0, 2)) expect(books.get(r.target_id!)).to.equal(json(r.request)!.title);
    const history = await f.agent.get(`${api}/data/Book/${rows[1]!.target_id}/history`).set('token', admin).expect(200);
    expect(history.body.total).to.equal(1);
    expect(history.body.rows[0]).to.include({ source: 'import', action: 'add', batch: res.body.batch });
    expect(history.body.rows[0].changes).to.deep.include.members([
      { field: 'title', before: null, after: 'Emma' },
      { field: 'price', before: null, after: 3 },
    ]);
  });

  it('a refused import writes no per-row log row (rolled back with the rows); its failure row is still written', async () => {
    const text = csvLines([['Title', 'Code', 'Qty'], ...Array.from({ length: 120 }, (_, i) => [`Item ${i}`, i === 119 ? 'C7' : `C${i}`, i])]);
    const res = await post('IlItem', text);
    expect(res.status, res.text).to.equal(409);
    expect(inserts.length, 'batches were written before the refusal').to.be.greaterThan(2);
    expect(await f.store.knex('il_item').count({ n: '*' }).first()).to.satisfy((r: { n: unknown }) => Number(r.n) === 0);
    const rows = (await f.store.knex('fw_operate_log').orderBy('id')) as LogRow[];
    expect(rows.map((r) => [r.action, r.status])).to.deep.equal([['import', 'failure']]);
    expect(rows[0]!.batch).to.match(UUID);
  });

  it('MySQL in interleaved mode (innodb_autoinc_lock_mode 2): rows go in one by one and still log their ids', async function () {
    if (f.store.dialect !== 'mysql') return this.skip();
    assumeMysqlIdStep(f.store.knex, null);
    try {
      const res = await post('IlItem', file(7));
      expect(res.status, res.text).to.equal(200);
      expect(inserts.length).to.equal(7);
      await expectAddsMatchTable(await logOf(res.body.batch as string), 7);
    } finally {
      assumeMysqlIdStep(f.store.knex, undefined);
    }
  });
});
