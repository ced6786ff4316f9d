// Issue 10 §6: every answer under the Fw API prefix carries `Cache-Control: no-store` (the login
// answer holds a token, others user data and per-user power) and `X-Content-Type-Options: nosniff`,
// whichever package serves it, success or error; and the print page works under the content
// security policy docs/web.md recommends (`default-src 'self'`).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import Koa from 'koa';
import request from 'supertest';
import { fwAdmin, type FwAdmin } from '@fw/admin';
import { defineModel } from '@fw/core';
import { encodePassword } from '@fw/login/client';
import { createTestDatabase, describeBrowser, type TestDatabase } from '@fw/test-utils';

const Book = defineModel({
  name: 'Book',
  table: 'hdr_book',
  power: { export: true, print: true },
  fields: { title: { views: { title: 'Title' }, edit: { notNull: true } }, note: { views: { title: 'Note' } } },
});

interface Host {
  app: Koa;
  fw: FwAdmin;
  agent: ReturnType<typeof request>;
  token: string;
  bookId: number;
  cleanup(): Promise<void>;
}

async function host(): Promise<Host> {
  const db: TestDatabase = await createTestDatabase({ dialect: 'sqlite', label: 'SQLite' });
  const app = new Koa();
  app.silent = true;
  const fw = await fwAdmin(app, { db: db.url, models: [Book], purgeIntervalMs: false });
  // The policy docs/web.md recommends, on every answer of the host.
  app.use(async (ctx, next) => {
    ctx.set('Content-Security-Policy', "default-src 'self'");
    await next();
  });
  app.use(fw.middleware);
  await fw.store.users.create({ account: 'admin', password: 'admin-pass-1', isAdmin: true, mustChangePassword: false });
  const agent = request(app.callback());
  const token = (
    await agent
      .post('/fw-api/login')
      .send({ account: 'admin', pwd: encodePassword('admin-pass-1') })
      .expect(200)
  ).body.token as string;
  const book = await agent.post('/fw-api/data/modify/Book').set('token', token).send({ title: '<b>Dune</b>', note: 'style="color:red" onload=x' }).expect(200);
  return { app, fw, agent, token, bookId: book.body.id as number, cleanup: async () => (await fw.close(), await db.drop()) };
}

describe('Fw API response headers', () => {
  let h: Host;
  before(async () => {
    h = await host();
  });
  after(() => h?.cleanup());

  it('are set on every route of every package, successes and errors alike', async () => {
    const { agent, token, bookId } = h;
    const mcpInit = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 't', version: '1' } } };
    const cases: Array<[string, () => request.Test, number]> = [
      ['login 200', () => agent.post('/fw-api/login').send({ account: 'admin', pwd: encodePassword('admin-pass-1') }), 200],
      ['login 401', () => agent.post('/fw-api/login').send({ account: 'admin', pwd: encodePassword('nope') }), 401],
      ['login 400', () => agent.post('/fw-api/login').send({ account: 5 }), 400],
      ['code-img', () => agent.get('/fw-api/code-img'), 200],
      ['userinfo', () => agent.get('/fw-api/userinfo').set('token', token), 200],
      ['userinfo 401', () => agent.get('/fw-api/userinfo'), 401],
      ['menu', () => agent.get('/fw-api/menu').set('token', token), 200],
      ['change-pwd 400', () => agent.post('/fw-api/change-pwd').set('token', token).send({}), 400],
      ['open-api token 401', () => agent.post('/fw-api/open-api/token').send({ appId: 'none', secret: 'x' }), 401],
      ['build', () => agent.get('/fw-api/build/Book').set('token', token), 200],
      ['build 404', () => agent.get('/fw-api/build/Nope').set('token', token), 404],
      ['table', () => agent.post('/fw-api/data/table/Book').set('token', token).send({}), 200],
      ['table 405', () => agent.get('/fw-api/data/table/Book').set('token', token), 405],
      ['details', () => agent.get(`/fw-api/data/Book/${bookId}`).set('token', token), 200],
      ['add 422', () => agent.post('/fw-api/data/modify/Book').set('token', token).send({}), 422],
      ['export', () => agent.get(`/fw-api/data/export/Book?_token=${token}`), 200],
      ['print', () => agent.get(`/fw-api/data/print/Book/${bookId}?_token=${token}`), 200],
      ['print.css', () => agent.get('/fw-api/data/print.css'), 200],
      ['print.js', () => agent.get('/fw-api/data/print.js'), 200],
      ['mcp 401', () => agent.post('/fw-api/ai/mcp').set('Accept', 'application/json, text/event-stream').send(mcpInit), 401],
      ['mcp 200', () => agent.post('/fw-api/ai/mcp').set('token', token).set('Accept', 'application/json, text/event-stream').send(mcpInit), 200],
    ];
    for (const [what, send, status] of cases) {
      const res = await send();
      expect(res.status, what).to.equal(status);
      expect(res.headers['cache-control'], what).to.equal('no-store');
      expect(res.headers['x-content-type-options'], what).to.equal('nosniff');
    }
  });

  it('the print page: a content security policy framed by its own origin only; pages reached with _token send no Referer', async () => {
    const { agent, token, bookId } = h;
    const print = await agent.get(`/fw-api/data/print/Book/${bookId}?_token=${token}`).expect(200);
    expect(print.headers['content-security-policy']).to.equal("default-src 'self'; object-src 'none'; base-uri 'self'; form-action 'self'; frame-ancestors 'self'");
    expect(print.headers['referrer-policy']).to.equal('no-referrer');
    for (const format of ['csv', 'xlsx']) {
      const res = await agent.get(`/fw-api/data/export/Book?format=${format}&_token=${token}`).expect(200);
      expect(res.headers['referrer-policy'], format).to.equal('no-referrer');
    }
  });

  it('fwAdmin frameAncestors reaches the print page and is checked at start-up', async () => {
    const db: TestDatabase = await createTestDatabase({ dialect: 'sqlite', label: 'SQLite' });
    const app = new Koa();
    try {
      await fwAdmin(new Koa(), { db: db.url, models: [Book], purgeIntervalMs: false, ui: false, frameAncestors: ['https://a.example;'] }).then(
        () => expect.fail('started'),
        (error: unknown) => expect(error).to.have.property('key', 'fwAdmin.frameAncestors'),
      );
      const fw = await fwAdmin(app, { db: db.url, models: [Book], purgeIntervalMs: false, ui: false, frameAncestors: ["'self'", 'https://portal.example.com'] });
      try {
        app.use(fw.middleware);
        await fw.store.users.create({ account: 'admin', password: 'admin-pass-1', isAdmin: true, mustChangePassword: false });
        const agent = request(app.callback());
        const login = await agent
          .post('/fw-api/login')
          .send({ account: 'admin', pwd: encodePassword('admin-pass-1') })
          .expect(200);
        const book = await agent.post('/fw-api/data/modify/Book').set('token', login.body.token).send({ title: 'Dune' }).expect(200);
        const print = await agent.get(`/fw-api/data/print/Book/${book.body.id}?_token=${login.body.token}`).expect(200);
        expect(print.headers['content-security-policy']).to.match(/; frame-ancestors 'self' https:\/\/portal\.example\.com$/);
      } finally {
        await fw.close();
      }
    } finally {
      await db.drop();
    }
  });

  it('leave the host’s own routes alone', async () => {
    const res = await h.agent.get('/not-fw').expect(404);
    expect(res.headers['x-content-type-options']).to.equal(undefined);
  });

  it('the print page holds no inline script, style or event handler, and links what it needs with the right types', async () => {
    const page = await h.agent
      .get(`/fw-api/data/print/Book/${h.bookId}?_token=${h.token}`)
      .expect(200)
      .expect('Content-Type', /text\/html/);
    const html = page.text;
    expect(html).to.not.match(/<style/i);
    expect(html).to.not.match(/<script(?![^>]*\ssrc=)[^>]*>/i, 'a script without src');
    expect(html).to.not.match(/<[^>]+\sstyle\s*=/i, 'a style attribute');
    expect(html).to.not.match(/<[^>]+\son[a-z]+\s*=/i, 'an event handler attribute');
    expect(html).to.not.match(/javascript:/i);
    // Stored text is escaped, so it cannot add any of these either.
    expect(html).to.contain('&#60;b&#62;Dune&#60;/b&#62;').and.contain('style=&#34;color:red&#34; onload=x');
    const css = await h.agent
      .get('/fw-api/data/print.css')
      .expect(200)
      .expect('Content-Type', /^text\/css/);
    expect(css.text).to.contain('@media print');
    const js = await h.agent
      .get('/fw-api/data/print.js')
      .expect(200)
      .expect('Content-Type', /^text\/javascript/);
    expect(js.text).to.contain('window.print()');
  });
});

describeBrowser("the print page under Content-Security-Policy: default-src 'self'", (browser) => {
  let h: Host;
  let server: Server;
  let base: string;
  before(async () => {
    h = await host();
    server = createServer(h.app.callback());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    await new Promise((resolve) => server?.close(resolve));
    await h?.cleanup();
  });

  it('is styled and its Print button prints, with no policy violation', async () => {
    const context = await browser().newContext();
    try {
      const page = await context.newPage();
      // Recorded by the browser itself: any inline script or style the policy blocked.
      await page.addInitScript(`
        window.violations = [];
        window.printed = 0;
        document.addEventListener('securitypolicyviolation', (e) => window.violations.push(e.violatedDirective + ' ' + e.blockedURI));
        window.print = () => { window.printed += 1; };
      `);
      await page.goto(`${base}/fw-api/data/print/Book/${h.bookId}?_token=${h.token}`);
      await page.waitForLoadState('load');
      expect(await page.evaluate("getComputedStyle(document.querySelector('th')).backgroundColor")).to.equal('rgb(238, 238, 238)');
      await page.click('#fw-print');
      expect(await page.evaluate('window.printed')).to.equal(1);
      expect(await page.evaluate('window.violations')).to.deep.equal([]);
    } finally {
      await context.close();
    }
  });
});
