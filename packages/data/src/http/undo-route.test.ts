import { expect } from 'chai';
import Koa from 'koa';
import request from 'supertest';
import { BUILTIN_MODELS, createRegistry, defineModel, type FwUser } from '@fw/core';
import { createStore, type FwStore } from '@fw/store';
import { describeEachSql } from '@fw/test-utils';
import { FwTokenService, MemoryTokenStore } from '@fw/token';
import { fwData } from './router.js';

/** Open to every editor; `price` at most 1000 (a rule an old value may break). */
const Item = defineModel({
  name: 'Item',
  table: 'un_item',
  power: { importable: true },
  fields: {
    name: { edit: { notNull: true } },
    price: { edit: { type: 'NUMBER' }, rules: [{ type: 'range', min: 0, max: 1000 }] },
  },
});

/** Rows seen by their owner only (administrators see all), with a secret. */
const Vault = defineModel({
  name: 'Vault',
  table: 'un_vault',
  fields: {
    code: { edit: { notNull: true } },
    note: {},
    ownerId: { edit: { type: 'HIDDEN', readonly: true, integer: true } },
    pin: { edit: { type: 'PASSWORD' } },
  },
  dataProxy: {
    beforeFetch: ({ user }) => (user.isAdmin ? [] : [{ field: 'ownerId', op: 'eq', value: user.id }]),
    beforeAdd: (row, { user }) => {
      row.ownerId = user.id;
    },
  },
});

type Who = 'admin' | 'alice' | 'dave' | 'bob' | 'erin';

interface UndoAnswer {
  batch: string | null;
  undone: number;
  conflicted: number;
  steps: Array<{ entry: number; model: string; id: number; action: string; fields?: string[]; forced?: true }>;
  conflicts: Array<{ entry: number; model: string; id: number | null; reason: string; message: string }>;
  skipped: Array<{ entry: number; field: string; reason: string }>;
  dryRun?: true;
}

describeEachSql('POST /data/undo (issue 23 §3)', (db) => {
  let store: FwStore;
  let agent: ReturnType<typeof request>;
  let tokens: FwTokenService;
  const users = {} as Record<Who, FwUser>;
  const background: unknown[] = [];

  before(async () => {
    store = createStore(db().url);
    await store.migrate.latest();
    const registry = createRegistry([...BUILTIN_MODELS, Item, Vault]);
    await store.createModelTables(registry.list());
    const stamp = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
    const editor = await store.roles.create({ code: `un-editor-${stamp}`, name: 'Editor' });
    const reader = await store.roles.create({ code: `un-reader-${stamp}`, name: 'Reader' });
    const deleter = await store.roles.create({ code: `un-deleter-${stamp}`, name: 'Deleter' });
    const editorMenus: number[] = [];
    const readerMenus: number[] = [];
    const deleterMenus: number[] = [];
    for (const model of [Item, Vault]) {
      const { menu, functions } = await store.menus.createModelMenu(model);
      editorMenus.push(menu.id, ...functions.map((f) => f.id));
      readerMenus.push(menu.id);
      deleterMenus.push(menu.id, ...functions.filter((f) => f.code?.endsWith('@DELETE')).map((f) => f.id));
    }
    await store.roles.setMenus(editor.id, editorMenus);
    await store.roles.setMenus(reader.id, readerMenus);
    await store.roles.setMenus(deleter.id, deleterMenus);
    for (const [name, isAdmin, role] of [
      ['admin', true, undefined],
      ['alice', false, editor.id],
      ['dave', false, editor.id],
      ['bob', false, reader.id],
      ['erin', false, deleter.id],
    ] as const) {
      const row = await store.users.create({ account: `un-${name}-${stamp}`, name, password: 'x-password-1', isAdmin, mustChangePassword: false });
      if (role !== undefined) await store.users.setRoles(row.id, [role]);
      users[name] = { id: row.id, account: row.account, name: row.name, isAdmin };
    }
    tokens = new FwTokenService({ store: new MemoryTokenStore() });
    const data = fwData({ store, tokens, registry, onBackgroundError: (e) => background.push(e) });
    const app = new Koa();
    app.silent = true;
    app.use(data);
    agent = request(app.callback());
  });

  after(async () => {
    await store?.destroy();
    expect(background, 'background work failed').to.deep.equal([]);
  });

  const token = async (who: Who) => (await tokens.loginToken(users[who], tokens.generateToken())).token;
  const post = async (who: Who, path: string, body?: unknown) => {
    const req = agent.post(`/fw-api${path}`).set('token', await token(who));
    return body === undefined ? req : req.send(body as object);
  };
  const ok = <T>(res: request.Response): T => {
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    return res.body as T;
  };
  const undo = async (who: Who, body: unknown) => post(who, '/data/undo', body);
  const items = async (who: Who, names: string[], price = 10) => {
    const ids: number[] = [];
    for (const name of names) ids.push(ok<{ id: number }>(await post(who, '/data/modify/Item', { name, price })).id);
    return ids;
  };
  const itemRows = async (ids: number[]) => (await store.knex('un_item').whereIn('id', ids).orderBy('id')) as Array<{ id: number; name: string; price: number }>;
  const bulk = async (who: Who, ids: number[], values: Record<string, unknown>) => ok<{ batch: string }>(await post(who, '/data/modify/Item/update-many', { ids, values })).batch;
  const logOf = async (batch: string) => (await store.knex('fw_operate_log').where('batch', batch).orderBy('id')) as Array<Record<string, unknown>>;

  describe('a bulk edit', () => {
    it('puts every row back, logs the undo as a batch of its own, and undoing that redoes the edit', async () => {
      const ids = await items('alice', ['a1', 'a2', 'a3'], 5);
      const batch = await bulk('alice', ids, { price: 99, name: 'same' });
      expect((await itemRows(ids)).map((r) => [r.name, Number(r.price)])).to.deep.equal([['same', 99], ['same', 99], ['same', 99]]);
      const answer = ok<UndoAnswer>(await undo('alice', { batch }));
      expect(answer).to.include({ undone: 3, conflicted: 0 });
      expect(answer.steps.map((s) => s.id).sort()).to.deep.equal([...ids].sort());
      expect(answer.steps[0]!.fields!.sort()).to.deep.equal(['name', 'price']);
      expect((await itemRows(ids)).map((r) => [r.name, Number(r.price)])).to.deep.equal([['a1', 5], ['a2', 5], ['a3', 5]]);
      // The undo's own rows: one per row, source undo, its batch.
      const logged = await logOf(answer.batch!);
      expect(logged.map((r) => [r.action, r.source, Number(r.target_id)])).to.have.deep.members(ids.map((id) => ['update', 'undo', id]));
      // Undoing the undo is a redo.
      const redo = ok<UndoAnswer>(await undo('alice', { batch: answer.batch }));
      expect(redo.undone).to.equal(3);
      expect((await itemRows(ids)).map((r) => Number(r.price))).to.deep.equal([99, 99, 99]);
    });

    it('a dry run lists the steps and writes nothing', async () => {
      const ids = await items('alice', ['d1', 'd2'], 7);
      const batch = await bulk('alice', ids, { price: 70 });
      const before = (await store.knex('fw_operate_log').count({ n: '*' }))[0]!.n;
      const answer = ok<UndoAnswer>(await undo('alice', { batch, dryRun: true }));
      expect(answer).to.include({ dryRun: true, batch: null, undone: 2 });
      expect((await itemRows(ids)).map((r) => Number(r.price))).to.deep.equal([70, 70]);
      expect((await store.knex('fw_operate_log').count({ n: '*' }))[0]!.n).to.equal(before);
    });

    it('lists a row changed since as a conflict and undoes the others; force undoes it too', async () => {
      const ids = await items('alice', ['c1', 'c2'], 1);
      const batch = await bulk('alice', ids, { price: 2 });
      // A colleague edits the first row after the bulk edit.
      ok(await post('dave', '/data/modify/Item/update-cell', { id: ids[0], field: 'price', value: 3 }));
      const answer = ok<UndoAnswer>(await undo('alice', { batch }));
      expect(answer).to.include({ undone: 1, conflicted: 1 });
      expect(answer.conflicts[0]).to.include({ model: 'Item', id: ids[0], reason: 'changed' });
      expect((await itemRows(ids)).map((r) => Number(r.price))).to.deep.equal([3, 1]);
      // Forced by its entry: the colleague's value is overwritten with the one before the batch.
      const forced = ok<UndoAnswer>(await undo('alice', { batch, force: [answer.conflicts[0]!.entry] }));
      expect(forced.steps.find((s) => s.id === ids[0])).to.include({ forced: true, action: 'update' });
      expect((await itemRows(ids)).map((r) => Number(r.price))).to.deep.equal([1, 1]);
    });

    it('leaves a value that today’s rules refuse, and lists the row', async () => {
      const [id] = await items('alice', ['r1'], 500);
      // Stored directly: a value over the rule's max, as if the rule came later.
      await store.knex('un_item').where('id', id).update({ price: 5000 });
      const batch = await bulk('alice', [id!], { price: 6 });
      const answer = ok<UndoAnswer>(await undo('alice', { batch }));
      expect(answer.conflicts[0]).to.include({ id, reason: 'invalid' });
      expect(Number((await itemRows([id!]))[0]!.price)).to.equal(6);
    });
  });

  describe('an import', () => {
    it('deletes the rows it added (to the trash) and puts back the rows it updated', async () => {
      const [kept] = await items('alice', ['before-import'], 3);
      const csv = `id,name,price\n,i1,1\n,i2,2\n${kept},after-import,30\n`;
      const res = await agent.post('/fw-api/data/import/Item?mode=upsert').set('token', await token('alice')).set('Content-Type', 'text/csv').send(csv);
      const imported = ok<{ added: number; updated: number; batch: string }>(res);
      expect(imported).to.include({ added: 2, updated: 1 });
      const added = ((await store.knex('un_item').whereIn('name', ['i1', 'i2']).select('id')) as Array<{ id: number }>).map((r) => Number(r.id));
      expect(added).to.have.length(2);
      const answer = ok<UndoAnswer>(await undo('alice', { batch: imported.batch }));
      expect(answer.steps.map((s) => [s.action, s.id])).to.have.deep.members([['update', kept], ...added.map((id) => ['delete', id])]);
      expect(await itemRows(added)).to.deep.equal([]);
      expect((await itemRows([kept!]))[0]).to.include({ name: 'before-import' });
      expect(await store.knex('fw_trash').where({ model: 'Item' }).whereIn('row_id', added.map(String))).to.have.length(2);
    });
  });

  describe('a delete', () => {
    it('brings deleted rows back from the trash with their ids and secrets', async () => {
      const made = [];
      for (const code of ['v1', 'v2']) made.push(ok<{ id: number }>(await post('alice', '/data/modify/Vault', { code, note: 'n', pin: 'pin-12345' })).id);
      const pins = (await store.knex('un_vault').whereIn('id', made).orderBy('id').select('pin')).map((r: { pin: string }) => r.pin);
      const { batch } = ok<{ batch: string }>(await post('alice', '/data/modify/Vault/delete', { ids: made }));
      // One log row per deleted row, each naming its row (a row's history finds its delete).
      expect((await logOf(batch)).map((r) => [r.action, Number(r.target_id)])).to.have.deep.members(made.map((id) => ['delete', id]));
      const answer = ok<UndoAnswer>(await undo('alice', { batch }));
      expect(answer.steps.map((s) => [s.action, s.id])).to.have.deep.members(made.map((id) => ['undelete', id]));
      const back = await store.knex('un_vault').whereIn('id', made).orderBy('id');
      expect(back.map((r: { code: string }) => r.code)).to.deep.equal(['v1', 'v2']);
      expect(back.map((r: { pin: string }) => r.pin)).to.deep.equal(pins);
      expect(await store.knex('fw_trash').where({ model: 'Vault' }).whereIn('row_id', made.map(String))).to.deep.equal([]);
      // The row's history, newest first: put back by the undo, deleted, added.
      const history = ok<{ rows: Array<{ action: string; source: string; batch: string | null }> }>(await agent.get(`/fw-api/data/Vault/${made[0]}/history`).set('token', await token('alice')));
      expect(history.rows.map((r) => [r.action, r.source])).to.deep.equal([
        ['undelete', 'undo'],
        ['delete', 'http'],
        ['add', 'http'],
      ]);
      expect(history.rows[1]!.batch).to.equal(batch);
      // And undoing the undo deletes them again (to the trash).
      ok(await undo('alice', { batch: answer.batch }));
      expect(await store.knex('un_vault').whereIn('id', made)).to.deep.equal([]);
    });

    it('lists a row no longer in the trash (undeleted since) instead of failing', async () => {
      const [id] = await items('alice', ['t1']);
      const { batch } = ok<{ batch: string }>(await post('alice', '/data/modify/Item/delete', { ids: [id] }));
      ok(await post('alice', '/data/modify/Item/undelete', { ids: [id] }));
      const answer = ok<UndoAnswer>(await undo('alice', { batch }));
      expect(answer).to.include({ undone: 0, conflicted: 1, batch: null });
      expect(answer.conflicts[0]).to.include({ id, reason: 'changed' });
      const forced = ok<UndoAnswer>(await undo('alice', { batch, force: [answer.conflicts[0]!.entry] }));
      expect(forced.conflicts[0]).to.include({ id, reason: 'gone' });
    });
  });

  describe('by user and time window', () => {
    it('an administrator undoes what one user did: adds deleted, edits put back, other users untouched', async () => {
      await new Promise((resolve) => setTimeout(resolve, 50));
      const from = new Date().toISOString();
      const [other] = await items('dave', ['dave-row'], 4);
      const added = await items('alice', ['w1', 'w2'], 4);
      ok(await post('alice', '/data/modify/Item/update-cell', { id: other, field: 'price', value: 40 }));
      const to = new Date(Date.now() + 1000).toISOString();
      const preview = ok<UndoAnswer>(await undo('admin', { actor: users.alice.id, from, to, dryRun: true }));
      expect(preview.steps.map((s) => [s.action, s.id])).to.have.deep.members([
        ['update', other],
        ['delete', added[0]],
        ['delete', added[1]],
      ]);
      ok(await undo('admin', { actor: users.alice.id, from, to }));
      expect(await itemRows(added)).to.deep.equal([]);
      expect(Number((await itemRows([other!]))[0]!.price)).to.equal(4);
    });
  });

  describe('from the attacker’s side', () => {
    it('refuses malformed bodies with 400, never a 500', async () => {
      const batch = '6f1f4f1e-0d57-4c53-9a55-2f4b0cdd1c11';
      for (const body of [
        {},
        [],
        { batch: 'not-a-uuid' },
        { batch: 7 },
        { batch, actor: 1, from: '2026-01-01T00:00:00Z', to: '2026-01-02T00:00:00Z' },
        { batch, extra: 1 },
        { batch, dryRun: 'yes' },
        { batch, force: 'all' },
        { batch, force: [0] },
        { batch, force: [1.5] },
        { batch, force: Array.from({ length: 10_001 }, (_, i) => i + 1) },
        { actor: 1 },
        { actor: -1, from: '2026-01-01T00:00:00Z', to: '2026-01-02T00:00:00Z' },
        { actor: 1, from: 'yesterday', to: '2026-01-02T00:00:00Z' },
        { actor: 1, from: '2026-01-02T00:00:00Z', to: '2026-01-01T00:00:00Z' },
        { actor: 1, from: '2026-01-01T00:00:00Z', to: '2026-03-01T00:00:00Z' },
      ]) {
        const res = await undo('admin', body);
        expect(res.status, JSON.stringify(body).slice(0, 80)).to.equal(400);
        expect(res.body.error).to.have.property('code');
      }
      expect((await agent.post('/fw-api/data/undo').send({ batch })).status).to.equal(401);
    });

    it('answers 404 for a batch with nothing to undo', async () => {
      const res = await undo('alice', { batch: '6f1f4f1e-0d57-4c53-9a55-2f4b0cdd1c11' });
      expect(res.status).to.equal(404);
    });

    it('refuses another user’s batch to a non-administrator, and a window to anyone but an administrator', async () => {
      const ids = await items('alice', ['x1'], 8);
      const batch = await bulk('alice', ids, { price: 80 });
      for (const who of ['dave', 'bob', 'erin'] as const) {
        const res = await undo(who, { batch });
        expect(res.status, who).to.equal(403);
        expect(res.body.error.code).to.equal('POWER_DENIED');
      }
      const window = { actor: users.alice.id, from: new Date(Date.now() - 60_000).toISOString(), to: new Date(Date.now() + 60_000).toISOString() };
      expect((await undo('alice', window)).status).to.equal(403);
      expect(Number((await itemRows(ids))[0]!.price)).to.equal(80);
      // An administrator may.
      ok(await undo('admin', { batch }));
      expect(Number((await itemRows(ids))[0]!.price)).to.equal(8);
    });

    it('needs the power to reverse each entry: a user who may delete but not add cannot undo their delete', async () => {
      const [id] = await items('admin', ['e1']);
      const { batch } = ok<{ batch: string }>(await post('erin', '/data/modify/Item/delete', { ids: [id] }));
      const res = await undo('erin', { batch });
      expect(res.status).to.equal(403);
      expect(await itemRows([id!])).to.deep.equal([]);
    });

    it('does not undo into a row the caller can no longer see: the undo stops with nothing written', async () => {
      const made = ok<{ id: number }>(await post('alice', '/data/modify/Vault', { code: 'hid', note: 'one', pin: 'pin-12345' })).id;
      const { batch } = ok<{ batch: string }>(await post('alice', '/data/modify/Vault/update-many', { ids: [made], values: { note: 'two' } }));
      // The row is handed to another owner: alice can no longer see it.
      await store.knex('un_vault').where('id', made).update({ [Vault.fields.ownerId!.column]: users.dave.id });
      const answer = ok<UndoAnswer>(await undo('alice', { batch }));
      expect(answer.conflicts[0]).to.include({ id: made, reason: 'gone' });
      expect((await store.knex('un_vault').where('id', made).first()).note).to.equal('two');
    });

    it('does not delete a row the caller can no longer see when undoing what put it back', async () => {
      const made: number[] = [];
      for (const code of ['g1', 'g2']) made.push(ok<{ id: number }>(await post('alice', '/data/modify/Vault', { code, note: 'n', pin: 'pin-12345' })).id);
      ok(await post('alice', '/data/modify/Vault/delete', { ids: made }));
      const { batch } = ok<{ batch: string }>(await post('alice', '/data/modify/Vault/undelete', { ids: made }));
      await store.knex('un_vault').where('id', made[0]).update({ [Vault.fields.ownerId!.column]: users.dave.id });
      const answer = ok<UndoAnswer>(await undo('alice', { batch }));
      expect(answer.conflicts.map((c) => [c.id, c.reason])).to.deep.equal([[made[0], 'gone']]);
      expect(answer.steps.map((s) => [s.action, s.id])).to.deep.equal([['delete', made[1]]]);
      expect(await store.knex('un_vault').where('id', made[0]).first()).to.not.equal(undefined);
      expect(await store.knex('un_vault').where('id', made[1]).first()).to.equal(undefined);
    });
  });
});
