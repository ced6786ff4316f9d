import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bodyParser } from '@koa/bodyparser';
import { expect } from 'chai';
import ExcelJS from 'exceljs';
import Koa from 'koa';
import { koaBody } from 'koa-body';
import request from 'supertest';
import { BUILTIN_MODELS, createRegistry, defineModel, type FwUser } from '@fw/core';
import { localFileStorage } from '@fw/files';
import { createStore, type FwStore } from '@fw/store';
import { describeEachSql } from '@fw/test-utils';
import { FwTokenService, MemoryTokenStore } from '@fw/token';
import { fwData } from './router.js';
import { XLSX_TYPE, workbookStream } from '../transfer/xlsx.js';

const api = '/fw-api';

const Shelf = defineModel({ name: 'Shelf', table: 'xt_shelf', fields: { name: { edit: { notNull: true } } } });
const Place = defineModel({
  name: 'Place',
  table: 'xt_place',
  treeParentField: 'parentId',
  fields: { title: { edit: { notNull: true } }, parentId: { column: 'parent_id', edit: { type: 'REFERENCE_TREE', reference: { model: 'Place' } } } },
});
const Label = defineModel({ name: 'Label', table: 'xt_label', fields: { text: {} } });
/** Files are uploaded, not imported: exports show their names, imports skip the column. */
const Document = defineModel({
  name: 'Document',
  table: 'xt_document',
  power: { export: true, importable: true },
  fields: { title: { views: { title: 'Title' }, edit: { notNull: true } }, files: { views: { title: 'Files' }, edit: { type: 'ATTACHMENT', attachment: { multiple: true } } } },
});

/** One field of every edit type a transfer carries (PASSWORD is never exported; read-only is skipped on import). */
const Sample = defineModel({
  name: 'Sample',
  table: 'xt_sample',
  power: { export: true, importable: true },
  fields: {
    text: { views: { title: 'Text' }, edit: { notNull: true } },
    notes: { views: { title: 'Notes' }, edit: { type: 'TEXTAREA' } },
    count: { views: { title: 'Count' }, edit: { type: 'NUMBER', integer: true } },
    price: { views: { title: 'Price' }, edit: { type: 'NUMBER' }, rules: [{ type: 'range', min: 0, max: 10000 }] },
    active: { views: { title: 'Active' }, edit: { type: 'BOOLEAN' } },
    kind: { views: { title: 'Kind' }, edit: { type: 'CHOICE', choices: [{ value: 'a', label: 'Alpha' }, { value: 'b', label: 'Beta, with comma' }, { value: 3, label: 'Three' }] } },
    kinds: { views: { title: 'Kinds' }, edit: { type: 'MULTI_CHOICE', choices: [{ value: 'x', label: 'Ex' }, { value: 'y', label: 'Why' }] } },
    tags: { views: { title: 'Tags' }, edit: { type: 'TAGS' } },
    day: { views: { title: 'Day' }, edit: { type: 'DATE' } },
    at: { views: { title: 'At' }, edit: { type: 'DATETIME' } },
    secret: { views: { title: 'Secret' }, edit: { type: 'PASSWORD' } },
    hidden: { views: { title: 'Hidden' }, edit: { type: 'HIDDEN', integer: true } },
    shelfId: { column: 'shelf_id', views: { title: 'Shelf' }, edit: { type: 'REFERENCE_TABLE', reference: { model: 'Shelf' } } },
    placeId: { column: 'place_id', views: { title: 'Place' }, edit: { type: 'REFERENCE_TREE', reference: { model: 'Place' } } },
    labels: { views: { title: 'Labels' }, edit: { type: 'COLLECTION', collection: { model: 'Label', joinTable: 'xt_sample_label', ownKey: 'sample_id', foreignKey: 'label_id' } } },
    code: { views: { title: 'Code' }, edit: { readonly: true } },
  },
});
const COMPARED = ['text', 'notes', 'count', 'price', 'active', 'kind', 'kinds', 'tags', 'day', 'at', 'hidden', 'shelfId', 'placeId', 'labels'];

async function setup(url: string) {
  const store: FwStore = createStore(url);
  await store.migrate.latest();
  const registry = createRegistry([...BUILTIN_MODELS, Shelf, Place, Label, Sample, Document]);
  await store.createModelTables([Shelf, Place, Label, Sample, Document]);
  const filesDir = mkdtempSync(join(tmpdir(), 'fw-xt-files-'));
  const files = localFileStorage({ dir: filesDir });
  const { menu } = await store.menus.createModelMenu(Sample);
  const stamp = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
  const make = async (account: string, isAdmin = false): Promise<FwUser> => {
    const row = await store.users.create({ account: `${account}-${stamp}`, name: account, password: 'x-password-1', isAdmin, mustChangePassword: false });
    return { id: row.id, account: row.account, name: row.name, isAdmin };
  };
  const admin = await make('admin', true);
  const reader = await make('reader');
  const role = await store.roles.create({ code: `xt-reader-${stamp}`, name: 'Reader' });
  await store.roles.setMenus(role.id, [menu.id]);
  await store.users.setRoles(reader.id, [role.id]);
  const tokens = new FwTokenService({ store: new MemoryTokenStore() });
  const app = (options: { importBodyLimit?: number } = {}, host?: (koa: Koa) => void) => {
    const koa = new Koa();
    koa.silent = true;
    host?.(koa);
    koa.use(fwData({ store, tokens, registry, files, ...options }));
    return request(koa.callback());
  };
  const token = async (user: FwUser) => (await tokens.loginToken(user, tokens.generateToken())).token;
  const ids = {
    shelf: (await store.knex('xt_shelf').insert({ name: 'Top' }, ['id']))[0] as number | { id: number },
    place: (await store.knex('xt_place').insert({ title: 'Hall', parent_id: null }, ['id']))[0] as number | { id: number },
    labels: [] as number[],
  };
  for (const text of ['red', 'blue']) {
    const [row] = await store.knex('xt_label').insert({ text }, ['id']);
    ids.labels.push(typeof row === 'object' ? (row as { id: number }).id : (row as number));
  }
  const id = (v: number | { id: number }) => (typeof v === 'object' ? v.id : v);
  return { store, filesDir, agent: app(), app, admin: await token(admin), reader: await token(reader), shelf: id(ids.shelf), place: id(ids.place), labels: ids.labels };
}
type Fixture = Awaited<ReturnType<typeof setup>>;

async function workbook(rows: unknown[][]): Promise<Buffer> {
  const book = new ExcelJS.Workbook();
  const sheet = book.addWorksheet('Sample');
  for (const row of rows) sheet.addRow(row);
  return Buffer.from(await book.xlsx.writeBuffer());
}

async function loadWorkbook(bytes: Buffer): Promise<ExcelJS.Workbook> {
  const book = new ExcelJS.Workbook();
  await book.xlsx.load(bytes as unknown as ArrayBuffer);
  return book;
}

/** supertest's parser for a binary body. */
function binary(res: request.Response, done: (error: Error | null, body: Buffer) => void): void {
  const stream = res as unknown as NodeJS.ReadableStream;
  const chunks: Buffer[] = [];
  stream.on('data', (c: Buffer) => chunks.push(c));
  stream.on('end', () => done(null, Buffer.concat(chunks)));
}

describeEachSql('fwData transfers: CSV and XLSX export, import and template', (db) => {
  let f: Fixture;
  before(async function () {
    f = await setup(db().url);
  });
  after(async () => {
    await f.store.destroy();
    rmSync(f.filesDir, { recursive: true, force: true });
  });
  beforeEach(async () => {
    await f.store.knex('xt_sample_label').delete();
    await f.store.knex('xt_sample').delete();
  });

  const table = async () => {
    const res = await f.agent.post(`${api}/data/table/Sample`).set('token', f.admin).send({ size: 200 }).expect(200);
    return (res.body.rows as Array<Record<string, unknown>>).map((row) => Object.fromEntries(COMPARED.map((k) => [k, row[k] ?? null])));
  };
  const seed = async () => {
    const full = {
      text: '=HYPERLINK("http://evil") , "quoted"\nnew line ünïcödé',
      notes: '-starts with minus\r\nand two lines',
      count: -42,
      price: 12.75,
      active: false,
      kind: 'b',
      kinds: ['y', 'x'],
      tags: ['one', 'two, three', '@at'],
      day: '2024-02-29',
      at: '2024-03-01T10:11:12.345Z',
      secret: 'hunter2-secret',
      hidden: 7,
      shelfId: f.shelf,
      placeId: f.place,
      labels: f.labels,
      code: undefined,
    };
    await f.agent.post(`${api}/data/modify/Sample`).set('token', f.admin).send(full).expect(200);
    await f.agent.post(`${api}/data/modify/Sample`).set('token', f.admin).send({ text: "'+already quoted", kind: 3, active: true }).expect(200);
    await f.store.knex('xt_sample').update({ code: 'RO' });
    return table();
  };
  const wipe = async () => {
    await f.store.knex('xt_sample_label').delete();
    await f.store.knex('xt_sample').delete();
  };

  it('round-trips every edit type through CSV: export, wipe, import gives the same rows', async () => {
    const before = await seed();
    const res = await f.agent.get(`${api}/data/export/Sample?_token=${f.admin}`).expect(200).expect('Content-Type', /text\/csv/);
    expect(res.text).to.not.contain('hunter2');
    expect(res.text).to.contain(`"'=HYPERLINK(""http://evil"")`);
    expect(res.text.replace(/^\ufeff/, '').split('\r\n')[0]).to.equal('Text,Notes,Count,Price,Active,Kind,Kinds,Tags,Day,At,Hidden,Shelf,Place,Labels,Code,id');
    await wipe();
    const imported = await f.agent.post(`${api}/data/import/Sample`).set('token', f.admin).set('Content-Type', 'text/csv').send(res.text).expect(200);
    expect(imported.body).to.deep.include({ imported: 2, added: 2, updated: 0 });
    expect(await table()).to.deep.equal(before);
    expect((await f.store.knex('xt_sample').select('code')).map((r) => r.code)).to.deep.equal([null, null]);
  });

  it('round-trips every edit type through XLSX, with typed cells, titles, a frozen filtered header and text kept as text', async () => {
    const before = await seed();
    const res = await f.agent.get(`${api}/data/export/Sample?format=xlsx`).set('token', f.admin).buffer(true).parse(binary).expect(200);
    expect(res.headers['content-type']).to.equal(XLSX_TYPE);
    expect(res.headers['content-disposition']).to.equal('attachment; filename="Sample.xlsx"');
    const book = await loadWorkbook(res.body as Buffer);
    const sheet = book.worksheets[0]!;
    expect((sheet.getRow(1).values as unknown[]).slice(1)).to.deep.equal(['Text', 'Notes', 'Count', 'Price', 'Active', 'Kind', 'Kinds', 'Tags', 'Day', 'At', 'Hidden', 'Shelf', 'Place', 'Labels', 'Code', 'id']);
    expect(sheet.views[0]).to.include({ state: 'frozen', ySplit: 1 });
    expect(sheet.autoFilter).to.not.equal(undefined);
    const row = sheet.getRow(2);
    expect(row.getCell(1).type).to.equal(ExcelJS.ValueType.String);
    expect(row.getCell(1).value).to.match(/^=HYPERLINK/); // a string cell: shown, never run
    expect(row.getCell(3).value).to.equal(-42);
    expect(row.getCell(5).value).to.equal(false);
    expect(row.getCell(6).value).to.equal('Beta, with comma');
    expect(row.getCell(9).value).to.deep.equal(new Date('2024-02-29T00:00:00Z'));
    expect(row.getCell(10).value).to.deep.equal(new Date('2024-03-01T10:11:12.345Z'));
    await wipe();
    const imported = await f.agent
      .post(`${api}/data/import/Sample`)
      .set('token', f.admin)
      .set('Content-Type', XLSX_TYPE)
      .send(res.body as Buffer)
      .expect(200);
    expect(imported.body).to.deep.include({ imported: 2, added: 2, updated: 0 });
    // XML keeps a line break inside a cell as LF: CRLF in text comes back as LF (as spreadsheets store it).
    expect(await table()).to.deep.equal(before.map((r) => ({ ...r, notes: typeof r.notes === 'string' ? r.notes.replace(/\r\n/g, '\n') : r.notes })));
  });

  it('imports a workbook or a CSV file sent as a multipart file field, whatever its name says', async () => {
    const book = await workbook([['Text', 'Kind', 'Day'], ['From xlsx', 'Alpha', '2024-05-06']]);
    expect((await f.agent.post(`${api}/data/import/Sample`).set('token', f.admin).attach('file', book, 'export.bin').expect(200)).body).to.deep.include({ imported: 1, added: 1, updated: 0 });
    const csv = Buffer.from('text,kind\r\nFrom csv,Three\r\n');
    expect((await f.agent.post(`${api}/data/import/Sample`).set('token', f.admin).attach('file', csv, '../../etc/passwd.csv').expect(200)).body).to.deep.include({ imported: 1, added: 1, updated: 0 });
    expect((await table()).map((r) => [r.text, r.kind, r.day])).to.deep.equal([
      ['From xlsx', 'a', '2024-05-06'],
      ['From csv', 3, null],
    ]);
    const noFile = await f.agent.post(`${api}/data/import/Sample`).set('token', f.admin).field('other', 'x').expect(400);
    expect(noFile.body.error.details[0]).to.include({ path: 'file' });
    await f.agent.post(`${api}/data/import/Sample`).set('token', f.admin).attach('file', Buffer.from('<html><script>x</script></html>'), 'evil.xlsx').expect(400);
    await f.agent.post(`${api}/data/import/Sample`).set('token', f.admin).attach('file', Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 1, 2, 3]), 'old.xls').expect(415);
    await f.agent.post(`${api}/data/import/Sample`).set('token', f.admin).attach('file', Buffer.from([0x74, 0x65, 0xff, 0xfe, 0x0a]), 'bad.csv').expect(400);
    await f.agent.post(`${api}/data/import/Sample`).set('token', f.admin).attach('file', book, 'a.xlsx').attach('file', book, 'b.xlsx').expect(400);
    await f.agent.post(`${api}/data/import/Sample`).set('token', f.admin).send({ text: 'json' }).expect(415);
    expect(await table()).to.have.length(2);
  });

  it('refuses a formula cell, a date typed as wrong text and a bad row, naming row and column; takes a date typed as ISO text', async () => {
    const book = await workbook([
      ['Text', 'Price', 'Kind', 'Day'],
      ['ok', 1, 'Alpha', '2024-03-01'],
      ['formula', { formula: 'B2*2', result: 2 }, 'Beta, with comma', null],
      ['bad date', 3, 'Alpha', '01/03/2024'],
      [null, -5, 'Gamma', null],
    ]);
    const res = await f.agent.post(`${api}/data/import/Sample`).set('token', f.admin).set('Content-Type', XLSX_TYPE).send(book).expect(422);
    expect(res.body.error.code).to.equal('IMPORT_FAILED');
    const details = res.body.error.details as Array<{ path: string; type: string; message: string; row: number; column?: string }>;
    expect(details.find((d) => d.type === 'formula')).to.include({ path: 'rows[2].price', row: 3, column: 'B' });
    expect(details.find((d) => d.path === 'rows[3].day')).to.include({ row: 4, column: 'D' });
    expect(details.find((d) => d.path === 'rows[3].day')!.message).to.match(/^row 4, column D \(Day\): /);
    expect(details.map((d) => d.path)).to.include.members(['rows[4].text', 'rows[4].price', 'rows[4].kind']);
    expect(details.find((d) => d.path === 'rows[4].kind')).to.include({ row: 5, column: 'C' });
    expect(await table()).to.have.length(0);
    const good = await workbook([
      ['Text', 'Day'],
      ['typed as text', '2024-03-01'],
      ['typed as date', new Date(Date.UTC(2024, 2, 2))],
    ]);
    await f.agent.post(`${api}/data/import/Sample`).set('token', f.admin).set('Content-Type', XLSX_TYPE).send(good).expect(200);
    expect((await table()).map((r) => r.day)).to.deep.equal(['2024-03-01', '2024-03-02']);
  });

  it('names unknown columns, and refuses a CSV error with the same row and column positions', async () => {
    const unknown = await f.agent.post(`${api}/data/import/Sample`).set('token', f.admin).set('Content-Type', XLSX_TYPE).send(await workbook([['Text', 'is_admin'], ['x', 1]])).expect(400);
    expect(unknown.body.error).to.include({ code: 'UNKNOWN_FIELD' });
    expect(unknown.body.error.details[0]).to.include({ path: 'is_admin', column: 'B' });
    const csv = await f.agent.post(`${api}/data/import/Sample`).set('token', f.admin).set('Content-Type', 'text/csv').send('Text,Price\r\nok,1\r\nbad,-1\r\n').expect(422);
    expect(csv.body.error.details).to.have.length(1);
    expect(csv.body.error.details[0]).to.include({ path: 'rows[2].price', row: 3, column: 'B' });
  });

  it('imports a 10,000-row workbook within the default limits, and refuses one row more', async function () {
    // Two 10,000-row workbooks built, sent and read: over three minutes on PostgreSQL beside the browser files on two cores.
    this.timeout(360_000);
    const sheet = (n: number) =>
      workbookStream(
        'Sample',
        [{ title: 'Text' }, { title: 'Count' }, { title: 'Kind' }],
        (async function* () {
          for (let i = 0; i < n; i += 1000) yield Array.from({ length: Math.min(1000, n - i) }, (_, j) => [`row ${i + j}`, i + j, 'Alpha']);
        })(),
      );
    const bytesOf = async (n: number) => {
      const chunks: Buffer[] = [];
      for await (const c of sheet(n)) chunks.push(c as Buffer);
      return Buffer.concat(chunks);
    };
    const big = await bytesOf(10_000);
    expect(big.length).to.be.below(5 * 1024 * 1024);
    const res = await f.agent.post(`${api}/data/import/Sample`).set('token', f.admin).set('Content-Type', XLSX_TYPE).send(big).expect(200);
    expect(res.body).to.deep.include({ imported: 10_000, added: 10_000, updated: 0 });
    expect(Number((await f.store.knex('xt_sample').count({ n: '*' }))[0]!.n)).to.equal(10_000);
    await wipe();
    const over = await f.agent.post(`${api}/data/import/Sample`).set('token', f.admin).set('Content-Type', XLSX_TYPE).send(await bytesOf(10_001)).expect(413);
    expect(over.body.error.code).to.equal('TOO_MANY_ROWS');
    expect(Number((await f.store.knex('xt_sample').count({ n: '*' }))[0]!.n)).to.equal(0);
  });

  it('refuses bodies over importBodyLimit (raw, multipart) with 413', async () => {
    const small = f.app({ importBodyLimit: 2048 });
    const big = await workbook([['Text'], ...Array.from({ length: 400 }, (_, i) => [`a fairly long text cell number ${i} ${'x'.repeat(20)}`])]);
    expect(big.length).to.be.above(2048);
    await small.post(`${api}/data/import/Sample`).set('token', f.admin).set('Content-Type', XLSX_TYPE).send(big).expect(413);
    await small.post(`${api}/data/import/Sample`).set('token', f.admin).attach('file', big, 'big.xlsx').expect(413);
    expect(await table()).to.have.length(0);
  });

  it('serves the import template: titles, one example row, drop-down lists; as CSV too; and it imports', async () => {
    const res = await f.agent.get(`${api}/data/import-template/Sample`).set('token', f.admin).buffer(true).parse(binary).expect(200);
    expect(res.headers['content-type']).to.equal(XLSX_TYPE);
    expect(res.headers['content-disposition']).to.equal('attachment; filename="Sample-template.xlsx"');
    const book = await loadWorkbook(res.body as Buffer);
    const sheet = book.getWorksheet('Sample')!;
    const header = (sheet.getRow(1).values as unknown[]).slice(1);
    expect(header).to.deep.equal(['Text', 'Notes', 'Count', 'Price', 'Active', 'Kind', 'Kinds', 'Tags', 'Day', 'At', 'Hidden', 'Shelf', 'Place', 'Labels']);
    expect(sheet.rowCount).to.equal(2);
    expect(sheet.views[0]).to.include({ state: 'frozen', ySplit: 1 });
    const validations = (sheet as unknown as { dataValidations: { model: Record<string, ExcelJS.DataValidation> } }).dataValidations.model;
    const kind = Object.entries(validations).find(([range]) => range.startsWith('F2'))![1];
    expect(kind).to.include({ type: 'list' });
    expect(kind.formulae[0]).to.match(/^Lists!\$A\$1:\$A\$3$/);
    expect(Object.entries(validations).find(([range]) => range.startsWith('E2'))![1].formulae).to.deep.equal(['"TRUE,FALSE"']);
    expect(book.getWorksheet('Lists')!.state).to.equal('hidden');
    const csv = await f.agent.get(`${api}/data/import-template/Sample?format=csv`).set('token', f.admin).expect(200).expect('Content-Type', /text\/csv/);
    expect(csv.text.replace(/^\ufeff/, '').split('\r\n')[0]).to.equal('Text,Notes,Count,Price,Active,Kind,Kinds,Tags,Day,At,Hidden,Shelf,Place,Labels');
    // The example row imports as it is (the fixture's first shelf, place and labels have ids 1 and 2).
    const imported = await f.agent
      .post(`${api}/data/import/Sample`)
      .set('token', f.admin)
      .set('Content-Type', XLSX_TYPE)
      .send(res.body as Buffer)
      .expect(200);
    expect(imported.body).to.deep.include({ imported: 1, added: 1, updated: 0 });
    expect((await table())[0]).to.include({ text: 'Example Text', kind: 'a', active: true, day: '2025-01-31' });
  });

  it('keeps working behind a body parser the host mounted first (koa-body with multipart, @koa/bodyparser)', async () => {
    const book = await workbook([['Text'], ['behind a parser']]);
    for (const host of [(k: Koa) => k.use(koaBody({ multipart: true, text: true })), (k: Koa) => k.use(bodyParser())]) {
      const agent = f.app({}, host);
      await agent.post(`${api}/data/import/Sample`).set('token', f.admin).set('Content-Type', XLSX_TYPE).send(book).expect(200);
      await agent.post(`${api}/data/import/Sample`).set('token', f.admin).attach('file', book, 'b.xlsx').expect(200);
      await agent.post(`${api}/data/import/Sample`).set('token', f.admin).set('Content-Type', 'text/csv').send('text\r\nbehind a parser\r\n').expect(200);
    }
    expect((await table()).map((r) => r.text)).to.deep.equal(Array(6).fill('behind a parser'));
  });

  it('exports ATTACHMENT fields as file names, and skips them on import', async () => {
    const stored = [
      { id: 'aaaaaaaaaaaaaaaaaaaaaa', name: 'report.pdf', size: 10, type: 'application/pdf' },
      { id: 'bbbbbbbbbbbbbbbbbbbbbb', name: 'photo, 2.png', size: 20, type: 'image/png' },
    ];
    await f.store.knex('xt_document').delete();
    await f.store.knex('xt_document').insert({ title: 'With files', files: JSON.stringify(stored) });
    const csv = await f.agent.get(`${api}/data/export/Document`).set('token', f.admin).expect(200);
    expect(csv.text).to.contain('With files,"report.pdf, photo, 2.png"').and.not.contain('aaaaaaaa');
    const xlsx = await f.agent.get(`${api}/data/export/Document?format=xlsx`).set('token', f.admin).buffer(true).parse(binary).expect(200);
    const sheet = (await loadWorkbook(xlsx.body as Buffer)).worksheets[0]!;
    expect(sheet.getRow(2).getCell(2).value).to.equal('report.pdf, photo, 2.png');
    await f.store.knex('xt_document').delete();
    await f.agent.post(`${api}/data/import/Document`).set('token', f.admin).set('Content-Type', 'text/csv').send(csv.text).expect(200);
    await f.agent.post(`${api}/data/import/Document`).set('token', f.admin).set('Content-Type', XLSX_TYPE).send(xlsx.body as Buffer).expect(200);
    const rows = await f.store.knex('xt_document').select('title', 'files');
    expect(rows.map((r) => [r.title, r.files ?? null])).to.deep.equal([
      ['With files', null],
      ['With files', null],
    ]);
    const template = await f.agent.get(`${api}/data/import-template/Document?format=csv`).set('token', f.admin).expect(200);
    expect(template.text.replace(/^\ufeff/, '').split('\r\n')[0]).to.equal('Title');
  });

  it('asks for the export power to export, the importable power for import and template; bad format is 400', async () => {
    await f.agent.get(`${api}/data/export/Sample?format=xlsx`).set('token', f.reader).expect(403);
    await f.agent.get(`${api}/data/import-template/Sample`).set('token', f.reader).expect(403);
    await f.agent.post(`${api}/data/import/Sample`).set('token', f.reader).set('Content-Type', XLSX_TYPE).send(await workbook([['Text'], ['x']])).expect(403);
    await f.agent.get(`${api}/data/import-template/Sample`).expect(401);
    const bad = await f.agent.get(`${api}/data/export/Sample?format=pdf`).set('token', f.admin).expect(400);
    expect(bad.body.error.code).to.equal('BAD_REQUEST');
    await f.agent.get(`${api}/data/export/Sample?format=csv&format=xlsx`).set('token', f.admin).expect(400);
    await f.agent.get(`${api}/data/import-template/Nope`).set('token', f.admin).expect(404);
    const wrongMethod = await f.agent.post(`${api}/data/import-template/Sample`).set('token', f.admin).expect(405);
    expect(wrongMethod.headers.allow).to.contain('GET');
    await f.agent.get(`${api}/data/import/Sample`).set('token', f.admin).expect(405);
    expect(await table()).to.have.length(0);
  });
});
