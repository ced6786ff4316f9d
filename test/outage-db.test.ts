// Issue 10 §5: with its database gone, an Fw app fails closed (503 UNAVAILABLE with Retry-After,
// quickly, on every route, never as if the user were anonymous or allowed) and recovers by itself
// once the database is back, without a restart.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Database from 'better-sqlite3';
import { expect } from 'chai';
import knexFactory, { type Knex } from 'knex';
import Koa from 'koa';
import { fwAdmin, type FwAdmin } from '@fw/admin';
import { defineModel, loadConfig } from '@fw/core';
import { fwAuth } from '@fw/login';
import { encodePassword } from '@fw/login/client';
import { createStore } from '@fw/store';
import { FwTokenService, KnexTokenStore } from '@fw/token';
import { createTestDatabase, freePort, sqlBackends, startTcpProxy, type SqlBackendSpec, type TcpProxy, type TestDatabase } from '@fw/test-utils';
import { Browser, mockRegistration, startProvider } from '../packages/oauth/src/test-setup.js';

const Book = defineModel({
  name: 'Book',
  table: 'outage_book',
  power: { export: true, print: true, copy: true, importable: true },
  fields: { title: { edit: { notNull: true } } },
});

const ADMIN_PASSWORD = 'admin-pass-1';

/** Seeds a fresh database the way a deployment would: migrations, model tables, two accounts. */
async function seed(url: string): Promise<void> {
  const store = createStore(url);
  try {
    await store.migrate.latest();
    await store.createModelTables([Book]);
    await store.users.create({ account: 'admin', password: ADMIN_PASSWORD, isAdmin: true, mustChangePassword: false });
    await store.users.create({ account: 'alice', name: 'Alice', password: 'alice-password', isAdmin: true, mustChangePassword: false });
  } finally {
    await store.destroy();
  }
}

function databaseName(url: string): string {
  return new URL(url).pathname.slice(1);
}

function serverKnex(spec: SqlBackendSpec): Knex {
  return knexFactory({ client: spec.dialect === 'postgres' ? 'pg' : 'mysql2', connection: spec.serverUrl!, pool: { min: 0, max: 1 } });
}

/** Drops the database under the running app, ending the app's open connections as a DBA would. */
async function dropDatabase(spec: SqlBackendSpec, url: string): Promise<void> {
  const name = databaseName(url);
  const admin = serverKnex(spec);
  try {
    if (spec.dialect === 'postgres') {
      await admin.raw(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    } else {
      const [rows] = (await admin.raw('SELECT id FROM information_schema.processlist WHERE db = ?', [name])) as [Array<{ id: number }>];
      for (const { id } of rows) await admin.raw(`KILL ${Number(id)}`).catch(() => undefined);
      await admin.raw(`DROP DATABASE IF EXISTS \`${name}\``);
    }
  } finally {
    await admin.destroy();
  }
}

async function createDatabase(spec: SqlBackendSpec, url: string): Promise<void> {
  const name = databaseName(url);
  const admin = serverKnex(spec);
  try {
    await admin.raw(spec.dialect === 'postgres' ? `CREATE DATABASE ${name}` : `CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4`);
  } finally {
    await admin.destroy();
  }
}

interface Setup {
  url: string;
  fw: FwAdmin;
  db: TestDatabase;
  proxy: TcpProxy;
  browser: Browser;
  login(): Promise<string>;
  close(): Promise<void>;
}

/**
 * An fwAdmin host (sign-on included) on a port of its own, reaching its database through a TCP
 * proxy the test can cut, plus a host route guarded by `fwAuth` alone.
 */
async function setup(spec: SqlBackendSpec): Promise<Setup> {
  const db = await createTestDatabase(spec);
  await seed(db.url);
  const target = new URL(spec.serverUrl!);
  const proxy = await startTcpProxy(target.hostname, Number(target.port || (spec.dialect === 'postgres' ? 5432 : 3306)));
  const provider = await startProvider();
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const app = new Koa();
  app.silent = true;
  app.keys = ['outage-test-key'];
  const fw = await fwAdmin(app, {
    db: proxy.via(db.url),
    models: [Book],
    config: { 'fw-app.pwdTransferEncrypt': true },
    oauth: { baseUrl: url, providers: mockRegistration(provider.issuer) },
  });
  app.use(fw.middleware);
  const guarded = fwAuth({ tokens: fw.tokens, store: fw.store });
  app.use(async (ctx, next) => {
    if (ctx.path !== '/fw-cloud-api/report') return next();
    await guarded(ctx, async () => {
      ctx.body = { report: `for ${ctx.state.fw!.user.account}` };
    });
  });
  app.use((ctx) => {
    ctx.body = `host page ${ctx.path}`;
  });
  server.on('request', app.callback());
  const login = async () => {
    const res = await fetch(`${url}/fw-api/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ account: 'admin', pwd: encodePassword(ADMIN_PASSWORD) }),
    });
    expect(res.status, 'login').to.equal(200);
    return ((await res.json()) as { token: string }).token;
  };
  return {
    url,
    fw,
    db,
    proxy,
    browser: new Browser(),
    login,
    async close() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await fw.close();
      await proxy.close();
      await provider.stop();
      await db.drop();
    },
  };
}

interface Probe {
  name: string;
  method: 'GET' | 'POST';
  path: string;
  body?: unknown;
  headers?: Record<string, string>;
}

/** One request per Fw route (and the host routes Fw guards), all carrying the admin's token. */
function probes(token: string): Probe[] {
  const mcp = { accept: 'application/json, text/event-stream' };
  return [
    { name: 'login', method: 'POST', path: '/fw-api/login', body: { account: 'admin', pwd: encodePassword(ADMIN_PASSWORD) } },
    { name: 'userinfo', method: 'GET', path: '/fw-api/userinfo' },
    { name: 'menu', method: 'GET', path: '/fw-api/menu' },
    {
      name: 'change-pwd',
      method: 'POST',
      path: '/fw-api/change-pwd',
      body: { pwd: encodePassword(ADMIN_PASSWORD), newPwd: encodePassword('another-pass-2'), newPwd2: encodePassword('another-pass-2') },
    },
    { name: 'code-img', method: 'GET', path: '/fw-api/code-img?mark=outage-mark-1' },
    { name: 'build', method: 'GET', path: '/fw-api/build/Book' },
    { name: 'table', method: 'POST', path: '/fw-api/data/table/Book', body: {} },
    { name: 'details', method: 'GET', path: '/fw-api/data/Book/1' },
    { name: 'add', method: 'POST', path: '/fw-api/data/modify/Book', body: { title: 'Emma' } },
    { name: 'update', method: 'POST', path: '/fw-api/data/modify/Book/update', body: { id: 1, title: 'Persuasion' } },
    { name: 'update-cell', method: 'POST', path: '/fw-api/data/modify/Book/update-cell', body: { id: 1, field: 'title', value: 'Sanditon' } },
    { name: 'delete', method: 'POST', path: '/fw-api/data/modify/Book/delete', body: { ids: [1] } },
    { name: 'copy', method: 'POST', path: '/fw-api/data/modify/Book/copy', body: { id: 1 } },
    { name: 'export', method: 'GET', path: `/fw-api/data/export/Book?_token=${token}` },
    { name: 'print', method: 'GET', path: `/fw-api/data/print/Book/1?_token=${token}` },
    { name: 'MCP tools/list', method: 'POST', path: '/fw-api/ai/mcp', headers: mcp, body: { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} } },
    {
      name: 'MCP fwDataQuery',
      method: 'POST',
      path: '/fw-api/ai/mcp',
      headers: mcp,
      body: { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'fwDataQuery', arguments: { model: 'Book' } } },
    },
    { name: 'host route behind fwAuth', method: 'GET', path: '/fw-cloud-api/report' },
    { name: 'logout', method: 'GET', path: '/fw-api/logout' },
  ];
}

async function send(s: Setup, token: string, probe: Probe): Promise<{ status: number; retryAfter: string | null; body: string; ms: number }> {
  const started = performance.now();
  const res = await fetch(`${s.url}${probe.path}`, {
    method: probe.method,
    headers: { token, ...(probe.body === undefined ? {} : { 'content-type': 'application/json' }), ...probe.headers },
    ...(probe.body === undefined ? {} : { body: JSON.stringify(probe.body) }),
  });
  const body = await res.text();
  return { status: res.status, retryAfter: res.headers.get('retry-after'), body, ms: performance.now() - started };
}

/** Every probe answers 503 UNAVAILABLE with Retry-After, within `boundMs` (a correctness bound, not a benchmark). */
async function expectAllUnavailable(s: Setup, token: string, boundMs: number, only?: string[]): Promise<void> {
  const wrong: string[] = [];
  for (const probe of probes(token)) {
    if (only && !only.includes(probe.name)) continue;
    const answer = await send(s, token, probe);
    let code: unknown;
    try {
      code = (JSON.parse(answer.body) as { error?: { code?: unknown } }).error?.code;
    } catch {
      code = undefined;
    }
    if (answer.status !== 503 || code !== 'UNAVAILABLE' || !/^\d+$/.test(answer.retryAfter ?? '') || answer.ms > boundMs) {
      wrong.push(`${probe.name}: ${answer.status} in ${Math.round(answer.ms)} ms, Retry-After ${answer.retryAfter}, ${answer.body.slice(0, 160)}`);
    }
  }
  expect(wrong, 'routes that did not fail closed').to.deep.equal([]);
}

async function signInWithOAuth(s: Setup): Promise<void> {
  const hops = await s.browser.walk(`${s.url}/`, (location) => location.startsWith(`${s.url}/auth.html`));
  expect(hops.at(-1)?.location ?? '', 'sign-on ends at /auth.html').to.match(/\/auth\.html\?token=/);
  expect((await s.browser.get(`${s.url}/`)).status, 'signed-in home').to.equal(200);
}

for (const spec of sqlBackends().filter((b) => b.dialect === 'postgres' || b.dialect === 'mysql')) {
  describe(`database outage on ${spec.label} (fwAdmin, every route)`, function () {
    if (!spec.serverUrl) {
      it(`skipped: ${spec.envVar} is not set, so the ${spec.label} outage suite did not run`, function () {
        this.skip();
      });
      return;
    }
    this.timeout(60_000);

    it('answers 503 UNAVAILABLE with Retry-After on every route while the database is dropped, and recovers once it is recreated', async () => {
      const s = await setup(spec);
      try {
        const token = await s.login();
        const added = await send(s, token, { name: 'add', method: 'POST', path: '/fw-api/data/modify/Book', body: { title: 'Emma' } });
        expect(added.status, added.body).to.equal(200);
        await signInWithOAuth(s);

        await dropDatabase(spec, s.db.url);
        await expectAllUnavailable(s, token, 5_000);
        // The sign-on guard neither lets the browser through nor sends it to sign in again.
        const guarded = await s.browser.get(`${s.url}/`);
        expect(guarded.status, 'host guard').to.equal(503);
        expect(guarded.headers.get('retry-after')).to.match(/^\d+$/);

        // Back, empty: the same app, not restarted, serves the new database.
        await createDatabase(spec, s.db.url);
        await seed(s.db.url);
        const fresh = await s.login();
        const me = await send(s, fresh, { name: 'userinfo', method: 'GET', path: '/fw-api/userinfo' });
        expect(me.status, me.body).to.equal(200);
        expect(JSON.parse(me.body)).to.include({ account: 'admin' });
        const table = await send(s, fresh, { name: 'table', method: 'POST', path: '/fw-api/data/table/Book', body: {} });
        expect(table.status, table.body).to.equal(200);
        expect(JSON.parse(table.body)).to.include({ total: 0 });
        // The old token died with its database.
        expect((await send(s, token, { name: 'userinfo', method: 'GET', path: '/fw-api/userinfo' })).status).to.equal(401);
      } finally {
        await s.close();
      }
    });

    it('answers 503 quickly while the server refuses connections, and recovers when it is back', async () => {
      const s = await setup(spec);
      try {
        const token = await s.login();
        await s.proxy.down();
        await expectAllUnavailable(s, token, 5_000);
        await s.proxy.up();
        expect((await send(s, token, { name: 'userinfo', method: 'GET', path: '/fw-api/userinfo' })).status).to.equal(200);
        const table = await send(s, token, { name: 'table', method: 'POST', path: '/fw-api/data/table/Book', body: {} });
        expect(table.status, table.body).to.equal(200);
      } finally {
        await s.close();
      }
    });

    it('answers 503 within seconds, not the driver default, while the server address black-holes connections', async () => {
      const s = await setup(spec);
      try {
        const token = await s.login();
        await s.proxy.blackhole();
        await expectAllUnavailable(s, token, 5_000, ['login', 'userinfo', 'table', 'MCP fwDataQuery', 'host route behind fwAuth']);
        await s.proxy.up();
        const me = await send(s, token, { name: 'userinfo', method: 'GET', path: '/fw-api/userinfo' });
        expect(me.status, me.body).to.equal(200);
      } finally {
        await s.close();
      }
    });
  });
}

describe('database outage without a database server', function () {
  this.timeout(60_000);

  it('fwAuth mounted alone (no fwErrorHandler) answers 503 with Retry-After, never 401 or 500, when its database is unreachable', async () => {
    const store = createStore(`postgres://postgres:secret@127.0.0.1:${await freePort()}/app`);
    const tokens = new FwTokenService({ store: new KnexTokenStore({ knex: store.knex }), config: loadConfig({ env: false }) });
    const app = new Koa();
    app.silent = true;
    app.use(fwAuth({ tokens, store }));
    app.use((ctx) => {
      ctx.body = 'secret report';
    });
    const server = createServer(app.callback());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/report`;
      const res = await fetch(url, { headers: { token: 'AbCdEfGh12345678' } });
      expect(res.status).to.equal(503);
      expect(res.headers.get('retry-after')).to.match(/^\d+$/);
      expect(await res.text()).to.not.contain('secret report');
      // No token is still a plain 401: it needs no database to say so.
      expect((await fetch(url)).status).to.equal(401);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await store.destroy();
    }
  });

  it('SQLite: a database another process keeps locked answers 503 UNAVAILABLE on writes, and serves again once released', async () => {
    const db = await createTestDatabase({ dialect: 'sqlite', label: 'SQLite' });
    const app = new Koa();
    app.silent = true;
    const fw = await fwAdmin(app, { db: db.url, models: [Book], config: { 'fw-app.pwdTransferEncrypt': true } });
    app.use(fw.middleware);
    await fw.store.users.create({ account: 'admin', password: ADMIN_PASSWORD, isAdmin: true, mustChangePassword: false });
    const server = createServer(app.callback());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const post = (path: string, body: unknown, token?: string) =>
      fetch(`${base}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...(token ? { token } : {}) }, body: JSON.stringify(body) });
    const other = new Database(db.url.slice('sqlite:'.length));
    try {
      const token = ((await (await post('/fw-api/login', { account: 'admin', pwd: encodePassword(ADMIN_PASSWORD) })).json()) as { token: string }).token;
      other.exec('BEGIN EXCLUSIVE');
      for (const [path, body, withToken] of [
        ['/fw-api/data/modify/Book', { title: 'Emma' }, true],
        ['/fw-api/login', { account: 'admin', pwd: encodePassword(ADMIN_PASSWORD) }, false],
      ] as const) {
        const res = await post(path, body, withToken ? token : undefined);
        const text = await res.text();
        expect(res.status, `${path}: ${text}`).to.equal(503);
        expect(JSON.parse(text)).to.have.nested.property('error.code', 'UNAVAILABLE');
        expect(res.headers.get('retry-after')).to.match(/^\d+$/);
      }
      other.exec('COMMIT');
      expect((await post('/fw-api/data/modify/Book', { title: 'Emma' }, token)).status).to.equal(200);
    } finally {
      other.close();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await fw.close();
      await db.drop();
    }
  });
});
