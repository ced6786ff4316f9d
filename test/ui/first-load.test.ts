// The first load of a deep link to a model: the model's description (GET /build/{fw}) and the
// table's first page are asked at once, not one after the other, and each only once (the table
// reads the prefetched page from the cache). The server holds /build back until the page request
// has arrived: if the page waited for the description again, the table would never fill.
import { expect } from 'chai';
import type { Page, Request } from 'playwright-core';
import { describeBrowser } from '@fw/test-utils';
import { apiToken, openPage, startDemo, waitUntil, watchNetwork, type UiDemo } from './support.js';

const BOOKS = 60;

/** Counts the app's API requests of `page` by method and path, with the table requests' bodies. */
function recordApi(page: Page) {
  const counts = new Map<string, number>();
  const tableBodies: unknown[] = [];
  page.on('request', (req: Request) => {
    const path = new URL(req.url()).pathname;
    if (!path.startsWith('/fw-api/')) return;
    const name = `${req.method()} ${path}`;
    counts.set(name, (counts.get(name) ?? 0) + 1);
    if (path === '/fw-api/data/table/Book') tableBodies.push(req.postDataJSON());
  });
  // What each API request got, in order: a failing count then says whether a retry followed an error.
  const answers: string[] = [];
  page.on('requestfinished', (req: Request) => {
    const path = new URL(req.url()).pathname;
    if (path.startsWith('/fw-api/'))
      void req.response().then(
        (res) => answers.push(`${req.method()} ${path} ${res?.status() ?? 'no answer'}`),
        () => answers.push(`${req.method()} ${path} lost`),
      );
  });
  page.on('requestfailed', (req: Request) => {
    const path = new URL(req.url()).pathname;
    if (path.startsWith('/fw-api/')) answers.push(`${req.method()} ${path} failed: ${req.failure()?.errorText ?? '?'}`);
  });
  return { count: (name: string) => counts.get(name) ?? 0, tableBodies, counts, answers };
}

/** Holds `GET /fw-api/build/Book` until a table request has been made; says whether one was held. */
async function holdBuildUntilTable(page: Page): Promise<{ held: () => boolean }> {
  let tableAsked!: () => void;
  const asked = new Promise<void>((resolve) => (tableAsked = resolve));
  let held = false;
  page.on('request', (req) => {
    if (new URL(req.url()).pathname === '/fw-api/data/table/Book') tableAsked();
  });
  await page.route('**/fw-api/build/Book', async (route) => {
    held = true;
    await asked;
    await route.continue();
  });
  return { held: () => held };
}

describeBrowser('admin UI: first load of a model page', (browser) => {
  let ui: UiDemo;
  let token: string;
  before(async function () {
    this.timeout(120_000);
    ui = await startDemo();
    const book = ui.demo.registry.get('Book')!;
    const rows = Array.from({ length: BOOKS }, (_, i) => ({ [book.fields.title!.column]: `Book ${String(i + 1).padStart(3, '0')}` }));
    await ui.demo.store.knex(book.table).insert(rows);
    token = await apiToken(ui.url);
  });
  after(async () => {
    await ui?.close();
  });

  /** Puts the token where the app looks for it, from the sign-in page; the next load is a first load. */
  const storeToken = async (page: Page) => {
    await page.goto(`${ui.url}/login`);
    await page.evaluate(`window.localStorage.setItem('_token', ${JSON.stringify(JSON.stringify({ token }))})`);
  };

  it('asks for the description and the first page together, each once, and shows the rows', async () => {
    const { context, page, errors } = await openPage(browser());
    try {
      const build = await holdBuildUntilTable(page);
      await storeToken(page);
      const api = recordApi(page);
      const network = watchNetwork(page);
      await page.goto(`${ui.url}/model/Book`);
      await page.locator('.ant-table-tbody tr.ant-table-row td.fw-col-id').first().waitFor();
      await network.quiet();
      expect(build.held(), 'the description was asked through the held route').to.equal(true);
      const seen = `requests and answers: ${api.answers.join('; ')}; table bodies ${JSON.stringify(api.tableBodies)}`;
      expect(api.count('GET /fw-api/build/Book'), seen).to.equal(1);
      expect(api.count('POST /fw-api/data/table/Book'), seen).to.equal(1);
      expect(api.count('GET /fw-api/userinfo'), seen).to.equal(1);
      expect(api.count('GET /fw-api/menu'), seen).to.equal(1);
      expect(api.tableBodies).to.deep.equal([{ page: 1, size: 20 }]);
      const ids = (await page.locator('.ant-table-tbody td.fw-col-id').allInnerTexts()).map((s) => s.trim());
      expect(ids).to.have.length(20);
      expect(await page.locator('.ant-pagination-total-text').innerText()).to.equal(`Total ${BOOKS}`);
      expect(errors).to.deep.equal([]);
    } finally {
      await context.close();
    }
  });

  it('prefetches the page, size and sort of the URL, exactly the page the table then shows', async () => {
    const { context, page, errors } = await openPage(browser());
    try {
      const build = await holdBuildUntilTable(page);
      await storeToken(page);
      const api = recordApi(page);
      const network = watchNetwork(page);
      await page.goto(`${ui.url}/model/Book?page=2&size=10&sort=title,desc`);
      // Titles descending, 10 a page: page 2 starts at the 11th highest.
      await waitUntil(page, `document.querySelector('.ant-table-tbody tr.ant-table-row td.fw-col-title')?.textContent.trim() === 'Book ${String(BOOKS - 10).padStart(3, '0')}'`);
      await network.quiet();
      expect(build.held()).to.equal(true);
      expect(api.tableBodies).to.deep.equal([{ page: 2, size: 10, sort: [{ field: 'title', order: 'desc' }] }]);
      expect(api.count('GET /fw-api/build/Book')).to.equal(1);
      expect(await page.locator('.ant-pagination-item-active').innerText()).to.equal('2');
      expect(errors).to.deep.equal([]);
    } finally {
      await context.close();
    }
  });

  it('with a search in the URL asks for the page once, with its conditions, after the description', async () => {
    const { context, page, errors } = await openPage(browser());
    try {
      await storeToken(page);
      const api = recordApi(page);
      const network = watchNetwork(page);
      await page.goto(`${ui.url}/model/Book?s=${encodeURIComponent(JSON.stringify({ title: 'Book 05' }))}`);
      await waitUntil(page, `document.querySelector('.ant-pagination-total-text')?.textContent === 'Total 10'`);
      await network.quiet();
      expect(api.tableBodies).to.have.length(1);
      expect(api.tableBodies[0]).to.deep.include({ page: 1, size: 20 });
      expect((api.tableBodies[0] as { conditions?: unknown[] }).conditions).to.have.length(1);
      expect(errors).to.deep.equal([]);
    } finally {
      await context.close();
    }
  });

  /** Holds the requests of scripts whose path matches `pattern` until the answer's `release` is called. */
  const hold = async (page: Page, pattern: RegExp) => {
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let asked = false;
    await page.route(pattern, async (route) => {
      asked = true;
      await released;
      await route.continue();
    });
    return { release, asked: () => asked };
  };

  /** The spinner is what the page shows: centred, in view past its short delay, with words for screen readers. */
  const spinnerShown = async (page: Page, stage: string, label = 'Loading…') => {
    await page.locator('.fw-boot .fw-boot-spin').waitFor();
    await waitUntil(page, `getComputedStyle(document.querySelector('.fw-boot')).opacity === '1'`);
    const box = (await page.locator('.fw-boot-spin').boundingBox())!;
    const size = page.viewportSize()!;
    expect(Math.abs(box.x + box.width / 2 - size.width / 2), `${stage}: centred across`).to.be.lessThan(4);
    expect(Math.abs(box.y + box.height / 2 - size.height / 2), `${stage}: centred down`).to.be.lessThan(4);
    expect(await page.locator('.fw-boot').getAttribute('role')).to.equal('status');
    expect(await page.locator('.fw-boot .fw-boot-text').textContent(), stage).to.equal(label);
    expect(await page.locator('.fw-header').count(), `${stage}: no screen yet`).to.equal(0);
  };

  for (const locale of ['en', 'zh-CN'] as const) {
    it(`on a slow load (${locale}), shows a spinner until the screen arrives, never an empty page`, async () => {
      const { context, page, errors } = await openPage(browser());
      try {
        await storeToken(page);
        await page.evaluate(`window.localStorage.setItem('fw-locale', ${JSON.stringify(locale)})`);
        // The entry held: the page as index.html has it. Then the language's pack (zh-CN) and the
        // shell's chunk held: the page as React draws it meanwhile.
        const entry = await hold(page, /\/assets\/index-[^/]+\.js$/);
        const pack = locale === 'en' ? undefined : await hold(page, /\/assets\/zh-CN-[^/]+\.js$/);
        const shell = await hold(page, /\/assets\/route-[^/]+\.js$/);
        await page.goto(`${ui.url}/model/Book`, { waitUntil: 'commit' });
        await spinnerShown(page, 'the entry held');
        // index.html's copy, marked: React's first render replaces it.
        await page.evaluate(`document.querySelector('.fw-boot').dataset.first = 'yes'`);
        entry.release();
        await waitUntil(page, `document.querySelector('.fw-boot') !== null && document.querySelector('.fw-boot[data-first]') === null`);
        await spinnerShown(page, pack ? 'the language pack held' : 'the shell held');
        if (pack) {
          expect(pack.asked(), 'the pack was asked for').to.equal(true);
          pack.release();
          // Now the app speaks Chinese, the shell still held.
          await waitUntil(page, `document.documentElement.lang === 'zh-CN'`);
          await spinnerShown(page, 'the shell held', '加载中…');
        }
        expect(shell.asked(), 'the shell chunk was asked for').to.equal(true);
        shell.release();
        await page.locator('.fw-header').waitFor();
        await page.locator('.ant-table-tbody tr.ant-table-row').first().waitFor();
        expect(await page.locator('.fw-boot').count(), 'no spinner once the screen is up').to.equal(0);
        expect(errors).to.deep.equal([]);
      } finally {
        await context.close();
      }
    });
  }

  it('signed out, asks for nothing but the sign-in page needs', async () => {
    const { context, page } = await openPage(browser());
    try {
      const api = recordApi(page);
      const network = watchNetwork(page);
      await page.goto(`${ui.url}/model/Book`);
      await page.locator('#login_account').waitFor();
      await network.quiet();
      expect([...api.counts.keys()].filter((name) => !name.endsWith('/login-settings'))).to.deep.equal([]);
    } finally {
      await context.close();
    }
  });
});
