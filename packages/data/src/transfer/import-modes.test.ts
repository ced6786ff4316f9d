import { expect } from 'chai';
import ExcelJS from 'exceljs';
import Koa from 'koa';
import request from 'supertest';
import { BUILTIN_MODELS, createRegistry, defineModel, type FwUser } from '@fw/core';
import { createStore, functionMenuCode, type FwStore } from '@fw/store';
import { describeEachSql } from '@fw/test-utils';
import { FwTokenService, MemoryTokenStore } from '@fw/token';
import { fwData } from '../http/router.js';
import { sortDetails } from './transfer-import.js';
import { XLSX_TYPE } from './xlsx.js';

const api = '/fw-api';
/** The ids the model's beforeUpdate hook saw: updated rows take the single edit's write path. */
const hooked: number[] = [];

/** Owned rows: a user sees and edits only their own (administrators all). */
const Item = defineModel({
  name: 'ImItem',
  table: 'xm_item',
  power: { export: true, importable: true },
  fields: {
    title: { views: { title: 'Title' }, edit: { notNull: true } },
    price: { views: { title: 'Price' }, edit: { type: 'NUMBER' }, rules: [{ type: 'range', min: 0, max: 10000 }] },
    kind: { views: { title: 'Kind' }, edit: { type: 'CHOICE', choices: [{ value: 'a', label: 'Alpha' }, { value: 'b', label: 'Beta' }] } },
    ownerId: { column: 'owner_id', views: { title: 'Owner' }, edit: { type: 'HIDDEN', readonly: true, integer: true } },
  },
  dataProxy: {
    beforeFetch: ({ user }) => (user.isAdmin ? [] : [{ field: 'ownerId', op: 'eq', value: user.id }]),
    beforeAdd: (row, { user }) => {
      row.ownerId = user.id;
    },
    beforeUpdate: (row) => {
      hooked.push(Number(row.id));
    },
  },
});

async function setup(url: string) {
  const store: FwStore = createStore(url);
  await store.migrate.latest();
  const registry = createRegistry([...BUILTIN_MODELS, Item]);
  await store.createModelTables([Item]);
  await store.knex('xm_item').delete();
  const { menu, functions } = await store.menus.createModelMenu(Item);
  const fn = (flag: 'add' | 'edit' | 'export' | 'importable') => functions.find((f) => f.code === functionMenuCode(Item.name, flag))!.id;
  const stamp = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
  const make = async (account: string, menus: number[]): Promise<FwUser> => {
    const row = await store.users.create({ account: `${account}-${stamp}`, name: account, password: 'x-password-1', isAdmin: false, mustChangePassword: false });
    const role = await store.roles.create({ code: `xm-${account}-${stamp}`, name: account });
    await store.roles.setMenus(role.id, menus);
    await store.users.setRoles(row.id, [role.id]);
    return { id: row.id, account: row.account, name: row.name, isAdmin: false };
  };
  const everything = [menu.id, fn('add'), fn('edit'), fn('export'), fn('importable')];
  const alice = await make('alice', everything);
  const bob = await make('bob', everything);
  const adder = await make('adder', [menu.id, fn('add'), fn('export'), fn('importable')]);
  const editor = await make('editor', [menu.id, fn('edit'), fn('export'), fn('importable')]);
  const tokens = new FwTokenService({ store: new MemoryTokenStore() });
  const koa = new Koa();
  koa.silent = true;
  koa.use(fwData({ store, tokens, registry, importMaxRows: 50 }));
  const token = async (user: FwUser) => (await tokens.loginToken(user, tokens.generateToken())).token;
  return { store, agent: request(koa.callback()), alice, bob, t: { alice: await token(alice), bob: await token(bob), adder: await token(adder), editor: await token(editor) } };
}

async function workbook(rows: unknown[][]): Promise<Buffer> {
  const book = new ExcelJS.Workbook();
  const sheet = book.addWorksheet('Items');
  for (const row of rows) sheet.addRow(row);
  return Buffer.from(await book.xlsx.writeBuffer());
}

function binary(res: request.Response, done: (error: Error | null, body: Buffer) => void): void {
  const stream = res as unknown as NodeJS.ReadableStream;
  const chunks: Buffer[] = [];
  stream.on('data', (c: Buffer) => chunks.push(c));
  stream.on('end', () => done(null, Buffer.concat(chunks)));
}

describe('import errors are sorted by row, then column', () => {
  it('puts header errors first, then row 2 A, B, …, Z, AA, then row 3', () => {
    const d = (row: number | undefined, column: string | undefined, path: string) => ({ path, message: path, ...(row ? { row } : {}), ...(column ? { column } : {}) });
    const sorted = sortDetails([d(3, 'A', 'r3a'), d(2, 'AA', 'r2aa'), d(2, 'B', 'r2b'), d(undefined, undefined, 'head'), d(2, undefined, 'r2'), d(2, 'Z', 'r2z'), d(10, 'A', 'r10')]);
    expect(sorted.map((x) => x.path)).to.deep.equal(['head', 'r2', 'r2b', 'r2z', 'r2aa', 'r3a', 'r10']);
  });
});

describeEachSql('fwData import modes: add, update, upsert', (db) => {
  let f: Awaited<ReturnType<typeof setup>>;
  before(async () => {
    f = await setup(db().url);
  });
  after(async () => {
    await f.store.destroy();
  });
  beforeEach(async () => {
    await f.store.knex('xm_item').delete();
    hooked.length = 0;
  });

  const add = async (token: string, title: string, price: number) => (await f.agent.post(`${api}/data/modify/ImItem`).set('token', token).send({ title, price, kind: 'a' }).expect(200)).body.id as number;
  const rows = async () => (await f.store.knex('xm_item').select('id', 'title', 'price', 'kind', 'owner_id').orderBy('id')).map((r) => ({ ...r, price: r.price === null ? null : Number(r.price) }));
  const importCsv = (token: string, text: string, mode?: string) =>
    f.agent
      .post(`${api}/data/import/ImItem${mode ? `?mode=${mode}` : ''}`)
      .set('token', token)
      .set('Content-Type', 'text/csv')
      .send(text);

  it('export → change a price → import with mode update changes the price and adds no row (CSV and XLSX)', async () => {
    const ubik = await add(f.t.alice, 'Ubik', 9.5);
    await add(f.t.alice, 'Dune', 12);
    const csv = await f.agent.get(`${api}/data/export/ImItem`).set('token', f.t.alice).expect(200);
    // One convention for both formats: titles in the header, choices as labels; said in a header.
    expect(csv.headers['fw-transfer-header']).to.equal('titles; values=labels');
    const lines = csv.text.replace(/^\ufeff/, '').split('\r\n');
    expect(lines[0]).to.equal('Title,Price,Kind,Owner,id');
    expect(lines[1]).to.equal(`Ubik,9.5,Alpha,${f.alice.id},${ubik}`);
    const changed = csv.text.replace('Ubik,9.5,', 'Ubik,11.25,');
    expect((await importCsv(f.t.alice, changed, 'update').expect(200)).body).to.deep.include({ imported: 2, added: 0, updated: 2 });
    const after = await rows();
    expect(after).to.have.length(2);
    expect(after.find((r) => r.id === ubik)).to.include({ title: 'Ubik', price: 11.25 });
    expect(hooked).to.have.members(after.map((r) => r.id));

    const xlsx = await f.agent.get(`${api}/data/export/ImItem?format=xlsx`).set('token', f.t.alice).buffer(true).parse(binary).expect(200);
    const book = new ExcelJS.Workbook();
    await book.xlsx.load(xlsx.body as unknown as ArrayBuffer);
    const sheet = book.worksheets[0]!;
    expect((sheet.getRow(1).values as unknown[]).slice(1)).to.deep.equal(['Title', 'Price', 'Kind', 'Owner', 'id']);
    expect(sheet.getRow(2).getCell(3).value).to.equal('Alpha');
    sheet.getRow(2).getCell(2).value = 7;
    const edited = Buffer.from(await book.xlsx.writeBuffer());
    const res = await f.agent.post(`${api}/data/import/ImItem?mode=update`).set('token', f.t.alice).set('Content-Type', XLSX_TYPE).send(edited).expect(200);
    expect(res.body).to.deep.include({ imported: 2, added: 0, updated: 2 });
    expect((await rows()).map((r) => r.price)).to.deep.equal([7, 12]);
    // The operate log has one import row naming the mode.
    const log = await f.store.knex('fw_operate_log').where({ action: 'import' }).orderBy('id', 'desc').first();
    expect(String(log.request)).to.contain('"mode":"update"');
  });

  it('upsert updates rows with an id and adds rows without one; add ignores the id column (the default)', async () => {
    const ubik = await add(f.t.alice, 'Ubik', 9.5);
    const res = await importCsv(f.t.alice, `id,title,price\r\n${ubik},Ubik,10\r\n,Solaris,8\r\n`, 'upsert').expect(200);
    expect(res.body).to.deep.include({ imported: 2, added: 1, updated: 1 });
    expect((await rows()).map((r) => [r.title, r.price])).to.deep.equal([
      ['Ubik', 10],
      ['Solaris', 8],
    ]);
    const again = await importCsv(f.t.alice, `id,title,price\r\n${ubik},Ubik,10\r\n`).expect(200);
    expect(again.body).to.deep.include({ imported: 1, added: 1, updated: 0 });
    expect(await rows()).to.have.length(3);
  });

  it('reports rows update cannot match, never adds them: unknown, junk, blank and repeated ids; nothing is written', async () => {
    const ubik = await add(f.t.alice, 'Ubik', 9.5);
    const text = `Title,ID,price\r\nUbik,${ubik},1\r\nGhost,999999,2\r\nJunk,12abc,3\r\nBlank,,4\r\nAgain,${ubik},5\r\nHuge,99999999999999999999,6\r\n`;
    const res = await importCsv(f.t.alice, text, 'update').expect(422);
    expect(res.body.error.code).to.equal('IMPORT_FAILED');
    const details = res.body.error.details as Array<{ path: string; type: string; row: number; column: string }>;
    expect(details.map((d) => [d.row, d.column, d.type])).to.deep.equal([
      [3, 'B', 'notFound'],
      [4, 'B', 'typeError'],
      [5, 'B', 'required'],
      [6, 'B', 'duplicate'],
      [7, 'B', 'typeError'],
    ]);
    expect((await rows()).map((r) => [r.title, r.price])).to.deep.equal([['Ubik', 9.5]]);
    // Upsert too: an id that matches no row is an error, not a new row.
    const upsert = await importCsv(f.t.alice, `id,title\r\n999999,Ghost\r\n`, 'upsert').expect(422);
    expect(upsert.body.error.details[0]).to.include({ type: 'notFound', row: 2, column: 'A' });
    expect(await rows()).to.have.length(1);
    // Update needs the id column.
    const noKey = await importCsv(f.t.alice, 'title\r\nx\r\n', 'update').expect(400);
    expect(noKey.body.error.details[0]).to.include({ path: 'id', type: 'required' });
  });

  it("cannot update another user's rows: they read as rows that do not exist", async () => {
    const bobs = await add(f.t.bob, 'Bob only', 5);
    const res = await importCsv(f.t.alice, `id,title,price\r\n${bobs},Taken,0\r\n`, 'update').expect(422);
    expect(res.body.error.details[0]).to.include({ type: 'notFound', row: 2, column: 'A' });
    expect(JSON.stringify(res.body)).to.not.contain('Bob only');
    await importCsv(f.t.alice, `id,title,price\r\n${bobs},Taken,0\r\n`, 'upsert').expect(422);
    expect((await rows()).map((r) => [r.title, r.price])).to.deep.equal([['Bob only', 5]]);
  });

  it('holds each row to its own power: update needs edit, add needs add, upsert both for the rows that need them', async () => {
    const own = await add(f.t.alice, 'Mine', 1);
    await f.store.knex('xm_item').where({ id: own }).update({ owner_id: (await f.store.knex('fw_user').where('account', 'like', 'editor-%').orderBy('id', 'desc').first()).id });
    // adder: add and import, no edit.
    await importCsv(f.t.adder, `id,title\r\n${own},x\r\n`, 'update').expect(403);
    await importCsv(f.t.adder, `id,title\r\n${own},x\r\n`, 'upsert').expect(403);
    expect((await importCsv(f.t.adder, `id,title\r\n,added by adder\r\n`, 'upsert').expect(200)).body).to.deep.include({ imported: 1, added: 1, updated: 0 });
    // editor: edit and import, no add.
    await importCsv(f.t.editor, 'title\r\nx\r\n').expect(403);
    await importCsv(f.t.editor, `id,title\r\n${own},x\r\n,new\r\n`, 'upsert').expect(403);
    expect((await importCsv(f.t.editor, `id,title\r\n${own},edited by editor\r\n`, 'upsert').expect(200)).body).to.deep.include({ imported: 1, added: 0, updated: 1 });
    expect((await rows()).map((r) => r.title)).to.deep.equal(['edited by editor', 'added by adder']);
    const bad = await importCsv(f.t.alice, 'title\r\nx\r\n', 'replace').expect(400);
    expect(bad.body.error.details[0]).to.include({ path: 'mode' });
    await f.agent.post(`${api}/data/import/ImItem?mode=add&mode=update`).set('token', f.t.alice).set('Content-Type', 'text/csv').send('title\r\nx\r\n').expect(400);
  });

  it('reads keys and titles in any case, in CSV and workbooks; choices by label or value; refuses too many rows', async () => {
    await importCsv(f.t.alice, 'TITLE,pRiCe,kind\r\nOne,1,Beta\r\nTwo,2,b\r\n').expect(200);
    const book = await workbook([
      ['title', 'PRICE', 'KIND'],
      ['Three', 3, 'alpha'],
    ]);
    // A label must match exactly: 'alpha' is neither a label nor a value.
    const wrong = await f.agent.post(`${api}/data/import/ImItem`).set('token', f.t.alice).set('Content-Type', XLSX_TYPE).send(book).expect(422);
    expect(wrong.body.error.details[0]).to.include({ row: 2, column: 'C' });
    const good = await workbook([
      ['title', 'PRICE', 'KIND'],
      ['Three', 3, 'Alpha'],
    ]);
    await f.agent.post(`${api}/data/import/ImItem?mode=upsert`).set('token', f.t.alice).set('Content-Type', XLSX_TYPE).send(good).expect(200);
    expect((await rows()).map((r) => [r.title, r.kind])).to.deep.equal([
      ['One', 'b'],
      ['Two', 'b'],
      ['Three', 'a'],
    ]);
    const many = `id,title\r\n${Array.from({ length: 51 }, (_, i) => `${i + 1},t`).join('\r\n')}\r\n`;
    expect((await importCsv(f.t.alice, many, 'update').expect(413)).body.error.code).to.equal('TOO_MANY_ROWS');
    expect(await rows()).to.have.length(3);
  });
});
