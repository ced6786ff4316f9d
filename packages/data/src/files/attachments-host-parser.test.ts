import { mkdtempSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import Koa from 'koa';
import { koaBody } from 'koa-body';
import request from 'supertest';
import { BUILTIN_MODELS, createRegistry, defineModel } from '@fw/core';
import { localFileStorage } from '@fw/files';
import { createStore, type FwStore } from '@fw/store';
import { FwTokenService, MemoryTokenStore } from '@fw/token';
import { fwData } from '../http/router.js';

const Photo = defineModel({ name: 'Photo', table: 't_photo', fields: { caption: {}, image: { edit: { type: 'ATTACHMENT', attachment: { image: true, maxSize: 1024 } } } } });
const PNG = Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082', 'hex');

describe('upload route behind a host body parser (koa-body multipart mounted before fwData)', () => {
  let store: FwStore;
  let dir: string;
  let agent: ReturnType<typeof request>;
  let token: string;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'fw-host-parser-'));
    store = createStore('sqlite::memory:');
    await store.migrate.latest();
    const registry = createRegistry([...BUILTIN_MODELS, Photo]);
    await store.createModelTables(registry.list());
    const admin = await store.users.create({ account: 'admin', password: 'x-password-1', isAdmin: true, mustChangePassword: false });
    const tokens = new FwTokenService({ store: new MemoryTokenStore() });
    token = (await tokens.loginToken({ id: admin.id, account: admin.account, name: admin.name, isAdmin: true }, tokens.generateToken())).token;
    const app = new Koa();
    app.silent = true;
    app.use(koaBody({ multipart: true, formidable: { uploadDir: dir } }));
    app.use(fwData({ store, tokens, registry, files: localFileStorage({ dir: join(dir, 'files') }) }));
    agent = request(app.callback());
  });
  after(async () => {
    await store.destroy();
    await rm(dir, { recursive: true, force: true });
  });

  it('stores the file the host parser read, with the same checks (size, sniffed type)', async () => {
    const ok = await agent.post('/fw-api/data/upload/Photo/image').set('token', token).attach('file', PNG, 'a.png');
    expect(ok.status, JSON.stringify(ok.body)).to.equal(200);
    expect(ok.body.files[0]).to.include({ name: 'a.png', type: 'image/png', size: PNG.length });
    const big = await agent.post('/fw-api/data/upload/Photo/image').set('token', token).attach('file', Buffer.concat([PNG, Buffer.alloc(2048)]), 'big.png');
    expect(big.status).to.equal(413);
    const html = await agent.post('/fw-api/data/upload/Photo/image').set('token', token).attach('file', Buffer.from('<html></html>'), 'x.png');
    expect(html.status).to.equal(415);
  });
});
