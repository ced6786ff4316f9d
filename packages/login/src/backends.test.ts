import { expect } from 'chai';
import Koa from 'koa';
import request from 'supertest';
import { loadConfig } from '@fw/core';
import { createStore, type FwStore } from '@fw/store';
import { describeEachSql } from '@fw/test-utils';
import { FwTokenService, KnexEphemeralStore, KnexTokenStore, hashToken } from '@fw/token';
import { encodePassword } from './client.js';
import { fwAuth } from './auth.js';
import { fwLogin } from './fw-login.js';
import { fwErrorHandler } from '@fw/http';
import type { LoginProxy } from './login-proxy.js';
import { LOGIN_REASONS } from './user-service.js';

describeEachSql('fwLogin with tokens and counters in SQL', (db) => {
  let store: FwStore;
  let instances: Array<ReturnType<typeof request>>;
  let services: FwTokenService[];
  const clock = { now: Date.now() };

  before(async () => {
    store = await createStore(db().url);
    await store.migrate.latest();
    await store.users.create({ account: 'alice', password: 'alice-pass', mustChangePassword: false });
    const config = loadConfig({ env: false, values: { 'fw-app.verifyCodeCount': 2, 'fw-app.loginLockCount': 4 } });
    // Two app instances on one database: what one writes, the other sees.
    services = [];
    instances = [0, 1].map(() => {
      const tokens = new FwTokenService({ store: new KnexTokenStore({ knex: store.knex }), config, now: () => clock.now });
      services.push(tokens);
      const app = new Koa();
      app.use(fwErrorHandler());
      app.use(fwLogin({ store, tokens, config, ephemeral: new KnexEphemeralStore({ knex: store.knex }) }));
      app.use(fwAuth({ tokens, store }));
      app.use((ctx) => {
        ctx.body = { account: ctx.state.fw?.user.account };
      });
      return request(app.callback());
    });
  });
  after(() => store?.destroy());

  const login = (i: number, pwd: string) => instances[i]!.post('/fw-api/login').send({ account: 'alice', pwd: encodePassword(pwd) });

  it('logs in on one instance, is known on the other, and logs out everywhere', async () => {
    const { body } = await login(0, 'alice-pass').expect(200);
    await instances[1]!.get('/me').set('token', body.token).expect(200, { account: 'alice' });
    const [log] = await store.loginLogs.list({ limit: 1 });
    expect(log?.tokenHash).to.equal(hashToken(body.token));
    const raw = await store.knex('fw_token').select('token_hash');
    expect(raw.map((r: { token_hash: string }) => r.token_hash)).to.include(hashToken(body.token));
    expect(JSON.stringify(raw)).to.not.contain(body.token);
    await instances[1]!.get('/fw-api/logout').set('token', body.token).expect(200);
    await instances[0]!.get('/me').set('token', body.token).expect(401);
  });

  it('authenticates with one lookup that still sees a lock, an expiry and a revocation at once', async () => {
    const seen: string[] = [];
    // The session list's "last seen" write (at most one per token per minute, not awaited by the
    // request) is no part of the lookup: only reads are counted.
    const listener = (q: { sql: string }) => void (/last_seen_at/.test(q.sql) || seen.push(q.sql));
    const { body } = await login(0, 'alice-pass').expect(200);
    store.knex.on('query', listener);
    try {
      await instances[1]!.get('/me').set('token', body.token).expect(200, { account: 'alice' });
    } finally {
      store.knex.off('query', listener);
    }
    // SQLite answers from its prepared read-only statement (no knex query at all); servers in one query.
    expect(seen.length).to.be.at.most(1);
    const alice = (await store.users.findByAccount('alice'))!;
    await store.users.update(alice.id, { status: 'locked' });
    expect((await instances[1]!.get('/me').set('token', body.token).expect(401)).body.error.code).to.equal('ACCOUNT_DISABLED');
    await store.users.update(alice.id, { status: 'normal' });
    await instances[1]!.get('/me').set('token', body.token).expect(200);
    clock.now += 121 * 60_000;
    try {
      expect((await instances[1]!.get('/me').set('token', body.token).expect(401)).body.error.code).to.equal('TOKEN_EXPIRED');
    } finally {
      clock.now -= 121 * 60_000;
    }
    await services[0]!.revokeUser(alice.id);
    await instances[1]!.get('/me').set('token', body.token).expect(401);
  });

  it('counts failures across instances: captcha, then lockout', async () => {
    await login(0, 'bad').expect(401);
    expect((await login(1, 'bad').expect(401)).body.useVerifyCode).to.equal(true);
    await login(0, 'bad').expect(401);
    await login(1, 'bad').expect(429);
    const locked = await login(0, 'alice-pass').expect(429);
    expect(Number(locked.headers['retry-after'])).to.be.greaterThan(0);
    const counters = await store.knex('fw_kv').select('key');
    expect(counters.length).to.be.greaterThan(0);
  });
});

describeEachSql('login input a database cannot take, and hooks failing for unexpected reasons', (db) => {
  let store: FwStore;
  let agent: ReturnType<typeof request>;
  let hooked: ReturnType<typeof request>;
  let appId: string;
  const reported: unknown[] = [];

  before(async () => {
    store = await createStore(db().url);
    await store.migrate.latest();
    const alice = await store.users.create({ account: 'alice', password: 'alice-pass', mustChangePassword: false });
    appId = (await store.openApis.create({ name: 'script', userId: alice.id })).record.appId;
    const config = loadConfig({ env: false, values: { 'fw-app.verifyCodeCount': 100, 'fw-app.loginLockCount': 100 } });
    const tokens = new FwTokenService({ store: new KnexTokenStore({ knex: store.knex }), config });
    const build = (proxy?: Partial<LoginProxy>) => {
      const app = new Koa();
      app.silent = true;
      app.on('error', (error: unknown) => reported.push(error));
      app.use(fwErrorHandler());
      app.use(fwLogin({ store, tokens, config, ephemeral: new KnexEphemeralStore({ knex: store.knex }), ...(proxy ? { proxy } : {}) }));
      return request(app.callback());
    };
    agent = build();
    // A hook whose own query fails: the driver's message holds the SQL and the table's name.
    hooked = build({
      async login(account) {
        await store.knex('legacy_members').where('login', account).first('password_hash');
        return (await store.users.findByAccount(account))!;
      },
    });
  });
  after(() => store?.destroy());

  const login = (a: ReturnType<typeof request>, account: string, pwd: string) => a.post('/fw-api/login').send({ account, pwd: encodePassword(pwd) });
  const SQL_WORDS = /select|insert|fw_user|fw_open_api|legacy_members|password_hash|invalid byte|0x00|where/i;

  it('answers a NUL in the account or the password exactly like an unknown account, never with SQL text', async () => {
    const unknown = await login(agent, 'nobody-here', 'alice-pass').expect(401);
    expect(unknown.body).to.deep.equal({ pass: false, reason: LOGIN_REASONS.BAD_CREDENTIALS, useVerifyCode: false });
    for (const [account, pwd] of [
      ['ali\u0000ce', 'alice-pass'],
      ['alice\u0000', 'alice-pass'],
      ['\u0000', 'x'],
      ['alice', 'alice-pass\u0000'],
      ['alice', '\u0000'],
    ] as const) {
      const res = await login(agent, account, pwd);
      expect(res.status, JSON.stringify(account)).to.equal(401);
      expect(res.body).to.deep.equal(unknown.body);
      expect(JSON.stringify(res.body)).to.not.match(SQL_WORDS);
    }
  });

  it('answers a NUL in an open-API app id or secret with a 4xx, never a 500 or SQL text', async () => {
    for (const body of [
      { appId: 'a\u0000b', secret: 'x' },
      { appId: `${appId}\u0000`, secret: 'x' },
      { appId, secret: 'sec\u0000ret' },
    ]) {
      const res = await agent.post('/fw-api/open-api/token').send(body);
      expect([400, 401], JSON.stringify(body)).to.include(res.status);
      expect(res.body.error.code).to.be.oneOf(['BAD_REQUEST', 'UNAUTHENTICATED']);
      expect(JSON.stringify(res.body)).to.not.match(SQL_WORDS);
    }
  });

  it('gives the generic reason when a hook fails on a database error, and reports the error to the app', async () => {
    reported.length = 0;
    const res = await login(hooked, 'alice', 'alice-pass').expect(401);
    expect(res.body).to.deep.equal({ pass: false, reason: LOGIN_REASONS.BAD_CREDENTIALS, useVerifyCode: false });
    expect(reported, 'the real error goes to app.on("error")').to.have.length(1);
    expect(String(reported[0])).to.match(/legacy_members/);
  });
});
