// Issue 22 §4: one toFwUser reads fw_user.is_admin on every dialect (0 / 1 on SQLite and
// MariaDB, booleans on PostgreSQL), on the password path and on every authenticated request.
import { expect } from 'chai';
import Koa from 'koa';
import request from 'supertest';
import { loadConfig, toFwUser } from '@fw/core';
import { fwErrorHandler } from '@fw/http';
import { createStore, type FwStore } from '@fw/store';
import { describeEachSql } from '@fw/test-utils';
import { FwTokenService, KnexTokenStore, MemoryEphemeralStore } from '@fw/token';
import { encodePassword } from './client.js';
import { loginFlows, type LoginFlows } from './flows/login-flows.js';
import { fwLogin } from './fw-login.js';

describeEachSql('the administrator flag through the password path', (db) => {
  let store: FwStore;
  let flows: LoginFlows;
  let agent: ReturnType<typeof request>;

  before(async () => {
    store = createStore(db().url);
    await store.migrate.latest();
    await store.users.create({ account: 'root', password: 'root-pass', isAdmin: true, mustChangePassword: false });
    await store.users.create({ account: 'alice', password: 'alice-pass', mustChangePassword: false });
    const config = loadConfig({ env: false, values: { 'fw-app.verifyCodeCount': 100, 'fw-app.loginLockCount': 100 } });
    const tokens = new FwTokenService({ store: new KnexTokenStore({ knex: store.knex }), config });
    const ephemeral = new MemoryEphemeralStore();
    flows = loginFlows({ store, tokens, ephemeral, config });
    const app = new Koa();
    app.silent = true;
    app.use(fwErrorHandler());
    app.use(fwLogin({ store, tokens, ephemeral, config }));
    agent = request(app.callback());
  });
  after(() => store?.destroy());

  it("reads the raw column's value of this dialect as the right flag", async () => {
    const rows: Array<{ id: number; account: string; is_admin: boolean | number }> = await store.knex('fw_user').select('id', 'account', 'is_admin').orderBy('account');
    const flags = rows.map((raw) => toFwUser({ id: raw.id, account: raw.account, status: 'normal', isAdmin: raw.is_admin }).isAdmin);
    expect(rows.map((r) => r.account)).to.deep.equal(['alice', 'root']);
    expect(flags).to.deep.equal([false, true]);
  });

  for (const [account, admin] of [
    ['root', true],
    ['alice', false],
  ] as const) {
    it(`signs ${account} in as ${admin ? 'an administrator' : 'a non-administrator'}: the flow's user and the token's userinfo`, async () => {
      const outcome = await flows.passwordSignIn({ account, pwd: encodePassword(`${account}-pass`) }, { ip: '10.0.0.7', userAgent: null });
      if (!outcome.ok) throw new Error(`refused: ${outcome.reason}`);
      expect(outcome.user.isAdmin).to.equal(admin);
      const res = await agent
        .post('/fw-api/login')
        .send({ account, pwd: encodePassword(`${account}-pass`) })
        .expect(200);
      const me = await agent
        .get('/fw-api/userinfo')
        .set('token', res.body.token as string)
        .expect(200);
      expect(me.body.isAdmin).to.equal(admin);
    });
  }
});
