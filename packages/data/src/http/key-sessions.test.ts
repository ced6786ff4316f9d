import { expect } from 'chai';
import Koa from 'koa';
import request from 'supertest';
import { BUILTIN_MODELS, createRegistry, type FwUser } from '@fw/core';
import { encodePassword, fwLogin } from '@fw/login';
import { createStore, type FwStore } from '@fw/store';
import { createTestDatabase, describeEachSql, describeRedis, sqlBackends, type TestDatabase } from '@fw/test-utils';
import { FwTokenService, KnexTokenStore, MemoryEphemeralStore, RedisTokenStore, type TokenStore } from '@fw/token';
import { fwData } from './router.js';

const api = '/fw-api';

/**
 * An open-API key's secret is a password of the key's user: the tokens exchanged with it must end
 * when the key stops standing for that user as it did (new secret, locked, expired, moved,
 * deleted), as a user's tokens end with their password (issue 10 §3, a variant the first fix missed).
 */
function keySessionSuite(setup: () => { url: string; tokenStore: (store: FwStore) => TokenStore }): void {
  let store: FwStore;
  let agent: ReturnType<typeof request>;
  let adminToken: string;
  let carol: FwUser;
  let erin: FwUser;
  const stamp = Date.now().toString(36);
  const secret = 'carol-secret-0123456789';

  const as = (token: string) => ({ post: (path: string, body: unknown) => agent.post(`${api}${path}`).set('token', token).send(body as object) });
  const alive = async (token: string) => (await agent.get(`${api}/userinfo`).set('token', token)).status;
  const exchange = async (appId: string, with_ = secret): Promise<string> => {
    const res = await agent.post(`${api}/open-api/token`).send({ appId, secret: with_ });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    return res.body.token as string;
  };
  const newKey = async (): Promise<{ id: number; appId: string }> => {
    const res = await as(adminToken).post('/data/modify/FwOpenApi', { name: 'carol key', secret, userId: carol.id });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    return { id: res.body.id as number, appId: res.body.appId as string };
  };
  const change = async (id: number, values: Record<string, unknown>) => {
    const res = await as(adminToken).post('/data/modify/FwOpenApi/update', { id, ...values });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
  };

  before(async () => {
    const { url, tokenStore } = setup();
    store = createStore(url);
    await store.migrate.latest();
    const registry = createRegistry([...BUILTIN_MODELS]);
    const tokens = new FwTokenService({ store: tokenStore(store) });
    const app = new Koa();
    app.silent = true;
    app.use(fwLogin({ store, tokens, ephemeral: new MemoryEphemeralStore() }));
    app.use(fwData({ store, tokens, registry, onBackgroundError: (e) => { throw e; } }));
    agent = request(app.callback());
    await store.users.create({ account: `admin-${stamp}`, password: 'admin-password-1', isAdmin: true, mustChangePassword: false });
    const c = await store.users.create({ account: `carol-${stamp}`, password: 'carol-password-1', mustChangePassword: false });
    const e = await store.users.create({ account: `erin-${stamp}`, password: 'erin-password-1', mustChangePassword: false });
    carol = { id: c.id, account: c.account, name: null, isAdmin: false };
    erin = { id: e.id, account: e.account, name: null, isAdmin: false };
    adminToken = (await agent.post(`${api}/login`).send({ account: `admin-${stamp}`, pwd: encodePassword('admin-password-1') })).body.token;
  });
  after(() => store?.destroy());

  it('a new secret ends the tokens exchanged with the old one', async () => {
    const key = await newKey();
    const stolen = await exchange(key.appId);
    await change(key.id, { secret: 'carol-secret-rotated-987' });
    expect(await alive(stolen)).to.equal(401);
    expect(await alive(await exchange(key.appId, 'carol-secret-rotated-987'))).to.equal(200);
  });

  it('locking, expiring, moving or deleting the key ends its tokens; renaming it does not', async () => {
    const key = await newKey();
    let token = await exchange(key.appId);
    await change(key.id, { name: 'renamed' });
    expect(await alive(token)).to.equal(200);

    await change(key.id, { status: 'locked' });
    expect(await alive(token)).to.equal(401);
    await change(key.id, { status: 'normal' });

    token = await exchange(key.appId);
    await change(key.id, { expireDate: '2001-01-01T00:00:00.000Z' });
    expect(await alive(token)).to.equal(401);
    await change(key.id, { expireDate: null });

    token = await exchange(key.appId);
    await change(key.id, { userId: erin.id });
    expect(await alive(token)).to.equal(401);
    await change(key.id, { userId: carol.id });

    token = await exchange(key.appId);
    const res = await as(adminToken).post('/data/modify/FwOpenApi/delete', { ids: [key.id] });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect(await alive(token)).to.equal(401);
  });

  it('the user’s other sessions, and other keys’ tokens, are left alone', async () => {
    const one = await newKey();
    const other = await newKey();
    const own = (await agent.post(`${api}/login`).send({ account: carol.account, pwd: encodePassword('carol-password-1') })).body.token as string;
    const viaOther = await exchange(other.appId);
    await change(one.id, { secret: 'carol-secret-rotated-654' });
    expect(await alive(own)).to.equal(200);
    expect(await alive(viaOther)).to.equal(200);
  });
}

describeEachSql('open-API key tokens end with the key (knex token store)', (db) => {
  keySessionSuite(() => ({ url: db().url, tokenStore: (store) => new KnexTokenStore({ knex: store.knex }) }));
});

describeRedis('open-API key tokens end with the key (Redis token store)', (ns) => {
  let database: TestDatabase | undefined;
  before(async () => {
    database = await createTestDatabase(sqlBackends()[0]!);
  });
  after(async () => database?.drop());
  keySessionSuite(() => ({ url: database!.url, tokenStore: () => new RedisTokenStore({ redis: ns().redis, prefix: ns().prefix }) }));
});
