// Issue 19 §2 and §3 from the attacker's side: one password policy on change-pwd (the forced first
// change included), and a token whose user must change the password reaches nothing else.
import { expect } from 'chai';
import Koa from 'koa';
import request from 'supertest';
import { loadConfig, type FwConfig } from '@fw/core';
import { fwErrorHandler } from '@fw/http';
import { createStore, type FwStore } from '@fw/store';
import { describeEachSql } from '@fw/test-utils';
import { FwTokenService, KnexEphemeralStore, KnexTokenStore, MemoryTokenStore } from '@fw/token';
import { fwAuth } from './auth.js';
import { encodePassword } from './client.js';
import { fwLogin } from './fw-login.js';

describeEachSql('fwLogin: the password policy and the forced change (issue 19)', (db) => {
  let store: FwStore;
  let config: FwConfig;
  before(async () => {
    store = await createStore(db().url);
    await store.migrate.latest();
    config = loadConfig({ env: false });
  });
  after(() => store?.destroy());

  let seq = 0;
  /** A fresh account; `settled` users changed their password themselves, the others must change it. */
  async function user(settled: boolean, password = 'first-password-7') {
    const account = `pw-${process.pid}-${Date.now()}-${++seq}`;
    const row = await store.users.create({ account, name: account, password });
    if (settled) await store.users.setPassword(row.id, password);
    return { id: row.id, account, password };
  }

  /** An app with fwLogin and a host route behind fwAuth, its tokens in fw_token (one lookup) or in memory. */
  function app(tokenStore: 'knex' | 'memory' = 'knex') {
    const tokens = new FwTokenService({ store: tokenStore === 'knex' ? new KnexTokenStore({ knex: store.knex }) : new MemoryTokenStore(), config });
    const koa = new Koa();
    koa.silent = true;
    koa.use(fwErrorHandler());
    koa.use(fwLogin({ store, tokens, config, ephemeral: new KnexEphemeralStore({ knex: store.knex }) }));
    const guarded = fwAuth({ tokens, store });
    const lenient = fwAuth({ tokens, store, allowPasswordChange: true });
    koa.use(async (ctx, next) => {
      if (ctx.path === '/host/orders') return guarded(ctx, async () => void (ctx.body = { ok: true }));
      if (ctx.path === '/host/help') return lenient(ctx, async () => void (ctx.body = { must: ctx.state.fw?.mustChangePassword === true }));
      return next();
    });
    return request(koa.callback());
  }

  async function signIn(agent: ReturnType<typeof app>, account: string, password: string): Promise<{ token: string; resetPwd: boolean }> {
    const res = await agent
      .post('/fw-api/login')
      .send({ account, pwd: encodePassword(password) })
      .expect(200);
    return res.body as { token: string; resetPwd: boolean };
  }

  const change = (agent: ReturnType<typeof app>, token: string, pwd: string, newPwd: string) =>
    agent
      .post('/fw-api/change-pwd')
      .set('token', token)
      .send({ pwd: encodePassword(pwd), newPwd: encodePassword(newPwd), newPwd2: encodePassword(newPwd) });

  describe('§2 POST /change-pwd applies the policy', () => {
    it('refuses what the assessment saw accepted (a, abc) and the account name and common passwords, 422 naming newPwd and the rule', async () => {
      const agent = app();
      const forced = await user(false);
      const settled = await user(true);
      for (const who of [forced, settled]) {
        const { token } = await signIn(agent, who.account, who.password);
        for (const [weak, rule] of [
          ['a', 'minLength'],
          ['abc', 'minLength'],
          [who.account, 'notAccount'],
          [`${who.account.toUpperCase()}!`, 'notAccount'],
          ['password123', 'notCommon'],
          ['qwertyuiop', 'notCommon'],
          ['x'.repeat(201), 'maxLength'],
        ] as const) {
          const res = await change(agent, token, who.password, weak).expect(422);
          expect(res.body.error.code, weak).to.equal('PASSWORD_POLICY');
          expect(res.body.error.details.map((d: { path: string; type: string }) => `${d.path}:${d.type}`)).to.include(`newPwd:${rule}`);
        }
        // Nothing changed: the old password still signs in.
        await signIn(agent, who.account, who.password);
      }
    });

    it('accepts a password that passes, and GET /login-settings describes the policy before anyone signs in', async () => {
      const agent = app();
      const who = await user(false);
      const { token } = await signIn(agent, who.account, who.password);
      await change(agent, token, who.password, 'violet-harbour-42').expect(200);
      const settings = await agent.get('/fw-api/login-settings').expect(200);
      expect(settings.body.passwordPolicy).to.deep.equal({ minLength: 10, maxLength: 200, rules: ['minLength', 'maxLength', 'notAccount', 'notCommon'] });
    });
  });

  describe('§3 a user who must change the password reaches only the password change', () => {
    for (const tokenStore of ['knex', 'memory'] as const) {
      it(`refuses every other route with 403 PASSWORD_CHANGE_REQUIRED, then works everywhere after the change (tokens in ${tokenStore})`, async () => {
        const agent = app(tokenStore);
        const who = await user(false);
        const signed = await signIn(agent, who.account, who.password);
        expect(signed.resetPwd).to.equal(true);
        const { token } = signed;
        for (const res of [await agent.get('/host/orders').set('token', token), await agent.get('/fw-api/menu').set('token', token)]) {
          expect(res.status).to.equal(403);
          expect(res.body.error.code).to.equal('PASSWORD_CHANGE_REQUIRED');
        }
        // What the change needs stays open.
        expect((await agent.get('/fw-api/userinfo').set('token', token).expect(200)).body.resetPwd).to.equal(true);
        expect((await agent.get('/host/help').set('token', token).expect(200)).body.must).to.equal(true);
        await agent.get('/fw-api/login-settings').set('token', token).expect(200);
        await change(agent, token, who.password, 'violet-harbour-42').expect(200);
        // The same token, at once, everywhere.
        await agent.get('/host/orders').set('token', token).expect(200);
        await agent.get('/fw-api/menu').set('token', token).expect(200);
        expect((await agent.get('/fw-api/userinfo').set('token', token).expect(200)).body.resetPwd).to.equal(false);
        expect((await agent.get('/host/help').set('token', token).expect(200)).body.must).to.equal(false);
      });
    }

    it('lets such a user sign out', async () => {
      const agent = app();
      const who = await user(false);
      const { token } = await signIn(agent, who.account, who.password);
      await agent.post('/fw-api/logout').set('token', token).expect(200);
      expect((await agent.get('/fw-api/userinfo').set('token', token).expect(401)).body.error.code).to.equal('TOKEN_EXPIRED');
    });

    it('leaves users who changed their password, and users without a local password, alone', async () => {
      const agent = app();
      const who = await user(true);
      const { token, resetPwd } = await signIn(agent, who.account, who.password);
      expect(resetPwd).to.equal(false);
      await agent.get('/host/orders').set('token', token).expect(200);
      const sso = await store.users.create({ account: `sso-${process.pid}-${++seq}`, password: null });
      const tokens = new FwTokenService({ store: new KnexTokenStore({ knex: store.knex }), config });
      const { token: ssoToken } = await tokens.loginToken({ id: sso.id, account: sso.account, name: null, isAdmin: false });
      await agent.get('/host/orders').set('token', ssoToken).expect(200);
    });
  });
});
