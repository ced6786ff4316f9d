import { mkdtempSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import Koa from 'koa';
import request from 'supertest';
import { BUILTIN_MODELS, FwError, createRegistry, defineModel, type FwUser } from '@fw/core';
import { localFileStorage, type FileStorage } from '@fw/files';
import { createStore, type FwStore } from '@fw/store';
import { describeEachSql } from '@fw/test-utils';
import { FwTokenService, MemoryTokenStore } from '@fw/token';
import type { InsertEvent } from '../events.js';
import { fwData, type FwDataMiddleware } from './router.js';

const PDF = Buffer.from('%PDF-1.7\n1 0 obj\n<<>>\nendobj\ntrailer\n<<>>\n%%EOF\n', 'latin1');

const Label = defineModel({ name: 'Label', table: 'tr_label', fields: { name: { edit: { notNull: true } } } });

/** Rows seen by their owner only (administrators see all); `code` is unique (an index made below). */
const Sku = defineModel({
  name: 'Sku',
  table: 'tr_sku',
  fields: {
    code: { edit: { notNull: true } },
    title: {},
    ownerId: { edit: { type: 'HIDDEN', readonly: true, integer: true } },
    pin: { edit: { type: 'PASSWORD' } },
    labels: { edit: { type: 'COLLECTION', collection: { model: 'Label', joinTable: 'tr_sku_label', ownKey: 'sku_id', foreignKey: 'label_id' } } },
    sheet: { edit: { type: 'ATTACHMENT', attachment: { accept: ['application/pdf'] } } },
  },
  dataProxy: {
    beforeFetch: ({ user }) => (user.isAdmin ? [] : [{ field: 'ownerId', op: 'eq', value: user.id }]),
    beforeAdd: (row, { user }) => {
      row.ownerId = user.id;
    },
    afterDelete: (rows) => {
      if (rows.some((r) => r.title === 'rollback')) throw new FwError('CONFLICT', 'refused by afterDelete');
    },
  },
});

/** Deleted for good. */
const Scratch = defineModel({ name: 'Scratch', table: 'tr_scratch', trash: false, fields: { note: {} } });

type Who = 'admin' | 'alice' | 'dave' | 'bob' | 'erin';

describeEachSql('the trash: delete, trash page, undelete, purge', (db) => {
  let store: FwStore;
  let files: FileStorage;
  let dir: string;
  let data: FwDataMiddleware;
  let agent: ReturnType<typeof request>;
  let tokens: FwTokenService;
  const users = {} as Record<Who, FwUser>;
  const background: unknown[] = [];
  const inserted: InsertEvent[] = [];

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'fw-trash-'));
    files = localFileStorage({ dir });
    store = createStore(db().url);
    await store.migrate.latest();
    const registry = createRegistry([...BUILTIN_MODELS, Label, Sku, Scratch]);
    await store.createModelTables(registry.list());
    await store.knex.schema.alterTable('tr_sku', (t) => t.unique(['code'], { indexName: 'tr_sku_code_unique' }));
    const stamp = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
    const editor = await store.roles.create({ code: `tr-editor-${stamp}`, name: 'Editor' });
    const reader = await store.roles.create({ code: `tr-reader-${stamp}`, name: 'Reader' });
    const deleter = await store.roles.create({ code: `tr-deleter-${stamp}`, name: 'Deleter' });
    const editorMenus: number[] = [];
    for (const model of [Label, Sku, Scratch]) {
      const { menu, functions } = await store.menus.createModelMenu(model);
      editorMenus.push(menu.id, ...functions.map((f) => f.id));
      if (model === Sku) {
        await store.roles.setMenus(reader.id, [menu.id]);
        await store.roles.setMenus(deleter.id, [menu.id, ...functions.filter((f) => f.code === 'Sku@DELETE').map((f) => f.id)]);
      }
    }
    await store.roles.setMenus(editor.id, editorMenus);
    for (const [name, isAdmin, role] of [
      ['admin', true, undefined],
      ['alice', false, editor.id],
      ['dave', false, editor.id],
      ['bob', false, reader.id],
      ['erin', false, deleter.id],
    ] as const) {
      const row = await store.users.create({ account: `${name}-${stamp}`, name, password: 'x-password-1', isAdmin, mustChangePassword: false });
      if (role !== undefined) await store.users.setRoles(row.id, [role]);
      users[name] = { id: row.id, account: row.account, name: row.name, isAdmin };
    }
    tokens = new FwTokenService({ store: new MemoryTokenStore() });
    data = fwData({ store, tokens, registry, files, onBackgroundError: (e) => background.push(e) });
    data.events.on('insert', (e) => inserted.push(e));
    const app = new Koa();
    app.silent = true;
    app.use(data);
    agent = request(app.callback());
  });

  after(async () => {
    await store?.destroy();
    if (dir) await rm(dir, { recursive: true, force: true });
    expect(background, 'background work failed').to.deep.equal([]);
  });

  const token = async (who: Who) => (await tokens.loginToken(users[who], tokens.generateToken())).token;
  const post = async (who: Who, path: string, body?: unknown) => {
    const req = agent.post(`/fw-api${path}`).set('token', await token(who));
    return body === undefined ? req : req.send(body as object);
  };
  const label = async (name: string) => (await post('alice', '/data/modify/Label', { name })).body.id as number;
  async function sku(who: Who, code: string, extra: Record<string, unknown> = {}) {
    const res = await post(who, '/data/modify/Sku', { code, title: `T ${code}`, pin: 'pin-1234', ...extra });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    return res.body as { id: number; code: string; labels: number[]; sheet: Array<{ id: string }> | null };
  }
  const remove = async (who: Who, ids: number[]) => post(who, '/data/modify/Sku/delete', { ids });
  const skuRow = async (id: number) => store.knex('tr_sku').where('id', id).first();
  const trashOf = async (id: number) => store.knex('fw_trash').where({ model: 'Sku', row_id: String(id) });

  describe('delete', () => {
    it('moves the row to the trash: gone from its table, its unique value free for a new row', async () => {
      const row = await sku('alice', 'U-1');
      const removed = (await remove('alice', [row.id])).body as { deleted: number; batch: string };
      expect(removed.deleted).to.equal(1);
      expect(await skuRow(row.id)).to.equal(undefined);
      const [entry] = await trashOf(row.id);
      // The delete's batch id marks its trash entry (undo finds the rows of one delete by it).
      expect(entry!.batch).to.equal(removed.batch);
      expect(entry).to.include({ model: 'Sku', row_id: String(row.id), deleted_by: users.alice.id });
      const kept = JSON.parse(String(entry.data));
      expect(kept.values).to.include({ id: row.id, code: 'U-1', title: 'T U-1', ownerId: users.alice.id });
      expect(kept.values).to.not.have.property('pin');
      expect(String(kept.secrets.pin)).to.match(/^scrypt:/);
      const again = await sku('alice', 'U-1');
      expect(again.id).to.not.equal(row.id);
    });

    it('leaves nothing in the trash when the delete rolls back', async () => {
      const row = await sku('alice', 'RB-1', { title: 'rollback' });
      expect((await remove('alice', [row.id])).status).to.equal(409);
      expect(await skuRow(row.id)).to.not.equal(undefined);
      expect(await trashOf(row.id)).to.deep.equal([]);
    });

    it('deletes for good on a model with trash: false', async () => {
      const res = await post('alice', '/data/modify/Scratch', { note: 'gone' });
      expect((await post('alice', '/data/modify/Scratch/delete', { ids: [res.body.id] })).status).to.equal(200);
      expect(await store.knex('fw_trash').where({ model: 'Scratch' })).to.deep.equal([]);
      expect((await post('admin', '/data/trash/Scratch')).status).to.equal(404);
    });
  });

  describe('POST /data/trash/{fw}', () => {
    it('lists the caller’s visible trashed rows newest first, secrets left out, deleter named', async () => {
      const first = await sku('alice', 'P-1');
      const second = await sku('alice', 'P-2');
      await remove('alice', [first.id]);
      await remove('alice', [second.id]);
      const res = await post('alice', '/data/trash/Sku', { size: 200 });
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      const ids = res.body.rows.map((r: { id: number }) => r.id);
      expect(ids.indexOf(second.id)).to.be.greaterThan(-1);
      expect(ids.indexOf(second.id)).to.be.lessThan(ids.indexOf(first.id));
      const entry = res.body.rows.find((r: { id: number }) => r.id === second.id);
      expect(entry.deletedBy).to.deep.equal({ id: users.alice.id, account: users.alice.account });
      expect(entry.row).to.include({ code: 'P-2' });
      expect(JSON.stringify(res.body)).to.not.match(/scrypt|pin-1234|"pin"/);
      expect(res.body).to.include({ page: 1, size: 200 });
      expect(res.body.total).to.equal(res.body.rows.length);
    });

    it('shows another user nothing of rows they could not see, and an administrator everything', async () => {
      const row = await sku('alice', 'V-1');
      await remove('alice', [row.id]);
      const dave = await post('dave', '/data/trash/Sku', { size: 200 });
      expect(dave.status).to.equal(200);
      expect(dave.body.rows.map((r: { id: number }) => r.id)).to.not.include(row.id);
      expect(JSON.stringify(dave.body)).to.not.include('V-1');
      const admin = await post('admin', '/data/trash/Sku', { size: 200 });
      expect(admin.body.rows.map((r: { id: number }) => r.id)).to.include(row.id);
    });

    it('filters by the table query’s conditions and pages', async () => {
      const a = await sku('alice', 'F-a');
      const b = await sku('alice', 'F-b');
      await remove('alice', [a.id, b.id]);
      const res = await post('alice', '/data/trash/Sku', { conditions: [{ field: 'code', op: 'like', value: 'F-' }], size: 1, page: 2 });
      expect(res.status).to.equal(200);
      expect(res.body.total).to.equal(2);
      expect(res.body.rows).to.have.length(1);
      expect((await post('alice', '/data/trash/Sku', { size: 100000 })).status).to.equal(400);
    });

    it('needs delete: 403 for a user who may only query', async () => {
      const res = await post('bob', '/data/trash/Sku');
      expect(res.status).to.equal(403);
      expect(res.body.error.code).to.equal('POWER_DENIED');
    });
  });

  describe('POST /data/modify/{fw}/undelete', () => {
    it('puts the row back with its id, values, secret, links and files; logs and tells listeners', async () => {
      const tag = await label('keep');
      const gone = await label('gone');
      const upload = await agent.post('/fw-api/data/upload/Sku/sheet').set('token', await token('alice')).attach('file', PDF, { filename: 'sheet.pdf', contentType: 'application/pdf' });
      expect(upload.status, JSON.stringify(upload.body)).to.equal(200);
      const row = await sku('alice', 'R-1', { labels: [tag, gone], sheet: upload.body.files });
      const hashBefore = (await skuRow(row.id)).pin;
      await remove('alice', [row.id]);
      expect(await files.get(row.sheet![0]!.id), 'a trashed row keeps its file').to.not.equal(undefined);
      await post('alice', '/data/modify/Label/delete', { ids: [gone] });
      inserted.length = 0;
      const res = await post('alice', '/data/modify/Sku/undelete', { ids: [row.id] });
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      expect(res.body).to.deep.equal({ restored: 1, batch: res.body.batch, dropped: [{ id: row.id, field: 'labels', values: [gone] }] });
      expect(res.body.batch).to.match(/^[0-9a-f-]{36}$/);
      const back = await skuRow(row.id);
      expect(back).to.include({ code: 'R-1', title: 'T R-1', ownerId: users.alice.id, pin: hashBefore });
      expect((await store.knex('tr_sku_label').where('sku_id', row.id)).map((l) => l.label_id)).to.deep.equal([tag]);
      expect(await trashOf(row.id)).to.deep.equal([]);
      const file = await agent.get(`/fw-api/data/file/Sku/sheet/${row.id}/${row.sheet![0]!.id}`).set('token', await token('alice'));
      expect(file.status).to.equal(200);
      expect(inserted.map((e) => [e.id, e.reason])).to.deep.equal([[row.id, 'undelete']]);
      expect(inserted[0]!.after).to.not.have.property('pin');
      const log = await store.knex('fw_operate_log').where({ model: 'Sku', action: 'undelete' }).orderBy('id', 'desc').first();
      expect(log).to.include({ status: 'success', target_id: String(row.id), batch: res.body.batch });
      // The next add gets a new id, past the restored one (PostgreSQL's sequence included).
      expect((await sku('alice', 'R-2')).id).to.be.greaterThan(row.id);
    });

    it('moves the id counter past a restored id, so the next add does not collide', async () => {
      const row = await sku('alice', 'S-1');
      await remove('alice', [row.id]);
      // An entry whose id is the very next one the table would hand out.
      const next = row.id + 1;
      const [entry] = await trashOf(row.id);
      const kept = JSON.parse(String(entry.data));
      kept.values.id = next;
      await store.knex('fw_trash').where('id', entry.id).update({ row_id: String(next), data: JSON.stringify(kept) });
      expect((await post('alice', '/data/modify/Sku/undelete', { ids: [next] })).status).to.equal(200);
      expect((await skuRow(next)).code).to.equal('S-1');
      expect((await sku('alice', 'S-2')).id).to.be.greaterThan(next);
    });

    it('refuses a taken unique value with 409 naming the row and field, writing nothing', async () => {
      const ok = await sku('alice', 'C-ok');
      const clash = await sku('alice', 'C-1');
      await remove('alice', [ok.id, clash.id]);
      await sku('alice', 'C-1');
      const res = await post('alice', '/data/modify/Sku/undelete', { ids: [ok.id, clash.id] });
      expect(res.status, JSON.stringify(res.body)).to.equal(409);
      expect(res.body.error.code).to.equal('CONFLICT');
      expect(res.body.error.message).to.include(`Sku #${clash.id}`);
      expect(res.body.error.details[0]).to.include({ type: 'unique' });
      expect(await skuRow(ok.id), 'all or none').to.equal(undefined);
      expect(await trashOf(ok.id)).to.have.length(1);
      expect(await trashOf(clash.id)).to.have.length(1);
    });

    it('refuses an id taken by another row with 409', async () => {
      const row = await sku('alice', 'I-1');
      await remove('alice', [row.id]);
      // A host wrote a row with that id meanwhile.
      await store.knex('tr_sku').insert({ id: row.id, code: 'I-other', ownerId: users.alice.id });
      const res = await post('alice', '/data/modify/Sku/undelete', { ids: [row.id] });
      expect(res.status).to.equal(409);
      expect(res.body.error.details[0]).to.include({ path: 'id', type: 'unique' });
      expect((await skuRow(row.id)).code).to.equal('I-other');
      await store.knex('tr_sku').where('id', row.id).delete();
    });

    it('answers 404 for a row the caller could not see, 403 without add, 400 for a bad body', async () => {
      const row = await sku('alice', 'X-1');
      await remove('alice', [row.id]);
      const dave = await post('dave', '/data/modify/Sku/undelete', { ids: [row.id] });
      expect(dave.status).to.equal(404);
      expect(dave.body.error.code).to.equal('ROW_NOT_FOUND');
      const erin = await post('erin', '/data/modify/Sku/undelete', { ids: [row.id] });
      expect(erin.status).to.equal(403);
      expect((await post('bob', '/data/modify/Sku/undelete', { ids: [row.id] })).status).to.equal(403);
      expect((await post('alice', '/data/modify/Sku/undelete', { ids: [] })).status).to.equal(400);
      expect((await post('alice', '/data/modify/Sku/undelete', { ids: ['x'] })).status).to.equal(400);
      expect(await skuRow(row.id)).to.equal(undefined);
      expect(await trashOf(row.id)).to.have.length(1);
    });
  });

  describe('rules and users', () => {
    it('holds a restored row to today’s rules: 422 naming the row, nothing written', async () => {
      const good = await sku('alice', 'G-1');
      const bad = await sku('alice', 'G-2');
      await remove('alice', [good.id, bad.id]);
      // The row as kept no longer passes (as if a rule had been tightened since): code is required.
      const [entry] = await trashOf(bad.id);
      const kept = JSON.parse(String(entry.data));
      kept.values.code = null;
      await store.knex('fw_trash').where('id', entry.id).update({ data: JSON.stringify(kept) });
      const res = await post('alice', '/data/modify/Sku/undelete', { ids: [good.id, bad.id] });
      expect(res.status, JSON.stringify(res.body)).to.equal(422);
      expect(res.body.error.message).to.include(`Sku #${bad.id}`);
      expect(res.body.error.details[0]).to.include({ path: 'code', type: 'required' });
      expect(await skuRow(good.id)).to.equal(undefined);
      expect(await trashOf(good.id)).to.have.length(1);
    });

    it('a deleted user loses their sessions; undeleted, they have their account, password and roles back', async () => {
      const role = await store.roles.create({ code: `tr-role-${Date.now().toString(36)}`, name: 'Kept' });
      const made = await post('admin', '/data/modify/FwUser', { account: `tr-user-${Date.now().toString(36)}`, name: 'Trashed', password: 'a-long-password-9', roles: [role.id] });
      expect(made.status, JSON.stringify(made.body)).to.equal(200);
      const user = { id: made.body.id as number, account: made.body.account as string, name: 'Trashed', isAdmin: false };
      const hash = (await store.knex('fw_user').where('id', user.id).first()).password_hash;
      const session = (await tokens.loginToken(user, tokens.generateToken())).token;
      expect((await post('admin', '/data/modify/FwUser/delete', { ids: [user.id] })).status).to.equal(200);
      expect(await tokens.resolve(session)).to.equal(undefined);
      const res = await post('admin', '/data/modify/FwUser/undelete', { ids: [user.id] });
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      const back = await store.knex('fw_user').where('id', user.id).first();
      expect(back).to.include({ account: user.account, password_hash: hash });
      expect((await store.knex('fw_user_role').where('user_id', user.id)).map((r) => r.role_id)).to.deep.equal([role.id]);
      expect(await tokens.resolve(session), 'no session comes back').to.equal(undefined);
    });

    it('answers 405 for the trash path asked with GET', async () => {
      const res = await agent.get('/fw-api/data/trash/Sku').set('token', await token('alice'));
      expect(res.status).to.equal(405);
    });
  });

  describe('purge', () => {
    it('by age: rows past the retention go with their files, newer ones stay', async () => {
      const upload = await agent.post('/fw-api/data/upload/Sku/sheet').set('token', await token('alice')).attach('file', PDF, { filename: 'old.pdf', contentType: 'application/pdf' });
      const old = await sku('alice', 'O-1', { sheet: upload.body.files });
      const fresh = await sku('alice', 'O-2');
      await remove('alice', [old.id, fresh.id]);
      await store.knex('fw_trash').where({ model: 'Sku', row_id: String(old.id) }).update({ deleted_at: new Date(Date.now() - 31 * 24 * 60 * 60 * 1000) });
      expect(await data.service.purgeExpiredTrash()).to.be.at.least(1);
      expect(await trashOf(old.id)).to.deep.equal([]);
      expect(await trashOf(fresh.id)).to.have.length(1);
      expect(await files.get(old.sheet![0]!.id)).to.equal(undefined);
      expect(await store.files.findMany([old.sheet![0]!.id])).to.deep.equal([]);
    });

    it('on demand: administrators only', async () => {
      const row = await sku('alice', 'D-1');
      await remove('alice', [row.id]);
      const refused = await post('alice', '/data/trash/Sku/purge', { ids: [row.id] });
      expect(refused.status).to.equal(403);
      expect(await trashOf(row.id)).to.have.length(1);
      const res = await post('admin', '/data/trash/Sku/purge', { ids: [row.id] });
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      expect(res.body).to.deep.equal({ purged: 1 });
      expect(await trashOf(row.id)).to.deep.equal([]);
      expect((await post('alice', '/data/modify/Sku/undelete', { ids: [row.id] })).status).to.equal(404);
      const all = await post('admin', '/data/trash/Sku/purge');
      expect(all.status).to.equal(200);
      expect(await store.knex('fw_trash').where({ model: 'Sku' })).to.deep.equal([]);
    });
  });
});
