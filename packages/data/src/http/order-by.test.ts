import { expect } from 'chai';
import Koa from 'koa';
import request from 'supertest';
import { BUILTIN_MODELS, FwDefinitionError, createRegistry, defineModel } from '@fw/core';
import { createStore, type FwStore } from '@fw/store';
import { describeEachSql } from '@fw/test-utils';
import { FwTokenService, MemoryTokenStore } from '@fw/token';
import { fwData } from './router.js';

const api = '/fw-api';

// Issue 20 §5: a model's default sort, applied when a table query names none.
const Entry = defineModel({
  name: 'Entry',
  table: 'ob_entry',
  orderBy: [{ field: 'created', order: 'desc' }, { field: 'title' }],
  fields: { title: {}, created: { edit: { type: 'DATETIME' } } },
});

describe('defineModel({ orderBy })', () => {
  it('fills in the order and keeps an empty default for models without one', () => {
    expect(Entry.orderBy).to.deep.equal([
      { field: 'created', order: 'desc' },
      { field: 'title', order: 'asc' },
    ]);
    expect(defineModel({ name: 'Plain', fields: { a: {} } }).orderBy).to.deep.equal([]);
  });

  it('refuses unknown, unsortable and repeated fields and bad orders at definition time', () => {
    const cases: Array<[unknown, string]> = [
      ['-created', 'M.orderBy'],
      [[{ field: 'nope' }], 'M.orderBy[0].field'],
      [[{ field: 'secret' }], 'M.orderBy[0].field'],
      [[{ field: 'a', order: 'down' }], 'M.orderBy[0].order'],
      [[{ field: 'a' }, { field: 'a', order: 'desc' }], 'M.orderBy[1].field'],
      [[{ field: 'a', direction: 'desc' }], 'M.orderBy[0].direction'],
      [[{ field: 'a' }, { field: 'b' }, { field: 'c' }, { field: 'd' }, { field: 'e' }, { field: 'f' }], 'M.orderBy'],
    ];
    const fields = { a: {}, b: {}, c: {}, d: {}, e: {}, f: {}, secret: { edit: { type: 'PASSWORD' as const } } };
    for (const [orderBy, key] of cases) {
      expect(() => defineModel({ name: 'M', fields, orderBy: orderBy as never }), JSON.stringify(orderBy))
        .to.throw(FwDefinitionError)
        .with.property('key', key);
    }
  });
});

describeEachSql('table queries: the model’s default sort (issue 20 §5)', (db) => {
  let store: FwStore;
  let agent: ReturnType<typeof request>;
  let token: string;

  before(async () => {
    store = createStore(db().url);
    await store.migrate.latest();
    const registry = createRegistry([...BUILTIN_MODELS, Entry]);
    await store.createModelTables([Entry]);
    await store.knex('ob_entry').del();
    const day = (d: number) => new Date(Date.UTC(2026, 0, d));
    // Inserted out of order; two share a time, so the second key decides between them.
    for (const [title, d] of [['b', 2], ['c', 5], ['a', 3], ['d', 5]] as const) await store.knex('ob_entry').insert({ title, created: day(d) });
    const admin = await store.users.create({ account: `ob-admin-${Date.now().toString(36)}`, password: 'x-password-1', isAdmin: true, mustChangePassword: false });
    const tokens = new FwTokenService({ store: new MemoryTokenStore() });
    token = (await tokens.loginToken({ id: admin.id, account: admin.account, name: null, isAdmin: true }, tokens.generateToken())).token;
    const app = new Koa();
    app.silent = true;
    app.use(fwData({ store, tokens, registry }));
    agent = request(app.callback());
  });
  after(() => store?.destroy());

  const titles = async (body: object) => ((await agent.post(`${api}/data/table/Entry`).set('token', token).send(body).expect(200)).body.rows as Array<{ title: string }>).map((r) => r.title);

  it('sorts by orderBy when the query names no sort, and by the query’s own sort otherwise', async () => {
    expect(await titles({})).to.deep.equal(['c', 'd', 'a', 'b']);
    expect(await titles({ sort: [] })).to.deep.equal(['c', 'd', 'a', 'b']);
    expect(await titles({ sort: [{ field: 'title', order: 'asc' }] })).to.deep.equal(['a', 'b', 'c', 'd']);
    expect(await titles({ sort: 'created' })).to.deep.equal(['b', 'a', 'c', 'd']);
    // Pages follow the same order.
    expect(await titles({ page: 2, size: 2 })).to.deep.equal(['a', 'b']);
  });

  it('describes the default sort in the build schema, for the UI to show', async () => {
    const res = await agent.get(`${api}/build/Entry`).set('token', token).expect(200);
    const view = (res.body.model ?? res.body) as { orderBy: unknown };
    expect(view.orderBy).to.deep.equal([
      { field: 'created', order: 'desc' },
      { field: 'title', order: 'asc' },
    ]);
  });

  it('lists the login log and the operate log newest first', async () => {
    const at = (m: number) => new Date(Date.UTC(2026, 1, 1, 0, m));
    await store.knex('fw_login_log').del();
    await store.knex('fw_operate_log').del();
    for (const m of [1, 30, 10]) await store.loginLogs.insert({ userId: null, account: `acct-${m}`, method: 'password', loginTime: at(m) });
    for (const m of [5, 50, 20]) await store.operateLogs.insert({ model: 'Entry', action: `act-${m}`, status: 'success', createdAt: at(m) });
    const logins = await agent.post(`${api}/data/table/FwLoginLog`).set('token', token).send({}).expect(200);
    expect(logins.body.rows.map((r: { account: string }) => r.account)).to.deep.equal(['acct-30', 'acct-10', 'acct-1']);
    const ops = await agent.post(`${api}/data/table/FwOperateLog`).set('token', token).send({}).expect(200);
    expect(ops.body.rows.map((r: { action: string }) => r.action)).to.deep.equal(['act-50', 'act-20', 'act-5']);
  });
});
