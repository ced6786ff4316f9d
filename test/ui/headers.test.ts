// Issue 19 §5: the admin UI and the print page run under the content security policy Fw sends
// itself (default-src 'self', frame-ancestors 'self'; images also from blob: and data:): sign-in,
// a model page (with its first-load prefetch), a form with an image field and its thumbnail, and
// the print page, at 390 and 1366 px, without one violation. On the attacker's side, the print
// page of a row whose text holds a script and an image with onerror runs nothing.
import { join } from 'node:path';
import { deflateSync } from 'node:zlib';
import { expect } from 'chai';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { describeBrowser } from '@fw/test-utils';
import { apiToken, rowAction, rowWith, shot, signIn, startDemo, waitUntil, type UiDemo } from './support.js';

/** A 24×24 one-colour PNG (enough for a thumbnail to show). */
function png(): Buffer {
  const crcTable = Array.from({ length: 256 }, (_, n) => {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    return c >>> 0;
  });
  const crc = (bytes: Buffer) => {
    let c = 0xffffffff;
    for (const byte of bytes) c = crcTable[(c ^ byte) & 0xff]! ^ (c >>> 8);
    return (c ^ 0xffffffff) >>> 0;
  };
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const head = Buffer.alloc(4);
    head.writeUInt32BE(data.length);
    const tail = Buffer.alloc(4);
    tail.writeUInt32BE(crc(body));
    return Buffer.concat([head, body, tail]);
  };
  const size = 24;
  const raw = Buffer.alloc(size * (1 + size * 3));
  for (let y = 0; y < size; y++) for (let x = 0; x < size; x++) raw.set([0x2e, 0x8b, 0x57], y * (1 + size * 3) + 1 + x * 3);
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(size, 0);
  ihdr.writeUInt32BE(size, 4);
  ihdr.set([8, 2, 0, 0, 0], 8);
  return Buffer.concat([Buffer.from('89504e470d0a1a0a', 'hex'), chunk('IHDR', ihdr), chunk('IDAT', deflateSync(raw)), chunk('IEND', Buffer.alloc(0))]);
}

const HOSTILE = `Dune <script>window.__pwned='script'</script><img src=x onerror="window.__pwned='img'">`;
const UI_POLICY =
  "default-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' blob: data:; object-src 'none'; base-uri 'self'; form-action 'self'; frame-ancestors 'self'";
const PRINT_POLICY = "default-src 'self'; object-src 'none'; base-uri 'self'; form-action 'self'; frame-ancestors 'self'";

/**
 * A browser context that records every policy violation of every page it opens: the browser's
 * own `securitypolicyviolation` events, and its console reports of refused content.
 */
async function watchedContext(ui: UiDemo, browser: Browser, width: number) {
  const context: BrowserContext = await browser.newContext({ viewport: { width, height: width < 600 ? 844 : 900 }, acceptDownloads: true });
  const violations: string[] = [];
  const errors: string[] = [];
  /** Fw's own answers, to check the headers of every page, asset and API call. */
  const responses: Array<{ url: string; status: number; headers: Record<string, string> }> = [];
  await context.exposeBinding('__fwViolation', (_source, text: string) => void violations.push(text));
  await context.addInitScript(
    `document.addEventListener('securitypolicyviolation', (e) => window.__fwViolation(e.violatedDirective + ' ' + e.blockedURI + ' ' + (e.sample || '')));`,
  );
  const watch = (page: Page) => {
    page.setDefaultTimeout(30_000);
    page.on('console', (m) => {
      if (/Content Security Policy|Refused to/i.test(m.text())) violations.push(m.text());
    });
    page.on('pageerror', (e) => errors.push(e.message));
    page.on('response', (r) => {
      if (r.url().startsWith(ui.url)) responses.push({ url: r.url(), status: r.status(), headers: r.headers() });
    });
  };
  context.on('page', watch);
  const page = await context.newPage();
  return { context, page, violations, errors, responses };
}

describeBrowser('admin UI: the pages under the security headers Fw sends', (browser) => {
  let ui: UiDemo;
  let token: string;
  let hostileId: number;
  before(async () => {
    ui = await startDemo();
    token = await apiToken(ui.url);
    const res = await fetch(`${ui.url}/fw-api/data/modify/Book`, {
      method: 'POST',
      headers: { token, 'content-type': 'application/json' },
      body: JSON.stringify({ title: HOSTILE, genre: 'novel' }),
    });
    expect(res.status).to.equal(200);
    hostileId = ((await res.json()) as { id: number }).id;
  });
  after(async () => {
    await ui?.close();
  });

  for (const width of [1366, 390]) {
    it(`at ${width} px: sign-in, a model page, a form with an image field and the print page, with no policy violation`, async () => {
      const { context, page, violations, errors, responses } = await watchedContext(ui, browser(), width);
      try {
        // Sign-in, then the model page the person asked for (the first load prefetches its data).
        const first = await page.goto(`${ui.url}/model/Author`);
        await page.waitForURL(`${ui.url}/login`);
        expect(first?.headers()['content-security-policy']).to.equal(UI_POLICY);
        await page.locator('#login_account').waitFor();
        await shot(page, join(ui.shots, `headers-sign-in-${width}.png`));
        await signIn(page);
        await page.waitForURL(`${ui.url}/model/Author`);
        await page.locator('.fw-page-title', { hasText: 'Authors' }).waitFor();
        await page.reload(); // the first load of a deep link, signed in: the prefetch path
        await page.locator('.fw-add').waitFor();

        // The form with the image field: upload a photo, save, see its thumbnail (a blob: image).
        await page.locator('.fw-add').click();
        await page.locator('.ant-drawer-title', { hasText: 'Add Author' }).waitFor();
        await page.locator('#row-add_name').fill(`Frank Herbert ${width}`);
        await page.locator('.ant-drawer .fw-field-photo input[type=file]').setInputFiles({ name: 'herbert.png', mimeType: 'image/png', buffer: png() });
        await page.locator('.ant-drawer .fw-field-photo .ant-upload-list-item-done', { hasText: 'herbert.png' }).waitFor();
        await page.locator('.ant-drawer .fw-field-photo').scrollIntoViewIfNeeded();
        await shot(page, join(ui.shots, `headers-form-${width}.png`));
        await page.getByRole('button', { name: 'Save' }).click();
        await page.locator('.ant-drawer').waitFor({ state: 'hidden' });
        const thumb = rowWith(page, `Frank Herbert ${width}`).locator('td.fw-col-photo img.fw-thumbnail');
        await thumb.waitFor();
        await waitUntil(page, `[...document.querySelectorAll('td.fw-col-photo img.fw-thumbnail')].some((img) => img.naturalWidth === 24)`);
        expect(await thumb.getAttribute('src')).to.match(/^blob:/);
        await thumb.scrollIntoViewIfNeeded();
        await shot(page, join(ui.shots, `headers-model-${width}.png`));

        // The Books page shows the hostile title as text.
        await page.goto(`${ui.url}/model/Book`);
        await rowWith(page, HOSTILE).waitFor();

        // The print page of that row, opened as the row's print link opens it (with _token).
        const printAction = await rowAction(page, rowWith(page, HOSTILE), 'fw-row-print');
        const href = await (width <= 768 ? printAction.locator('a') : printAction).getAttribute('href');
        expect(href).to.match(/\/fw-api\/data\/print\/Book\/\d+\?_token=/);
        const print = await context.newPage();
        const answer = await print.goto(new URL(href!, ui.url).href);
        expect(answer?.status()).to.equal(200);
        expect(answer?.headers()['content-security-policy']).to.equal(PRINT_POLICY);
        expect(answer?.headers()['referrer-policy']).to.equal('no-referrer');
        expect(answer?.headers()['x-content-type-options']).to.equal('nosniff');
        await print.waitForLoadState('load');
        expect(await print.locator('td', { hasText: 'window.__pwned' }).innerText()).to.equal(HOSTILE);
        // Nothing of the row ran or became markup: no image element, no flag set.
        expect(await print.evaluate('typeof window.__pwned')).to.equal('undefined');
        expect(await print.locator('img').count()).to.equal(0);
        expect(await print.evaluate("getComputedStyle(document.querySelector('th')).backgroundColor")).to.equal('rgb(238, 238, 238)');
        await shot(print, join(ui.shots, `headers-print-${width}.png`));
        expect(new URL(href!, ui.url).searchParams.get('_token')).to.equal(JSON.parse((await page.evaluate('localStorage.getItem("_token")')) as string).token);

        expect(violations, 'content security policy violations').to.deep.equal([]);
        expect(errors, 'page errors').to.deep.equal([]);
        // Every answer of the app (pages, scripts, stylesheets, API) says nosniff.
        const sniffable = responses.filter((r) => r.status !== 304 && r.headers['x-content-type-options'] !== 'nosniff');
        expect(sniffable.map((r) => `${r.status} ${r.url}`)).to.deep.equal([]);
        const assets = responses.filter((r) => /\/assets\/.+\.(js|css)$/.test(r.url));
        expect(assets.length).to.be.greaterThan(1);
      } finally {
        await context.close();
      }
    });
  }

  it('a hostile row’s print page stays inert even opened directly by its id', async () => {
    const { context, page, violations } = await watchedContext(ui, browser(), 1366);
    try {
      await page.goto(`${ui.url}/fw-api/data/print/Book/${hostileId}?_token=${token}`);
      await page.waitForLoadState('load');
      expect(await page.evaluate('typeof window.__pwned')).to.equal('undefined');
      expect(await page.locator('script').evaluateAll((s) => s.map((e) => e.getAttribute('src')))).to.deep.equal(['../../print.js']);
      expect(violations).to.deep.equal([]);
    } finally {
      await context.close();
    }
  });
});
