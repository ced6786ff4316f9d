import { randomBytes, randomInt } from 'node:crypto';
import { expect } from 'chai';
import Koa from 'koa';
import request from 'supertest';
import { FwDefinitionError, LOGIN_FAILURE_REASON, loadConfig, type FwUser } from '@fw/core';
import { fwErrorHandler } from '@fw/http';
import { createStore, type FwLoginLogRecord, type FwStore } from '@fw/store';
import { createTestDatabase, describeEachSql } from '@fw/test-utils';
import { FwTokenService, KnexEphemeralStore, MemoryEphemeralStore, MemoryTokenStore, type EphemeralStore } from '@fw/token';
import { encodePassword } from './client.js';
import { FailedLoginLog, type FailedLoginLogOptions } from './failed-logins.js';
import { fwLogin } from './fw-login.js';
import type { LoginProxy } from './login-proxy.js';
import { LOGIN_REASONS } from './user-service.js';

// Issue 19 §6: failed sign-ins are recorded in the login log (account as typed, reason class, IP,
// user agent, time), with rate-limited writes so a flood cannot fill the disk.

describeEachSql('fwLogin: failed sign-ins in the login log', (db) => {
  let store: FwStore;
  let alice: { id: number; account: string };

  before(async () => {
    store = await createStore(db().url);
    await store.migrate.latest();
    const row = await store.users.create({ account: 'alice', name: 'Alice', password: 'alice-pass' });
    alice = { id: row.id, account: row.account };
  });
  after(() => store?.destroy());
  beforeEach(async () => {
    await store.knex('fw_login_log').delete();
    await store.users.update(alice.id, { status: 'normal', expireDate: null, whiteIp: null });
  });

  /** A fresh app (own counters) on the shared database; `app.proxy` so each test picks its client address. */
  function setup(options: { config?: Record<string, unknown>; proxy?: Partial<LoginProxy>; ephemeral?: EphemeralStore; failedLogins?: FailedLoginLog } = {}) {
    const config = loadConfig({
      env: false,
      values: { 'fw-app.verifyCodeCount': 100, 'fw-app.loginLockCount': 100, 'fw-app.loginIpLockCount': 1000, 'fw-app.failedLoginLogIpPerMinute': 1000, ...options.config },
    });
    const tokens = new FwTokenService({ store: new MemoryTokenStore(), config });
    const ephemeral = options.ephemeral ?? new MemoryEphemeralStore();
    const reported: Error[] = [];
    const app = new Koa();
    app.proxy = true;
    app.silent = true;
    app.on('error', (error: Error) => reported.push(error));
    app.use(fwErrorHandler());
    app.use(
      fwLogin({ store, tokens, config, ephemeral, ...(options.proxy ? { proxy: options.proxy } : {}), ...(options.failedLogins ? { failedLogins: options.failedLogins } : {}) }),
    );
    const agent = request(app.callback());
    const login = (account: string, pwd: string, ip = '203.0.113.7', extra: Record<string, unknown> = {}) =>
      agent
        .post('/fw-api/login')
        .set('X-Forwarded-For', ip)
        .set('User-Agent', 'probe/1.0')
        .send({ account, pwd: encodePassword(pwd), ...extra });
    return { agent, login, reported, config, ephemeral };
  }

  const failures = async (): Promise<FwLoginLogRecord[]> => store.loginLogs.list({ success: false, limit: 10_000 });

  it('writes a row for a failed login, which it did not before issue 19 (raw table read)', async () => {
    const { login } = setup();
    await login('alice', 'wrong-pass').expect(401);
    await login('nobody', 'wrong-pass').expect(401);
    const rows: Array<Record<string, unknown>> = await store.knex('fw_login_log').select('*').orderBy('id');
    expect(rows, 'one row per failed login').to.have.length(2);
  });

  it('records the account as typed, the reason class, IP, user agent, time, and the user id when the account exists', async () => {
    const { login } = setup();
    const before = Date.now();
    await login('alice', 'wrong-pass', '198.51.100.1').expect(401);
    await login('nobody', 'wrong-pass', '198.51.100.2').expect(401);
    const [unknown, wrong] = await failures();
    expect(wrong).to.include({
      userId: alice.id,
      account: 'alice',
      accountTyped: 'alice',
      success: false,
      reason: 'bad-credentials',
      ip: '198.51.100.1',
      userAgent: 'probe/1.0',
      method: 'password',
      tokenHash: null,
      attempts: 1,
    });
    expect(unknown).to.include({ userId: null, account: 'nobody', accountTyped: 'nobody', success: false, reason: 'bad-credentials', ip: '198.51.100.2', method: 'password' });
    expect(wrong!.loginTime.getTime()).to.be.within(before - 1000, Date.now() + 1000);
    // Successes stay what they were: no reason, success true.
    await login('alice', 'alice-pass', '198.51.100.3').expect(200);
    const [success] = await store.loginLogs.list({ success: true, limit: 1 });
    expect(success).to.include({ userId: alice.id, success: true, reason: null, attempts: 1 });
  });

  it('answers an unknown account and a wrong password alike, and a failing log write changes nothing', async () => {
    const { login } = setup();
    const wrong = await login('alice', 'wrong-pass', '198.51.100.4').expect(401);
    const unknown = await login('nobody', 'wrong-pass', '198.51.100.5').expect(401);
    expect(unknown.body).to.deep.equal(wrong.body);
    expect(Object.keys(unknown.headers).sort()).to.deep.equal(Object.keys(wrong.headers).sort());

    // The log write fails (a database hiccup on that one insert): same answer, the error goes to the app.
    const failing: FwStore = { ...store, loginLogs: { ...store.loginLogs, insert: () => Promise.reject(new Error('disk full')) } };
    const broken = setup({ failedLogins: new FailedLoginLog({ store: failing, ephemeral: new MemoryEphemeralStore() }) });
    const res = await broken.login('alice', 'wrong-pass', '198.51.100.6').expect(401);
    expect(res.body).to.deep.equal(wrong.body);
    expect(broken.reported.map((e) => e.message)).to.deep.equal(['disk full']);
  });

  it('classes each refusal: locked, expired, address, captcha, throttled', async () => {
    const { login } = setup();
    await store.users.update(alice.id, { status: 'locked' });
    await login('alice', 'alice-pass', '192.0.2.1').expect(401);
    await store.users.update(alice.id, { status: 'normal', expireDate: new Date(Date.now() - 60_000) });
    await login('alice', 'alice-pass', '192.0.2.2').expect(401);
    await store.users.update(alice.id, { expireDate: null, whiteIp: '10.0.0.0/8' });
    await login('alice', 'alice-pass', '192.0.2.3').expect(401);
    const captcha = setup({ config: { 'fw-app.verifyCodeCount': 0 } });
    await captcha.login('alice', 'alice-pass', '192.0.2.4').expect(401);
    await captcha.login('alice', 'alice-pass', '192.0.2.4', { verifyCode: 'ABCD', verifyCodeMark: 'mark-of-nothing' }).expect(401);
    const throttled = setup({ config: { 'fw-app.loginLockCount': 1 } });
    await throttled.login('nobody', 'x-pass', '192.0.2.5').expect(429);
    await throttled.login('nobody', 'x-pass', '192.0.2.5').expect(429);
    const rows = (await failures()).reverse();
    expect(rows.map((r) => [r.reason, r.userId])).to.deep.equal([
      ['locked', alice.id],
      ['expired', alice.id],
      ['ip-not-allowed', alice.id],
      ['captcha', alice.id],
      ['captcha', alice.id],
      // The attempt that reached the lock is a wrong password; the next one is refused unchecked.
      ['bad-credentials', null],
      ['throttled', null],
    ]);
  });

  it('classes what a login hook did without keeping its text: refusal, error, no stored user, loginSuccess refusing', async () => {
    const echo = setup({
      proxy: {
        login(account: string, pwd: string): FwUser {
          if (account === 'refuse') throw new Error(`LDAP says no to ${account} with ${pwd}`);
          if (account === 'crash') throw new TypeError(`cannot read ${pwd}`);
          return { id: 987_654, account };
        },
      },
    });
    const refused = await echo.login('refuse', 'hunter2-secret', '192.0.2.10').expect(401);
    // The client still gets the hook's text (the login-hook rule); the log keeps only the class.
    expect(refused.body.reason).to.contain('hunter2-secret');
    await echo.login('crash', 'hunter2-secret', '192.0.2.10').expect(401);
    await echo.login('ghost', 'hunter2-secret', '192.0.2.10').expect(401);
    const after = setup({
      proxy: {
        loginSuccess() {
          throw new Error('not today');
        },
      },
    });
    await after.login('alice', 'alice-pass', '192.0.2.11').expect(401);
    const rows = (await failures()).reverse();
    expect(rows.map((r) => [r.reason, r.accountTyped, r.userId])).to.deep.equal([
      ['refused-by-hook', 'refuse', null],
      ['hook-error', 'crash', null],
      ['not-stored', 'ghost', null],
      ['refused-by-hook', 'alice', alice.id],
    ]);
    expect(JSON.stringify(rows)).to.not.contain('hunter2').and.not.contain('LDAP').and.not.contain('not today');
  });

  it('never writes the password into a row, whatever is typed (random accounts and passwords, a hook that echoes them)', async () => {
    const { login } = setup({
      proxy: {
        async login(account: string, pwd: string): Promise<FwUser> {
          // Half the attempts meet a hook that puts the password into its refusal and its errors.
          if (pwd.length % 2 === 0) throw new Error(`wrong password ${pwd} for ${account}`);
          if (pwd.length % 3 === 0) throw new RangeError(`${pwd}`);
          throw LOGIN_REASONS.BAD_CREDENTIALS;
        },
      },
    });
    const pick = (alphabet: string[], n: number) => Array.from({ length: n }, () => alphabet[randomInt(alphabet.length)]!).join('');
    const letters = [...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789!"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}~ ', ...'éßøΩж中文🔑\u200b\u202e\u0007\t\n'];
    const passwords: string[] = [];
    const tags: string[] = [];
    for (let i = 0; i < 40; i++) {
      // A random tag in every password: found in a row even if the row's cleaning changed the rest.
      const tag = randomBytes(6).toString('hex');
      const pwd = `${pick(letters, randomInt(30))}${tag}${pick(letters, randomInt(10))}`;
      passwords.push(pwd);
      tags.push(tag);
      // At most 60 code points of at most two code units: within the 128 the login body takes.
      const account = i % 4 === 0 ? 'alice' : pick(letters, 1 + randomInt(60)).trim() || 'x';
      const res = await login(account, pwd, `192.0.2.${20 + (i % 200)}`);
      expect(res.status, JSON.stringify(res.body)).to.equal(401);
    }
    const rows = await store.knex('fw_login_log').select('*');
    expect(rows).to.have.length(40);
    const values = rows.flatMap((row: Record<string, unknown>) => Object.values(row).filter((v): v is string => typeof v === 'string'));
    for (const [i, pwd] of passwords.entries()) {
      const leak = values.find((v) => v.includes(pwd) || v.includes(tags[i]!));
      expect(leak, `password ${JSON.stringify(pwd)} in a row`).to.equal(undefined);
    }
    for (const row of rows) expect(row.reason).to.be.oneOf(Object.values(LOGIN_FAILURE_REASON));
  });

  it('cleans the account as typed: NFC, unprintable characters shown as U+FFFD, at most 128 characters', async () => {
    const { login } = setup();
    await login('e\u0301lise', 'x-pass-1').expect(401);
    await login('admin\u200b', 'x-pass-1').expect(401);
    await login('ad\u0000min\u001b[31m', 'x-pass-1').expect(401);
    await login(`${'🔑'.repeat(63)}ab`, 'x-pass-1').expect(401);
    await login('z'.repeat(128), 'x-pass-1').expect(401);
    const rows = (await failures()).reverse();
    expect(rows.map((r) => r.accountTyped)).to.deep.equal(['élise', 'admin\ufffd', 'ad\ufffdmin\ufffd[31m', `${'🔑'.repeat(63)}ab`, 'z'.repeat(128)]);
    expect(rows[3]!.account).to.equal('🔑'.repeat(32), 'the account column keeps 64 code units, never half a pair');
    expect(rows[4]!.account).to.equal('z'.repeat(64));
  });

  it('records failed open-API token exchanges, the app id as the account typed', async () => {
    const { agent } = setup();
    const key = await store.openApis.create({ name: 'script', userId: alice.id });
    await agent.post('/fw-api/open-api/token').set('X-Forwarded-For', '192.0.2.30').send({ appId: 'no-such-app', secret: 'guess-guess-guess' }).expect(401);
    await agent.post('/fw-api/open-api/token').set('X-Forwarded-For', '192.0.2.30').send({ appId: key.record.appId, secret: 'guess-guess-guess' }).expect(401);
    await store.users.update(alice.id, { status: 'locked' });
    await agent.post('/fw-api/open-api/token').set('X-Forwarded-For', '192.0.2.30').send({ appId: key.record.appId, secret: key.secret }).expect(401);
    const rows = (await failures()).reverse();
    expect(rows.map((r) => [r.method, r.accountTyped, r.reason, r.userId])).to.deep.equal([
      ['open-api', 'no-such-app', 'bad-credentials', null],
      ['open-api', key.record.appId, 'bad-credentials', null],
      ['open-api', key.record.appId, 'locked', alice.id],
    ]);
    expect(JSON.stringify(rows)).to.not.contain('guess-guess').and.not.contain(key.secret);
  });

  it('a flood from one address writes at most the per-address cap, and counts the rest into one summary row', async () => {
    const failedLogins = new FailedLoginLog({
      store,
      ephemeral: new MemoryEphemeralStore(),
      config: loadConfig({ env: false, values: { 'fw-app.failedLoginLogIpPerMinute': 3 } }),
    });
    const { login } = setup({ config: { 'fw-app.loginIpLockCount': 10 }, failedLogins });
    for (let i = 0; i < 40; i++) await login(`user${i}`, 'wrong-pass', '192.0.2.40');
    // Another address still gets its failures written.
    await login('alice', 'wrong-pass', '192.0.2.41').expect(401);
    expect((await failures()).map((r) => r.ip)).to.deep.equal(['192.0.2.41', '192.0.2.40', '192.0.2.40', '192.0.2.40']);
    await failedLogins.flush();
    // The summary is dated when its window began, before the last row: found by its class.
    const summary = (await failures()).find((r) => r.reason === 'rate-limited');
    expect(summary).to.include({ reason: 'rate-limited', attempts: 37, ip: '192.0.2.40', account: '*', userId: null, success: false });
    await failedLogins.flush();
    expect(await failures(), 'flushing twice writes no second summary').to.have.length(5);
  });

  it('a flood over many addresses and accounts, on two instances, writes at most the global cap', async function () {
    this.timeout(120_000);
    // Two instances sharing the database's counters (fw_kv), as a scaled-out deployment would.
    const config = loadConfig({ env: false, values: { 'fw-app.failedLoginLogIpPerMinute': 5, 'fw-app.failedLoginLogPerMinute': 12 } });
    const logs = [0, 1].map(() => new FailedLoginLog({ store, ephemeral: new KnexEphemeralStore({ knex: store.knex }), config }));
    const apps = logs.map((failedLogins) => setup({ failedLogins, ephemeral: new KnexEphemeralStore({ knex: store.knex }) }));
    await store.knex('fw_kv').delete();
    const sent = 60;
    // Ten at a time, from 30 addresses and 60 accounts: the counters must hold under concurrency.
    for (let i = 0; i < sent; i += 10) {
      await Promise.all(Array.from({ length: 10 }, (_, j) => apps[(i + j) % 2]!.login(`acct${i + j}`, 'wrong-pass', `198.18.0.${(i + j) % 30}`).expect(401)));
    }
    const written = await failures();
    expect(written).to.have.length(12);
    await Promise.all(logs.map((l) => l.flush()));
    const summaries = (await failures()).filter((r) => r.reason === 'rate-limited');
    expect(summaries.length).to.be.within(1, 2);
    expect(summaries.reduce((n, r) => n + r.attempts, 0)).to.equal(sent - 12);
    await store.knex('fw_kv').delete();
  });

  it('a bounded flood of 10,000 failed attempts from one address writes at most the cap plus one summary', async function () {
    this.timeout(120_000);
    const log = new FailedLoginLog({
      store,
      ephemeral: new KnexEphemeralStore({ knex: store.knex }),
      config: loadConfig({ env: false, values: { 'fw-app.failedLoginLogIpPerMinute': 10 } }),
      // One window for the whole flood: on a busy machine it took over a minute and a second
      // window's cap was written too (20 rows), which is right for two windows but not what is tested.
      windowMs: 600_000,
    });
    await store.knex('fw_kv').delete();
    const outcomes = { written: 0, counted: 0, off: 0 };
    for (let i = 0; i < 10_000; i += 100) {
      const batch = await Promise.all(
        Array.from({ length: 100 }, (_, j) =>
          log.record({ account: `victim${i + j}`, reason: 'bad-credentials', method: 'password', ip: '203.0.113.99', userAgent: 'flood/1' }, (e) => {
            throw e;
          }),
        ),
      );
      for (const outcome of batch) outcomes[outcome] += 1;
    }
    await log.flush();
    expect(outcomes).to.deep.equal({ written: 10, counted: 9_990, off: 0 });
    const rows = await failures();
    expect(rows).to.have.length(11);
    expect(rows.find((r) => r.reason === 'rate-limited')?.attempts).to.equal(9_990);
    await store.knex('fw_kv').delete();
  });
});

describe('new FailedLoginLog(options)', () => {
  async function setup() {
    const db = await createTestDatabase({ dialect: 'sqlite', label: 'SQLite' });
    const store = await createStore(db.url);
    await store.migrate.latest();
    return { store, cleanup: async () => (await store.destroy(), await db.drop()) };
  }

  it('refuses a missing store or ephemeral store and a bad window at start-up', async () => {
    const { store, cleanup } = await setup();
    try {
      const ephemeral = new MemoryEphemeralStore();
      const thrown = (make: () => unknown) => {
        try {
          make();
        } catch (error) {
          return error;
        }
        return undefined;
      };
      expect(thrown(() => new FailedLoginLog({ ephemeral } as unknown as FailedLoginLogOptions))).to.be.instanceOf(FwDefinitionError);
      expect(thrown(() => new FailedLoginLog({ store } as unknown as FailedLoginLogOptions))).to.be.instanceOf(FwDefinitionError);
      expect(thrown(() => new FailedLoginLog({ store, ephemeral, windowMs: 0 }))).to.be.instanceOf(FwDefinitionError);
    } finally {
      await cleanup();
    }
  });

  it('logs nothing with either cap at 0, and touches no counter', async () => {
    const { store, cleanup } = await setup();
    try {
      for (const key of ['fw-app.failedLoginLogIpPerMinute', 'fw-app.failedLoginLogPerMinute']) {
        const ephemeral = new MemoryEphemeralStore();
        const log = new FailedLoginLog({ store, ephemeral, config: loadConfig({ env: false, values: { [key]: 0 } }) });
        const outcome = await log.record({ account: 'alice', reason: 'bad-credentials', method: 'password', ip: '192.0.2.1', userAgent: null }, (e) => {
          throw e;
        });
        expect(outcome).to.equal('off');
        expect(ephemeral.size).to.equal(0);
      }
      expect(await store.loginLogs.list()).to.deep.equal([]);
    } finally {
      await cleanup();
    }
  });

  it('writes the pending summary when its window ends, without a flush', async () => {
    const { store, cleanup } = await setup();
    try {
      const log = new FailedLoginLog({
        store,
        ephemeral: new MemoryEphemeralStore(),
        // Long enough for the four attempts to fall in one window on a loaded machine.
        windowMs: 1500,
        config: loadConfig({ env: false, values: { 'fw-app.failedLoginLogIpPerMinute': 1 } }),
      });
      const attempt = { account: 'alice', reason: 'bad-credentials', method: 'password', ip: '192.0.2.1', userAgent: null } as const;
      const outcomes = [];
      for (let i = 0; i < 4; i++) outcomes.push(await log.record(attempt, () => undefined));
      expect(outcomes).to.deep.equal(['written', 'counted', 'counted', 'counted']);
      // The window ends 1.5 s after the first count; its summary follows without any flush.
      const end = Date.now() + 10_000;
      while ((await store.loginLogs.list()).length < 2 && Date.now() < end) await new Promise((resolve) => setTimeout(resolve, 100));
      // Newest first: the summary is dated by its first count, after the row that was written.
      expect((await store.loginLogs.list()).map((r) => [r.reason, r.attempts])).to.deep.equal([
        ['rate-limited', 3],
        ['bad-credentials', 1],
      ]);
    } finally {
      await cleanup();
    }
  });
});
