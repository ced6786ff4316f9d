// Issue 10 §5: with Redis stopped or frozen, an fwAdmin app that keeps tokens, counters and
// sessions there answers 503 UNAVAILABLE within about a second (never waiting for the length of
// the outage), and serves again by itself once Redis is back. The Redis server is a process of
// this test's own, on a free port, so stopping and freezing it disturbs nobody else.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import Koa from 'koa';
import { fwAdmin, type FwAdmin } from '@fw/admin';
import { defineModel } from '@fw/core';
import { encodePassword } from '@fw/login/client';
import { createTestDatabase, hasRedisServer, startRedisServer, type RedisProcess, type TestDatabase } from '@fw/test-utils';
import { Browser, mockRegistration, startProvider } from '../packages/oauth/src/test-setup.js';

const Book = defineModel({ name: 'Book', table: 'redis_outage_book', fields: { title: { edit: { notNull: true } } } });
const PASSWORD = 'admin-pass-1';
/** A correctness bound for "about a second", generous for a loaded machine; not a benchmark. */
const BOUND_MS = 5_000;

interface Answer {
  status: number;
  code: unknown;
  retryAfter: string | null;
  ms: number;
  body: string;
}

interface Setup {
  url: string;
  fw: FwAdmin;
  browser: Browser;
  login(): Promise<Answer & { token?: string }>;
  table(token: string): Promise<Answer>;
  close(): Promise<void>;
}

async function answer(res: Response, started: number): Promise<Answer> {
  const body = await res.text();
  let code: unknown;
  try {
    code = (JSON.parse(body) as { error?: { code?: unknown } }).error?.code;
  } catch {
    code = undefined;
  }
  return { status: res.status, code, retryAfter: res.headers.get('retry-after'), ms: performance.now() - started, body };
}

async function setup(redis: RedisProcess): Promise<Setup> {
  const db: TestDatabase = await createTestDatabase({ dialect: 'sqlite', label: 'SQLite' });
  const provider = await startProvider();
  provider.profile.sub = 'admin';
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const app = new Koa();
  app.silent = true;
  app.keys = ['redis-outage-key'];
  const fw = await fwAdmin(app, {
    db: db.url,
    models: [Book],
    // A URL: fwAdmin opens the client with createRedis's fail-fast settings, and closes it.
    redis: redis.url,
    config: { 'fw-app.pwdTransferEncrypt': true },
    oauth: { baseUrl: url, providers: mockRegistration(provider.issuer) },
  });
  app.use(fw.middleware);
  app.use((ctx) => {
    ctx.body = `host page ${ctx.path}`;
  });
  server.on('request', app.callback());
  await fw.store.users.create({ account: 'admin', password: PASSWORD, isAdmin: true, mustChangePassword: false });
  return {
    url,
    fw,
    browser: new Browser(),
    async login() {
      const started = performance.now();
      const res = await fetch(`${url}/fw-api/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ account: 'admin', pwd: encodePassword(PASSWORD) }),
      });
      const a = await answer(res, started);
      return a.status === 200 ? { ...a, token: (JSON.parse(a.body) as { token: string }).token } : a;
    },
    async table(token: string) {
      const started = performance.now();
      return answer(await fetch(`${url}/fw-api/data/table/Book`, { method: 'POST', headers: { 'content-type': 'application/json', token }, body: '{}' }), started);
    },
    async close() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await fw.close();
      await provider.stop();
      await db.drop();
    },
  };
}

function expectUnavailable(a: Answer, what: string): void {
  expect(
    { status: a.status, code: a.code, retryAfter: /^\d+$/.test(a.retryAfter ?? ''), withinBound: a.ms < BOUND_MS },
    `${what}: ${Math.round(a.ms)} ms, ${a.body.slice(0, 160)}`,
  ).to.deep.equal({
    status: 503,
    code: 'UNAVAILABLE',
    retryAfter: true,
    withinBound: true,
  });
}

/** Logs in until it works: the client reconnects on its own schedule (at most a second apart). */
async function loginOnceBack(s: Setup): Promise<string> {
  let last: Answer | undefined;
  for (let i = 0; i < 100; i++) {
    const a = await s.login();
    if (a.token) return a.token;
    last = a;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`the app did not recover after Redis came back: ${last?.status} ${last?.body}`);
}

describe("Redis outage (fwAdmin with redis, a redis-server of the test's own)", function () {
  if (!hasRedisServer()) {
    it('skipped: no redis-server binary on the PATH, so the Redis outage suite did not run', function () {
      this.skip();
    });
    return;
  }
  this.timeout(60_000);
  let redis: RedisProcess;
  before(async () => {
    redis = await startRedisServer();
  });
  // Each test finds it running, whatever the one before left.
  beforeEach(async () => {
    await redis.start();
  });
  after(async () => {
    await redis?.close();
  });

  it('answers 503 within about a second while Redis is stopped, and recovers by itself when it restarts', async () => {
    const s = await setup(redis);
    try {
      const first = await s.login();
      expect(first.status, first.body).to.equal(200);
      expect((await s.table(first.token!)).status).to.equal(200);
      await s.browser.walk(`${s.url}/`, (location) => location.startsWith(`${s.url}/auth.html`));
      expect((await s.browser.get(`${s.url}/`)).status, 'signed in through the sign-on').to.equal(200);

      await redis.stop();
      expectUnavailable(await s.login(), 'login');
      expectUnavailable(await s.table(first.token!), 'table query');
      const started = performance.now();
      expectUnavailable(await answer(await s.browser.get(`${s.url}/`), started), 'host guard');

      await redis.start();
      // The server came back empty (no persistence): a fresh sign-in works, the old token is gone.
      const token = await loginOnceBack(s);
      const table = await s.table(token);
      expect(table.status, table.body).to.equal(200);
      expect((await s.table(first.token!)).status).to.equal(401);
    } finally {
      await s.close();
    }
  });

  it('answers 503 within about a second while Redis is frozen (SIGSTOP), and serves the same token again after SIGCONT', async () => {
    const s = await setup(redis);
    try {
      const first = await s.login();
      expect(first.status, first.body).to.equal(200);
      const token = first.token!;
      redis.freeze();
      try {
        expectUnavailable(await s.table(token), 'table query');
        expectUnavailable(await s.login(), 'login');
        expectUnavailable(await s.table(token), 'table query, again');
      } finally {
        redis.thaw();
      }
      let back: Answer | undefined;
      for (let i = 0; i < 50 && back?.status !== 200; i++) {
        if (back) await new Promise((resolve) => setTimeout(resolve, 100));
        back = await s.table(token);
      }
      expect(back!.status, back!.body).to.equal(200);
      expect((await s.login()).status).to.equal(200);
    } finally {
      await s.close();
    }
  });
});
