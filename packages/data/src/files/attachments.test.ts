import { mkdtempSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buffer as readAll } from 'node:stream/consumers';
import { expect } from 'chai';
import Koa from 'koa';
import request from 'supertest';
import { BUILTIN_MODELS, FwError, createRegistry, defineModel, type FwUser } from '@fw/core';
import { localFileStorage, type FileStorage } from '@fw/files';
import { createStore, type FwStore } from '@fw/store';
import { describeEachSql } from '@fw/test-utils';
import { FwTokenService, MemoryTokenStore } from '@fw/token';
import { fwData } from '../http/router.js';

// A 1×1 PNG, a JPEG head and a PDF: file-type knows them by these bytes.
const PNG = Buffer.from(
  '89504e470d0a1a0a0000000d4948445200000001000000010806000000' + '1f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082',
  'hex',
);
const PDF = Buffer.from('%PDF-1.7\n1 0 obj\n<<>>\nendobj\ntrailer\n<<>>\n%%EOF\n', 'latin1');
const HTML = Buffer.from('<!doctype html><script>alert(document.cookie)</script>');

/** Rows are seen by their owner (administrators see all). Deleting or saving a row titled 'rollback' fails in the after-hook. */
const Doc = defineModel({
  name: 'Doc',
  table: 't_doc',
  power: { copy: true },
  // Deleted for good, so the delete tests see the files go at once (a trashed row keeps them
  // until the purge: http/trash-routes.test.ts).
  trash: false,
  fields: {
    title: { edit: { notNull: true } },
    ownerId: { edit: { type: 'HIDDEN', readonly: true, integer: true } },
    cover: { edit: { type: 'ATTACHMENT', attachment: { image: true } } },
    files: { edit: { type: 'ATTACHMENT', attachment: { multiple: true, maxFiles: 3, maxSize: 4096, accept: ['application/pdf', '.txt'] } } },
  },
  dataProxy: {
    beforeFetch: ({ user }) => (user.isAdmin ? [] : [{ field: 'ownerId', op: 'eq', value: user.id }]),
    beforeAdd: (row, { user }) => {
      row.ownerId = user.id;
    },
    afterUpdate: (row) => {
      if (row.title === 'rollback') throw new FwError('CONFLICT', 'refused by afterUpdate');
    },
    afterDelete: (rows) => {
      if (rows.some((r) => r.title === 'rollback')) throw new FwError('CONFLICT', 'refused by afterDelete');
    },
  },
});

type Who = 'admin' | 'alice' | 'dave' | 'bob' | 'carol';

describeEachSql('ATTACHMENT fields: upload, claim, download, delete', (db) => {
  let store: FwStore;
  let files: FileStorage;
  let dir: string;
  let agent: ReturnType<typeof request>;
  let tokens: FwTokenService;
  const users = {} as Record<Who, FwUser>;
  const background: unknown[] = [];

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'fw-attachments-'));
    files = localFileStorage({ dir });
    store = createStore(db().url);
    await store.migrate.latest();
    const registry = createRegistry([...BUILTIN_MODELS, Doc]);
    await store.createModelTables(registry.list());
    const { menu, functions } = await store.menus.createModelMenu(Doc);
    const stamp = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
    const editor = await store.roles.create({ code: `doc-editor-${stamp}`, name: 'Doc editor' });
    const reader = await store.roles.create({ code: `doc-reader-${stamp}`, name: 'Doc reader' });
    await store.roles.setMenus(editor.id, [menu.id, ...functions.map((f) => f.id)]);
    await store.roles.setMenus(reader.id, [menu.id]);
    for (const [name, isAdmin, role] of [
      ['admin', true, undefined],
      ['alice', false, editor.id],
      ['dave', false, editor.id],
      ['bob', false, reader.id],
      ['carol', false, undefined],
    ] as const) {
      const row = await store.users.create({ account: `${name}-${stamp}`, name, password: 'x-password-1', isAdmin, mustChangePassword: false });
      if (role !== undefined) await store.users.setRoles(row.id, [role]);
      users[name] = { id: row.id, account: row.account, name: row.name, isAdmin };
    }
    tokens = new FwTokenService({ store: new MemoryTokenStore() });
    const app = new Koa();
    app.silent = true;
    app.use(fwData({ store, tokens, registry, files, onBackgroundError: (e) => background.push(e) }));
    agent = request(app.callback());
  });

  after(async () => {
    await store.destroy();
    await rm(dir, { recursive: true, force: true });
    expect(background, 'after-commit work failed').to.deep.equal([]);
  });

  const token = async (who: Who) => (await tokens.loginToken(users[who], tokens.generateToken())).token;
  const upload = async (who: Who, field: string, parts: Array<{ bytes: Buffer; name: string; type?: string; form?: string }>) => {
    let req = agent.post(`/fw-api/data/upload/Doc/${field}`).set('token', await token(who));
    for (const p of parts) req = req.attach(p.form ?? 'file', p.bytes, { filename: p.name, contentType: p.type ?? 'application/octet-stream' });
    return req;
  };
  const add = async (who: Who, body: Record<string, unknown>) => agent.post('/fw-api/data/modify/Doc').set('token', await token(who)).send(body);
  const fileUrl = (field: string, rowId: unknown, fileId: string) => `/fw-api/data/file/Doc/${field}/${String(rowId)}/${fileId}`;
  const stored = async (id: string) => {
    const file = await files.get(id);
    return file ? readAll(file.body) : undefined;
  };

  /** Alice's row with a cover and two files; returns the row as the add route answered. */
  async function aliceRow(title = 'A doc') {
    const cover = (await upload('alice', 'cover', [{ bytes: PNG, name: 'cover.png', type: 'image/png' }])).body.files;
    const docs = (
      await upload('alice', 'files', [
        { bytes: PDF, name: 'report.pdf', type: 'application/pdf' },
        { bytes: Buffer.from('plain notes'), name: 'notes.txt', type: 'text/plain' },
      ])
    ).body.files;
    const res = await add('alice', { title, cover, files: docs });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    return res.body as { id: number; cover: Array<{ id: string; name: string }>; files: Array<{ id: string; name: string }> };
  }

  describe('upload', () => {
    it('stores a file under a random key and answers its record, the type sniffed from the bytes', async () => {
      const res = await upload('alice', 'cover', [{ bytes: PNG, name: 'holiday photo.png', type: 'text/html' }]);
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      expect(res.body.files).to.have.length(1);
      const [file] = res.body.files;
      expect(file).to.include({ name: 'holiday photo.png', size: PNG.length, type: 'image/png' });
      expect(file.id).to.match(/^[A-Za-z0-9_-]{32}$/);
      expect((await stored(file.id))?.equals(PNG)).to.equal(true);
      const [record] = await store.files.findMany([file.id]);
      expect(record).to.include({ model: 'Doc', field: 'cover', rowId: null, createdBy: users.alice.id });
    });

    it('keeps a ../ name only as a name: the key is random and the name its last segment', async () => {
      const res = await upload('alice', 'cover', [{ bytes: PNG, name: '../../../etc/passwd.png' }]);
      expect(res.status).to.equal(200);
      expect(res.body.files[0].name).to.equal('passwd.png');
      expect(res.body.files[0].id).to.not.contain('.');
    });

    it('takes several files at once up to maxFiles, and refuses more (400, the field in details)', async () => {
      const three = await upload('alice', 'files', [1, 2, 3].map((i) => ({ bytes: Buffer.from(`note ${i}`), name: `n${i}.txt` })));
      expect(three.status).to.equal(200);
      expect(three.body.files).to.have.length(3);
      const four = await upload('alice', 'files', [1, 2, 3, 4].map((i) => ({ bytes: Buffer.from(`note ${i}`), name: `n${i}.txt` })));
      expect(four.status).to.equal(400);
      expect(four.body.error.code).to.equal('BAD_REQUEST');
      expect(four.body.error.details[0].path).to.equal('files');
      const single = await upload('alice', 'cover', [
        { bytes: PNG, name: 'a.png' },
        { bytes: PNG, name: 'b.png' },
      ]);
      expect(single.status).to.equal(400);
    });

    it('refuses a file over maxSize with 413 naming the field, and stores nothing', async () => {
      const before = (await store.knex('fw_file').count({ n: '*' }))[0]!.n;
      const res = await upload('alice', 'files', [{ bytes: Buffer.concat([PDF, Buffer.alloc(5000, 32)]), name: 'big.pdf' }]);
      expect(res.status).to.equal(413);
      expect(res.body.error.code).to.equal('PAYLOAD_TOO_LARGE');
      expect(res.body.error.details[0].path).to.equal('files');
      expect((await store.knex('fw_file').count({ n: '*' }))[0]!.n).to.equal(before);
    });

    it('refuses a body declared far over the limit before reading it (413)', async () => {
      const res = await agent
        .post('/fw-api/data/upload/Doc/cover')
        .set('token', await token('alice'))
        .set('content-type', 'multipart/form-data; boundary=xyz')
        .set('content-length', String(1024 * 1024 * 1024))
        .send('--xyz--');
      expect(res.status).to.equal(413);
    });

    it('refuses types the field does not accept with 415 naming the field: a PDF as an image, an HTML page named .png', async () => {
      const pdf = await upload('alice', 'cover', [{ bytes: PDF, name: 'cover.png', type: 'image/png' }]);
      expect(pdf.status).to.equal(415);
      expect(pdf.body.error.code).to.equal('UNSUPPORTED_MEDIA_TYPE');
      expect(pdf.body.error.details[0]).to.include({ path: 'cover', type: 'accept' });
      const html = await upload('alice', 'cover', [{ bytes: HTML, name: 'cover.png', type: 'image/png' }]);
      expect(html.status).to.equal(415);
      const htmlAsText = await upload('alice', 'files', [{ bytes: HTML, name: 'page.html', type: 'text/plain' }]);
      expect(htmlAsText.status).to.equal(415);
      // One bad file refuses the whole upload.
      const mixed = await upload('alice', 'files', [
        { bytes: PDF, name: 'ok.pdf' },
        { bytes: PNG, name: 'not-a-pdf.pdf' },
      ]);
      expect(mixed.status).to.equal(415);
    });

    it('refuses what is not a file upload: another content type (415), another form field, no file (400)', async () => {
      const json = await agent.post('/fw-api/data/upload/Doc/cover').set('token', await token('alice')).send({ file: 'x' });
      expect(json.status).to.equal(415);
      const other = await upload('alice', 'cover', [{ bytes: PNG, name: 'a.png', form: 'picture' }]);
      expect(other.status).to.equal(400);
      const none = await agent
        .post('/fw-api/data/upload/Doc/cover')
        .set('token', await token('alice'))
        .field('title', 'x');
      expect(none.status).to.equal(400);
      const broken = await agent
        .post('/fw-api/data/upload/Doc/cover')
        .set('token', await token('alice'))
        .set('content-type', 'multipart/form-data; boundary=xyz')
        .send('--xyz\r\nContent-Disposition: form-data; name="file"; filename="a.png"\r\n\r\n\x89PNG');
      expect(broken.status).to.equal(400);
    });

    it('caps a user’s unsaved uploads (429 UPLOAD_QUOTA_FILES past 20 by default; upload-quota.test.ts has the rest), others unaffected', async () => {
      const filler = Array.from({ length: 19 }, (_, i) => `pending-${String(i).padStart(3, '0')}-${Date.now().toString(36)}xx`);
      for (const id of filler) await store.files.create({ id, model: 'Doc', field: 'files', name: 'x.txt', type: 'text/plain', size: 1, createdBy: users.dave.id });
      try {
        const two = await upload('dave', 'files', [
          { bytes: Buffer.from('a'), name: 'a.txt' },
          { bytes: Buffer.from('b'), name: 'b.txt' },
        ]);
        expect(two.status).to.equal(429);
        expect(two.body.error.code).to.equal('UPLOAD_QUOTA_FILES');
        expect(two.body.error.details[0]).to.include({ path: 'files', type: 'uploadQuotaFiles' });
        const one = await upload('dave', 'files', [{ bytes: Buffer.from('a'), name: 'a.txt' }]);
        expect(one.status).to.equal(200);
        expect((await upload('dave', 'files', [{ bytes: Buffer.from('c'), name: 'c.txt' }])).status).to.equal(429);
        expect((await upload('alice', 'files', [{ bytes: Buffer.from('c'), name: 'c.txt' }])).status).to.equal(200);
        await store.files.delete(one.body.files.map((f: { id: string }) => f.id));
      } finally {
        await store.files.delete(filler);
      }
    });

    it('needs add or edit power, a known attachment field, and a sign-in', async () => {
      expect((await upload('bob', 'cover', [{ bytes: PNG, name: 'a.png' }])).status).to.equal(403);
      expect((await upload('carol', 'cover', [{ bytes: PNG, name: 'a.png' }])).status).to.equal(403);
      const title = await upload('alice', 'title', [{ bytes: PNG, name: 'a.png' }]);
      expect(title.status).to.equal(400);
      expect(title.body.error.code).to.equal('UNKNOWN_FIELD');
      expect((await agent.post('/fw-api/data/upload/Nope/cover').set('token', await token('alice')).attach('file', PNG, 'a.png')).status).to.equal(404);
      expect((await agent.post('/fw-api/data/upload/Doc/cover').attach('file', PNG, 'a.png')).status).to.equal(401);
    });
  });

  describe('saving a row claims files', () => {
    it('an add takes the uploader’s pending files, with the stored name, size and type', async () => {
      const row = await aliceRow();
      expect(row.cover).to.have.length(1);
      expect(row.cover[0]).to.include({ name: 'cover.png', type: 'image/png', size: PNG.length });
      // Parts of one upload may finish writing in any order.
      expect(row.files.map((f) => f.name).sort()).to.deep.equal(['notes.txt', 'report.pdf']);
      const records = await store.files.findMany([row.cover[0]!.id, ...row.files.map((f) => f.id)]);
      expect(records.map((r) => r.rowId)).to.deep.equal([String(row.id), String(row.id), String(row.id)]);
      const details = await agent.get(`/fw-api/data/Doc/${row.id}`).set('token', await token('alice'));
      expect(details.body.cover[0].id).to.equal(row.cover[0]!.id);
    });

    it('client-sent names and sizes are replaced by the stored ones', async () => {
      const [file] = (await upload('alice', 'cover', [{ bytes: PNG, name: 'real.png' }])).body.files;
      const res = await add('alice', { title: 'lies', cover: [{ ...file, name: 'fake.exe', size: 1, type: 'application/x-msdownload' }] });
      expect(res.status).to.equal(200);
      expect(res.body.cover[0]).to.deep.equal(file);
    });

    it('refuses someone else’s pending file, and a file of another row (422 on the field)', async () => {
      const [pending] = (await upload('alice', 'cover', [{ bytes: PNG, name: 'alice.png' }])).body.files;
      const theft = await add('dave', { title: 'mine now', cover: [pending] });
      expect(theft.status).to.equal(422);
      expect(theft.body.error.details[0]).to.include({ path: 'cover', type: 'attachment' });
      const row = await aliceRow();
      const reuse = await add('alice', { title: 'second', files: row.files });
      expect(reuse.status).to.equal(422);
      const crossField = await add('alice', { title: 'third', files: [pending] });
      expect(crossField.status).to.equal(422);
      const unknown = await add('alice', { title: 'fourth', cover: [{ id: 'AAAAAAAAAAAAAAAAAAAAAAAA', name: 'x.png', size: 1, type: 'image/png' }] });
      expect(unknown.status).to.equal(422);
      // Refused saves claimed nothing.
      expect((await store.files.findMany([pending.id]))[0]!.rowId).to.equal(null);
    });

    it('refuses more files than maxFiles in a save (422)', async () => {
      const [a] = (await upload('alice', 'cover', [{ bytes: PNG, name: 'a.png' }])).body.files;
      const [b] = (await upload('alice', 'cover', [{ bytes: PNG, name: 'b.png' }])).body.files;
      const res = await add('alice', { title: 'two covers', cover: [a, b] });
      expect(res.status).to.equal(422);
    });

    it('an update keeps the files it names, deletes the removed ones after the commit, and a rolled-back update keeps them', async () => {
      const row = await aliceRow();
      const [kept, removed] = row.files;
      const rolledBack = await agent
        .post('/fw-api/data/modify/Doc/update')
        .set('token', await token('alice'))
        .send({ id: row.id, title: 'rollback', files: [kept] });
      expect(rolledBack.status).to.equal(409);
      expect(await stored(removed!.id)).to.not.equal(undefined);
      expect(await store.files.findMany([removed!.id])).to.have.length(1);
      const res = await agent
        .post('/fw-api/data/modify/Doc/update')
        .set('token', await token('alice'))
        .send({ id: row.id, files: [kept] });
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      expect(res.body.files.map((f: { id: string }) => f.id)).to.deep.equal([kept!.id]);
      expect(await stored(removed!.id)).to.equal(undefined);
      expect(await store.files.findMany([removed!.id])).to.deep.equal([]);
      expect(await stored(kept!.id)).to.not.equal(undefined);
    });

    it('a copy takes the copier’s own uploads given in values, never the source’s files', async () => {
      const row = await aliceRow();
      const [own] = (await upload('alice', 'cover', [{ bytes: PNG, name: 'copy.png' }])).body.files;
      const res = await agent
        .post('/fw-api/data/modify/Doc/copy')
        .set('token', await token('alice'))
        .send({ id: row.id, values: { cover: [own] } });
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      expect(res.body.cover).to.deep.equal([own]);
      expect((await store.files.findMany([own.id]))[0]!.rowId).to.equal(String(res.body.id));
      const stolen = await agent
        .post('/fw-api/data/modify/Doc/copy')
        .set('token', await token('alice'))
        .send({ id: row.id, values: { files: row.files } });
      expect(stolen.status).to.equal(422);
    });

    it('a copy starts without the files of its source', async () => {
      const row = await aliceRow();
      const res = await agent.post('/fw-api/data/modify/Doc/copy').set('token', await token('alice')).send({ id: row.id });
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      expect(res.body.cover ?? null).to.equal(null);
      expect(res.body.files ?? null).to.equal(null);
    });
  });

  describe('download', () => {
    it('serves the owner the bytes with the stored type, a safe attachment disposition, nosniff, a sandbox and no-store', async () => {
      const row = await aliceRow();
      const res = await agent
        .get(fileUrl('files', row.id, row.files.find((f) => f.name === 'report.pdf')!.id))
        .set('token', await token('alice'))
        .buffer(true)
        .parse((r, done) => {
          const chunks: Buffer[] = [];
          r.on('data', (c: Buffer) => chunks.push(c)).on('end', () => done(null, Buffer.concat(chunks)));
        });
      expect(res.status).to.equal(200);
      expect((res.body as Buffer).equals(PDF)).to.equal(true);
      expect(res.headers['content-type']).to.equal('application/pdf');
      expect(res.headers['content-disposition']).to.equal('attachment; filename="report.pdf"');
      expect(res.headers['x-content-type-options']).to.equal('nosniff');
      expect(res.headers['content-security-policy']).to.match(/^sandbox/);
      expect(res.headers['cache-control']).to.equal('no-store');
    });

    it('inline=1 shows images inline only; a non-ASCII name is encoded per RFC 6266', async () => {
      const [cover] = (await upload('alice', 'cover', [{ bytes: PNG, name: '報告 "1".png' }])).body.files;
      const row = (await add('alice', { title: 'inline', cover: [cover] })).body;
      const image = await agent.get(`${fileUrl('cover', row.id, cover.id)}?inline=1`).set('token', await token('alice'));
      expect(image.status).to.equal(200);
      expect(image.headers['content-type']).to.equal('image/png');
      expect(image.headers['content-disposition']).to.equal(`inline; filename="?? \\"1\\".png"; filename*=UTF-8''%E5%A0%B1%E5%91%8A%20%221%22.png`);
      const pdfRow = await aliceRow();
      const pdf = await agent.get(`${fileUrl('files', pdfRow.id, pdfRow.files[0]!.id)}?inline=1`).set('token', await token('alice'));
      expect(pdf.headers['content-disposition']).to.match(/^attachment;/);
    });

    it('answers 404 alike to those who may not see the row, and for a file the row does not hold', async () => {
      const row = await aliceRow();
      const url = fileUrl('cover', row.id, row.cover[0]!.id);
      expect((await agent.get(url).set('token', await token('admin'))).status).to.equal(200);
      for (const who of ['dave', 'bob', 'carol'] as const) {
        const res = await agent.get(url).set('token', await token(who));
        expect(res.status, who).to.equal(404);
        expect(res.body.error.code, who).to.equal('NOT_FOUND');
      }
      expect((await agent.get(url)).status).to.equal(401);
      const other = await aliceRow();
      const alice = await token('alice');
      for (const wrong of [
        fileUrl('files', row.id, row.cover[0]!.id), // another field
        fileUrl('cover', other.id, row.cover[0]!.id), // another row
        fileUrl('cover', row.id, other.cover[0]!.id), // another row's file
        fileUrl('cover', row.id, 'AAAAAAAAAAAAAAAAAAAAAAAA'),
        fileUrl('cover', row.id, '..%2F..%2Fetc%2Fpasswd'),
        fileUrl('title', row.id, row.cover[0]!.id),
        fileUrl('cover', 'x', row.cover[0]!.id),
        fileUrl('cover', 999999, row.cover[0]!.id),
        `/fw-api/data/file/Nope/cover/${row.id}/${row.cover[0]!.id}`,
      ]) {
        const res = await agent.get(wrong).set('token', alice);
        expect(res.status, wrong).to.equal(404);
        expect(res.body.error.code, wrong).to.equal('NOT_FOUND');
      }
    });

    it('a user with query power sees the files of a row they may see', async () => {
      const row = await aliceRow();
      await store.knex('t_doc').where('id', row.id).update({ ownerId: users.bob.id });
      const res = await agent.get(fileUrl('cover', row.id, row.cover[0]!.id)).set('token', await token('bob'));
      expect(res.status).to.equal(200);
      expect(res.headers['content-type']).to.equal('image/png');
      expect((await agent.get(fileUrl('cover', row.id, row.cover[0]!.id)).set('token', await token('alice'))).status).to.equal(404);
    });
  });

  describe('delete', () => {
    it('removes the row’s files from the storage once the delete commits', async () => {
      const row = await aliceRow();
      const ids = [row.cover[0]!.id, ...row.files.map((f) => f.id)];
      const res = await agent.post('/fw-api/data/modify/Doc/delete').set('token', await token('alice')).send({ ids: [row.id] });
      expect(res.status).to.equal(200);
      for (const id of ids) expect(await stored(id), id).to.equal(undefined);
      expect(await store.files.findMany(ids)).to.deep.equal([]);
      expect((await agent.get(fileUrl('cover', row.id, ids[0]!)).set('token', await token('alice'))).status).to.equal(404);
    });

    it('keeps them when the delete rolls back', async () => {
      const row = await aliceRow('rollback');
      const res = await agent.post('/fw-api/data/modify/Doc/delete').set('token', await token('alice')).send({ ids: [row.id] });
      expect(res.status).to.equal(409);
      expect((await stored(row.cover[0]!.id))?.equals(PNG)).to.equal(true);
      expect(await store.files.findMany([row.cover[0]!.id])).to.have.length(1);
      expect((await agent.get(fileUrl('cover', row.id, row.cover[0]!.id)).set('token', await token('alice'))).status).to.equal(200);
    });

    it('a user who may not see the row cannot delete it or its files', async () => {
      const row = await aliceRow();
      const res = await agent.post('/fw-api/data/modify/Doc/delete').set('token', await token('dave')).send({ ids: [row.id] });
      expect(res.status).to.equal(404);
      expect(await stored(row.cover[0]!.id)).to.not.equal(undefined);
    });
  });

  describe('pending uploads', () => {
    it('are purged after 24 hours; claimed files stay', async () => {
      const [pending] = (await upload('alice', 'cover', [{ bytes: PNG, name: 'left.png' }])).body.files;
      const row = await aliceRow();
      const past = new Date(Date.now() - 25 * 60 * 60 * 1000);
      await store.knex('fw_file').whereIn('id', [pending.id, row.cover[0]!.id]).update({ created_at: past });
      const service = (await import('../service.js')).DataService;
      const data = new service({ store, registry: createRegistry([...BUILTIN_MODELS, Doc]), files });
      expect(await data.purgePendingFiles()).to.be.greaterThan(0);
      expect(await stored(pending.id)).to.equal(undefined);
      expect(await store.files.findMany([pending.id])).to.deep.equal([]);
      expect(await stored(row.cover[0]!.id)).to.not.equal(undefined);
    });
  });

  it('the print page shows the file names, escaped', async () => {
    const [file] = (await upload('alice', 'cover', [{ bytes: PNG, name: '<img src=x onerror=alert(1)>.png' }])).body.files;
    const row = (await add('alice', { title: 'printed', cover: [file] })).body;
    const res = await agent.get(`/fw-api/data/print/Doc/${row.id}`).set('token', await token('alice'));
    expect(res.status, res.text).to.equal(200);
    expect(res.text).to.contain('&#60;img src=x onerror=alert(1)&#62;.png');
    expect(res.text).to.not.contain('<img src=x');
  });

  it('the schema view tells a form the limits', async () => {
    const res = await agent.get('/fw-api/build/Doc').set('token', await token('alice'));
    const files = res.body.model.fields.find((f: { name: string }) => f.name === 'files');
    expect(files).to.deep.include({ type: 'ATTACHMENT', filterable: false, cellEdit: false });
    expect(files.attachment).to.deep.equal({ multiple: true, image: false, maxSize: 4096, maxFiles: 3, accept: ['application/pdf', '.txt'] });
  });

  it('a model with ATTACHMENT fields needs a file storage (start-up error)', () => {
    expect(() => fwData({ store, tokens, registry: createRegistry([...BUILTIN_MODELS, Doc]) })).to.throw(/fwData\.files/);
  });
});
