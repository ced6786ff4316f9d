import { expect } from 'chai';
import Koa from 'koa';
import request from 'supertest';
import { BUILTIN_MODELS, createRegistry, defineModel, type FwUser } from '@fw/core';
import { createStore, type FwStore } from '@fw/store';
import { describeEachSql } from '@fw/test-utils';
import { FwTokenService, MemoryTokenStore } from '@fw/token';
import { fwData } from './router.js';

const Card = defineModel({
  name: 'Card',
  table: 'sc_card',
  fields: {
    title: { edit: { notNull: true } },
    price: { edit: { type: 'NUMBER' } },
    due: { edit: { type: 'DATE' } },
    note: {},
  },
});

/** The table shows `label` rewritten by afterFetch: what the editor expects is the shown value. */
const Badge = defineModel({
  name: 'Badge',
  table: 'sc_badge',
  fields: { label: {}, code: {} },
  dataProxy: { afterFetch: (rows) => rows.map((r) => ({ ...r, label: typeof r.label === 'string' ? r.label.toUpperCase() : r.label })) },
});

type Who = 'admin' | 'alice' | 'bob';

describeEachSql('update-cell with expect: no silent overwrite of a newer value (issue 24 §1)', (db) => {
  let store: FwStore;
  let agent: ReturnType<typeof request>;
  let tokens: FwTokenService;
  const users = {} as Record<Who, FwUser>;

  before(async () => {
    store = createStore(db().url);
    await store.migrate.latest();
    const registry = createRegistry([...BUILTIN_MODELS, Card, Badge]);
    await store.createModelTables(registry.list());
    const stamp = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
    const editor = await store.roles.create({ code: `sc-editor-${stamp}`, name: 'Editor' });
    const menus: number[] = [];
    for (const model of [Card, Badge]) {
      const { menu, functions } = await store.menus.createModelMenu(model);
      menus.push(menu.id, ...functions.map((f) => f.id));
    }
    await store.roles.setMenus(editor.id, menus);
    for (const [name, isAdmin] of [
      ['admin', true],
      ['alice', false],
      ['bob', false],
    ] as const) {
      const row = await store.users.create({ account: `sc-${name}-${stamp}`, name, password: 'x-password-1', isAdmin, mustChangePassword: false });
      if (!isAdmin) await store.users.setRoles(row.id, [editor.id]);
      users[name] = { id: row.id, account: row.account, name: row.name, isAdmin };
    }
    tokens = new FwTokenService({ store: new MemoryTokenStore() });
    const app = new Koa();
    app.silent = true;
    app.use(fwData({ store, tokens, registry }));
    agent = request(app.callback());
  });

  after(async () => {
    await store?.destroy();
  });

  const post = async (who: Who, path: string, body: unknown) =>
    agent
      .post(`/fw-api${path}`)
      .set('token', (await tokens.loginToken(users[who], tokens.generateToken())).token)
      .send(body as object);
  const card = async (values: Record<string, unknown> = {}) => {
    const res = await post('alice', '/data/modify/Card', { title: 'T', price: 10, due: '2026-01-05', note: 'n', ...values });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    return res.body.id as number;
  };
  const cell = (who: Who, model: string, body: Record<string, unknown>) => post(who, `/data/modify/${model}/update-cell`, body);
  const stored = async (id: number) => store.knex('sc_card').where('id', id).first();

  it('writes when the cell still shows what the editor expected', async () => {
    const id = await card();
    const res = await cell('alice', 'Card', { id, field: 'price', value: 11, expect: 10 });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect(Number((await stored(id)).price)).to.equal(11);
    // The client's JSON of the same value: a number as text, a date as the table shows it.
    expect((await cell('alice', 'Card', { id, field: 'price', value: 12, expect: '11' })).status).to.equal(200);
    expect((await cell('alice', 'Card', { id, field: 'due', value: '2026-02-01', expect: '2026-01-05' })).status).to.equal(200);
    expect((await cell('alice', 'Card', { id, field: 'note', value: 'x', expect: 'n' })).status).to.equal(200);
  });

  it('refuses with 409 STALE_CELL, the current value, who changed it and when, writing nothing', async () => {
    const id = await card();
    // Bob saves first.
    expect((await cell('bob', 'Card', { id, field: 'price', value: 20, expect: 10 })).status).to.equal(200);
    const before = await store.knex('fw_operate_log').count({ n: '*' });
    // Alice's editor was seeded with 10.
    const res = await cell('alice', 'Card', { id, field: 'price', value: 15, expect: 10 });
    expect(res.status).to.equal(409);
    expect(res.body.error).to.include({ code: 'STALE_CELL', field: 'price', current: 20 });
    // The account the log holds, and the name the live notes and presence show for the same person.
    expect(res.body.error.changedBy).to.deep.equal({ id: users.bob.id, account: users.bob.account, name: 'bob' });
    expect(Date.now() - Date.parse(res.body.error.changedAt)).to.be.lessThan(60_000);
    expect(res.headers.etag).to.equal(res.body.error.version);
    expect(Number((await stored(id)).price)).to.equal(20);
    // The refusal is logged as a failure, nothing else.
    const after = await store.knex('fw_operate_log').count({ n: '*' });
    expect(Number(after[0]!.n)).to.equal(Number(before[0]!.n) + 1);
    // "Overwrite with mine": the same value, expecting what is there now.
    expect((await cell('alice', 'Card', { id, field: 'price', value: 15, expect: 20 })).status).to.equal(200);
    expect(Number((await stored(id)).price)).to.equal(15);
  });

  it('names who changed the cell by their name now (renamed since), with the account the log holds', async () => {
    const id = await card();
    expect((await cell('bob', 'Card', { id, field: 'price', value: 30, expect: 10 })).status).to.equal(200);
    await store.users.update(users.bob.id, { name: '王小明' });
    try {
      const res = await cell('alice', 'Card', { id, field: 'price', value: 15, expect: 10 });
      expect(res.status).to.equal(409);
      expect(res.body.error.changedBy).to.deep.equal({ id: users.bob.id, account: users.bob.account, name: '王小明' });
      expect(res.body.error.cells[0].changedBy.name).to.equal('王小明');
    } finally {
      await store.users.update(users.bob.id, { name: 'bob' });
    }
  });

  it('lets two people edit different cells of one row, each with its own expectation', async () => {
    const id = await card();
    expect((await cell('bob', 'Card', { id, field: 'price', value: 30, expect: 10 })).status).to.equal(200);
    expect((await cell('alice', 'Card', { id, field: 'note', value: 'alice', expect: 'n' })).status).to.equal(200);
    expect(await stored(id)).to.include({ note: 'alice' });
    expect(Number((await stored(id)).price)).to.equal(30);
  });

  it('compares with the value as the table shows it (afterFetch), not the stored one', async () => {
    const made = await post('alice', '/data/modify/Badge', { label: 'gold', code: 'g' });
    const id = made.body.id as number;
    // The table showed "GOLD".
    expect((await cell('alice', 'Badge', { id, field: 'code', value: 'g2', expect: 'g' })).status).to.equal(200);
    expect((await cell('alice', 'Badge', { id, field: 'label', value: 'silver', expect: 'GOLD' })).status).to.equal(200);
    const stale = await cell('alice', 'Badge', { id, field: 'label', value: 'bronze', expect: 'GOLD' });
    expect(stale.status).to.equal(409);
    expect(stale.body.error).to.include({ code: 'STALE_CELL', current: 'SILVER' });
  });

  it('an empty expectation matches an empty cell only', async () => {
    const id = await card({ note: null });
    expect((await cell('alice', 'Card', { id, field: 'note', value: 'a', expect: null })).status).to.equal(200);
    const res = await cell('alice', 'Card', { id, field: 'note', value: 'b', expect: null });
    expect(res.status).to.equal(409);
    expect(res.body.error.current).to.equal('a');
    expect((await cell('alice', 'Card', { id, field: 'note', value: 'b', expect: { $ne: 1 } })).status).to.equal(409);
  });

  it('a paste (update-many rows) refuses the whole block when one pasted-over cell changed, naming it with its value now', async () => {
    const a = await card({ price: 1 });
    const b = await card({ price: 2 });
    expect((await cell('bob', 'Card', { id: b, field: 'price', value: 22, expect: 2 })).status).to.equal(200);
    const res = await post('alice', '/data/modify/Card/update-many', {
      rows: [
        { id: a, values: { price: 100 }, expect: { price: 1 } },
        { id: b, values: { price: 200 }, expect: { price: 2 } },
      ],
    });
    expect(res.status).to.equal(422);
    expect(res.body.error.code).to.equal('BULK_EDIT_FAILED');
    expect(res.body.error.details).to.have.length(1);
    expect(res.body.error.details[0]).to.include({ path: 'rows[1].price', type: 'stale', current: 22 });
    expect(Number((await stored(a)).price)).to.equal(1);
    // An expectation of a field the row does not set is a 400.
    expect((await post('alice', '/data/modify/Card/update-many', { rows: [{ id: a, values: { price: 5 }, expect: { note: 'n' } }] })).status).to.equal(400);
    expect((await post('alice', '/data/modify/Card/update-many', { rows: [{ id: a, values: { price: 5 }, expect: 'x' }] })).status).to.equal(400);
  });
});
