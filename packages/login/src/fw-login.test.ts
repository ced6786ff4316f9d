import { expect } from 'chai';
import Koa from 'koa';
import request from 'supertest';
import { createStore } from '@fw/store';
import { FwDefinitionError, type FwUser } from '@fw/core';
import { MemoryEphemeralStore, hashToken } from '@fw/token';
import { encodePassword } from './client.js';
import { fwLogin } from './fw-login.js';
import { LoginUnavailableError } from './login-failure.js';
import { BaseLoginProxy, FwLogin, type LoginProxy } from './login-proxy.js';
import { currentLoginRequest } from './request-context.js';
import { setup, type LoginFixture } from './test-setup.js';
import { LOGIN_REASONS } from './user-service.js';

const login = (f: LoginFixture, account: string, password: string, extra: Record<string, unknown> = {}) =>
  f.agent.post('/fw-api/login').send({ account, pwd: encodePassword(password), ...extra });

/** Successful sign-ins in the login log (failed ones are rows too since issue 19 §6; see failed-logins.test.ts). */
async function loginLogCount(f: LoginFixture): Promise<number> {
  return (await f.store.loginLogs.list({ success: true, limit: 1000 })).length;
}

/** A custom proxy that records every call, accepting `pwd === 'open-' + account`. */
function recordingProxy(f: () => LoginFixture) {
  const calls: Array<[string, ...unknown[]]> = [];
  const proxy: Partial<LoginProxy> = {
    async login(account, pwd) {
      calls.push(['login', account, pwd, currentLoginRequest()?.body.tenant, currentLoginRequest()?.ip]);
      if (pwd !== `open-${account}`) throw new Error(`directory refused ${account}`);
      const user = await f().store.users.findByAccount(account);
      if (!user) throw new Error('no such directory user');
      return { id: user.id, account: user.account };
    },
    loginSuccess(user, token) {
      calls.push(['loginSuccess', user, token]);
    },
    logout(token) {
      calls.push(['logout', token]);
    },
  };
  return { proxy, calls };
}

describe('fwLogin(options)', () => {
  describe('with the default proxy', () => {
    let f: LoginFixture;
    beforeEach(async () => {
      // Limiter out of the way: these tests are about the credential check itself.
      f = await setup({ config: { 'fw-app.verifyCodeCount': 100, 'fw-app.loginLockCount': 100 } });
    });
    afterEach(() => f.cleanup());

    it('logs in: token, ISO expiry, login log row with the token hash, and the token works', async () => {
      const res = await login(f, 'alice', 'alice-pass').set('User-Agent', 'fw-test/1').expect(200);
      expect(res.body).to.include({ pass: true, useVerifyCode: false, resetPwd: false });
      expect(res.body.token).to.match(/^[A-Za-z0-9]{16}$/);
      const expire = new Date(res.body.expire);
      expect(res.body.expire).to.equal(expire.toISOString());
      expect(expire.getTime() - f.clock.now).to.be.closeTo(120 * 60_000, 5_000);
      const [row] = await f.store.loginLogs.list({ limit: 10 });
      expect(row).to.include({ userId: f.alice.id, account: 'alice', method: 'password', userAgent: 'fw-test/1', tokenHash: hashToken(res.body.token) });
      expect(row!.ip).to.be.a('string').and.not.equal('');
      expect(JSON.stringify(row)).to.not.contain(res.body.token);
      const me = await f.agent.get('/fw-api/userinfo').set('token', res.body.token).expect(200);
      expect(me.body).to.deep.include({ id: f.alice.id, account: 'alice', name: 'Alice', isAdmin: false, resetPwd: false, roles: [] });
    });

    it('fails with the built-in reason, and unknown account and wrong password answer alike', async () => {
      const wrong = await login(f, 'alice', 'nope').expect(401);
      const unknown = await login(f, 'mallory', 'nope').expect(401);
      expect(wrong.body).to.deep.equal({ pass: false, reason: LOGIN_REASONS.BAD_CREDENTIALS, useVerifyCode: false });
      expect(unknown.body).to.deep.equal(wrong.body);
      expect(await loginLogCount(f)).to.equal(0);
    });

    it('refuses look-alike accounts with the generic answer, counted, even when such a row exists', async () => {
      // A row written before the account rule existed (or straight into the table).
      const twin = await f.store.users.create({ account: 'root-twin', password: 'twin-pass', mustChangePassword: false });
      await f.store.knex('fw_user').where('id', twin.id).update({ account: 'root\u200b' });
      const unknown = await login(f, 'nobody', 'twin-pass').expect(401);
      for (const account of ['root\u200b', 'root\u202e', '\u2066root']) expect((await login(f, account, 'twin-pass').expect(401)).body).to.deep.equal(unknown.body);
      expect(await loginLogCount(f)).to.equal(0);
      // Counted like any failure: with verifyCodeCount 1, the next attempt needs a captcha.
      const g = await setup({ config: { 'fw-app.verifyCodeCount': 1 } });
      try {
        await login(g, 'root\u200b', 'x').expect(401);
        expect((await login(g, 'root\u200b', 'x').expect(401)).body.useVerifyCode).to.equal(true);
      } finally {
        await g.cleanup();
      }
    });

    it('normalises the account to NFC before the lookup', async () => {
      await f.store.users.create({ account: 'zoë', password: 'zoe-pass', mustChangePassword: false });
      await login(f, 'zoe\u0308', 'zoe-pass').expect(200);
    });

    it('carries isAdmin from the stored user into the request state', async () => {
      const res = await login(f, 'root', 'root-pass').expect(200);
      const me = await f.agent.get('/private').set('Authorization', `Bearer ${res.body.token}`).expect(200);
      expect(me.body.user).to.include({ account: 'root', isAdmin: true });
    });

    it('reports status, expiry and IP allowlist only after a right password', async () => {
      await f.store.users.update(f.alice.id, { status: 'locked' });
      expect((await login(f, 'alice', 'alice-pass').expect(401)).body.reason).to.equal(LOGIN_REASONS.LOCKED);
      expect((await login(f, 'alice', 'bad').expect(401)).body.reason).to.equal(LOGIN_REASONS.BAD_CREDENTIALS);
      await f.store.users.update(f.alice.id, { status: 'normal', expireDate: new Date(Date.now() - 1000) });
      expect((await login(f, 'alice', 'alice-pass').expect(401)).body.reason).to.equal(LOGIN_REASONS.EXPIRED);
      await f.store.users.update(f.alice.id, { expireDate: null, whiteIp: '10.0.0.0/8' });
      expect((await login(f, 'alice', 'alice-pass').expect(401)).body.reason).to.equal(LOGIN_REASONS.IP_NOT_ALLOWED);
      await f.store.users.update(f.alice.id, { whiteIp: '10.0.0.0/8, 127.0.0.1, ::1' });
      await login(f, 'alice', 'alice-pass').expect(200);
    });
  });

  describe('with a custom proxy', () => {
    let f: LoginFixture;
    let calls: Array<[string, ...unknown[]]>;
    beforeEach(async () => {
      const recording = recordingProxy(() => f);
      calls = recording.calls;
      f = await setup({ login: { proxy: recording.proxy } });
    });
    afterEach(() => f.cleanup());

    it('rule 1: anything the hook throws fails the login with its message as the reason', async () => {
      const res = await login(f, 'alice', 'alice-pass').expect(401);
      expect(res.body).to.deep.equal({ pass: false, reason: 'directory refused alice', useVerifyCode: false });
      expect(await loginLogCount(f)).to.equal(0);
    });

    it('rule 1, deliberate only: an unexpected error (TypeError, driver error) gives the generic reason, never its text', async () => {
      const failures: unknown[] = [
        new TypeError("Cannot read properties of undefined (reading 'dn')"),
        Object.assign(new Error('select "password_hash" from "members" where "login" = $1 - relation "members" does not exist'), { code: '42P01' }),
        new RangeError('Maximum call stack size exceeded'),
        { some: 'object' },
      ];
      for (const thrown of failures) {
        const reported: unknown[] = [];
        const g = await setup({ login: { proxy: { login: () => Promise.reject(thrown) } } });
        g.app.on('error', (error: unknown) => reported.push(error));
        try {
          const res = await login(g, 'alice', 'alice-pass').expect(401);
          expect(res.body).to.deep.equal({ pass: false, reason: LOGIN_REASONS.BAD_CREDENTIALS, useVerifyCode: false });
          expect(reported).to.have.length(1);
          expect(reported[0] === thrown || (reported[0] as Error).cause === thrown).to.equal(true);
        } finally {
          await g.cleanup();
        }
      }
      // Deliberate refusals keep their words: a string, a plain Error, an error marked expose.
      for (const [thrown, reason] of [
        ['Account not in the directory', 'Account not in the directory'],
        [Object.assign(new RangeError('Outside office hours'), { expose: true }), 'Outside office hours'],
      ] as const) {
        const g = await setup({ login: { proxy: { login: () => Promise.reject(thrown) } } });
        try {
          expect((await login(g, 'alice', 'alice-pass').expect(401)).body.reason).to.equal(reason);
        } finally {
          await g.cleanup();
        }
      }
    });

    it('rule 2: the hook receives the plain password and can read extra request parameters', async () => {
      await login(f, 'alice', 'open-alice', { tenant: 'acme' }).expect(200);
      expect(calls[0]).to.deep.equal(['login', 'alice', 'open-alice', 'acme', calls[0]![4]]);
      expect(calls[0]![4]).to.be.a('string').and.not.equal('');
    });

    it('rule 3: a returned user that is not stored fails the login', async () => {
      const g = await setup({ login: { proxy: { login: () => ({ id: 987654, account: 'ghost' }) } } });
      try {
        const res = await login(g, 'ghost', 'x').expect(401);
        expect(res.body.reason).to.equal(LOGIN_REASONS.NOT_STORED);
        expect(await loginLogCount(g)).to.equal(0);
      } finally {
        await g.cleanup();
      }
    });

    it('rule 4: success calls loginSuccess(user, token) and writes the login log', async () => {
      const res = await login(f, 'alice', 'open-alice').expect(200);
      const success = calls.find((c) => c[0] === 'loginSuccess')!;
      expect(success[1]).to.deep.include({ id: f.alice.id, account: 'alice' });
      expect(success[2]).to.equal(res.body.token);
      expect(await loginLogCount(f)).to.equal(1);
      await f.agent.get('/fw-api/userinfo').set('token', res.body.token).expect(200);
    });

    it('rule 5: isAdmin comes from the stored row', async () => {
      const root = (await f.store.users.findByAccount('root'))!;
      const res = await login(f, 'root', 'open-root').expect(200);
      const me = await f.agent.get('/fw-api/userinfo').set('token', res.body.token).expect(200);
      expect(me.body).to.include({ id: root.id, isAdmin: true });
    });

    it('rule 5b: a hook that returns isAdmin: true makes that sign-in an administrator, and only that one', async () => {
      const g = await setup({
        login: {
          proxy: {
            async login(account) {
              const user = (await g.store.users.findByAccount(account))!;
              // The directory's administrators group: alice is in it, root is not.
              return { id: user.id, account, isAdmin: account === 'alice' };
            },
          },
        },
      });
      try {
        const alice = await login(g, 'alice', 'any').expect(200);
        expect((await g.agent.get('/private').set('token', alice.body.token).expect(200)).body.user).to.include({ account: 'alice', isAdmin: true });
        expect((await g.agent.get('/fw-api/userinfo').set('token', alice.body.token).expect(200)).body.isAdmin).to.equal(true);
        expect((await g.store.users.findById(g.alice.id))?.isAdmin).to.equal(false);
        expect((await g.tokens.resolve(alice.body.token))?.admin).to.equal(true);
        // The stored flag still counts when the hook says no: the two are OR-ed.
        const root = await login(g, 'root', 'any').expect(200);
        expect((await g.agent.get('/private').set('token', root.body.token).expect(200)).body.user.isAdmin).to.equal(true);
        expect((await g.tokens.resolve(root.body.token))?.admin).to.equal(false);
      } finally {
        await g.cleanup();
      }
    });

    it('a throwing loginSuccess fails the login and leaves no working token', async () => {
      const g = await setup({
        login: {
          proxy: {
            loginSuccess() {
              throw new Error('audit system down');
            },
          },
        },
      });
      try {
        const res = await login(g, 'alice', 'alice-pass').expect(401);
        expect(res.body.pass).to.equal(false);
        expect(await loginLogCount(g)).to.equal(0);
      } finally {
        await g.cleanup();
      }
    });

    it('logout revokes the token at once and calls the hook', async () => {
      const { body } = await login(f, 'alice', 'open-alice').expect(200);
      await f.agent.get('/fw-api/logout').set('token', body.token).expect(200);
      expect(calls.find((c) => c[0] === 'logout')).to.deep.equal(['logout', body.token]);
      const after = await f.agent.get('/fw-api/userinfo').set('token', body.token).expect(401);
      expect(after.body.error.code).to.equal('TOKEN_EXPIRED');
    });
  });

  describe('when the credential check cannot run (issue 10 §2)', () => {
    /** A limiter store that records every counter written, so "not counted" is seen, not inferred. */
    class CountingStore extends MemoryEphemeralStore {
      increments: string[] = [];
      override async increment(key: string, ttlMs: number): Promise<number> {
        this.increments.push(key);
        return super.increment(key, ttlMs);
      }
    }

    it('answers 503 LOGIN_UNAVAILABLE with Retry-After when the hook throws LoginUnavailableError, counting nothing', async () => {
      const ephemeral = new CountingStore();
      const f = await setup({
        ephemeral,
        login: { proxy: { login: () => Promise.reject(new LoginUnavailableError('The directory cannot be reached', { retryAfter: 30 })) } },
      });
      try {
        // More attempts than verifyCodeCount (2) and loginLockCount (5): none may ask for a captcha or lock.
        for (let i = 0; i < 6; i += 1) {
          const res = await login(f, 'alice', 'alice-pass').expect(503);
          expect(res.headers['retry-after']).to.equal('30');
          expect(res.body).to.deep.equal({ error: { code: 'LOGIN_UNAVAILABLE', message: 'The directory cannot be reached' } });
        }
        expect(ephemeral.increments).to.deep.equal([]);
        expect(await loginLogCount(f)).to.equal(0);
      } finally {
        await f.cleanup();
      }
    });

    it('answers 503 UNAVAILABLE when the hook fails on an unreachable backend of its own, counting nothing', async () => {
      const ephemeral = new CountingStore();
      const refused = Object.assign(new Error('connect ECONNREFUSED 10.0.0.9:5432'), { code: 'ECONNREFUSED' });
      const f = await setup({ ephemeral, login: { proxy: { login: () => Promise.reject(refused) } } });
      try {
        const res = await login(f, 'alice', 'alice-pass').expect(503);
        expect(res.body.error.code).to.equal('UNAVAILABLE');
        expect(res.headers['retry-after']).to.match(/^\d+$/);
        expect(JSON.stringify(res.body)).to.not.contain('10.0.0.9');
        expect(ephemeral.increments).to.deep.equal([]);
      } finally {
        await f.cleanup();
      }
    });

    it('answers 503 when the built-in check cannot reach the database, counting nothing', async () => {
      const f = await setup();
      // The same app, with its users in a database that does not answer (nothing listens on port 1).
      const down = createStore('postgres://postgres@127.0.0.1:1/fw_down');
      const ephemeral = new CountingStore();
      const app = new Koa();
      app.silent = true;
      app.use(fwLogin({ store: down, tokens: f.tokens, ephemeral, config: f.config }));
      try {
        const res = await request(app.callback())
          .post('/fw-api/login')
          .send({ account: 'alice', pwd: encodePassword('alice-pass') })
          .expect(503);
        expect(res.body.error.code).to.equal('UNAVAILABLE');
        expect(res.headers['retry-after']).to.match(/^\d+$/);
        expect(ephemeral.increments).to.deep.equal([]);
      } finally {
        await down.destroy();
        await f.cleanup();
      }
    });
  });

  describe('proxy registration', () => {
    it('accepts a class extending BaseLoginProxy that reuses the built-in check', async () => {
      const seen: string[] = [];
      class Audited extends BaseLoginProxy {
        override async login(account: string, pwd: string): Promise<FwUser> {
          seen.push(account);
          return super.login(account, pwd);
        }
      }
      const f = await setup({ login: { proxy: Audited } });
      try {
        await login(f, 'alice', 'alice-pass').expect(200);
        await login(f, 'alice', 'wrong').expect(401);
        expect(seen).to.deep.equal(['alice', 'alice']);
      } finally {
        await f.cleanup();
      }
    });

    it('reads the proxy from an @FwLogin entry class', async () => {
      @FwLogin({ login: () => Promise.reject(new Error('entry proxy says no')) })
      class Entry {}
      const f = await setup({ login: { entry: Entry } });
      try {
        expect((await login(f, 'alice', 'alice-pass').expect(401)).body.reason).to.equal('entry proxy says no');
      } finally {
        await f.cleanup();
      }
    });

    it('refuses bad options at start-up', async () => {
      const f = await setup();
      try {
        const base = { store: f.store, tokens: f.tokens, ephemeral: f.ephemeral };
        expect(() => fwLogin({ ...base, proxy: { login: 'nope' } as never })).to.throw(FwDefinitionError, /fwLogin\.proxy\.login: must be a function/);
        expect(() => fwLogin({ ...base, ephemeral: undefined as never })).to.throw(FwDefinitionError, /fwLogin\.ephemeral/);
        expect(() => fwLogin({ ...base, entry: class {} })).to.throw(FwDefinitionError, /fwLogin\.entry/);
        expect(() => fwLogin({ ...base, captchaTtlSeconds: -1 })).to.throw(FwDefinitionError, /captchaTtlSeconds/);
      } finally {
        await f.cleanup();
      }
    });
  });

  describe('password transfer encoding', () => {
    it('decodes Base64 three times and URL-decoding when on (the default)', async () => {
      const f = await setup();
      try {
        const tricky = 'p%ss+wörd 100%';
        await f.store.users.setPassword(f.alice.id, tricky);
        await f.agent
          .post('/fw-api/login')
          .send({ account: 'alice', pwd: encodePassword(tricky) })
          .expect(200);
        // The plain password is not accepted while the encoding is on.
        await f.agent.post('/fw-api/login').send({ account: 'alice', pwd: tricky }).expect(400);
      } finally {
        await f.cleanup();
      }
    });

    it('passes pwd through untouched when fw-app.pwdTransferEncrypt is false', async () => {
      const f = await setup({ config: { 'fw-app.pwdTransferEncrypt': false } });
      try {
        await f.agent.post('/fw-api/login').send({ account: 'alice', pwd: 'alice-pass' }).expect(200);
        await f.agent
          .post('/fw-api/login')
          .send({ account: 'alice', pwd: encodePassword('alice-pass') })
          .expect(401);
      } finally {
        await f.cleanup();
      }
    });

    it('answers 400 for an undecodable pwd, counting nothing', async () => {
      const f = await setup();
      try {
        for (const pwd of ['not base64!', Buffer.from('%E0%A4%A').toString('base64'), btoa(btoa(btoa('%zz')))]) {
          const res = await f.agent.post('/fw-api/login').send({ account: 'alice', pwd }).expect(400);
          expect(res.body.error.code).to.equal('PASSWORD_ENCODING_INVALID');
        }
        const res = await login(f, 'alice', 'wrong').expect(401);
        expect(res.body.useVerifyCode).to.equal(false);
      } finally {
        await f.cleanup();
      }
    });
  });
});
