import { expect } from 'chai';
import Koa from 'koa';
import request from 'supertest';
import { BUILTIN_MODELS, createRegistry, defineModel } from '@fw/core';
import { createStore, type FwStore } from '@fw/store';
import { describeEachSql } from '@fw/test-utils';
import { FwTokenService, MemoryTokenStore } from '@fw/token';
import { fwData } from '../http/router.js';

const api = '/fw-api';

/** `cost` and `margin` are left out of every row a non-administrator reads (`afterFetch`); `margin` must stay at most `cost`. */
const Deal = defineModel({
  name: 'Deal',
  table: 'rh_deal',
  fields: {
    title: { edit: { notNull: true } },
    cost: { edit: { type: 'NUMBER' } },
    margin: { edit: { type: 'NUMBER' } },
    note: {},
  },
  dataProxy: {
    afterFetch: (rows, { user }) => (user.isAdmin ? rows : rows.map(({ cost: _cost, margin: _margin, ...rest }) => rest)),
  },
});

// Red-team leftovers §3: a restore answers only about fields the caller sees in the row's
// details. A field hidden by `afterFetch` is never put back, never named in `restored`,
// `skipped` or a 409's details, and its value never reaches `row`: otherwise the answer (or an
// `unchanged` / `invalid` verdict) would tell the caller what the field holds.
describeEachSql('restore: fields hidden from the caller', (db) => {
  let store: FwStore;
  let agent: ReturnType<typeof request>;
  let admin: string;
  let alice: string;

  before(async () => {
    store = createStore(db().url);
    await store.migrate.latest();
    const registry = createRegistry([...BUILTIN_MODELS, Deal]);
    await store.createModelTables(registry.list());
    const { menu, functions } = await store.menus.createModelMenu(Deal);
    const stamp = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
    const user = async (account: string, isAdmin: boolean) => {
      const row = await store.users.create({ account: `${account}-${stamp}`, name: account, password: 'x-password-1', isAdmin, mustChangePassword: false });
      return { id: row.id, account: row.account, name: row.name, isAdmin };
    };
    const [root, editor] = [await user('admin', true), await user('alice', false)];
    const role = await store.roles.create({ code: `deal-editor-${stamp}`, name: 'Deal editor' });
    await store.roles.setMenus(role.id, [menu.id, ...functions.map((f) => f.id)]);
    await store.users.setRoles(editor.id, [role.id]);
    const tokens = new FwTokenService({ store: new MemoryTokenStore() });
    const app = new Koa();
    app.silent = true;
    app.use(fwData({ store, tokens, registry }));
    agent = request(app.callback());
    admin = (await tokens.loginToken(root, tokens.generateToken())).token;
    alice = (await tokens.loginToken(editor, tokens.generateToken())).token;
  });
  after(() => store?.destroy());
  beforeEach(() => store.knex('rh_deal').delete());

  const add = async (values: Record<string, unknown>) => Number((await agent.post(`${api}/data/modify/Deal`).set('token', admin).send(values).expect(200)).body.id);
  const update = (id: number, values: Record<string, unknown>) => agent.post(`${api}/data/modify/Deal/update`).set('token', admin).send({ id, ...values }).expect(200);
  const lastEntry = async (id: number) => Number((await store.knex('fw_operate_log').where('model', 'Deal').where('target_id', String(id)).max({ id: 'id' }))[0]!.id);
  const restore = (token: string, id: number, entry: number) => agent.post(`${api}/data/Deal/${id}/restore`).set('token', token).send({ entry });
  const stored = async (id: number) => (await store.knex('rh_deal').where('id', id).first()) as Record<string, unknown>;

  it('puts back only the fields the caller sees; the hidden ones are neither written, named nor shown', async () => {
    const id = await add({ title: 'Old', cost: 7123, margin: 5, note: 'n' });
    await update(id, { title: 'New', cost: 9456, margin: 6, note: 'n' });
    const entry = await lastEntry(id);
    const res = await restore(alice, id, entry);
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect(res.body.restored).to.deep.equal(['title']);
    expect(res.body.skipped).to.deep.equal([]);
    expect(res.body.row).to.include({ title: 'Old' });
    const text = JSON.stringify(res.body);
    for (const leak of ['cost', 'margin', '7123', '9456']) expect(text, leak).to.not.include(leak);
    // Not written either: what the caller cannot see, they cannot put back.
    expect(await stored(id)).to.include({ title: 'Old' });
    expect(Number((await stored(id)).cost)).to.equal(9456);
    // An administrator, who sees them, restores them.
    await update(id, { title: 'Newer', cost: 9456, margin: 6, note: 'n' });
    const full = await restore(admin, id, entry).expect(200);
    expect([...full.body.restored].sort()).to.deep.equal(['cost', 'margin', 'title']);
    expect(Number((await stored(id)).cost)).to.equal(7123);
  });

  it('answers a 409 that names no hidden field when the entry changed only hidden fields', async () => {
    const id = await add({ title: 'T', cost: 7123, margin: 5 });
    await update(id, { title: 'T', cost: 9456, margin: 5 });
    const res = await restore(alice, id, await lastEntry(id));
    expect(res.status, JSON.stringify(res.body)).to.equal(409);
    expect(res.body.error.code).to.equal('CONFLICT');
    expect(res.body.error.details ?? []).to.deep.equal([]);
    const text = JSON.stringify(res.body);
    for (const leak of ['cost', 'margin', '7123', '9456']) expect(text, leak).to.not.include(leak);
    expect(Number((await stored(id)).cost)).to.equal(9456);
  });

  it('gives no oracle: "unchanged" or "invalid" is never said of a hidden field', async () => {
    // margin went 5 → 6 and back to 5 later: "unchanged" would tell alice the current margin.
    const id = await add({ title: 'A', cost: 10, margin: 5 });
    await update(id, { title: 'B', cost: 10, margin: 6 });
    const entry = await lastEntry(id);
    await update(id, { title: 'B', cost: 10, margin: 5 });
    const same = await restore(alice, id, entry).expect(200);
    expect(same.body.restored).to.deep.equal(['title']);
    expect(JSON.stringify(same.body)).to.not.match(/margin|cost/);
    // A hidden field whose old value the model now refuses (a number where text is) is not named either.
    await store.knex('fw_operate_log').where('id', entry).update({ before_data: JSON.stringify({ id, title: 'A', cost: 'not a number', margin: 5, note: null }) });
    await update(id, { title: 'C', cost: 10, margin: 5 });
    const bad = await restore(alice, id, entry);
    expect(bad.status, JSON.stringify(bad.body)).to.equal(200);
    expect(JSON.stringify(bad.body)).to.not.match(/margin|cost|not a number/);
  });
});
