// The first load's weight (issue 20 §10): what the sign-in page and a model page make the browser
// download, as it travelled (compressed), against the budgets: sign-in page ≤ 250 kB, a model page
// ≤ 600 kB (1 kB = 1,000 bytes). Measured twice: in Chromium, summing the encoded bodies of every
// response but the API's; and on the built files, following Vite's manifest from the entry through
// the route's chunks, brotli as fwUi sends them. Prints the figures either way.
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { describeBrowser } from '@fw/test-utils';
import { FW_UI_DIST_DIR } from '@fw/ui';
import { apiToken, openPage, startDemo, watchNetwork, type UiDemo } from './support.js';

const SIGN_IN_BUDGET = 250_000;
const MODEL_PAGE_BUDGET = 600_000;
const kB = (n: number) => `${(n / 1000).toFixed(1)} kB`;

interface Loaded {
  path: string;
  encoding: string;
  bytes: number;
  decoded: number;
}

/** Records every response of `page` outside the API with its encoded body size; `done()` once the page is idle. */
function recordLoads(page: Page) {
  const loads: Array<Promise<Loaded | undefined>> = [];
  page.on('requestfinished', (request) => {
    loads.push(
      (async () => {
        const url = new URL(request.url());
        if (url.pathname.startsWith('/fw-api/')) return undefined;
        const response = await request.response();
        if (!response) return undefined;
        const [sizes, body] = await Promise.all([request.sizes(), response.body().catch(() => Buffer.alloc(0))]);
        return { path: url.pathname, encoding: response.headers()['content-encoding'] ?? 'identity', bytes: sizes.responseBodySize, decoded: body.length };
      })(),
    );
  });
  return { done: async () => (await Promise.all(loads)).filter((l): l is Loaded => l !== undefined) };
}

function report(title: string, loads: Loaded[]): number {
  const total = loads.reduce((n, l) => n + l.bytes, 0);
  console.log(`      ${title}: ${kB(total)} transferred (${kB(loads.reduce((n, l) => n + l.decoded, 0))} unpacked)`);
  for (const l of [...loads].sort((a, b) => b.bytes - a.bytes)) console.log(`        ${kB(l.bytes).padStart(9)} ${l.encoding.padEnd(8)} ${l.path}`);
  return total;
}

describeBrowser('admin UI: first-load budgets', (browser) => {
  let ui: UiDemo;
  let token: string;
  before(async function () {
    this.timeout(120_000);
    ui = await startDemo();
    token = await apiToken(ui.url);
  });
  after(async () => {
    await ui?.close();
  });

  it(`the sign-in page loads at most ${kB(SIGN_IN_BUDGET)}, compressed, and nothing of the shell or the model page`, async () => {
    const { context, page, errors } = await openPage(browser());
    try {
      const rec = recordLoads(page);
      const network = watchNetwork(page);
      await page.goto(`${ui.url}/login`);
      await page.locator('#login_account').waitFor();
      await network.quiet();
      const loads = await rec.done();
      const total = report('sign-in page', loads);
      const scripts = loads.filter((l) => /\.(js|css)$/.test(l.path));
      expect(scripts.length).to.be.greaterThan(1);
      // Every file big enough to gain came compressed (the build leaves files under 1 kB as they are).
      for (const l of scripts.filter((s) => s.decoded >= 1024)) expect(l.encoding, l.path).to.be.oneOf(['br', 'gzip']);
      expect(
        loads.map((l) => l.path).filter((p) => /\/(ModelPage|route)-/.test(p)),
        'shell or model page code on the sign-in page',
      ).to.deep.equal([]);
      expect(total, `sign-in page ${kB(total)}`).to.be.at.most(SIGN_IN_BUDGET);
      expect(errors).to.deep.equal([]);
    } finally {
      await context.close();
    }
  });

  it(`a model page opened from a deep link loads at most ${kB(MODEL_PAGE_BUDGET)}, compressed`, async () => {
    const { context, page, errors } = await openPage(browser());
    try {
      // The token goes in from a page of the app's origin; what that page loaded is not counted.
      await page.goto(`${ui.url}/favicon.svg`);
      await page.evaluate(`window.localStorage.setItem('_token', ${JSON.stringify(JSON.stringify({ token }))})`);
      const rec = recordLoads(page);
      const network = watchNetwork(page);
      await page.goto(`${ui.url}/model/Book`);
      await page.locator('.ant-table').waitFor();
      await network.quiet();
      const loads = await rec.done();
      const total = report('model page /model/Book', loads);
      expect(
        loads.some((l) => /\/ModelPage-/.test(l.path)),
        'the model page chunk was loaded',
      ).to.equal(true);
      expect(total, `model page ${kB(total)}`).to.be.at.most(MODEL_PAGE_BUDGET);
      expect(errors).to.deep.equal([]);
    } finally {
      await context.close();
    }
  });
});

interface ManifestChunk {
  file: string;
  imports?: string[];
  css?: string[];
}

describe('admin UI build: first-load budgets on the built files', () => {
  const manifestFile = join(FW_UI_DIST_DIR, '.vite', 'manifest.json');
  /** The brotli size of a built file as fwUi sends it (the file itself when the build kept no .br). */
  const sent = (file: string) => {
    const br = join(FW_UI_DIST_DIR, `${file}.br`);
    return statSync(existsSync(br) ? br : join(FW_UI_DIST_DIR, file)).size;
  };
  /** Every file a chunk brings: itself, its stylesheets and, recursively, its static imports. */
  const closure = (manifest: Record<string, ManifestChunk>, keys: string[]): Set<string> => {
    const files = new Set<string>();
    const seen = new Set<string>();
    const visit = (key: string) => {
      if (seen.has(key)) return;
      seen.add(key);
      const chunk = manifest[key];
      if (!chunk) throw new Error(`${key} is not in the build's manifest`);
      files.add(chunk.file);
      for (const css of chunk.css ?? []) files.add(css);
      for (const dep of chunk.imports ?? []) visit(dep);
    };
    keys.forEach(visit);
    return files;
  };
  const budget = (title: string, routes: string[], limit: number) => {
    const manifest = JSON.parse(readFileSync(manifestFile, 'utf8')) as Record<string, ManifestChunk>;
    const files = [...closure(manifest, ['index.html', ...routes]), 'index.html'];
    const total = files.reduce((n, f) => n + sent(f), 0);
    console.log(`      ${title}, brotli: ${kB(total)} (${files.length} files: ${files.map((f) => `${f.replace(/^assets\//, '')} ${kB(sent(f))}`).join(', ')})`);
    expect(total, title).to.be.at.most(limit);
    return files;
  };

  it(`the sign-in page's files come to at most ${kB(SIGN_IN_BUDGET)} brotli`, () => {
    const files = budget('sign-in page', ['src/LoginPage.tsx'], SIGN_IN_BUDGET);
    expect(files.filter((f) => /\/(ModelPage|route)-/.test(f))).to.deep.equal([]);
  });

  it(`a model page's files come to at most ${kB(MODEL_PAGE_BUDGET)} brotli`, () => {
    budget('model page', ['src/shell/route.tsx', 'src/model/ModelPage.tsx'], MODEL_PAGE_BUDGET);
  });
});
