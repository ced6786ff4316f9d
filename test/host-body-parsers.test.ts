// Issue 13: a host that mounted its own body parser before Fw keeps working — JSON routes, the CSV
// import (raw text/csv and as a multipart file field), with koa-body and with @koa/bodyparser.
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bodyParser } from '@koa/bodyparser';
import { expect } from 'chai';
import Koa, { type Middleware } from 'koa';
import { koaBody } from 'koa-body';
import request from 'supertest';
import { fwAdmin } from '@fw/admin';
import { defineModel } from '@fw/core';
import { encodePassword } from '@fw/login/client';
import { createTestDatabase } from '@fw/test-utils';

const Book = defineModel({
  name: 'Book',
  table: 'hbp_book',
  power: { importable: true, export: true },
  fields: { title: { views: { title: 'Title' }, edit: { notNull: true } } },
});

const BOUNDARY = 'host-parser-boundary-42';
function multipartFile(name: string, filename: string, content: string): Buffer {
  return Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="${name}"; filename="${filename}"\r\nContent-Type: text/csv\r\n\r\n${content}\r\n--${BOUNDARY}--\r\n`);
}

const uploadsLeft = () => readdirSync(tmpdir()).filter((f) => f.startsWith('fw-upload-')).length;
// Where the host's own koa-body writes uploads: Fw removes them once the import is done.
const hostUploads = mkdtempSync(join(tmpdir(), 'fw-host-uploads-'));
after(() => rmSync(hostUploads, { recursive: true, force: true }));

const hosts: [string, () => Middleware][] = [
  ['koa-body (JSON, text and multipart)', () => koaBody({ multipart: true, text: true, formidable: { uploadDir: hostUploads } }) as unknown as Middleware],
  ['koa-body (its defaults: JSON and forms)', () => koaBody() as unknown as Middleware],
  ['@koa/bodyparser', () => bodyParser() as unknown as Middleware],
];

for (const [label, parser] of hosts) {
  describe(`a host with ${label} mounted before fwAdmin`, () => {
    let agent: ReturnType<typeof request>;
    let token: string;
    let cleanup: () => Promise<void>;
    before(async () => {
      const db = await createTestDatabase({ dialect: 'sqlite', label: 'SQLite' });
      const app = new Koa();
      app.silent = true;
      app.use(parser());
      const fw = await fwAdmin(app, { db: db.url, models: [Book], purgeIntervalMs: false });
      app.use(fw.middleware);
      await fw.store.users.create({ account: 'admin', password: 'admin-pass-1', isAdmin: true, mustChangePassword: false });
      agent = request(app.callback());
      cleanup = async () => (await fw.close(), await db.drop());
      const login = await agent.post('/fw-api/login').send({ account: 'admin', pwd: encodePassword('admin-pass-1') });
      expect(login.status, JSON.stringify(login.body)).to.equal(200);
      token = login.body.token as string;
    });
    after(() => cleanup?.());

    it('signs in, adds and queries rows with JSON bodies, and answers an unknown field in the Fw error body', async () => {
      const added = await agent.post('/fw-api/data/modify/Book').set('token', token).send({ title: 'Dune' });
      expect(added.status, JSON.stringify(added.body)).to.equal(200);
      const table = await agent.post('/fw-api/data/table/Book').set('token', token).send({ page: 1, size: 10 });
      expect(table.status, JSON.stringify(table.body)).to.equal(200);
      expect(table.body.rows.map((r: { title: string }) => r.title)).to.include('Dune');
      const unknown = await agent.post('/fw-api/data/modify/Book').set('token', token).send({ title: 'x', nope: 1 });
      expect(unknown.status).to.equal(400);
      expect(unknown.body.error.code).to.equal('UNKNOWN_FIELD');
    });

    it('imports CSV sent as text/csv', async () => {
      const res = await agent.post('/fw-api/data/import/Book').set('token', token).set('Content-Type', 'text/csv').send('Title\nCSV one\nCSV two\n');
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      expect(res.body.imported).to.equal(2);
    });

    it('imports CSV sent as a multipart file field, leaving no temporary file behind', async () => {
      const before = uploadsLeft();
      const res = await agent
        .post('/fw-api/data/import/Book')
        .set('token', token)
        .set('Content-Type', `multipart/form-data; boundary=${BOUNDARY}`)
        .send(multipartFile('file', '../books.csv', 'Title\nForm one\n'));
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      expect(res.body.imported).to.equal(1);
      const table = await agent.post('/fw-api/data/table/Book').set('token', token).send({ page: 1, size: 50 });
      expect(table.body.rows.map((r: { title: string }) => r.title)).to.include.members(['CSV one', 'CSV two', 'Form one']);
      expect(uploadsLeft()).to.be.at.most(before);
      expect(readdirSync(hostUploads)).to.deep.equal([]);
    });
  });
}
