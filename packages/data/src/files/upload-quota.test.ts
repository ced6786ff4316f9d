// Issue 19 §5: pending uploads (uploaded, not yet saved in a row) are bounded per user, by count
// (429 UPLOAD_QUOTA_FILES) and bytes (413 UPLOAD_QUOTA_BYTES), also when uploads race at the edge
// and when a file passes the bound while it arrives. Attacker's side, through a real Koa app.
import { mkdtempSync, readdirSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import Koa from 'koa';
import request from 'supertest';
import { BUILTIN_MODELS, FwDefinitionError, createRegistry, defineModel, type FwUser } from '@fw/core';
import { localFileStorage } from '@fw/files';
import { createStore, type FwStore } from '@fw/store';
import { describeEachSql } from '@fw/test-utils';
import { FwTokenService, MemoryTokenStore } from '@fw/token';
import { PENDING_FILE_TTL_MS } from './attachments.js';
import { fwData, type FwDataOptions } from '../http/router.js';

const MiB = 1024 * 1024;

const Note = defineModel({
  name: 'Note',
  table: 't_quota_note',
  fields: {
    title: { edit: { notNull: true } },
    // Up to 5 files of 100 MiB a request: the quota, not the field, is what bounds a user.
    files: { edit: { type: 'ATTACHMENT', attachment: { multiple: true, maxFiles: 5, maxSize: 100 * MiB, accept: ['.txt'] } } },
  },
});

interface App {
  agent: ReturnType<typeof request>;
  server: Server;
  base: string;
  /** Every file key in the storage folder. */
  storedKeys(): string[];
  close(): Promise<void>;
}

describeEachSql('fwData uploadQuota: pending uploads bounded per user', (db) => {
  let store: FwStore;
  let tokens: FwTokenService;
  let dir: string;
  const users: Record<'alice' | 'bob', FwUser> = {} as never;
  const apps: App[] = [];

  before(async () => {
    store = createStore(db().url);
    await store.migrate.latest();
    const registry = createRegistry([...BUILTIN_MODELS, Note]);
    await store.createModelTables(registry.list());
    tokens = new FwTokenService({ store: new MemoryTokenStore() });
    for (const name of ['alice', 'bob'] as const) {
      const row = await store.users.create({ account: `${name}-${Date.now().toString(36)}`, name, password: 'x-password-1', isAdmin: true, mustChangePassword: false });
      users[name] = { id: row.id, account: row.account, name: row.name, isAdmin: true };
    }
    dir = mkdtempSync(join(tmpdir(), 'fw-quota-files-'));
  });
  after(async () => {
    for (const app of apps) await app.close();
    await store.destroy();
    await rm(dir, { recursive: true, force: true });
  });
  afterEach(async () => {
    await store.knex('fw_file').delete();
  });

  async function app(options: Partial<FwDataOptions> = {}): Promise<App> {
    const files = localFileStorage({ dir });
    const koa = new Koa();
    koa.silent = true;
    koa.use(fwData({ store, tokens, registry: createRegistry([...BUILTIN_MODELS, Note]), files, ...options }));
    const server = koa.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    const made: App = {
      agent: request(server),
      server,
      base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      storedKeys: () => readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).map((e) => e.name),
      close: () => new Promise<void>((resolve) => server.close(() => resolve())),
    };
    apps.push(made);
    return made;
  }
  const token = async (who: 'alice' | 'bob') => (await tokens.loginToken(users[who], tokens.generateToken())).token;
  const upload = async (a: App, who: 'alice' | 'bob', sizes: number[]) => {
    let req = a.agent.post('/fw-api/data/upload/Note/files').set('token', await token(who));
    sizes.forEach((size, i) => (req = req.attach('file', Buffer.alloc(size, 97), { filename: `n${i}.txt`, contentType: 'text/plain' })));
    return req;
  };
  /** Pending records of `who` that look like uploads of `bytes` each, as if uploaded earlier. */
  const holding = async (who: 'alice' | 'bob', count: number, bytes: number, createdAt = new Date()) => {
    for (let i = 0; i < count; i++) {
      await store.knex('fw_file').insert({
        id: `held-${who}-${i}-${Math.random().toString(36).slice(2)}`,
        model: 'Note',
        field: 'files',
        row_id: null,
        name: 'held.txt',
        type: 'text/plain',
        size: bytes,
        created_by: users[who].id,
        created_at: createdAt,
      });
    }
  };
  /** What `who` holds in pending uploads, read from the table itself. */
  const pendingOf = async (who: 'alice' | 'bob') => {
    const [row] = await store.knex('fw_file').whereNull('row_id').where('created_by', users[who].id).count({ n: '*' }).sum({ bytes: 'size' });
    return { files: Number(row?.n ?? 0), bytes: Number(row?.bytes ?? 0) };
  };

  describe('by default', () => {
    it('takes 20 pending files and answers the 21st with 429 UPLOAD_QUOTA_FILES saying how to make room', async () => {
      const a = await app();
      for (let i = 0; i < 4; i++) expect((await upload(a, 'alice', [1, 1, 1, 1, 1])).status).to.equal(200);
      expect(await pendingOf('alice')).to.deep.equal({ files: 20, bytes: 20 });
      const before = a.storedKeys().length;
      const over = await upload(a, 'alice', [1]);
      expect(over.status).to.equal(429);
      expect(over.body.error.code).to.equal('UPLOAD_QUOTA_FILES');
      expect(over.body.error.message).to.match(/20 uploaded files not yet saved/).and.match(/save the rows/).and.match(/24 hours/);
      expect(over.body.error.details[0]).to.include({ path: 'files', type: 'uploadQuotaFiles' });
      expect(a.storedKeys()).to.have.length(before);
      expect((await pendingOf('alice')).files).to.equal(20);
      // A quota per user: bob still uploads.
      expect((await upload(a, 'bob', [1])).status).to.equal(200);
    });

    it('refuses an upload that takes the user past 200 MiB with 413 UPLOAD_QUOTA_BYTES, and stores none of it', async () => {
      const a = await app();
      await holding('alice', 2, 100 * MiB - 1000);
      const before = a.storedKeys().length;
      const over = await upload(a, 'alice', [1500, 600]);
      expect(over.status).to.equal(413);
      expect(over.body.error.code).to.equal('UPLOAD_QUOTA_BYTES');
      expect(over.body.error.message).to.match(/at most 200 MiB/).and.match(/save the rows/);
      expect(over.body.error.details[0]).to.include({ path: 'files', type: 'uploadQuotaBytes' });
      expect(a.storedKeys()).to.have.length(before);
      expect((await pendingOf('alice')).files).to.equal(2);
      // What still fits passes.
      expect((await upload(a, 'alice', [1000, 1000])).status).to.equal(200);
      expect((await upload(a, 'alice', [1])).status).to.equal(413);
    });

    it('answers a user with no room left before reading the body', async () => {
      const a = await app();
      await holding('alice', 1, 200 * MiB);
      const res = await a.agent
        .post('/fw-api/data/upload/Note/files')
        .set('token', await token('alice'))
        .set('content-type', 'multipart/form-data; boundary=xyz')
        .set('content-length', String(150 * MiB))
        .send('--xyz--');
      expect(res.status).to.equal(413);
      expect(res.body.error.code).to.equal('UPLOAD_QUOTA_BYTES');
    });
  });

  describe('configured', () => {
    it('cuts off a file that passes maxBytes while it arrives, and leaves no byte of it on disk', async () => {
      const a = await app({ uploadQuota: { maxBytes: 256 * 1024 } });
      const uploads = mkdtempSync(join(tmpdir(), 'fw-quota-tmp-'));
      const savedTmp = process.env.TMPDIR;
      process.env.TMPDIR = uploads; // the reader's temporary files go here, so the test sees them
      try {
        const boundary = 'quota-boundary';
        const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
          const req = httpRequest(`${a.base}/fw-api/data/upload/Note/files`, {
            method: 'POST',
            // Chunked, no length: only reading the bytes can tell the server how large the file is.
            headers: { token: '', 'content-type': `multipart/form-data; boundary=${boundary}`, 'transfer-encoding': 'chunked' },
          });
          req.on('response', (res) => {
            let body = '';
            res.on('data', (c: Buffer) => (body += c.toString()));
            res.on('end', () => {
              req.destroy();
              resolve({ status: res.statusCode ?? 0, body });
            });
          });
          req.on('error', (error: NodeJS.ErrnoException) => (error.code === 'ECONNRESET' || error.code === 'EPIPE' ? undefined : reject(error)));
          void token('alice').then((t) => {
            req.setHeader('token', t);
            req.write(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.txt"\r\nContent-Type: text/plain\r\n\r\n`);
            // 1 MiB sent, and the body never ends: only a server that stops reading at the bound answers.
            for (let i = 0; i < 16; i++) req.write(Buffer.alloc(64 * 1024, 97));
          });
        });
        expect(answer.status).to.equal(413);
        expect(JSON.parse(answer.body).error.code).to.equal('UPLOAD_QUOTA_BYTES');
        expect(readdirSync(uploads, { recursive: true })).to.deep.equal([]);
        expect(await pendingOf('alice')).to.deep.equal({ files: 0, bytes: 0 });
      } finally {
        if (savedTmp === undefined) delete process.env.TMPDIR;
        else process.env.TMPDIR = savedTmp;
        await rm(uploads, { recursive: true, force: true });
      }
    });

    it('lets exactly as many uploads through as fit when several race at the edge, by count and by bytes', async () => {
      const a = await app({ uploadQuota: { maxFiles: 3, maxBytes: 40_000 } });
      for (let round = 0; round < 3; round++) {
        await holding('alice', 2, 1);
        const byCount = await Promise.all(Array.from({ length: 4 }, () => upload(a, 'alice', [1])));
        expect(byCount.map((r) => r.status).sort(), `count, round ${round}`).to.deep.equal([200, 429, 429, 429]);
        expect((await pendingOf('alice')).files).to.equal(3);
        await store.knex('fw_file').delete();
        await holding('alice', 1, 20_000);
        const byBytes = await Promise.all(Array.from({ length: 4 }, () => upload(a, 'alice', [15_000])));
        expect(byBytes.map((r) => r.status).sort(), `bytes, round ${round}`).to.deep.equal([200, 413, 413, 413]);
        expect((await pendingOf('alice')).bytes).to.equal(35_000);
        await store.knex('fw_file').delete();
      }
    });

    it('makes room again when a save attaches the files, or when unsaved ones expire', async () => {
      const a = await app({ uploadQuota: { maxFiles: 2 } });
      const first = await upload(a, 'alice', [3, 4]);
      expect(first.status).to.equal(200);
      expect((await upload(a, 'alice', [1])).status).to.equal(429);
      const saved = await a.agent.post('/fw-api/data/modify/Note').set('token', await token('alice')).send({ title: 'notes', files: first.body.files });
      expect(saved.status, JSON.stringify(saved.body)).to.equal(200);
      const again = await upload(a, 'alice', [5, 6]);
      expect(again.status).to.equal(200);
      expect((await upload(a, 'alice', [1])).status).to.equal(429);
      // A day later the unsaved two have expired: they hold no room, before the purge removes them too.
      await store.knex('fw_file').whereNull('row_id').update({ created_at: new Date(Date.now() - PENDING_FILE_TTL_MS - 60_000) });
      expect((await upload(a, 'alice', [1, 1])).status).to.equal(200);
    });

    it('is checked when fwData starts', () => {
      const base = { store, tokens, registry: createRegistry([...BUILTIN_MODELS, Note]), files: localFileStorage({ dir }) };
      for (const [uploadQuota, key] of [
        [{ maxFiles: 0 }, 'fwData.uploadQuota.maxFiles'],
        [{ maxBytes: 1.5 }, 'fwData.uploadQuota.maxBytes'],
        [{ maxBytes: '200MB' }, 'fwData.uploadQuota.maxBytes'],
        [{ files: 3 }, 'fwData.uploadQuota.files'],
        ['20', 'fwData.uploadQuota'],
      ] as const) {
        expect(() => fwData({ ...base, uploadQuota } as unknown as FwDataOptions), JSON.stringify(uploadQuota))
          .to.throw(FwDefinitionError)
          .with.property('key', key);
      }
    });
  });
});
