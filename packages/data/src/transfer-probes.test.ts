// Red-team probes of the import route (issue 13). Each failed before its fix.
import { request as httpRequest, type Server } from 'node:http';
import { expect } from 'chai';
import Koa from 'koa';
import { BUILTIN_MODELS, createRegistry, defineModel, type FwUser } from '@fw/core';
import { createStore, type FwStore } from '@fw/store';
import { describeEachSql } from '@fw/test-utils';
import { FwTokenService, MemoryTokenStore } from '@fw/token';
import { fwData } from './router.js';
import { XLSX_TYPE } from './transfer/xlsx.js';

const Note = defineModel({ name: 'Note', table: 't_probe_note', power: { importable: true }, fields: { title: {} } });

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
    const row = await store.users.create({ account: `note-reader-${stamp}`, name: 'reader', password: 'x-password-1', isAdmin: false });
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
