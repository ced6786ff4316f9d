// The admin UI in a real browser: (1) what the sign-in page and a model page make the browser
// download, as it travelled; (2) the time from navigation to the first table rows painted on a
// 100,000-row model, with an empty cache (cold) and after a reload (warm), against the bare table
// call made from the same page. Every figure for several builds in the same run, runs alternating:
// this build as fwUi sends it (brotli), the same build with compression off (its .br/.gz files left
// out), and — when BENCH_UI_BEFORE_DIST names another build's folder, such as one made from an older
// commit — that build. Each twice: on the loopback, and throttled to a modest connection (Chromium's
// network emulation). Debian's headless Chromium (playwright-core) against the demo app on a
// temporary SQLite file, in this process. Run: npm run bench -- ui (BENCH_UI_NETWORK=loopback or
// =throttled for one network only)
import { cpSync, existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { CHROMIUM_PATH, launchBrowser } from '@fw/test-utils';
import { createDemoApp, type DemoApp } from '../examples/demo/src/app.js';
import { median } from './lib.js';

const ROWS = 100_000;
const RUNS = Math.max(15, Number(process.env.BENCH_RUNS ?? 15));
const WARMUP = 2;
/** Bare calls per page load: all of them go into one median. */
const BARE_PER_RUN = 3;
/** Issue 20's budgets for what travels: the sign-in page, a model page. */
const SIGN_IN_BUDGET = 250_000;
const MODEL_PAGE_BUDGET = 600_000;
/** The throttled connection: 20 Mbit/s down, 5 up, 40 ms round trip. */
const THROTTLED = { offline: false, latency: 40, downloadThroughput: (20_000_000 / 8) | 0, uploadThroughput: (5_000_000 / 8) | 0 };
const MODEL = 'Book';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const ui = join(root, 'packages', 'ui');

/** Newest modification time of the files under `path`. */
function newest(path: string): { file: string; mtimeMs: number } {
  const stat = statSync(path);
  if (!stat.isDirectory()) return { file: path, mtimeMs: stat.mtimeMs };
  let best = { file: path, mtimeMs: 0 };
  for (const entry of readdirSync(path)) {
    const found = newest(join(path, entry));
    if (found.mtimeMs > best.mtimeMs) best = found;
  }
  return best;
}

if (!existsSync(CHROMIUM_PATH)) {
  console.log(`skipped: ${CHROMIUM_PATH} is not installed (Debian's chromium package)`);
  process.exit(0);
}
const builtPage = join(ui, 'dist', 'index.html');
if (!existsSync(builtPage)) throw new Error('packages/ui/dist is missing: run `npm run build:app -w @fw/ui` first');
// Figures of an old build would describe code that no longer exists: refuse, and say how to rebuild.
const built = statSync(builtPage).mtimeMs;
for (const source of [join(ui, 'app'), join(ui, 'build'), join(ui, 'vite.config.ts')]) {
  const latest = newest(source);
  if (latest.mtimeMs > built) throw new Error(`packages/ui/dist is older than ${latest.file}: run \`npm run build:app -w @fw/ui\` first`);
}

/** One response (not the API's) as it travelled. */
interface Asset {
  name: string;
  /** Body bytes on the wire (compressed when it came compressed). */
  sent: number;
  /** Body bytes unpacked. */
  raw: number;
  encoding: string;
}

/** Records every response of `page` outside the API; `done()` waits for their bodies, one entry per URL. */
function recordAssets(page: Page): { done: () => Promise<Asset[]> } {
  const pending: Array<Promise<Asset | undefined>> = [];
  page.on('requestfinished', (request) => {
    pending.push(
      (async () => {
        const url = new URL(request.url());
        if (url.pathname.startsWith('/fw-api/')) return undefined;
        const response = await request.response();
        if (!response) return undefined;
        const [sizes, body] = await Promise.all([request.sizes(), response.body().catch(() => Buffer.alloc(0))]);
        return { name: basename(url.pathname) || '/', sent: sizes.responseBodySize, raw: body.length, encoding: response.headers()['content-encoding'] ?? 'identity' };
      })(),
    );
  });
  return {
    async done() {
      const byName = new Map<string, Asset>();
      for (const asset of await Promise.all(pending)) if (asset) byName.set(asset.name, asset);
      return [...byName.values()];
    },
  };
}

/** kB as browsers' and Vite's size reports use it: 1,000 bytes. */
const kB = (n: number) => `${(n / 1000).toFixed(1)} kB`;
const total = (assets: Asset[], key: 'sent' | 'raw') => assets.reduce((n, a) => n + a[key], 0);

function printAssets(title: string, assets: Asset[], budget: number): void {
  const sent = total(assets, 'sent');
  console.log(`    ${title}: ${kB(sent)} transferred, ${kB(total(assets, 'raw'))} unpacked, ${assets.length} files; budget ${kB(budget)} ${sent <= budget ? 'met' : 'NOT met'}`);
  for (const a of [...assets].sort((x, y) => y.sent - x.sent))
    console.log(`      ${a.name.padEnd(40)} ${kB(a.sent).padStart(10)} ${a.encoding.padEnd(8)} ${kB(a.raw).padStart(10)} unpacked`);
}

// Put into every document before the app's own script: once the first table row has a cell with
// text and a box, waits for the frame that paints it (requestAnimationFrame runs just before the
// paint, the message right after) and stores performance.now(), whose origin is the navigation's start.
const FIRST_ROWS_PROBE = `(() => {
  const ready = () => {
    const row = document.querySelector('.ant-table-tbody tr.ant-table-row');
    if (!row) return false;
    const cell = [...row.querySelectorAll('td')].find((td) => td.textContent.trim() !== '');
    if (!cell) return false;
    const box = cell.getBoundingClientRect();
    return box.width > 0 && box.height > 0;
  };
  const observer = new MutationObserver(() => {
    if (window.__fwRowsSeen || !ready()) return;
    window.__fwRowsSeen = performance.now();
    observer.disconnect();
    requestAnimationFrame(() => {
      const channel = new MessageChannel();
      channel.port1.onmessage = () => {
        performance.mark('fw-first-rows');
        window.__fwFirstRows = performance.now();
      };
      channel.port2.postMessage(0);
    });
  });
  observer.observe(document, { childList: true, subtree: true, characterData: true });
})();`;

// Milestones of one load, from the page's resource timing entries and the probe.
const PHASES = `(() => {
  const entries = performance.getEntriesByType('resource');
  const at = (test) => entries.find((e) => test(new URL(e.name).pathname));
  const main = at((p) => /\\/assets\\/index-[^/]*\\.js$/.test(p));
  const chunk = at((p) => /\\/assets\\/ModelPage-[^/]*\\.js$/.test(p));
  const shell = at((p) => /\\/assets\\/route-[^/]*\\.js$/.test(p));
  const user = at((p) => p.endsWith('/fw-api/userinfo'));
  const build = at((p) => p.endsWith('/fw-api/build/${MODEL}'));
  const table = at((p) => p.endsWith('/fw-api/data/table/${MODEL}'));
  return {
    'main script received': main ? main.responseEnd : -1,
    'userinfo and menu asked': user ? user.startTime : -1,
    'shell chunk received': shell ? shell.responseEnd : -1,
    'model page chunk received': chunk ? chunk.responseEnd : -1,
    'model description asked': build ? build.startTime : -1,
    'model description received': build ? build.responseEnd : -1,
    'table page asked': table ? table.startTime : -1,
    'table page received': table ? table.responseEnd : -1,
    'first rows in the DOM': window.__fwRowsSeen,
    'first rows painted': window.__fwFirstRows,
  };
})()`;

/**
 * Waits for the probe's figure. Polls with page.evaluate: page.waitForFunction compiles its
 * predicate in the page, which the UI's policy (no 'unsafe-eval') refuses. The figure itself is
 * taken in the page, so the polling does not change it.
 */
async function firstRowsPainted(page: Page): Promise<void> {
  const end = Date.now() + 60_000;
  while (!(await page.evaluate('typeof window.__fwFirstRows === "number"'))) {
    if (Date.now() > end) throw new Error('no first rows painted within 60 s');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const dir = mkdtempSync(join(tmpdir(), 'fw-bench-ui-'));
const dbUrl = `sqlite:${join(dir, 'bench.db')}`;
const PASSWORD = 'bench-harbour-pass';

/** One build served by its own demo app (all on the same database). */
interface Variant {
  label: string;
  dist: string;
  demo?: DemoApp;
  server?: Server;
  url?: string;
  token?: string;
}

// This build without its .br/.gz files: what fwUi sent before it knew compression.
const uncompressed = join(dir, 'dist-uncompressed');
cpSync(join(ui, 'dist'), uncompressed, { recursive: true, filter: (src) => !/\.(br|gz)$/.test(src) });
const variants: Variant[] = [
  ...(process.env.BENCH_UI_BEFORE_DIST ? [{ label: `before: ${process.env.BENCH_UI_BEFORE_DIST}`, dist: process.env.BENCH_UI_BEFORE_DIST }] : []),
  { label: 'this build, compression off', dist: uncompressed },
  { label: 'this build, brotli', dist: join(ui, 'dist') },
];
for (const v of variants) if (!existsSync(join(v.dist, 'index.html'))) throw new Error(`${v.dist}: no index.html (not a build of the UI)`);

let browser: Browser | undefined;
try {
  // The demo's own sample data would only add rows to the model measured.
  process.env.FW_DEMO_SEED = '0';
  for (const v of variants) {
    v.demo = await createDemoApp({ dbUrl, adminPassword: PASSWORD, ui: { dist: v.dist } });
    v.demo.app.silent = true;
    v.server = await new Promise<Server>((resolve) => {
      const s = v.demo!.app.listen(0, '127.0.0.1', () => resolve(s));
    });
    v.url = `http://127.0.0.1:${(v.server.address() as AddressInfo).port}`;
  }
  const { store } = variants[0]!.demo!;
  const admin = (await store.users.findByAccount('admin'))!;
  // A chosen password: no forced change between sign-in and the model page.
  await store.users.setPassword(admin.id, PASSWORD);
  for (const v of variants) v.token = (await v.demo!.tokens.loginToken({ id: admin.id, account: 'admin' }, v.demo!.tokens.generateToken())).token;

  const seeded = Date.now();
  await store.knex.transaction(async (trx) => {
    // 500 rows per statement: SQLite allows at most 500 terms in the compound SELECT knex builds.
    for (let i = 0; i < ROWS; i += 500) {
      const batch = Array.from({ length: Math.min(500, ROWS - i) }, (_, j) => {
        const n = i + j;
        return {
          title: `Book ${n}`,
          isbn: String(9780000000000 + n),
          genre: ['novel', 'essay', 'poetry'][n % 3],
          price: (n % 1000) / 10,
          published: `20${10 + (n % 15)}-0${(n % 9) + 1}-1${n % 10}`,
          inPrint: n % 4 !== 0,
        };
      });
      await trx('demo_book').insert(batch);
    }
  });
  console.log(`seeded ${ROWS} rows of ${MODEL} in ${Date.now() - seeded} ms`);

  browser = await launchBrowser();
  console.log(`Chromium ${browser.version()}, ${RUNS} runs after ${WARMUP} warm-up, per build and network`);
  // A script error in the app would make its figures meaningless: checked after each page.
  const errors: string[] = [];
  const newPage = async (v: Variant, signed: boolean, network?: typeof THROTTLED): Promise<{ context: BrowserContext; page: Page }> => {
    const signedIn = { cookies: [], origins: [{ origin: v.url!, localStorage: [{ name: '_token', value: JSON.stringify({ token: v.token }) }] }] };
    const context = await browser!.newContext({ viewport: { width: 1280, height: 800 }, ...(signed ? { storageState: signedIn } : {}) });
    await context.addInitScript(FIRST_ROWS_PROBE);
    const page = await context.newPage();
    page.setDefaultTimeout(60_000);
    page.on('pageerror', (e) => errors.push(e.message));
    if (network) {
      const cdp = await context.newCDPSession(page);
      await cdp.send('Network.enable');
      await cdp.send('Network.emulateNetworkConditions', network);
    }
    return { context, page };
  };

  // 1. What travels: the sign-in page's first screen, then a model page opened from a deep link.
  console.log('\nwhat the browser downloads (every response but the API, body bytes as sent):');
  for (const v of variants) {
    console.log(`  ${v.label}`);
    const { context, page } = await newPage(v, false);
    const rec = recordAssets(page);
    await page.goto(`${v.url}/login`);
    await page.locator('#login_account').waitFor();
    await page.waitForLoadState('networkidle');
    printAssets('sign-in page', await rec.done(), SIGN_IN_BUDGET);
    await context.close();

    const second = await newPage(v, true);
    const rec2 = recordAssets(second.page);
    await second.page.goto(`${v.url}/model/${MODEL}`);
    await firstRowsPainted(second.page);
    await second.page.waitForLoadState('networkidle');
    printAssets(`model page /model/${MODEL}`, await rec2.done(), MODEL_PAGE_BUDGET);
    await second.context.close();
  }

  // 2. First rows painted. Each run opens the deep link in a new context (empty cache: a person
  // opening a bookmark), reloads it (scripts and styles cached), then on that page times the table
  // call alone. Runs alternate between the builds, so drift in machine load hits all of them.
  // BENCH_UI_NETWORK=loopback or =throttled runs one of the two only.
  const networks = [...(process.env.BENCH_UI_NETWORK !== 'throttled' ? [undefined] : []), ...(process.env.BENCH_UI_NETWORK !== 'loopback' ? [THROTTLED] : [])];
  for (const network of networks) {
    const where = network ? `throttled: ${(network.downloadThroughput * 8) / 1e6} Mbit/s down, ${network.latency} ms round trip` : 'loopback';
    const cold = new Map<Variant, number[]>(variants.map((v) => [v, []]));
    const warm = new Map<Variant, number[]>(variants.map((v) => [v, []]));
    const bare = new Map<Variant, number[]>(variants.map((v) => [v, []]));
    const phases = new Map<Variant, Array<Record<string, number>>>(variants.map((v) => [v, []]));
    let body: string | undefined;
    for (let run = 0; run < WARMUP + RUNS; run += 1) {
      for (const v of run % 2 === 0 ? variants : [...variants].reverse()) {
        const { context, page } = await newPage(v, true, network);
        page.on('request', (req) => {
          if (req.method() === 'POST' && req.url().endsWith(`/fw-api/data/table/${MODEL}`)) body ??= req.postData() ?? undefined;
        });
        // Nothing waits for the load event: the probe's figure is the one that counts.
        await page.goto(`${v.url}/model/${MODEL}`, { waitUntil: 'commit' });
        await firstRowsPainted(page);
        const painted = (await page.evaluate('window.__fwFirstRows')) as number;
        // What the probe saw is what a person sees: a row of the seeded data.
        const firstCells = await page.locator('.ant-table-tbody tr.ant-table-row').first().locator('td').allInnerTexts();
        if (!firstCells.some((t) => /^Book \d+$/.test(t.trim()))) throw new Error(`first row is not a seeded book: ${JSON.stringify(firstCells)}`);
        const phase = (await page.evaluate(PHASES)) as Record<string, number>;

        await page.reload({ waitUntil: 'commit' });
        await firstRowsPainted(page);
        const again = (await page.evaluate('window.__fwFirstRows')) as number;
        // The bare calls start once the page has stopped asking for anything, so they run alone.
        await page.waitForLoadState('networkidle');
        if (!body) throw new Error('the model page sent no table request');
        const calls: number[] = [];
        for (let i = 0; i < BARE_PER_RUN; i += 1) {
          calls.push(
            (await page.evaluate(
              async ({ api, token, body }) => {
                const start = performance.now();
                const res = await fetch(api, { method: 'POST', headers: { accept: 'application/json', 'content-type': 'application/json', token }, body });
                const answer = (await res.json()) as { rows?: unknown[] };
                const took = performance.now() - start;
                if (!res.ok || !answer.rows?.length) throw new Error(`table call answered ${res.status}`);
                return took;
              },
              { api: `${v.url}/fw-api/data/table/${MODEL}`, token: v.token!, body },
            )) as number,
          );
        }
        await context.close();
        if (errors.length > 0) throw new Error(`the app threw: ${errors.join('; ')}`);
        if (run < WARMUP) continue;
        cold.get(v)!.push(painted);
        warm.get(v)!.push(again);
        bare.get(v)!.push(...calls);
        phases.get(v)!.push(phase);
      }
    }

    console.log(`\nfirst table rows painted, ${MODEL} with ${ROWS} rows, ${where}, request ${body} (medians of ${RUNS}):`);
    const ms = (x: number) => `${x.toFixed(0).padStart(6)} ms`;
    console.log(`  ${'build'.padEnd(48)} ${'cold'.padStart(9)} ${'warm'.padStart(9)} ${'bare call'.padStart(10)}`);
    for (const v of variants) {
      const c = cold.get(v)!;
      console.log(
        `  ${v.label.padEnd(48)} ${ms(median(c))} ${ms(median(warm.get(v)!))} ${ms(median(bare.get(v)!))}   (cold min ${Math.min(...c).toFixed(0)}, max ${Math.max(...c).toFixed(0)})`,
      );
    }
    console.log('  where the time goes, cold (medians, ms from navigation start):');
    console.log(`    ${''.padEnd(34)} ${variants.map((_, i) => `build ${i + 1}`.padStart(8)).join(' ')}`);
    for (const key of Object.keys(phases.get(variants[0]!)![0]!)) {
      console.log(
        `    ${key.padEnd(34)} ${variants
          .map((v) =>
            median(phases.get(v)!.map((p) => p[key]!))
              .toFixed(0)
              .padStart(8),
          )
          .join(' ')}`,
      );
    }
  }
} finally {
  await browser?.close();
  for (const v of variants) {
    if (v.server) {
      v.server.closeAllConnections();
      await new Promise<void>((resolve) => v.server!.close(() => resolve()));
    }
    await v.demo?.close();
  }
  rmSync(dir, { recursive: true, force: true });
}
