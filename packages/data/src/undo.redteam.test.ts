// POST /data/undo probed from an attacker's side, through a real Koa app: the same batch undone
// twice at once, time windows that are not dates, force lists past the bound, secrets and
// secret-looking fields put back. Every probe wants a 4xx or a clean answer (never a 500), no
// change applied twice, and no mask written into a column.
import { expect } from 'chai';
import Koa from 'koa';
import request from 'supertest';
import { BUILTIN_MODELS, createRegistry, defineModel, type FwUser } from '@fw/core';
import { createStore, type FwStore } from '@fw/store';
import { describeEachSql } from '@fw/test-utils';
import { FwTokenService, MemoryTokenStore } from '@fw/token';
import { fwData } from './http/router.js';

const Item = defineModel({
  name: 'Item',
  table: 'ur_item',
  fields: {
    name: { edit: { notNull: true } },
    price: { edit: { type: 'NUMBER' } },
    // A plain field whose name the operate log takes for a secret (it masks its values).
    apiToken: {},
    pin: { edit: { type: 'PASSWORD' } },
    body: { edit: { type: 'TEXTAREA' } },
  },
});

/** The same table as a later release declares it: `price` renamed `cost`. */
const ItemLater = defineModel({
  name: 'Item',
  table: 'ur_item',
  fields: { name: { edit: { notNull: true } }, cost: { column: 'price', edit: { type: 'NUMBER', readonly: true } }, apiToken: {}, body: { edit: { type: 'TEXTAREA' } } },
});

type Who = 'admin' | 'alice' | 'bob';

interface UndoAnswer {
  batch: string | null;
  undone: number;
  conflicted: number;
  steps: Array<{ entry: number; id: number; action: string }>;
  conflicts: Array<{ entry: number; id: number | null; reason: string; message: string }>;
  skipped: Array<{ entry: number; field: string; reason: string }>;
}

describeEachSql('POST /data/undo from the attacker’s side', (db) => {
  let store: FwStore;
  let agent: ReturnType<typeof request>;
  let later: ReturnType<typeof request>;
  let tokens: FwTokenService;
  const users = {} as Record<Who, FwUser>;
  const background: unknown[] = [];

  before(async () => {
    store = createStore(db().url);
    await store.migrate.latest();
    const registry = createRegistry([...BUILTIN_MODELS, Item]);
    await store.createModelTables(registry.list());
    const stamp = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
    const editor = await store.roles.create({ code: `ur-editor-${stamp}`, name: 'Editor' });
    const { menu, functions } = await store.menus.createModelMenu(Item);
    await store.roles.setMenus(editor.id, [menu.id, ...functions.map((f) => f.id)]);
    for (const [name, isAdmin] of [
      ['admin', true],
      ['alice', false],
      ['bob', false],
    ] as const) {
      const row = await store.users.create({ account: `ur-${name}-${stamp}`, name, password: 'x-password-1', isAdmin, mustChangePassword: false });
      if (!isAdmin) await store.users.setRoles(row.id, [editor.id]);
      users[name] = { id: row.id, account: row.account, name: row.name, isAdmin };
    }
    tokens = new FwTokenService({ store: new MemoryTokenStore() });
    const app = new Koa();
    app.silent = true;
    app.use(fwData({ store, tokens, registry, onBackgroundError: (e) => background.push(e) }));
    agent = request(app.callback());
    const laterApp = new Koa();
    laterApp.silent = true;
    laterApp.use(fwData({ store, tokens, registry: createRegistry([...BUILTIN_MODELS, ItemLater]), onBackgroundError: (e) => background.push(e) }));
    later = request(laterApp.callback());
  });

  after(async () => {
    await store?.destroy();
    expect(background, 'background work failed').to.deep.equal([]);
  });

  const token = async (who: Who) => (await tokens.loginToken(users[who], tokens.generateToken())).token;
  const post = async (who: Who, path: string, body: unknown) => agent.post(`/fw-api${path}`).set('token', await token(who)).send(body as object);
  const ok = <T>(res: request.Response): T => {
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    return res.body as T;
  };
  const items = async (names: string[], extra: Record<string, unknown> = {}) => {
    const ids: number[] = [];
    for (const name of names) ids.push(ok<{ id: number }>(await post('alice', '/data/modify/Item', { name, price: 5, ...extra })).id);
    return ids;
  };
  const undoLogs = async (ids: number[]) => (await store.knex('fw_operate_log').where({ model: 'Item', source: 'undo', status: 'success' }).whereIn('target_id', ids.map(String))) as Array<Record<string, unknown>>;

  it('a bulk edit undone twice at once is undone once: no 500, each row put back by one undo', async () => {
    const ids = await items(['p1', 'p2', 'p3']);
    const { batch } = ok<{ batch: string }>(await post('alice', '/data/modify/Item/update-many', { ids, values: { price: 50 } }));
    const answers = await Promise.all([post('alice', '/data/undo', { batch }), post('alice', '/data/undo', { batch })]);
    for (const res of answers) expect(res.status, JSON.stringify(res.body)).to.be.oneOf([200, 409]);
    const undone = answers.filter((r) => r.status === 200).reduce((n, r) => n + (r.body as UndoAnswer).undone, 0);
    expect(undone).to.equal(3);
    expect(await undoLogs(ids)).to.have.length(3);
    expect(((await store.knex('ur_item').whereIn('id', ids)) as Array<{ price: number }>).map((r) => Number(r.price))).to.deep.equal([5, 5, 5]);
  });

  it('a delete undone twice at once brings each row back once: no 500, no duplicate key', async () => {
    const ids = await items(['q1', 'q2']);
    const { batch } = ok<{ batch: string }>(await post('alice', '/data/modify/Item/delete', { ids }));
    const answers = await Promise.all([post('alice', '/data/undo', { batch }), post('alice', '/data/undo', { batch })]);
    for (const res of answers) expect(res.status, JSON.stringify(res.body)).to.be.oneOf([200, 409]);
    const undone = answers.filter((r) => r.status === 200).reduce((n, r) => n + (r.body as UndoAnswer).undone, 0);
    expect(undone).to.equal(2);
    expect(await store.knex('ur_item').whereIn('id', ids)).to.have.length(2);
    expect(await undoLogs(ids)).to.have.length(2);
  });

  it('an undelete undone twice at once deletes each row once', async () => {
    const ids = await items(['r1', 'r2']);
    const { batch } = ok<{ batch: string }>(await post('alice', '/data/modify/Item/delete', { ids }));
    const back = ok<UndoAnswer>(await post('alice', '/data/undo', { batch }));
    const answers = await Promise.all([post('alice', '/data/undo', { batch: back.batch }), post('alice', '/data/undo', { batch: back.batch })]);
    for (const res of answers) expect(res.status, JSON.stringify(res.body)).to.be.oneOf([200, 409]);
    const undone = answers.filter((r) => r.status === 200).reduce((n, r) => n + (r.body as UndoAnswer).undone, 0);
    expect(undone).to.equal(2);
    expect(await store.knex('ur_item').whereIn('id', ids)).to.have.length(0);
    expect(await store.knex('fw_trash').where({ model: 'Item' }).whereIn('row_id', ids.map(String))).to.have.length(2);
  });

  it('refuses a window that is not a real date and time with 400, and answers far dates without a 500', async () => {
    for (const [from, to] of [
      ['2026-02-30T00:00:00Z', '2026-03-05T00:00:00Z'],
      ['2026-02-01T00:00:00Z', '2026-02-31T00:00:00Z'],
      ['2026-04-31T10:00:00Z', '2026-05-02T00:00:00Z'],
      ['2026-13-01T00:00:00Z', '2026-13-02T00:00:00Z'],
      [1_700_000_000_000, 1_700_000_100_000],
      ['2026-01-01T00:00:00Z', null],
    ]) {
      const res = await post('admin', '/data/undo', { actor: users.alice.id, from, to });
      expect(res.status, `${String(from)} ${String(to)}: ${JSON.stringify(res.body)}`).to.equal(400);
    }
    for (const [from, to] of [
      ['0000-01-01T00:00:00Z', '0000-01-20T00:00:00Z'],
      ['0001-01-01T00:00:00Z', '0001-01-20T00:00:00Z'],
      ['9999-12-01T00:00:00Z', '9999-12-31T23:59:59Z'],
      ['2026-02-28T00:00:00+14:00', '2026-03-01T00:00:00-12:00'],
    ]) {
      const res = await post('admin', '/data/undo', { actor: users.alice.id, from, to });
      expect(res.status, `${from} ${to}: ${JSON.stringify(res.body)}`).to.be.oneOf([200, 400, 404]);
    }
  });

  it('bounds force and refuses entry ids of the wrong kind with 400', async () => {
    const ids = await items(['f1']);
    const { batch } = ok<{ batch: string }>(await post('alice', '/data/modify/Item/update-many', { ids, values: { price: 6 } }));
    for (const force of [Array.from({ length: 10_001 }, (_, i) => i + 1), ['1'], [1.5], [-1], [2 ** 60], { 0: 1 }, null]) {
      const res = await post('alice', '/data/undo', { batch, force, dryRun: true });
      expect(res.status, JSON.stringify(res.body).slice(0, 300)).to.equal(400);
    }
    // The whole bound, entry ids of other batches among them: a dry run, nothing forced that is not in the batch.
    const res = await post('alice', '/data/undo', { batch, force: Array.from({ length: 10_000 }, (_, i) => i + 1), dryRun: true });
    expect(ok<UndoAnswer>(res).undone).to.equal(1);
  });

  it('never writes the log’s mask into a column: a password and a secret-looking field are left as they are', async () => {
    const [id] = await items(['s1'], { apiToken: 'tok-first', pin: 'pin-first-1' });
    const pinBefore = ((await store.knex('ur_item').where('id', id!).first('pin')) as { pin: string }).pin;
    const { batch } = ok<{ batch: string }>(await post('alice', '/data/modify/Item/update-many', { rows: [{ id, values: { apiToken: 'tok-second', price: 7 } }] }));
    const answer = ok<UndoAnswer>(await post('alice', '/data/undo', { batch }));
    const row = (await store.knex('ur_item').where('id', id!).first()) as Record<string, unknown>;
    expect(row.apiToken ?? row.api_token).not.to.equal('******');
    expect(row.pin).to.equal(pinBefore);
    expect(Number(row.price)).to.equal(5);
    expect(answer.skipped.map((s) => [s.field, s.reason])).to.deep.include(['apiToken', 'secret']);
  });

  it('refuses another user’s batch found in a row’s history, whatever its force list', async () => {
    const ids = await items(['h1']);
    const { batch } = ok<{ batch: string }>(await post('alice', '/data/modify/Item/update-many', { ids, values: { price: 8 } }));
    const history = ok<{ rows: Array<{ id: number; batch: string | null }> }>(await agent.get(`/fw-api/data/Item/${ids[0]}/history`).set('token', await token('bob')));
    expect(history.rows[0]!.batch).to.equal(batch);
    const res = await post('bob', '/data/undo', { batch, force: history.rows.map((r) => r.id) });
    expect(res.status).to.equal(403);
    expect(Number(((await store.knex('ur_item').where('id', ids[0]!).first('price')) as { price: number }).price)).to.equal(8);
  });

  it('undoes after the model changed: a field gone is left as it is, a model gone is listed', async () => {
    const ids = await items(['m1']);
    const { batch } = ok<{ batch: string }>(await post('alice', '/data/modify/Item/update-many', { ids, values: { price: 9, name: 'm2' } }));
    const res = await later.post('/fw-api/data/undo').set('token', await token('alice')).send({ batch });
    const answer = ok<UndoAnswer>(res);
    expect(answer.undone).to.equal(1);
    expect(answer.skipped.map((s) => [s.field, s.reason])).to.deep.include(['price', 'removed']);
    const row = (await store.knex('ur_item').where('id', ids[0]!).first()) as Record<string, unknown>;
    expect([row.name, Number(row.price)]).to.deep.equal(['m1', 9]);
    // A batch whose model the registry no longer has: listed, nothing written, no 500.
    await store.knex('fw_operate_log').insert({ model: 'Gone', action: 'update', source: 'bulk', status: 'success', user_id: users.alice.id, account: users.alice.account, target_id: '1', batch: '00000000-0000-4000-8000-000000000001', before_data: '{}', request: '{"id":1,"changes":{"x":1}}', created_at: new Date() } as never).catch(() => undefined);
    const gone = await post('alice', '/data/undo', { batch: '00000000-0000-4000-8000-000000000001' });
    expect(gone.status, JSON.stringify(gone.body)).to.be.oneOf([200, 404]);
  });

  it('lists an update whose logged row was cut short (over 16,000 characters) instead of guessing', async () => {
    const [id] = await items(['t'.repeat(200)], { body: 'b'.repeat(15_990) });
    const { batch } = ok<{ batch: string }>(await post('alice', '/data/modify/Item/update-many', { ids: [id], values: { price: 11 } }));
    const answer = ok<UndoAnswer>(await post('alice', '/data/undo', { batch }));
    expect(answer).to.include({ undone: 0, conflicted: 1 });
    expect(answer.conflicts[0]).to.include({ reason: 'unsupported' });
    expect(Number(((await store.knex('ur_item').where('id', id!).first('price')) as { price: number }).price)).to.equal(11);
  });
});
