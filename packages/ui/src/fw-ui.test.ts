import { mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import Koa from 'koa';
import supertest from 'supertest';
import { FwDefinitionError, loadConfig } from '@fw/core';
import { FW_WEB_PUBLIC_DIR } from '@fw/web';
import { fwUi, injectUiConfig, type FwUiOptions } from './index.js';

const HTML = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<base href="/wrong/">
<title>Built title</title>
<script type="module" crossorigin src="./assets/index-Ab12Cd34.js"></script>
<link rel="stylesheet" href="./assets/index-Ef56Gh78.css">
</head>
<body><div id="root"></div></body>
</html>
`;

/** A fake build of the UI in a temporary folder: the page, two hashed assets and a favicon. */
function fakeDist() {
  const dist = mkdtempSync(join(tmpdir(), 'fw-ui-dist-'));
  mkdirSync(join(dist, 'assets'));
  writeFileSync(join(dist, 'index.html'), PAGE);
  writeFileSync(join(dist, 'assets', 'index-Ab12Cd34.js'), 'console.log("app");\n');
  writeFileSync(join(dist, 'assets', 'index-Ef56Gh78.css'), 'body{margin:0}\n');
  writeFileSync(join(dist, 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
  return { dist, cleanup: () => rmSync(dist, { recursive: true, force: true }) };
}

/**
 * A host with its own routes around fwUi: `/` and `/about` of its own (when the UI is not at the
 * root), an API route under the prefix, and a catch-all 404 of its own for the rest.
 */
function setup(options: Omit<FwUiOptions, 'dist'> = {}) {
  const { dist, cleanup } = fakeDist();
  const app = new Koa();
  // supertest closes its server as soon as it has read a response, which now and then lands
  // before Node has seen a streamed file's 'finish': a harmless ERR_STREAM_PREMATURE_CLOSE log.
  app.silent = true;
  app.use(fwUi({ ...options, dist }));
  app.use((ctx) => {
    if (ctx.path === '/fw-api/userinfo') ctx.body = { api: true };
    else if (ctx.path === '/about' || (options.path && ctx.path === '/')) ctx.body = `host page ${ctx.path}`;
    else if (ctx.path === '/host-json') ctx.body = { host: true };
  });
  return { app, dist, agent: supertest(app.callback()), cleanup };
}

/** The `fw-config` meta tag of a page, parsed. */
function fwConfigOf(html: string): unknown {
  const match = /<meta name="fw-config" content="([^"]*)">/.exec(html);
  if (!match) throw new Error(`no fw-config meta tag in:\n${html}`);
  const text = match[1]!.replace(/&#(\d+);/g, (_, code: string) => String.fromCharCode(Number(code)));
  return JSON.parse(text);
}

describe('fwUi(options)', () => {
  describe('mounted at /', () => {
    it('serves the page at / with <base href="/">, the fw-config meta tag and no-store', async () => {
      const s = setup();
      try {
        const res = await s.agent.get('/').set('Accept', HTML).expect(200);
        expect(res.headers['content-type']).to.match(/^text\/html/);
        expect(res.headers['cache-control']).to.equal('no-store');
        expect(res.text).to.contain('<base href="/">');
        expect(res.text).not.to.contain('/wrong/');
        expect(fwConfigOf(res.text)).to.deep.equal({ apiPrefix: '/fw-api', base: '/', title: 'Fw admin' });
        expect(res.text).to.contain('<title>Fw admin</title>');
        // The build's own tags stay, after ours: the base must precede every relative URL.
        expect(res.text.indexOf('<base href="/">')).to.be.lessThan(res.text.indexOf('./assets/index-Ab12Cd34.js'));
        expect((await s.agent.get('/index.html').expect(200)).text).to.equal(res.text);
      } finally {
        s.cleanup();
      }
    });

    it('caches hashed assets for a year (immutable) and other files with revalidation', async () => {
      const s = setup();
      try {
        const js = await s.agent.get('/assets/index-Ab12Cd34.js').expect(200);
        expect(js.headers['cache-control']).to.equal('public, max-age=31536000, immutable');
        expect(js.headers['content-type']).to.match(/javascript/);
        expect(js.text).to.equal('console.log("app");\n');
        const css = await s.agent.get('/assets/index-Ef56Gh78.css').expect(200);
        expect(css.headers['cache-control']).to.equal('public, max-age=31536000, immutable');
        const icon = await s.agent.get('/favicon.svg').expect(200);
        expect(icon.headers['cache-control']).to.equal('no-cache');
      } finally {
        s.cleanup();
      }
    });

    it('answers a deep link asking for HTML with the page, after the host routes had their chance', async () => {
      const s = setup();
      try {
        const deep = await s.agent.get('/model/Book?page=2').set('Accept', HTML).expect(200);
        expect(deep.headers['cache-control']).to.equal('no-store');
        expect(fwConfigOf(deep.text)).to.deep.include({ base: '/' });
        // The host's own routes win over the fallback.
        await s.agent.get('/about').set('Accept', HTML).expect(200, 'host page /about');
        await s.agent.get('/host-json').set('Accept', HTML).expect(200, { host: true });
        await s.agent.head('/model/Book').set('Accept', HTML).expect(200);
      } finally {
        s.cleanup();
      }
    });

    it('never answers under the API prefix, a missing asset, a non-HTML request or another method', async () => {
      const s = setup();
      try {
        await s.agent.get('/fw-api/userinfo').set('Accept', HTML).expect(200, { api: true });
        await s.agent.get('/fw-api/nothing-here').set('Accept', HTML).expect(404);
        await s.agent.get('/fw-api').set('Accept', HTML).expect(404);
        await s.agent.get('/assets/index-Missing.js').set('Accept', HTML).expect(404);
        await s.agent.get('/model/Book').set('Accept', '*/*').expect(404);
        await s.agent.get('/model/Book').set('Accept', 'application/json').expect(404);
        await s.agent.post('/model/Book').set('Accept', HTML).expect(404);
        await s.agent.post('/').set('Accept', HTML).expect(404);
      } finally {
        s.cleanup();
      }
    });

    it('keeps paths with dot segments or bad escapes away from the file system', async () => {
      const s = setup();
      writeFileSync(join(s.dist, '..', `${s.dist.split('/').pop()}-secret.txt`), 'secret');
      try {
        for (const path of ['/assets/../../etc/passwd', '/%2e%2e/secret', '/assets/%E0%A4%A', '/a%00b']) {
          const res = await s.agent.get(path).set('Accept', '*/*');
          expect(res.status, path).to.equal(404);
          expect(res.text, path).not.to.contain('secret');
        }
      } finally {
        rmSync(join(s.dist, '..', `${s.dist.split('/').pop()}-secret.txt`), { force: true });
        s.cleanup();
      }
    });

    it('serves /auth.html and /auth.js of @fw/web', async () => {
      const s = setup();
      try {
        const res = await s.agent.get('/auth.html?token=Ab3dEf5hIj7lMn9p').expect(200);
        expect(res.headers['cache-control']).to.equal('no-store');
        expect(res.text).to.equal(readFileSync(join(FW_WEB_PUBLIC_DIR, 'auth.html'), 'utf8'));
        await s.agent
          .get('/auth.js')
          .expect(200)
          .expect('Content-Type', /javascript/);
      } finally {
        s.cleanup();
      }
    });

    it('picks up a rebuilt page without a restart', async () => {
      const s = setup();
      try {
        await s.agent.get('/').expect(200);
        writeFileSync(join(s.dist, 'index.html'), PAGE.replace('index-Ab12Cd34.js', 'index-Zz99Yy88.js'));
        const later = new Date(Date.now() + 5000);
        utimesSync(join(s.dist, 'index.html'), later, later);
        expect((await s.agent.get('/').expect(200)).text).to.contain('index-Zz99Yy88.js');
      } finally {
        s.cleanup();
      }
    });
  });

  describe('mounted under a sub-path', () => {
    it('serves the page at /admin/ with <base href="/admin/"> and redirects /admin there', async () => {
      const s = setup({ path: '/admin', title: 'Books & "Co" <admin>' });
      try {
        const res = await s.agent.get('/admin/').set('Accept', HTML).expect(200);
        expect(res.text).to.contain('<base href="/admin/">');
        expect(fwConfigOf(res.text)).to.deep.equal({ apiPrefix: '/fw-api', base: '/admin/', title: 'Books & "Co" <admin>' });
        // Escaped: the title cannot end the attribute or open a tag.
        expect(res.text).not.to.contain('<admin>');
        expect(res.text).to.contain('<title>Books &#38; &#34;Co&#34; &#60;admin&#62;</title>');
        const moved = await s.agent.get('/admin?x=1').expect(301);
        expect(moved.headers.location).to.equal('/admin/?x=1');
        const deep = await s.agent.get('/admin/model/Book').set('Accept', HTML).expect(200);
        expect(deep.text).to.equal(res.text);
        const js = await s.agent.get('/admin/assets/index-Ab12Cd34.js').expect(200);
        expect(js.headers['cache-control']).to.equal('public, max-age=31536000, immutable');
      } finally {
        s.cleanup();
      }
    });

    it('leaves the host its own pages outside the mount path, HTML or not', async () => {
      const s = setup({ path: '/admin' });
      try {
        await s.agent.get('/').set('Accept', HTML).expect(200, 'host page /');
        await s.agent.get('/about').set('Accept', HTML).expect(200, 'host page /about');
        await s.agent.get('/model/Book').set('Accept', HTML).expect(404);
        await s.agent.get('/assets/index-Ab12Cd34.js').expect(404);
        await s.agent.get('/administrator').set('Accept', HTML).expect(404);
        await s.agent.get('/admin/assets/missing.js').set('Accept', HTML).expect(404);
        await s.agent.get('/admin/model/Book').set('Accept', 'application/json').expect(404);
        await s.agent.get('/fw-api/userinfo').set('Accept', HTML).expect(200, { api: true });
      } finally {
        s.cleanup();
      }
    });

    it('serves /admin/auth.html, whose "./" then lands on the UI', async () => {
      const s = setup({ path: '/admin' });
      try {
        const res = await s.agent.get('/admin/auth.html?token=Ab3dEf5hIj7lMn9p').expect(200);
        expect(res.text).to.equal(readFileSync(join(FW_WEB_PUBLIC_DIR, 'auth.html'), 'utf8'));
        expect(res.headers['referrer-policy']).to.equal('no-referrer');
        await s.agent
          .get('/admin/auth.js')
          .expect(200)
          .expect('Content-Type', /javascript/);
        // Outside the mount path the page is not fwUi's.
        await s.agent.get('/auth.html').expect(404);
      } finally {
        s.cleanup();
      }
    });

    it('uses the configured API prefix and title by default', async () => {
      const s = setup({ path: '/console/ui', config: loadConfig({ values: { 'fw-app.apiPrefix': '/api/fw', 'fw-app.title': 'Library' }, env: false }) });
      try {
        const res = await s.agent.get('/console/ui/').expect(200);
        expect(fwConfigOf(res.text)).to.deep.equal({ apiPrefix: '/api/fw', base: '/console/ui/', title: 'Library' });
        await s.agent.get('/console/ui/fw-api/x').set('Accept', HTML).expect(200);
      } finally {
        s.cleanup();
      }
    });
  });

  describe("under a content security policy of default-src 'self'", () => {
    it('adds no inline script, style or event handler to the page', async () => {
      const s = setup({ path: '/admin', title: '</title><script>alert(1)</script>' });
      try {
        const { text } = await s.agent.get('/admin/').expect(200);
        expect(text.match(/<script\b[^>]*>[\s\S]*?<\/script>/g)).to.deep.equal(['<script type="module" crossorigin src="./assets/index-Ab12Cd34.js"></script>']);
        expect(text).not.to.match(/<style\b|\sstyle=|\son[a-z]+\s*=/i);
      } finally {
        s.cleanup();
      }
    });
  });

  describe('security headers (issue 19 §5)', () => {
    const UI_POLICY =
      "default-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' blob: data:; object-src 'none'; base-uri 'self'; form-action 'self'; frame-ancestors 'self'";

    it('sends the page with a content security policy that only its own origin may frame, and nosniff', async () => {
      const s = setup({ path: '/admin' });
      try {
        for (const path of ['/admin/', '/admin/index.html', '/admin/model/Book']) {
          const res = await s.agent.get(path).set('Accept', HTML).expect(200);
          expect(res.headers['content-security-policy'], path).to.equal(UI_POLICY);
          expect(res.headers['x-content-type-options'], path).to.equal('nosniff');
        }
        // The sign-on page under the UI: its own policy, and its URL (with the token) is never a Referer.
        const auth = await s.agent.get('/admin/auth.html?token=Ab3dEf5hIj7lMn9p').expect(200);
        expect(auth.headers['content-security-policy']).to.equal("default-src 'self'; object-src 'none'; base-uri 'self'; form-action 'self'; frame-ancestors 'self'");
        expect(auth.headers['referrer-policy']).to.equal('no-referrer');
        expect(auth.headers['x-content-type-options']).to.equal('nosniff');
      } finally {
        s.cleanup();
      }
    });

    it('sends every file of the build with nosniff', async () => {
      const s = setup();
      try {
        for (const path of ['/assets/index-Ab12Cd34.js', '/assets/index-Ef56Gh78.css', '/favicon.svg', '/auth.js']) {
          const res = await s.agent.get(path).expect(200);
          expect(res.headers['x-content-type-options'], path).to.equal('nosniff');
        }
      } finally {
        s.cleanup();
      }
    });

    it('lets frameAncestors name the hosts that frame the admin, for the page and its /auth.html', async () => {
      const s = setup({ frameAncestors: ["'self'", 'https://portal.example.com', 'https://*.intranet.example:8443'] });
      try {
        const page = await s.agent.get('/').set('Accept', HTML).expect(200);
        expect(page.headers['content-security-policy']).to.match(/; frame-ancestors 'self' https:\/\/portal\.example\.com https:\/\/\*\.intranet\.example:8443$/);
        const auth = await s.agent.get('/auth.html').expect(200);
        expect(auth.headers['content-security-policy']).to.match(/; frame-ancestors 'self' https:\/\/portal\.example\.com https:\/\/\*\.intranet\.example:8443$/);
      } finally {
        s.cleanup();
      }
    });

    it('refuses a frameAncestors that could break out of the directive, at start-up', () => {
      const { dist, cleanup } = fakeDist();
      try {
        for (const bad of [
          [],
          'https://a.example',
          [''],
          ['https://a.example; script-src *'],
          ["'self' https://a.example"],
          ['https://a.example,https://b.example'],
          ["'unsafe-inline'"],
          ["'none'", "'self'"],
          [42],
        ]) {
          expect(() => fwUi({ dist, frameAncestors: bad } as FwUiOptions), JSON.stringify(bad))
            .to.throw(FwDefinitionError)
            .with.property('key', 'fwUi.frameAncestors');
        }
        expect(() => fwUi({ dist, frameAncestors: ["'none'"] })).not.to.throw();
        expect(() => fwUi({ dist, frameAncestors: ['https:', 'http://localhost:5173'] })).not.to.throw();
      } finally {
        cleanup();
      }
    });
  });

  describe('start-up', () => {
    it('refuses a missing build with the command that makes it', () => {
      const dir = mkdtempSync(join(tmpdir(), 'fw-ui-empty-'));
      try {
        expect(() => fwUi({ dist: dir })).to.throw(FwDefinitionError, /not built.*npm run build:app -w @fw\/ui/);
        expect(() => fwUi({ dist: join(dir, 'nope') })).to.throw(FwDefinitionError, /npm run build:app -w @fw\/ui/);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });

    it('refuses bad options', () => {
      const { dist, cleanup } = fakeDist();
      try {
        for (const [options, key] of [
          [{ path: 'admin' }, 'fwUi.path'],
          [{ path: '/admin/' }, 'fwUi.path'],
          [{ path: '/fw-api' }, 'fwUi.path'],
          [{ path: '/fw-api/ui' }, 'fwUi.path'],
          [{ path: '/a b' }, 'fwUi.path'],
          [{ apiPrefix: 'fw-api' }, 'fwUi.apiPrefix'],
          [{ title: '' }, 'fwUi.title'],
          [{ title: 'a\nb' }, 'fwUi.title'],
          [{ dist: '' }, 'fwUi.dist'],
          [{ colour: 'red' }, 'fwUi.colour'],
        ] as Array<[Record<string, unknown>, string]>) {
          expect(() => fwUi({ dist, ...options } as FwUiOptions), JSON.stringify(options))
            .to.throw(FwDefinitionError)
            .with.property('key', key);
        }
        expect(() => fwUi({ dist, path: '/' })).not.to.throw();
      } finally {
        cleanup();
      }
    });
  });

  describe('injectUiConfig(html, config)', () => {
    it('puts the tags right after <head>, whatever its attributes, and refuses a page without one', () => {
      const html = injectUiConfig('<html><HEAD data-x="1"><title>x</title></HEAD></html>', { apiPrefix: '/fw-api', base: '/', title: "O'Brien" });
      expect(html).to.match(/^<html><HEAD data-x="1">\n<base href="\/">\n<meta name="fw-config" content="\{&#34;apiPrefix&#34;/);
      expect(html).to.contain('<title>O&#39;Brien</title>');
      expect(() => injectUiConfig('<p>no head</p>', { apiPrefix: '/fw-api', base: '/', title: 't' })).to.throw(/no <head>/);
    });
  });
});
