// The admin UI in a real browser: (1) how much JavaScript and CSS the sign-in page and the model
// page make the browser load, gzip, as the browser fetched them; (2) the time from navigation to
// the first table rows painted on a 100,000-row model, against the bare table call made from the
// same page, as a ratio. Debian's headless Chromium (playwright-core) against the demo app on a
// temporary SQLite file, in this process. Run: npm run bench -- ui
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import type { Browser, BrowserContext, Page, Response } from 'playwright-core';
import { CHROMIUM_PATH, launchBrowser } from '@fw/test-utils';
import { createDemoApp, type DemoApp } from '../examples/demo/src/app.js';
import { median } from './lib.js';

const ROWS = 100_000;
const RUNS = Math.max(15, Number(process.env.BENCH_RUNS ?? 15));
const WARMUP = 2;
/** Bare calls per page load: all of them go into one median. */
const BARE_PER_RUN = 3;
/** The goal for the first screen's JavaScript, gzip. */
const FIRST_SCREEN_GOAL = 400_000;
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
for (const source of [join(ui, 'app'), join(ui, 'vite.config.ts')]) {
  const latest = newest(source);
  if (latest.mtimeMs > built) throw new Error(`packages/ui/dist is older than ${latest.file}: run \`npm run build:app -w @fw/ui\` first`);
}

/** One script or stylesheet as the browser received it. */
interface Asset {
  name: string;
  kind: 'js' | 'css';
  raw: number;
  gzip: number;
  /** `gzip` is what was sent (the served encoding), not zlib's level 9 of the body. */
  served: string | undefined;
}

/**
 * Records every script and stylesheet response of `page` (by content type, so module preloads
 * count too); `done()` waits for their bodies and gives one entry per URL.
 */
function recordAssets(page: Page): { done: () => Promise<Asset[]> } {
  const pending: Array<Promise<Asset | undefined>> = [];
  page.on('response', (response: Response) => {
    pending.push(
      (async () => {
        const type = response.headers()['content-type'] ?? '';
        const kind = /javascript/.test(type) ? 'js' : /text\/css/.test(type) ? 'css' : undefined;
        if (!kind) return undefined;
        const body = await response.body();
        const encoding = response.headers()['content-encoding'];
        // Compressed on the wire: count what travelled (playwright gives the decoded body).
        const gzip = encoding && encoding !== 'identity' ? (await response.request().sizes()).responseBodySize : gzipSync(body, { level: 9 }).length;
        return { name: basename(new URL(response.url()).pathname), kind, raw: body.length, gzip, served: encoding && encoding !== 'identity' ? encoding : undefined };
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
const sum = (assets: Asset[], kind: 'js' | 'css', key: 'raw' | 'gzip') => assets.filter((a) => a.kind === kind).reduce((n, a) => n + a[key], 0);

function printAssets(title: string, assets: Asset[]): void {
  console.log(`  ${title}`);
  for (const a of [...assets].sort((x, y) => x.kind.localeCompare(y.kind) || y.gzip - x.gzip)) {
    console.log(`    ${a.kind.padEnd(3)} ${a.name.padEnd(36)} ${kB(a.raw).padStart(10)} raw ${kB(a.gzip).padStart(9)} ${a.served ?? 'gzip -9'}`);
  }
  console.log(
    `    JS  ${kB(sum(assets, 'js', 'gzip'))} gzip (${kB(sum(assets, 'js', 'raw'))} raw); CSS ${kB(sum(assets, 'css', 'gzip'))} gzip (${kB(sum(assets, 'css', 'raw'))} raw)`,
  );
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
  const user = at((p) => p.endsWith('/fw-api/userinfo'));
  const build = at((p) => p.endsWith('/fw-api/build/${MODEL}'));
  const table = at((p) => p.endsWith('/fw-api/data/table/${MODEL}'));
  return {
    'main script received': main ? main.responseEnd : -1,
    'userinfo and menu asked': user ? user.startTime : -1,
    'model page chunk received': chunk ? chunk.responseEnd : -1,
    'model description asked': build ? build.startTime : -1,
    'model description received': build ? build.responseEnd : -1,
    'table page asked': table ? table.startTime : -1,
    'table page received': table ? table.responseEnd : -1,
    'first rows in the DOM': window.__fwRowsSeen,
    'first rows painted': window.__fwFirstRows,
  };
})()`;

const dir = mkdtempSync(join(tmpdir(), 'fw-bench-ui-'));
let demo: DemoApp | undefined;
let server: Server | undefined;
let browser: Browser | undefined;
try {
  demo = await createDemoApp({ dbUrl: `sqlite:${join(dir, 'bench.db')}`, adminPassword: 'bench-harbour-pass' });
  demo.app.silent = true;
  const { store, tokens } = demo;
  const admin = (await store.users.findByAccount('admin'))!;
  // A chosen password: no forced change between sign-in and the model page.
  await store.users.setPassword(admin.id, 'bench-harbour-pass');
  const { token } = await tokens.loginToken({ id: admin.id, account: 'admin' }, tokens.generateToken());

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

  server = await new Promise<Server>((resolve) => {
    const s = demo!.app.listen(0, '127.0.0.1', () => resolve(s));
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  browser = await launchBrowser();
  console.log(`Chromium ${browser.version()}, ${RUNS} runs after ${WARMUP} warm-up`);
  const signedIn = { cookies: [], origins: [{ origin: url, localStorage: [{ name: '_token', value: JSON.stringify({ token }) }] }] };
  // A script error in the app would make its figures meaningless: checked after each page.
  const errors: string[] = [];
  const newPage = async (signed: boolean): Promise<{ context: BrowserContext; page: Page }> => {
    const context = await browser!.newContext({ viewport: { width: 1280, height: 800 }, ...(signed ? { storageState: signedIn } : {}) });
    await context.addInitScript(FIRST_ROWS_PROBE);
    const page = await context.newPage();
    page.setDefaultTimeout(30_000);
    page.on('pageerror', (e) => errors.push(e.message));
    return { context, page };
  };

  // 1. What the browser loads: the sign-in page's first screen, then the model page of a signed-in person.
  {
    const { context, page } = await newPage(false);
    const rec = recordAssets(page);
    await page.goto(`${url}/`);
    await page.locator('#login_account').waitFor();
    await page.waitForLoadState('networkidle');
    const signIn = await rec.done();
    await context.close();

    const second = await newPage(true);
    const rec2 = recordAssets(second.page);
    await second.page.goto(`${url}/model/${MODEL}`);
    await second.page.waitForFunction('typeof window.__fwFirstRows === "number"');
    await second.page.waitForLoadState('networkidle');
    const modelAll = await rec2.done();
    await second.context.close();
    const first = new Set(signIn.map((a) => a.name));
    const entry = modelAll.filter((a) => first.has(a.name));
    const lazy = modelAll.filter((a) => !first.has(a.name));

    const firstJs = sum(signIn, 'js', 'gzip');
    console.log('\ninitial assets (gzip level 9 of each body the browser received, unless served compressed):');
    printAssets('sign-in page, first screen', signIn);
    printAssets(`model page /model/${MODEL} after sign-in: loaded as on the sign-in page`, entry);
    printAssets('model page: lazily loaded on top', lazy);
    console.log(`  model page in all: JS ${kB(sum(modelAll, 'js', 'gzip'))} gzip, CSS ${kB(sum(modelAll, 'css', 'gzip'))} gzip`);
    console.log(
      `  first screen JS ${kB(firstJs)} gzip: goal <= ${kB(FIRST_SCREEN_GOAL)} ${firstJs <= FIRST_SCREEN_GOAL ? 'met' : 'NOT met'}; with CSS ${kB(firstJs + sum(signIn, 'css', 'gzip'))}`,
    );
  }

  // 2. First rows painted, against the bare table call from the same page. Each run opens the
  // deep link in a new context (empty cache: a person opening a bookmark), then on that page
  // times the table call alone; runs alternate, so drift in machine load hits both.
  const uiTimes: number[] = [];
  const warmTimes: number[] = [];
  const phases: Array<Record<string, number>> = [];
  const bareTimes: number[] = [];
  let body: string | undefined;
  for (let run = 0; run < WARMUP + RUNS; run += 1) {
    const { context, page } = await newPage(true);
    page.on('request', (req) => {
      if (req.method() === 'POST' && req.url().endsWith(`/fw-api/data/table/${MODEL}`)) body ??= req.postData() ?? undefined;
    });
    await page.goto(`${url}/model/${MODEL}`);
    await page.waitForFunction('typeof window.__fwFirstRows === "number"');
    const painted = (await page.evaluate('window.__fwFirstRows')) as number;
    // What the probe saw is what a person sees: a row of the seeded data.
    const firstCells = await page.locator('.ant-table-tbody tr.ant-table-row').first().locator('td').allInnerTexts();
    if (!firstCells.some((t) => /^Book \d+$/.test(t.trim()))) throw new Error(`first row is not a seeded book: ${JSON.stringify(firstCells)}`);
    const phase = (await page.evaluate(PHASES)) as Record<string, number>;

    // The same page again, its scripts and styles now in the cache (a person coming back).
    await page.reload();
    await page.waitForFunction('typeof window.__fwFirstRows === "number"');
    const warm = (await page.evaluate('window.__fwFirstRows')) as number;
    // The bare calls start once the page has stopped asking for anything, so they run alone.
    await page.waitForLoadState('networkidle');

    if (!body) throw new Error('the model page sent no table request');
    const bare: number[] = [];
    for (let i = 0; i < BARE_PER_RUN; i += 1) {
      bare.push(
        (
          await page.evaluate(
            async ({ api, token, body }) => {
              const start = performance.now();
              const res = await fetch(api, { method: 'POST', headers: { accept: 'application/json', 'content-type': 'application/json', token }, body });
              const answer = (await res.json()) as { rows?: unknown[]; total?: number };
              const took = performance.now() - start;
              if (!res.ok || !answer.rows?.length) throw new Error(`table call answered ${res.status}`);
              return { took, total: answer.total };
            },
            { api: `${url}/fw-api/data/table/${MODEL}`, token, body },
          )
        ).took,
      );
    }
    await context.close();
    if (errors.length > 0) throw new Error(`the app threw: ${errors.join('; ')}`);
    if (run < WARMUP) continue;
    uiTimes.push(painted);
    warmTimes.push(warm);
    phases.push(phase);
    bareTimes.push(...bare);
  }

  const ui1 = median(uiTimes);
  const bare1 = median(bareTimes);
  console.log(`\nfirst table rows painted, ${MODEL} with ${ROWS} rows, request ${body} (median of ${RUNS}; bare call median of ${bareTimes.length}):`);
  console.log(`  UI, navigation to first rows painted (empty cache) ${ui1.toFixed(1)} ms  (min ${Math.min(...uiTimes).toFixed(1)}, max ${Math.max(...uiTimes).toFixed(1)})`);
  console.log(`    where the time goes (medians, ms from navigation start):`);
  for (const key of Object.keys(phases[0]!))
    console.log(
      `      ${key.padEnd(34)} ${median(phases.map((p) => p[key]!))
        .toFixed(0)
        .padStart(6)}`,
    );
  console.log(`  UI, same after a reload (scripts cached)           ${median(warmTimes).toFixed(1)} ms`);
  console.log(
    `  bare POST /fw-api/data/table/${MODEL} from the page  ${bare1.toFixed(1)} ms  (min ${Math.min(...bareTimes).toFixed(1)}, max ${Math.max(...bareTimes).toFixed(1)})`,
  );
  console.log(`  ratio UI first rows / bare call ${(ui1 / bare1).toFixed(1)} (cached: ${(median(warmTimes) / bare1).toFixed(1)})`);
} finally {
  await browser?.close();
  if (server) {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server!.close(() => resolve()));
  }
  await demo?.close();
  rmSync(dir, { recursive: true, force: true });
}
