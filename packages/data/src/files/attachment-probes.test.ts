// Red-team probes of ATTACHMENT fields from outside (issue 13): who may download a file, and how
// client file names come back. Each case here failed before its fix.
import { mkdtempSync, readdirSync } from 'node:fs';
import { get as httpGet, type Server } from 'node:http';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { crc32, deflateSync } from 'node:zlib';
import { expect } from 'chai';
import Koa from 'koa';
import request from 'supertest';
import { BUILTIN_MODELS, createRegistry, defineModel, type FwUser } from '@fw/core';
import { localFileStorage } from '@fw/files';
import { createStore, type FwStore } from '@fw/store';
import { describeEachSql } from '@fw/test-utils';
import { FwTokenService, MemoryTokenStore } from '@fw/token';
import { fileDisplayName } from './attachments.js';
import { fwData } from '../http/router.js';

const PDF = Buffer.from('%PDF-1.7\n1 0 obj\n<<>>\nendobj\ntrailer\n<<>>\n%%EOF\n', 'latin1');

/**
 * `contract` is shown to administrators only: `afterFetch` takes it out of every row others read.
 * The user `editor` holds edit but neither query nor viewDetails (the power handler takes them away).
 */
const Deal = defineModel({
  name: 'Deal',
  table: 't_probe_deal',
  power: {
    powerHandler: (power, { user }) => {
      if (user.account.startsWith('editor-')) {
        power.query = false;
        power.viewDetails = false;
      }
    },
  },
  fields: {
    title: { edit: { notNull: true } },
    files: { edit: { type: 'ATTACHMENT', attachment: { multiple: true, maxFiles: 3 } } },
    contract: { edit: { type: 'ATTACHMENT' } },
    photo: { edit: { type: 'ATTACHMENT', attachment: { image: true } } },
  },
  dataProxy: {
    afterFetch: (rows, { user }) => (user.isAdmin ? rows : rows.map(({ contract: _hidden, ...rest }) => rest)),
  },
});

/** A valid 1-bit greyscale PNG of `width`×`height` black pixels: its few kilobytes unpack to what a browser decodes into gigabytes. */
function pngOfSize(width: number, height: number): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const out = Buffer.alloc(12 + data.length);
    out.writeUInt32BE(data.length, 0);
    body.copy(out, 4);
    out.writeUInt32BE(crc32(body), 8 + data.length);
    return out;
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.writeUInt8(1, 8); // bit depth 1
  header.writeUInt8(0, 9); // greyscale
  // Only the first rows: enough for the signature and the header, as a browser starts decoding.
  const rows = Buffer.alloc(Math.min(height, 16) * (Math.ceil(width / 8) + 1));
  return Buffer.concat([Buffer.from('89504e470d0a1a0a', 'hex'), chunk('IHDR', header), chunk('IDAT', deflateSync(rows)), chunk('IEND', Buffer.alloc(0))]);
}

/** No lone surrogate (String.prototype.isWellFormed, which the compile target does not have). */
const wellFormed = (text: string): boolean => !/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(text);

type Who = 'admin' | 'reader' | 'editor';

describeEachSql('ATTACHMENT probes: downloads follow what the user is shown', (db) => {
  let store: FwStore;
  let dir: string;
  let agent: ReturnType<typeof request>;
  let server: Server;
  let tokens: FwTokenService;
  const users = {} as Record<Who, FwUser>;
  const appErrors: unknown[] = [];

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'fw-attachment-probes-'));
    store = createStore(db().url);
    await store.migrate.latest();
    const registry = createRegistry([...BUILTIN_MODELS, Deal]);
    await store.createModelTables(registry.list());
    const { menu, functions } = await store.menus.createModelMenu(Deal);
    const stamp = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
    const role = await store.roles.create({ code: `deal-all-${stamp}`, name: 'Deal, every function' });
    await store.roles.setMenus(role.id, [menu.id, ...functions.map((f) => f.id)]);
    for (const [name, isAdmin] of [
      ['admin', true],
      ['reader', false],
      ['editor', false],
    ] as const) {
      const row = await store.users.create({ account: `${name}-${stamp}`, name, password: 'x-password-1', isAdmin, mustChangePassword: false });
      if (!isAdmin) await store.users.setRoles(row.id, [role.id]);
      users[name] = { id: row.id, account: row.account, name: row.name, isAdmin };
    }
    tokens = new FwTokenService({ store: new MemoryTokenStore() });
    const app = new Koa();
    app.silent = true;
    app.on('error', (error) => appErrors.push(error));
    app.use(fwData({ store, tokens, registry, files: localFileStorage({ dir }) }));
    agent = request(app.callback());
    server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
  });

  after(async () => {
    server.close();
    await store.destroy();
    await rm(dir, { recursive: true, force: true });
    expect(appErrors, 'app error events').to.deep.equal([]);
  });

  const token = async (who: Who) => (await tokens.loginToken(users[who], tokens.generateToken())).token;
  const upload = async (who: Who, field: string, name = 'deal.pdf') =>
    (await agent.post(`/fw-api/data/upload/Deal/${field}`).set('token', await token(who)).attach('file', PDF, { filename: name, contentType: 'application/pdf' }).expect(200)).body
      .files as Array<{ id: string; name: string }>;

  it('a field afterFetch hides from a user is not served to them, though the row is visible', async () => {
    const contract = await upload('admin', 'contract');
    const row = (await agent.post('/fw-api/data/modify/Deal').set('token', await token('admin')).send({ title: 'Secret terms', contract }).expect(200)).body;
    const url = `/fw-api/data/file/Deal/contract/${row.id}/${contract[0]!.id}`;
    // The reader sees the row, without the contract.
    const shown = (await agent.get(`/fw-api/data/Deal/${row.id}`).set('token', await token('reader')).expect(200)).body;
    expect(shown.row ?? shown).to.not.have.property('contract');
    expect((await agent.get(url).set('token', await token('reader')).expect(404)).body.error.code).to.equal('NOT_FOUND');
    expect((await agent.get(url).set('token', await token('admin')).expect(200)).body).to.be.instanceOf(Buffer);
  });

  it('a user with edit only (no query, no viewDetails) downloads the files the edit form shows them', async () => {
    const files = await upload('editor', 'files');
    const row = (await agent.post('/fw-api/data/modify/Deal').set('token', await token('editor')).send({ title: 'Editor row', files }).expect(200)).body;
    // The edit form reads the row through the details route, which edit opens.
    const form = (await agent.get(`/fw-api/data/Deal/${row.id}`).set('token', await token('editor')).expect(200)).body;
    expect(JSON.stringify(form)).to.contain(files[0]!.id);
    const res = await agent.get(`/fw-api/data/file/Deal/files/${row.id}/${files[0]!.id}`).set('token', await token('editor'));
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect(Buffer.compare(res.body as Buffer, PDF)).to.equal(0);
  });

  it('a long name of astral characters is stored whole-charactered on every backend', async () => {
    const [file] = await upload('admin', 'files', `a${'😀'.repeat(200)}.pdf`);
    expect(wellFormed(file!.name)).to.equal(true);
    const row = (await agent.post('/fw-api/data/modify/Deal').set('token', await token('admin')).send({ title: 'Emoji', files: [file] }).expect(200)).body;
    const shown = (await agent.get(`/fw-api/data/Deal/${row.id}`).set('token', await token('admin')).expect(200)).body;
    expect(JSON.stringify(shown)).to.not.contain('\ufffd');
    expect((shown.row ?? shown).files[0].name).to.equal(file!.name);
  });

  it('an upload for one field cannot be claimed by another field, nor twice', async () => {
    const [file] = await upload('admin', 'files');
    const admin = await token('admin');
    const cross = await agent.post('/fw-api/data/modify/Deal').set('token', admin).send({ title: 'Cross', contract: [file] }).expect(422);
    expect(cross.body.error.details[0]).to.include({ path: 'contract', type: 'attachment' });
    await agent.post('/fw-api/data/modify/Deal').set('token', admin).send({ title: 'First', files: [file] }).expect(200);
    const twice = await agent.post('/fw-api/data/modify/Deal').set('token', admin).send({ title: 'Second', files: [file] }).expect(422);
    expect(twice.body.error.details[0]).to.include({ path: 'files', type: 'attachment' });
    const [count] = await store.knex('t_probe_deal').where({ title: 'Cross' }).orWhere({ title: 'Second' }).count({ n: '*' });
    expect(Number(count!.n), 'refused rows written').to.equal(0);
  });

  it('an image field refuses a decompression bomb: a small PNG that declares 40000×40000 pixels (415)', async () => {
    const res = await agent
      .post('/fw-api/data/upload/Deal/photo')
      .set('token', await token('admin'))
      .attach('file', pngOfSize(40_000, 40_000), { filename: 'huge.png', contentType: 'image/png' });
    expect(res.status, JSON.stringify(res.body)).to.equal(415);
    expect(res.body.error.details[0]).to.include({ path: 'photo', type: 'maxPixels' });
    // An ordinary picture passes.
    await agent
      .post('/fw-api/data/upload/Deal/photo')
      .set('token', await token('admin'))
      .attach('file', pngOfSize(4000, 3000), { filename: 'photo.png', contentType: 'image/png' })
      .expect(200);
  });

  it('parallel uploads cannot pass the cap of 100 unsaved files per user', async function () {
    this.timeout(60_000);
    const admin = await token('admin');
    const before = await store.knex('fw_file').whereNull('row_id').where('created_by', users.admin.id).count({ n: '*' });
    const room = 100 - Number(before[0]!.n);
    // Every request brings 3 files; together they ask for 30 more than the room left.
    const requests = Math.ceil((room + 30) / 3);
    const answers = await Promise.all(
      Array.from({ length: requests }, (_, i) =>
        agent
          .post('/fw-api/data/upload/Deal/files')
          .set('token', admin)
          .attach('file', PDF, { filename: `a${i}.pdf`, contentType: 'application/pdf' })
          .attach('file', PDF, { filename: `b${i}.pdf`, contentType: 'application/pdf' })
          .attach('file', PDF, { filename: `c${i}.pdf`, contentType: 'application/pdf' }),
      ),
    );
    try {
      // Side by side, a few more may be refused than strictly needed; never one too many accepted.
      expect(answers.map((r) => r.status)).to.include(429);
      expect(answers.every((r) => r.status === 200 || r.status === 429)).to.equal(true);
      const [after] = await store.knex('fw_file').whereNull('row_id').where('created_by', users.admin.id).count({ n: '*' });
      expect(Number(after!.n), 'unsaved uploads of the user').to.be.at.most(100);
      // What the refused requests stored was taken back: only the accepted files are pending.
      const stored = answers.filter((r) => r.status === 200).flatMap((r) => (r.body.files as Array<{ id: string }>).map((f) => f.id));
      expect(Number(after!.n) - (100 - room)).to.equal(stored.length);
    } finally {
      await store.knex('fw_file').whereNull('row_id').where('created_by', users.admin.id).delete();
    }
  });

  it('a cell edit of an ATTACHMENT field is refused (403) on every backend, so it cannot attach another user’s upload', async () => {
    const editor = await token('editor');
    const mine = await upload('editor', 'files');
    const row = (await agent.post('/fw-api/data/modify/Deal').set('token', editor).send({ title: 'Cells', files: mine }).expect(200)).body;
    const theirs = await upload('admin', 'files');
    for (const value of [[...mine, ...theirs], []]) {
      const res = await agent.post('/fw-api/data/modify/Deal/update-cell').set('token', editor).send({ id: row.id, field: 'files', value });
      expect(res.status, JSON.stringify(res.body)).to.equal(403);
      expect(res.body.error.code).to.equal('FIELD_CELL_EDIT_DISABLED');
    }
    const [record] = await store.knex('fw_file').where({ id: theirs[0]!.id });
    expect(record.row_id ?? null, 'the other upload stays pending').to.equal(null);
    expect(await store.knex('fw_file').where({ id: mine[0]!.id }).first(), 'the row keeps its file').to.not.equal(undefined);
  });

  it('odd row ids, file ids and field names are the same 404, never a 500', async () => {
    const files = await upload('admin', 'files');
    const row = (await agent.post('/fw-api/data/modify/Deal').set('token', await token('admin')).send({ title: 'Odd ids', files }).expect(200)).body;
    const admin = await token('admin');
    const good = files[0]!.id;
    const urls = [
      ...['1.0', '1e0', '0x1', '%201', '-1', '99999999999999999999', '%2e%2e', 'a'.repeat(3000), `${row.id}%00`].map((id) => `/fw-api/data/file/Deal/files/${id}/${good}`),
      ...['..%2F..%2Fetc%2Fpasswd', 'x'.repeat(300), '%00', `${good}%20`, good.toLowerCase()].map((id) => `/fw-api/data/file/Deal/files/${row.id}/${id}`),
      ...['title', '__proto__', 'constructor', 'FILES', 'files%00'].map((field) => `/fw-api/data/file/Deal/${field}/${row.id}/${good}`),
      `/fw-api/data/file/__proto__/files/${row.id}/${good}`,
    ];
    for (const url of urls) {
      const res = await agent.get(url).set('token', admin);
      expect(res.status, `${url.slice(0, 80)}: ${JSON.stringify(res.body)}`).to.equal(404);
      expect(res.body.error.code).to.equal('NOT_FOUND');
    }
    await agent.get(`/fw-api/data/file/Deal/files/${row.id}/${good}`).set('token', admin).expect(200);
  });

  it('HEAD on a file answers its headers and leaves no file open', async () => {
    const files = await upload('admin', 'files');
    const row = (await agent.post('/fw-api/data/modify/Deal').set('token', await token('admin')).send({ title: 'Head', files }).expect(200)).body;
    const url = `/fw-api/data/file/Deal/files/${row.id}/${files[0]!.id}`;
    const admin = await token('admin');
    const open = () => readdirSync('/proc/self/fd').length;
    await agent.head(url).set('token', admin).expect(200);
    const before = open();
    for (let i = 0; i < 50; i += 1) {
      const res = await agent.head(url).set('token', admin).expect(200);
      expect(res.headers['content-length']).to.equal(String(PDF.length));
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(open() - before, 'descriptors left open by 50 HEAD requests').to.be.below(5);
  });

  it('a client that leaves in the middle of a download is not an error of the app', async () => {
    // A file larger than the socket buffers, so the client can go while the bytes still stream.
    const big = Buffer.concat([PDF, Buffer.alloc(4 * 1024 * 1024, 0x20)]);
    const files = (await agent.post('/fw-api/data/upload/Deal/files').set('token', await token('admin')).attach('file', big, { filename: 'big.pdf', contentType: 'application/pdf' }).expect(200)).body.files;
    const row = (await agent.post('/fw-api/data/modify/Deal').set('token', await token('admin')).send({ title: 'Big', files }).expect(200)).body;
    const { port } = server.address() as { port: number };
    const headers = { token: await token('admin') };
    const status = await new Promise<number>((resolve, reject) => {
      const req = httpGet({ host: '127.0.0.1', port, path: `/fw-api/data/file/Deal/files/${row.id}/${files[0].id}`, headers }, (res) => {
        res.once('data', () => {
          resolve(res.statusCode ?? 0);
          req.destroy();
        });
      });
      req.on('error', (error: NodeJS.ErrnoException) => (error.code === 'ECONNRESET' ? undefined : reject(error)));
    });
    expect(status).to.equal(200);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(appErrors.map(String)).to.deep.equal([]);
  });
});

describe('fileDisplayName: what a client file name may bring', () => {
  it('drops bidirectional controls, so "report\\u202Efdp.exe" cannot pass for a PDF', () => {
    expect(fileDisplayName('report\u202efdp.exe')).to.equal('reportfdp.exe');
    for (const mark of ['\u200e', '\u200f', '\u061c', '\u202a', '\u202b', '\u202c', '\u202d', '\u2066', '\u2067', '\u2068', '\u2069']) {
      expect(fileDisplayName(`a${mark}b.txt`), JSON.stringify(mark)).to.equal('ab.txt');
    }
  });

  it('cuts a long name to 255 UTF-16 units without splitting a character, keeping its end', () => {
    const name = fileDisplayName(`a${'😀'.repeat(200)}.pdf`);
    expect(name.length).to.be.at.most(255);
    expect(wellFormed(name), JSON.stringify(name.slice(0, 4))).to.equal(true);
    expect(name.endsWith('😀.pdf')).to.equal(true);
    expect(fileDisplayName(`${'x'.repeat(300)}.pdf`)).to.equal(`${'x'.repeat(251)}.pdf`);
  });

  it('keeps ordinary non-ASCII names', () => {
    expect(fileDisplayName('résumé 履歴書.pdf')).to.equal('résumé 履歴書.pdf');
    expect(fileDisplayName('نامه.pdf')).to.equal('نامه.pdf');
  });
});
