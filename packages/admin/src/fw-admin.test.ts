import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import Koa from 'koa';
import request from 'supertest';
import { FwDefinitionError, defineModel } from '@fw/core';
import { encodePassword } from '@fw/login/client';
import { createStore } from '@fw/store';
import { createTestDatabase, describeRedis, freePort } from '@fw/test-utils';
import { FW_UI_DIST_DIR } from '@fw/ui';
import { FW_WEB_PUBLIC_DIR } from '@fw/web';
import { Browser, mockRegistration, startProvider } from '../../oauth/src/test-setup.js';
import { FwStartError, fwAdmin } from './fw-admin.js';

const Book = defineModel({ name: 'Book', table: 'adm_book', power: { export: true }, fields: { title: { edit: { notNull: true } } } });

async function setup(extra: Partial<Parameters<typeof fwAdmin>[1]> = {}) {
  const db = await createTestDatabase({ dialect: 'sqlite', label: 'SQLite' });
  const app = new Koa();
  app.silent = true;
  app.keys = ['admin-test-key'];
  const fw = await fwAdmin(app, { db: db.url, models: [Book], config: { 'fw-app.pwdTransferEncrypt': true }, ...extra });
  app.use(fw.middleware);
  app.use((ctx) => {
    // The host's own routes: everything outside the API prefix, and one route of its own inside it.
    if (!ctx.path.startsWith('/fw-api') || ctx.path === '/fw-api/host-report') ctx.body = 'host route';
  });
  await fw.store.users.create({ account: 'admin', password: 'admin-pass-1', isAdmin: true, mustChangePassword: false });
  const agent = request(app.callback());
  const login = async () =>
    (
      await agent
        .post('/fw-api/login')
        .send({ account: 'admin', pwd: encodePassword('admin-pass-1') })
        .expect(200)
    ).body.token as string;
  return { app, fw, agent, login, cleanup: async () => (await fw.close(), await db.drop()) };
}

describe('fwAdmin(app, options)', () => {
  it('composes login, the data API over built-in and host models, and the AI tools, in one call', async () => {
    const s = await setup();
    try {
      const token = await s.login();
      await s.agent.post('/fw-api/data/modify/Book').set('token', token).send({ title: 'Dune' }).expect(200);
      expect((await s.agent.post('/fw-api/data/table/Book').set('token', token).send({}).expect(200)).body.total).to.equal(1);
      expect((await s.agent.post('/fw-api/data/table/FwUser').set('token', token).send({}).expect(200)).body.rows[0]).to.not.have.property('password');
      const menus = (await s.agent.get('/fw-api/menu').set('token', token).expect(200)).body as Array<{ code: string }>;
      expect(menus.map((m) => m.code)).to.include.members(['Book', 'Book@EXPORT', 'FwUser']);
      const mcp = await s.agent
        .post('/fw-api/ai/mcp')
        .set('token', token)
        .set('Accept', 'application/json, text/event-stream')
        .send({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} });
      expect(mcp.status).to.equal(200);
      expect(JSON.stringify(mcp.body)).to.contain('fwDataQuery');
      await s.agent.get('/elsewhere').expect(200, 'host route');
      // A path under the API prefix that nothing answers is a 404 in the Fw error body.
      const missing = await s.agent.get('/fw-api/data/Book/').expect(404);
      expect(missing.body.error.code).to.equal('NOT_FOUND');
      expect((await s.agent.get('/fw-api').expect(404)).body.error.code).to.equal('NOT_FOUND');
      await s.agent.get('/fw-api/host-report').expect(200, 'host route');
      // Without oauth, no sign-on and no guard: host routes are the host's business.
      await s.agent.get('/connect/anything').expect(200, 'host route');
      expect((await s.agent.get('/fw-api/login-settings').expect(200)).body).to.deep.equal({
        title: 'Fw admin',
        pwdTransferEncrypt: true,
        verifyCodeCount: 2,
        providers: [],
        passwordPolicy: { minLength: 10, maxLength: 200, rules: ['minLength', 'maxLength', 'notAccount', 'notCommon'] },
      });
    } finally {
      await s.cleanup();
    }
  });

  it('mounts the sign-on bridge and /auth.html when oauth is given', async () => {
    const s = await setup({
      oauth: {
        baseUrl: 'http://127.0.0.1:3000',
        providers: {
          mock: {
            'client-id': 'c',
            'client-secret': 's',
            'authorization-uri': 'http://127.0.0.1:9/authorize',
            'token-uri': 'http://127.0.0.1:9/token',
            'user-info-uri': 'http://127.0.0.1:9/userinfo',
          },
        },
      },
    });
    try {
      await s.agent.get('/auth.html').expect(200).expect('Content-Type', /html/);
      // The sign-in page learns of the provider from the login settings, without its secrets.
      const settings = await s.agent.get('/fw-api/login-settings').expect(200);
      expect(settings.body.providers).to.deep.equal([{ id: 'mock', name: 'mock', url: '/connect/mock' }]);
      const start = await s.agent.get('/connect/mock').expect(302);
      expect(start.headers.location).to.match(/^http:\/\/127\.0\.0\.1:9\/authorize\?/);
      await s.agent.get('/private').expect(302).expect('Location', '/connect/mock');
      let twice: unknown;
      try {
        await fwAdmin(s.app, {
          db: s.fw.store,
          migrate: false,
          oauth: {
            baseUrl: 'http://127.0.0.1:3000',
            providers: {
              other: {
                'client-id': 'c',
                'client-secret': 's',
                'authorization-uri': 'http://127.0.0.1:9/a',
                'token-uri': 'http://127.0.0.1:9/t',
                'user-info-uri': 'http://127.0.0.1:9/u',
              },
            },
          },
        });
      } catch (error) {
        twice = error;
      }
      expect((twice as Error).message).to.match(/already mounted/);
    } finally {
      await s.cleanup();
    }
  });

  it('refuses a missing database and bad models before opening anything', async () => {
    let caught: unknown;
    try {
      await fwAdmin(new Koa(), { db: '' });
    } catch (error) {
      caught = error;
    }
    expect(caught).to.be.instanceOf(FwDefinitionError);
    caught = undefined;
    try {
      await fwAdmin(new Koa(), { db: 'sqlite::memory:', models: [Book, Book] });
    } catch (error) {
      caught = error;
    }
    expect((caught as Error).message).to.match(/Book: a model with this name is already registered/);
    caught = undefined;
    try {
      await fwAdmin(new Koa(), { db: 'sqlite::memory:', purgeIntervalMs: 0 });
    } catch (error) {
      caught = error;
    }
    expect((caught as Error).message).to.match(/fwAdmin\.purgeIntervalMs/);
  });

  it('passes queryTimeoutMs to the store it opens, sheds load by default, and refuses overload and limit options it cannot honour (issue 19 §4)', async function () {
    this.timeout(120_000);
    const s = await setup({ queryTimeoutMs: 1234, overload: { maxInFlight: 64, maxPublicInFlight: 8 } });
    try {
      // On SQLite the limit is the busy timeout.
      const rows = (await s.fw.store.knex.raw('PRAGMA busy_timeout')) as Array<Record<string, unknown>>;
      expect(rows[0]?.['timeout']).to.equal(1234);
      await s.login();
      expect(s.fw.loadShed?.stats()).to.include({ admitted: 1, inFlight: 0, shed: 0 });
    } finally {
      await s.cleanup();
    }
    const off = await setup({ overload: false });
    try {
      expect(off.fw.loadShed).to.equal(undefined);
    } finally {
      await off.cleanup();
    }
    for (const [options, key] of [
      [{ overload: 'on' }, 'fwAdmin.overload'],
      [{ overload: { maxInFlight: 4, maxPublicInFlight: 8 } }, 'fwLoadShed.maxPublicInFlight'],
    ] as const) {
      let caught: unknown;
      try {
        await fwAdmin(new Koa(), { db: 'sqlite::memory:', ...(options as object) });
      } catch (error) {
        caught = error;
      }
      expect(caught, key).to.be.instanceOf(FwDefinitionError);
      expect((caught as FwDefinitionError).key).to.equal(key);
    }
    const store = createStore('sqlite::memory:');
    let caught: unknown;
    try {
      await fwAdmin(new Koa(), { db: store, queryTimeoutMs: 1000 });
    } catch (error) {
      caught = error;
    }
    await store.destroy();
    expect((caught as FwDefinitionError).key).to.equal('fwAdmin.queryTimeoutMs');
  });

  it('purges expired captcha answers, counters and tokens on a timer that close() stops (issue 10 §6)', async () => {
    const s = await setup({ purgeIntervalMs: 20 });
    try {
      // Rows an unauthenticated client leaves behind (captcha answers), and a token, all about to expire.
      for (let i = 0; i < 25; i += 1) await s.agent.get(`/fw-api/code-img?mark=purge-test-${String(i).padStart(3, '0')}`).expect(200);
      const soon = Date.now() + 1000;
      await s.fw.store.knex('fw_kv').where('key', 'like', 'captcha:%').update({ expires_at: soon });
      await s.fw.store.knex('fw_token').insert({ token_hash: 'e'.repeat(64), user_id: 1, expires_at: soon, created_at: soon - 60_000, is_admin: false });
      const doomed = async () =>
        Number((await s.fw.store.knex('fw_kv').where('expires_at', soon).count('* as n'))[0]!.n) +
        Number((await s.fw.store.knex('fw_token').where('expires_at', soon).count('* as n'))[0]!.n);
      // Live rows are left alone however often the timer runs; once expired, it takes them.
      expect(await doomed()).to.equal(26);
      expect(s.fw.purge?.active).to.equal(true);
      while ((await doomed()) > 0) await new Promise((r) => setTimeout(r, 20));
      // The code-img rate counter of this address lives on (a minute).
      expect(Number((await s.fw.store.knex('fw_kv').where('key', 'like', 'captcha-rate:%').count('* as n'))[0]!.n)).to.equal(1);
    } finally {
      await s.cleanup();
    }
    expect(s.fw.purge?.active).to.equal(false);
  });

  it('starts no purge timer with purgeIntervalMs: false', async () => {
    const s = await setup({ purgeIntervalMs: false });
    try {
      expect(s.fw.purge).to.equal(undefined);
    } finally {
      await s.cleanup();
    }
  });
});

/** The `fw-config` meta tag of a UI page, parsed. */
function fwConfigOf(html: string): unknown {
  const match = /<meta name="fw-config" content="([^"]*)">/.exec(html);
  if (!match) throw new Error(`no fw-config meta tag in:\n${html.slice(0, 500)}`);
  return JSON.parse(match[1]!.replace(/&#(\d+);/g, (_, code: string) => String.fromCharCode(Number(code))));
}

const HTML = 'text/html,application/xhtml+xml;q=0.9,*/*;q=0.8';

describe('fwAdmin(app, options): the admin web UI', () => {
  it('serves the built UI at / by default, with the configured API prefix and title, and /auth.html', async () => {
    const s = await setup({ config: { 'fw-app.pwdTransferEncrypt': true, 'fw-app.title': 'Library admin' } });
    try {
      const page = await s.agent.get('/').set('Accept', HTML).expect(200);
      expect(page.headers['cache-control']).to.equal('no-store');
      expect(fwConfigOf(page.text)).to.deep.equal({ apiPrefix: '/fw-api', base: '/', title: 'Library admin' });
      // The page is the build's (packages/ui/dist), its hashed assets cached for a year.
      const asset = /(?:src|href)="\.\/(assets\/[^"]+\.js)"/.exec(readFileSync(join(FW_UI_DIST_DIR, 'index.html'), 'utf8'))?.[1];
      expect(asset, 'a script of the build').to.be.a('string');
      const script = await s.agent.get(`/${asset!}`).expect(200);
      expect(script.headers['cache-control']).to.equal('public, max-age=31536000, immutable');
      expect((await s.agent.get('/auth.html').expect(200)).text).to.equal(readFileSync(join(FW_WEB_PUBLIC_DIR, 'auth.html'), 'utf8'));
      // The host's routes and the API keep answering.
      await s.agent.get('/elsewhere').set('Accept', HTML).expect(200, 'host route');
      expect((await s.agent.get('/fw-api/login-settings').expect(200)).body.title).to.equal('Library admin');
      expect((await s.agent.get('/fw-api/nothing').set('Accept', HTML).expect(404)).body.error.code).to.equal('NOT_FOUND');
    } finally {
      await s.cleanup();
    }
  });

  it('ui: false turns the UI and /auth.html off (the sign-on keeps its /auth.html)', async () => {
    const s = await setup({ ui: false });
    try {
      await s.agent.get('/').set('Accept', HTML).expect(200, 'host route');
      await s.agent.get('/auth.html').expect(200, 'host route');
    } finally {
      await s.cleanup();
    }
    const o = await setup({
      ui: false,
      oauth: {
        baseUrl: 'http://127.0.0.1:3000',
        providers: {
          mock: {
            'client-id': 'c',
            'client-secret': 's',
            'authorization-uri': 'http://127.0.0.1:9/a',
            'token-uri': 'http://127.0.0.1:9/t',
            'user-info-uri': 'http://127.0.0.1:9/u',
          },
        },
      },
    });
    try {
      expect((await o.agent.get('/auth.html').expect(200)).text).to.equal(readFileSync(join(FW_WEB_PUBLIC_DIR, 'auth.html'), 'utf8'));
    } finally {
      await o.cleanup();
    }
  });

  it("mounts the UI under ui.path beside the host's own pages, and ends the OAuth sign-on on its auth page", async () => {
    const provider = await startProvider();
    const db = await createTestDatabase({ dialect: 'sqlite', label: 'SQLite' });
    const server: Server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const app = new Koa();
    app.silent = true;
    app.keys = ['admin-ui-test-key'];
    const fw = await fwAdmin(app, { db: db.url, ui: { path: '/admin' }, oauth: { baseUrl: url, providers: mockRegistration(provider.issuer) } });
    app.use(fw.middleware);
    app.use((ctx) => {
      ctx.body = `host page ${ctx.path}`;
    });
    server.on('request', app.callback());
    try {
      await fw.store.users.create({ account: 'alice', password: 'alice-pass-1', mustChangePassword: false });
      const browser = new Browser();
      // Not signed in: the host guard sends the page to the provider; the sign-on ends on /admin/auth.html.
      const hops = await browser.walk(`${url}/admin/model/Book`, (location) => location.startsWith(`${url}/admin/auth.html`));
      expect(hops[0]).to.include({ status: 302, location: '/connect/mock' });
      const final = new URL(hops.at(-1)!.location!, url);
      expect(final.pathname).to.equal('/admin/auth.html');
      expect(final.searchParams.get('token')).to.match(/^[A-Za-z0-9]{16}$/);
      const auth = await browser.get(final.href);
      expect(auth.status).to.equal(200);
      expect(await auth.text()).to.equal(readFileSync(join(FW_WEB_PUBLIC_DIR, 'auth.html'), 'utf8'));
      // Its "./" is the UI, which a signed-in browser now gets, deep links included.
      const home = await browser.get(new URL('./', final).href, { headers: { accept: HTML } });
      expect(home.status).to.equal(200);
      expect(fwConfigOf(await home.text())).to.deep.equal({ apiPrefix: '/fw-api', base: '/admin/', title: 'Fw admin' });
      const deep = await browser.get(`${url}/admin/model/Book`, { headers: { accept: HTML } });
      expect(fwConfigOf(await deep.text())).to.deep.include({ base: '/admin/' });
      // The host's own pages stay the host's.
      expect(await (await browser.get(`${url}/`, { headers: { accept: HTML } })).text()).to.equal('host page /');
      // The login settings name the provider for the sign-in page's button.
      const settings = (await (await fetch(`${url}/fw-api/login-settings`)).json()) as { providers: unknown };
      expect(settings.providers).to.deep.equal([{ id: 'mock', name: 'mock', url: '/connect/mock' }]);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await fw.close();
      await db.drop();
      await provider.stop();
    }
  });

  it('refuses a missing UI build and a bad ui option before opening the database', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fw-admin-ui-'));
    try {
      const file = join(dir, 'never.db');
      let caught: unknown;
      try {
        await fwAdmin(new Koa(), { db: `sqlite:${file}`, ui: { dist: join(dir, 'dist') } });
      } catch (error) {
        caught = error;
      }
      expect(caught).to.be.instanceOf(FwDefinitionError);
      expect((caught as Error).message).to.match(/not built.*npm run build:app -w @fw\/ui/);
      expect(existsSync(file), 'no database file').to.equal(false);
      caught = undefined;
      try {
        await fwAdmin(new Koa(), { db: `sqlite:${file}`, ui: 'yes' as never });
      } catch (error) {
        caught = error;
      }
      expect(caught).to.be.instanceOf(FwDefinitionError).with.property('key', 'fwAdmin.ui');
      caught = undefined;
      try {
        await fwAdmin(new Koa(), { db: `sqlite:${file}`, ui: { path: '/fw-api' } });
      } catch (error) {
        caught = error;
      }
      expect(caught).to.be.instanceOf(FwDefinitionError).with.property('key', 'fwUi.path');
      expect(existsSync(file), 'no database file').to.equal(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describeRedis('fwAdmin with Redis', (ns) => {
  it('keeps tokens and counters in Redis', async () => {
    const s = await setup({ redis: ns().redis, redisPrefix: ns().prefix });
    try {
      const token = await s.login();
      await s.agent.get('/fw-api/userinfo').set('token', token).expect(200);
      expect(await ns().redis.keys(`${ns().prefix}token:*`)).to.have.length(1);
      expect(Number((await s.fw.store.knex('fw_token').count({ n: '*' }))[0]!.n)).to.equal(0);
      await s.agent
        .post('/fw-api/login')
        .send({ account: 'admin', pwd: encodePassword('wrong') })
        .expect(401);
      expect(await ns().redis.keys(`${ns().prefix}kv:*`)).to.have.length.greaterThan(0);
    } finally {
      await s.cleanup();
    }
  });
});

describe('fwAdmin start-up with a database or Redis it cannot open', function () {
  this.timeout(30_000);

  async function startError(options: Parameters<typeof fwAdmin>[1]): Promise<FwStartError> {
    let caught: unknown;
    try {
      const fw = await fwAdmin(new Koa(), options);
      await fw.close();
    } catch (error) {
      caught = error;
    }
    expect(caught, 'fwAdmin should have refused to start').to.be.instanceOf(FwStartError);
    return caught as FwStartError;
  }

  it('names the URL without its password and says why, in one line, for an unreachable server', async () => {
    const port = await freePort();
    const error = await startError({ db: `postgres://app:s3cret@127.0.0.1:${port}/app` });
    expect(error.message).to.equal(`fwAdmin: cannot open database postgres://app:***@127.0.0.1:${port}/app: connect ECONNREFUSED 127.0.0.1:${port}`);
    expect(error.url).to.equal(`postgres://app:***@127.0.0.1:${port}/app`);
    expect(error.cause).to.have.property('code', 'ECONNREFUSED');
  });

  const pg = process.env.FW_TEST_PG_URL;
  (pg ? it : it.skip)(`names a PostgreSQL database that does not exist${pg ? '' : ' (skipped: FW_TEST_PG_URL is not set)'}`, async () => {
    const url = new URL(pg!);
    url.password = 'secret';
    url.pathname = '/fw_no_such_database';
    const error = await startError({ db: url.toString() });
    expect(error.message).to.equal(`fwAdmin: cannot open database ${url.toString().replace(':secret@', ':***@')}: database "fw_no_such_database" does not exist`);
  });

  const mysql = process.env.FW_TEST_MYSQL_URL;
  (mysql ? it : it.skip)(`names a MariaDB/MySQL database that does not exist${mysql ? '' : ' (skipped: FW_TEST_MYSQL_URL is not set)'}`, async () => {
    const url = new URL(mysql!);
    url.pathname = '/fw_no_such_database';
    const error = await startError({ db: url.toString() });
    expect(error.message).to.equal(`fwAdmin: cannot open database ${url.toString()}: Unknown database 'fw_no_such_database'`);
  });

  it('names a Redis URL it cannot reach, without its password', async () => {
    const db = await createTestDatabase({ dialect: 'sqlite', label: 'SQLite' });
    try {
      const port = await freePort();
      const error = await startError({ db: db.url, redis: `redis://:s3cret@127.0.0.1:${port}` });
      expect(error.message).to.equal(`fwAdmin: cannot reach Redis at redis://:***@127.0.0.1:${port}: connect ECONNREFUSED 127.0.0.1:${port}`);
    } finally {
      await db.drop();
    }
  });
});
