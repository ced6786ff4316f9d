// Issue 19 §4: a database that freezes (connections stay open, nothing comes back) must not hold
// requests for the length of the freeze. Every query has a time limit (`queryTimeoutMs`); past it
// the request answers 503 UNAVAILABLE with Retry-After, and once the database answers again the
// same process serves again, without a restart.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import Koa from 'koa';
import { fwAdmin, type FwAdmin } from '@fw/admin';
import { defineModel } from '@fw/core';
import { encodePassword } from '@fw/login/client';
import { createStore } from '@fw/store';
import { createTestDatabase, sqlBackends, startTcpProxy, type SqlBackendSpec, type TcpProxy, type TestDatabase } from '@fw/test-utils';

const Book = defineModel({ name: 'Book', table: 'freeze_book', fields: { title: { edit: { notNull: true } } } });
const PASSWORD = 'admin-pass-19';
/** The default limit: the test holds fwAdmin to what a deployment gets without configuring anything. */
const LIMIT_MS = 5000;
/** What a request may take beyond the limit: the pool's bookkeeping and the HTTP round trip. */
const MARGIN_MS = 1500;

interface Setup {
  base: string;
  fw: FwAdmin;
  proxy: TcpProxy;
  db: TestDatabase;
  close(): Promise<void>;
}

async function setup(spec: SqlBackendSpec): Promise<Setup> {
  const db = await createTestDatabase(spec);
  const seed = createStore(db.url);
  try {
    await seed.migrate.latest();
    await seed.createModelTables([Book]);
    await seed.users.create({ account: 'admin', password: PASSWORD, isAdmin: true, mustChangePassword: false });
    await seed.knex('freeze_book').insert({ title: 'Emma' });
  } finally {
    await seed.destroy();
  }
  const target = new URL(spec.serverUrl!);
  const proxy = await startTcpProxy(target.hostname, Number(target.port || (spec.dialect === 'postgres' ? 5432 : 3306)));
  const app = new Koa();
  app.silent = true;
  const fw = await fwAdmin(app, { db: proxy.via(db.url), models: [Book], ui: false, ai: false, purgeIntervalMs: false, config: { 'fw-app.pwdTransferEncrypt': true } });
  app.use(fw.middleware);
  const server: Server = createServer(app.callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    fw,
    proxy,
    db,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await proxy.up().catch(() => undefined);
      await fw.close();
      await proxy.close();
      await db.drop();
    },
  };
}

interface Answer {
  status: number;
  code: unknown;
  retryAfter: string | null;
  ms: number;
}

/** One request; a client that gives up after `giveUpMs` records status 0, so a hang fails the test instead of stalling it. */
async function ask(base: string, path: string, init: { token?: string; body?: unknown }, giveUpMs: number): Promise<Answer> {
  const started = performance.now();
  try {
    const res = await fetch(`${base}${path}`, {
      method: init.body === undefined ? 'GET' : 'POST',
      headers: { ...(init.token ? { token: init.token } : {}), ...(init.body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
      signal: AbortSignal.timeout(giveUpMs),
    });
    const text = await res.text();
    let code: unknown;
    try {
      code = (JSON.parse(text) as { error?: { code?: unknown } }).error?.code;
    } catch {
      code = undefined;
    }
    return { status: res.status, code, retryAfter: res.headers.get('retry-after'), ms: performance.now() - started };
  } catch {
    return { status: 0, code: 'CLIENT_GAVE_UP', retryAfter: null, ms: performance.now() - started };
  }
}

async function login(base: string): Promise<string> {
  const res = await fetch(`${base}/fw-api/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ account: 'admin', pwd: encodePassword(PASSWORD) }),
  });
  expect(res.status, 'login').to.equal(200);
  return ((await res.json()) as { token: string }).token;
}

for (const spec of sqlBackends().filter((b) => b.dialect === 'postgres' || b.dialect === 'mysql')) {
  describe(`a frozen database on ${spec.label} (fwAdmin, queryTimeoutMs)`, function () {
    if (!spec.serverUrl) {
      it(`skipped: ${spec.envVar} is not set, so the ${spec.label} freeze suite did not run`, function () {
        this.skip();
      });
      return;
    }
    this.timeout(60_000);

    it('answers 503 UNAVAILABLE with Retry-After within the query limit while the database is frozen, more requests than the pool has connections, and serves again once it answers', async () => {
      const s = await setup(spec);
      try {
        const token = await login(s.base);
        // Warm the pool so the freeze catches open connections, as it does in production.
        await Promise.all(Array.from({ length: 4 }, () => ask(s.base, '/fw-api/data/table/Book', { token, body: {} }, 5000)));
        await s.proxy.hold();
        // More requests than the pool's 10 connections: the first ones hold every connection.
        const giveUp = LIMIT_MS + MARGIN_MS + 3000;
        const answers = await Promise.all([
          ...Array.from({ length: 8 }, () => ask(s.base, '/fw-api/data/table/Book', { token, body: {} }, giveUp)),
          ...Array.from({ length: 4 }, () => ask(s.base, '/fw-api/userinfo', { token }, giveUp)),
          ask(s.base, '/fw-api/data/modify/Book', { token, body: { title: 'Persuasion' } }, giveUp),
          ask(s.base, '/fw-api/login', { body: { account: 'admin', pwd: encodePassword(PASSWORD) } }, giveUp),
        ]);
        const wrong = answers.filter((a) => a.status !== 503 || a.code !== 'UNAVAILABLE' || !/^\d+$/.test(a.retryAfter ?? '') || a.ms > LIMIT_MS + MARGIN_MS);
        expect(
          wrong.map((a) => `${a.status} ${String(a.code)} in ${Math.round(a.ms)} ms`),
          'requests that did not fail within the limit',
        ).to.deep.equal([]);

        // Still frozen: a later request does not queue behind the stuck ones for longer either.
        const later = await ask(s.base, '/fw-api/userinfo', { token }, giveUp);
        expect(later, 'a request arriving during the freeze').to.include({ status: 503, code: 'UNAVAILABLE' });
        expect(later.ms).to.be.below(LIMIT_MS + MARGIN_MS);

        await s.proxy.up();
        const me = await ask(s.base, '/fw-api/userinfo', { token }, 5000);
        expect(me.status, 'userinfo after the freeze').to.equal(200);
        const table = await ask(s.base, '/fw-api/data/table/Book', { token, body: {} }, 5000);
        expect(table.status, 'table after the freeze').to.equal(200);
        // The write that timed out is not half-done: the table still has its one row, or two if it committed.
        const rows = await s.fw.store.knex('freeze_book').count({ n: '*' });
        expect(Number(rows[0]!.n)).to.be.within(1, 2);
        expect((await ask(s.base, '/fw-api/data/modify/Book', { token, body: { title: 'Sanditon' } }, 5000)).status, 'a write after the freeze').to.equal(200);
      } finally {
        await s.close();
      }
    });
  });
}
