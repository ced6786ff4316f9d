import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import Koa from 'koa';
import supertest from 'supertest';
import { FwDefinitionError } from '@fw/core';
import { describeBrowser } from '@fw/test-utils';
import { FW_WEB_PUBLIC_DIR, findShadowingFiles, fwWeb, type FwWebOptions } from './index.js';

/** A Koa host with fwWeb() in front of a catch-all that names the request it got. */
function setup(options?: FwWebOptions) {
  const app = new Koa();
  app.use(fwWeb(options));
  app.use((ctx) => {
    ctx.body = `host ${ctx.method} ${ctx.path}`;
  });
  return { app, agent: supertest(app.callback()) };
}

/** A fresh temporary folder standing in for the host's static root; `cleanup()` removes it. */
function hostRoot(files: Record<string, string> = {}) {
  const root = mkdtempSync(join(tmpdir(), 'fw-web-host-'));
  for (const [name, content] of Object.entries(files)) writeFileSync(join(root, name), content);
  return { root, cleanup: () => rmSync(root, { recursive: true, force: true }) };
}

function warnings(options: Omit<FwWebOptions, 'onWarning'>): string[] {
  const seen: string[] = [];
  fwWeb({ ...options, onWarning: (message) => seen.push(message) });
  return seen;
}

describe('fwWeb(options)', () => {
  describe('serving the built-in pages', () => {
    it('serves /auth.html as text/html, uncached, framed only by its own origin, its URL never a Referer', async () => {
      const { agent } = setup();
      const res = await agent.get('/auth.html?token=Ab3dEf5hIj7lMn9p').expect(200);
      expect(res.headers['content-type']).to.match(/^text\/html/);
      // frame-ancestors, not X-Frame-Options: a host may name other origins that frame it.
      expect(res.headers['x-frame-options']).to.equal(undefined);
      expect(res.headers['content-security-policy']).to.equal("default-src 'self'; object-src 'none'; base-uri 'self'; form-action 'self'; frame-ancestors 'self'");
      expect(res.headers['x-content-type-options']).to.equal('nosniff');
      expect(res.headers['cache-control']).to.equal('no-store');
      expect(res.headers['referrer-policy']).to.equal('no-referrer');
      expect(res.text).to.equal(readFileSync(join(FW_WEB_PUBLIC_DIR, 'auth.html'), 'utf8'));
    });

    it("keeps auth.html free of inline script (a host `script-src 'self'` policy must not block it)", async () => {
      const { text } = await setup().agent.get('/auth.html').expect(200);
      const scripts = text.match(/<script\b[^>]*>[\s\S]*?<\/script>/g) ?? [];
      expect(scripts).to.deep.equal(['<script src="auth.js" defer></script>']);
      expect(text).not.to.match(/\son[a-z]+\s*=/i); // no inline event handlers either
    });

    it('serves /auth.js as JavaScript', async () => {
      const res = await setup().agent.get('/auth.js').expect(200);
      expect(res.headers['content-type']).to.match(/^(text|application)\/javascript/);
      expect(res.text).to.contain('localStorage.setItem(STORAGE_KEY, JSON.stringify({ token: token }))');
    });

    it('answers HEAD /auth.html', async () => {
      const res = await setup().agent.head('/auth.html').expect(200);
      expect(res.headers['content-type']).to.match(/^text\/html/);
    });

    it('leaves other methods on its paths to the host', async () => {
      const { agent } = setup();
      expect((await agent.post('/auth.html').send('x=1').expect(200)).text).to.equal('host POST /auth.html');
      expect((await agent.put('/auth.js').expect(200)).text).to.equal('host PUT /auth.js');
    });

    it('leaves every other path to the host', async () => {
      const { agent } = setup();
      for (const path of ['/', '/index.html', '/auth.html/', '/public/auth.html', '/auth.htm', '/Auth.html', '/x/auth.html']) {
        expect((await agent.get(path).expect(200)).text, path).to.equal(`host GET ${path}`);
      }
    });

    it('does not turn a malformed or escaping path into its own error', async () => {
      const { agent } = setup();
      expect((await agent.get('/%E0%A4%A').expect(200)).text).to.equal('host GET /%E0%A4%A');
      expect((await agent.get('/..%2Fpackage.json').expect(200)).text).to.equal('host GET /..%2Fpackage.json');
    });

    it('serves the same pages from FW_WEB_PUBLIC_DIR', () => {
      expect(readFileSync(join(FW_WEB_PUBLIC_DIR, 'auth.html'), 'utf8')).to.contain('<script src="auth.js"');
      expect(readFileSync(join(FW_WEB_PUBLIC_DIR, 'auth.js'), 'utf8')).to.contain("location.replace('./')");
    });
  });

  describe('options', () => {
    it('rejects bad options at once with FwDefinitionError', () => {
      const bad: Array<[unknown, string]> = [
        [{ hostStaticRoot: '' }, 'fwWeb.hostStaticRoot'],
        [{ hostStaticRoot: 42 }, 'fwWeb.hostStaticRoot'],
        [{ onWarning: 'console' }, 'fwWeb.onWarning'],
        [{ hostStaticroot: './public' }, 'fwWeb.hostStaticroot'],
        [{ frameAncestors: [] }, 'fwWeb.frameAncestors'],
        [{ frameAncestors: ["https://a.example; script-src 'unsafe-inline'"] }, 'fwWeb.frameAncestors'],
        ['./public', 'fwWeb'],
        [null, 'fwWeb'],
      ];
      for (const [options, key] of bad) {
        let caught: unknown;
        try {
          fwWeb(options as FwWebOptions);
        } catch (err) {
          caught = err;
        }
        expect(caught, JSON.stringify(options)).to.be.instanceOf(FwDefinitionError);
        expect((caught as FwDefinitionError).key).to.equal(key);
      }
    });

    it('frameAncestors names who may frame /auth.html', async () => {
      const app = new Koa();
      app.use(fwWeb({ frameAncestors: ["'self'", 'https://portal.example.com'] }));
      const res = await supertest(app.callback()).get('/auth.html').expect(200);
      expect(res.headers['content-security-policy']).to.match(/; frame-ancestors 'self' https:\/\/portal\.example\.com$/);
    });

    it("does not write to the caller's options object", () => {
      const options: FwWebOptions = Object.freeze({ hostStaticRoot: '/nonexistent-fw-web-root' });
      expect(() => fwWeb(options)).not.to.throw();
      expect(options).to.deep.equal({ hostStaticRoot: '/nonexistent-fw-web-root' });
    });
  });

  describe('hostStaticRoot: the shadow check', () => {
    it('warns once, naming the host file and the built-in page, when the host root holds auth.html', () => {
      const host = hostRoot({ 'auth.html': '<p>custom</p>' });
      try {
        const seen = warnings({ hostStaticRoot: host.root });
        expect(seen).to.have.length(1);
        expect(seen[0]).to.contain(join(host.root, 'auth.html'));
        expect(seen[0]).to.contain(join(FW_WEB_PUBLIC_DIR, 'auth.html'));
        expect(seen[0]).to.match(/shadows/);
        expect(seen[0]).to.match(/host static middleware runs before fwWeb/);
        expect(seen[0]).to.match(/another path/);
      } finally {
        host.cleanup();
      }
    });

    it('names every shadowing file in the one warning', () => {
      const host = hostRoot({ 'auth.html': 'a', 'auth.js': 'b' });
      try {
        const seen = warnings({ hostStaticRoot: host.root });
        expect(seen).to.have.length(1);
        expect(seen[0]).to.contain(join(host.root, 'auth.js'));
        expect(seen[0]).to.contain(join(FW_WEB_PUBLIC_DIR, 'auth.js'));
      } finally {
        host.cleanup();
      }
    });

    it('stays quiet when the host root has no auth.html (or only a folder of that name)', () => {
      const host = hostRoot({ 'index.html': '<p>home</p>', 'auth.htm': 'x' });
      mkdirSync(join(host.root, 'auth.html'));
      try {
        expect(warnings({ hostStaticRoot: host.root })).to.deep.equal([]);
        expect(findShadowingFiles(host.root)).to.deep.equal([]);
      } finally {
        host.cleanup();
      }
    });

    it('does not crash on a missing host root', () => {
      const missing = join(tmpdir(), `fw-web-missing-${process.pid}-${Date.now()}`);
      expect(warnings({ hostStaticRoot: missing })).to.deep.equal([]);
      expect(findShadowingFiles(missing)).to.deep.equal([]);
    });

    it('warns through console.warn by default', () => {
      const host = hostRoot({ 'auth.html': 'x' });
      const original = console.warn;
      const seen: unknown[][] = [];
      console.warn = (...args: unknown[]) => {
        seen.push(args);
      };
      try {
        fwWeb({ hostStaticRoot: host.root });
      } finally {
        console.warn = original;
        host.cleanup();
      }
      expect(seen).to.have.length(1);
      expect(String(seen[0]?.[0])).to.contain(join(host.root, 'auth.html'));
    });

    it('findShadowingFiles lists the shadowing file with both paths', () => {
      const host = hostRoot({ 'auth.html': 'x' });
      try {
        expect(findShadowingFiles(host.root)).to.deep.equal([{ name: 'auth.html', hostPath: join(host.root, 'auth.html'), builtinPath: join(FW_WEB_PUBLIC_DIR, 'auth.html') }]);
      } finally {
        host.cleanup();
      }
    });
  });
});

describeBrowser('/auth.html', (browser) => {
  let server: Server;
  let base: string;

  before(async () => {
    const app = new Koa();
    // A strict host policy: the hand-off must work without inline script.
    app.use(async (ctx, next) => {
      ctx.set('Content-Security-Policy', "default-src 'self'");
      await next();
    });
    app.use(fwWeb());
    app.use((ctx) => {
      if (ctx.path === '/') {
        ctx.type = 'html';
        ctx.body = '<!doctype html><title>home</title><pre id="stored"></pre><script src="/home.js"></script>';
      } else if (ctx.path === '/home.js') {
        ctx.type = 'js';
        ctx.body = "document.getElementById('stored').textContent = localStorage.getItem('_token') ?? 'nothing';";
      }
    });
    server = createServer(app.callback());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  after(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  /** Opens `/auth.html<search>` in a fresh context (its own localStorage). */
  async function open(search: string) {
    const context = await browser().newContext();
    const page = await context.newPage();
    page.setDefaultTimeout(5000); // fail fast and clearly, well inside mocha's timeout
    await page.goto(`${base}/auth.html${search}`);
    return { context, page };
  }

  const handOffs: Array<[string, string]> = [
    ['Ab3dEf5hIj7lMn9p', 'Ab3dEf5hIj7lMn9p'],
    ['ab%2Bc%25d%2Fe', 'ab+c%d/e'],
    ['a+b', 'a+b'],
  ];
  for (const [raw, token] of handOffs) {
    it(`?token=${raw} stores {"token":"${token}"} and lands on the home page`, async () => {
      const { context, page } = await open(`?token=${raw}&other=1`);
      try {
        await page.waitForURL(`${base}/`);
        // Strings, not functions: they run in the page, and this program has no DOM types.
        await page.waitForFunction("document.getElementById('stored').textContent !== ''");
        expect(await page.textContent('#stored')).to.equal(JSON.stringify({ token }));
        expect(await page.evaluate("localStorage.getItem('_token')")).to.equal(`{"token":"${token}"}`);
      } finally {
        await context.close();
      }
    });
  }

  for (const search of ['', '?token=', '?tokens=x', '?token=%E0%A4%A']) {
    it(`${search || 'no query'}: stores nothing and stays on the page with a message`, async () => {
      const { context, page } = await open(search);
      try {
        await page.waitForFunction("document.title === 'Sign-in failed'");
        expect(await page.textContent('#fw-auth-status')).to.match(/no valid token/);
        expect(page.url()).to.equal(`${base}/auth.html${search}`);
        expect(await page.evaluate('localStorage.length')).to.equal(0);
      } finally {
        await context.close();
      }
    });
  }
});
