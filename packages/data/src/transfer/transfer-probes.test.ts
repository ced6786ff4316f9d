// Red-team probes of the import route (issue 13). Each failed before its fix.
import { request as httpRequest, type Server } from 'node:http';
import { expect } from 'chai';
import ExcelJS from 'exceljs';
import Koa from 'koa';
import request from 'supertest';
import { BUILTIN_MODELS, createRegistry, defineModel, type FwUser } from '@fw/core';
import { createStore, type FwStore } from '@fw/store';
import { describeEachSql } from '@fw/test-utils';
import { FwTokenService, MemoryTokenStore } from '@fw/token';
import { fwData } from '../http/router.js';
import { XLSX_TYPE } from './xlsx.js';

const Note = defineModel({ name: 'Note', table: 't_probe_note', power: { importable: true }, fields: { title: { views: { title: 'Title' } }, body: { views: { title: 'Body' } } } });

/** A workbook whose header is `header`, with `merge` (e.g. 'A1:B1') merged, and `rows` under it. */
async function workbook(header: unknown[], rows: unknown[][], merge?: string): Promise<Buffer> {
  const book = new ExcelJS.Workbook();
  const sheet = book.addWorksheet('Notes');
  sheet.addRow(header);
  for (const row of rows) sheet.addRow(row);
  if (merge) sheet.mergeCells(merge);
  return Buffer.from(await book.xlsx.writeBuffer());
}

describeEachSql('import probes: power is checked before the body is read', (db) => {
  let store: FwStore;
  let server: Server;
  let reader: string;
  const appErrors: unknown[] = [];

  before(async () => {
    store = createStore(db().url);
    await store.migrate.latest();
    const registry = createRegistry([...BUILTIN_MODELS, Note]);
    await store.createModelTables([Note]);
    const { menu } = await store.menus.createModelMenu(Note);
    const stamp = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
    const role = await store.roles.create({ code: `note-reader-${stamp}`, name: 'Note reader' });
    await store.roles.setMenus(role.id, [menu.id]);
    const row = await store.users.create({ account: `note-reader-${stamp}`, name: 'reader', password: 'x-password-1', isAdmin: false, mustChangePassword: false });
    await store.users.setRoles(row.id, [role.id]);
    const tokens = new FwTokenService({ store: new MemoryTokenStore() });
    reader = (await tokens.loginToken({ id: row.id, account: row.account, name: row.name, isAdmin: false } as FwUser, tokens.generateToken())).token;
    const app = new Koa();
    app.silent = true;
    app.on('error', (error) => appErrors.push(error));
    app.use(fwData({ store, tokens, registry }));
    server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
  });

  after(async () => {
    server.close();
    await store.destroy();
    expect(appErrors.map(String), 'app error events').to.deep.equal([]);
  });

  /** Sends the headers and a first piece of a body that never ends; the answer that comes meanwhile, if any. */
  async function answerWhileSending(type: string, first: Buffer): Promise<{ status: number; code?: string } | 'no answer'> {
    const { port } = server.address() as { port: number };
    return new Promise((resolve) => {
      const req = httpRequest({ host: '127.0.0.1', port, method: 'POST', path: '/fw-api/data/import/Note', headers: { token: reader, 'content-type': type } }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          clearTimeout(timer);
          req.destroy();
          resolve({ status: res.statusCode ?? 0, code: (JSON.parse(Buffer.concat(chunks).toString() || '{}') as { error?: { code?: string } }).error?.code });
        });
      });
      req.on('error', () => undefined);
      req.write(first);
      const timer = setTimeout(() => {
        req.destroy();
        resolve('no answer');
      }, 1000);
    });
  }

  it('a user who may not import is refused (403) before sending the multipart file, which is not read', async () => {
    const head = Buffer.from('--b\r\nContent-Disposition: form-data; name="file"; filename="notes.csv"\r\nContent-Type: text/csv\r\n\r\ntitle\r\n');
    expect(await answerWhileSending('multipart/form-data; boundary=b', head)).to.deep.equal({ status: 403, code: 'POWER_DENIED' });
  });

  it('the same for a workbook and a CSV body', async () => {
    expect(await answerWhileSending(XLSX_TYPE, Buffer.from('PK\u0003\u0004'))).to.deep.equal({ status: 403, code: 'POWER_DENIED' });
    expect(await answerWhileSending('text/csv', Buffer.from('title\r\n'))).to.deep.equal({ status: 403, code: 'POWER_DENIED' });
  });
});

describeEachSql('import probes: header cells without a name', (db) => {
  let store: FwStore;
  let agent: ReturnType<typeof request>;
  let admin: string;
  const appErrors: unknown[] = [];

  before(async () => {
    store = createStore(db().url);
    await store.migrate.latest();
    const registry = createRegistry([...BUILTIN_MODELS, Note]);
    await store.createModelTables([Note]);
    const stamp = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
    const root = await store.users.create({ account: `note-root-${stamp}`, name: 'admin', password: 'x-password-1', isAdmin: true, mustChangePassword: false });
    const tokens = new FwTokenService({ store: new MemoryTokenStore() });
    admin = (await tokens.loginToken({ id: root.id, account: root.account, name: root.name, isAdmin: true } as FwUser, tokens.generateToken())).token;
    const app = new Koa();
    app.silent = true;
    app.on('error', (error) => appErrors.push(error));
    app.use(fwData({ store, tokens, registry }));
    agent = request(app.callback());
  });
  beforeEach(async () => {
    await store.knex('t_probe_note').delete();
  });
  after(async () => {
    await store.destroy();
    expect(appErrors.map(String), 'app error events').to.deep.equal([]);
  });

  const importXlsx = (bytes: Buffer) => agent.post('/fw-api/data/import/Note').set('token', admin).set('Content-Type', XLSX_TYPE).send(bytes);
  const importCsv = (text: string) => agent.post('/fw-api/data/import/Note').set('token', admin).set('Content-Type', 'text/csv').send(text);

  it('skips an empty column without a header (a blank header cell, the tail of a merged one), in a workbook and in CSV', async () => {
    const merged = await workbook(['Title', null, 'Body'], [['one', null, 'first'], ['two', null, 'second']], 'A1:B1');
    expect((await importXlsx(merged)).body).to.deep.include({ imported: 2, added: 2, updated: 0 });
    expect((await importCsv('title,,body\r\nthree,,third\r\n')).body).to.deep.include({ imported: 1, added: 1, updated: 0 });
    expect((await importCsv('title,,,body\r\nfour,,,fourth\r\n')).body).to.deep.include({ imported: 1, added: 1, updated: 0 });
    const titles = (await store.knex('t_probe_note').orderBy('id').select('title', 'body')).map((r: { title: string; body: string }) => `${r.title}:${r.body}`);
    expect(titles).to.deep.equal(['one:first', 'two:second', 'three:third', 'four:fourth']);
  });

  it('refuses values under a column without a header, naming the column (400), and writes nothing', async () => {
    const res = await importXlsx(await workbook(['Title', null, 'Body'], [['one', 'stray', 'first']], 'A1:B1'));
    expect(res.status, JSON.stringify(res.body)).to.equal(400);
    expect(res.body.error.code).to.equal('BAD_QUERY');
    expect(res.body.error.details).to.deep.equal([{ path: '', type: 'noHeader', message: 'column B has values but no header', column: 'B' }]);
    const csv = await importCsv('title,,body\r\none,stray,first\r\n');
    expect(csv.status).to.equal(400);
    expect(csv.body.error.details[0]).to.include({ type: 'noHeader', column: 'B' });
    expect(await store.knex('t_probe_note').count({ n: '*' }).then((r) => Number(r[0]!.n))).to.equal(0);
  });
});
