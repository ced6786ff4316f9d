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

  it('on a slow load, shows a spinner (named for screen readers) until the screen arrives, never an empty page', async () => {
    const { context, page, errors } = await openPage(browser());
    try {
      await storeToken(page);
      // The entry script held: the page as index.html has it.
      let releaseEntry!: () => void;
      const entryHeld = new Promise<void>((resolve) => (releaseEntry = resolve));
      await page.route(/\/assets\/index-[^/]+\.js$/, async (route) => {
        await entryHeld;
        await route.continue();
      });
      // Then the shell's chunk held: the page as React draws it while the screen's code loads.
      let releaseShell!: () => void;
      const shellHeld = new Promise<void>((resolve) => (releaseShell = resolve));
      let shellAsked = false;
      await page.route(/\/assets\/route-[^/]+\.js$/, async (route) => {
        shellAsked = true;
        await shellHeld;
        await route.continue();
      });
      await page.goto(`${ui.url}/model/Book`, { waitUntil: 'commit' });
      const spinner = async (stage: string) => {
        await page.locator('.fw-boot .fw-boot-spin').waitFor();
        // Past its short delay the spinner is in view, in the middle of the page.
        await waitUntil(page, `getComputedStyle(document.querySelector('.fw-boot')).opacity === '1'`);
        const box = (await page.locator('.fw-boot-spin').boundingBox())!;
        const size = page.viewportSize()!;
        expect(Math.abs(box.x + box.width / 2 - size.width / 2), `${stage}: centred across`).to.be.lessThan(4);
        expect(Math.abs(box.y + box.height / 2 - size.height / 2), `${stage}: centred down`).to.be.lessThan(4);
        expect(await page.locator('.fw-boot').getAttribute('role')).to.equal('status');
        expect(await page.locator('.fw-boot').getAttribute('aria-label'), stage).to.match(/^Loading/);
      };
      await spinner('the entry held');
      releaseEntry();
      for (let i = 0; i < 500 && !shellAsked; i++) await new Promise((resolve) => setTimeout(resolve, 10));
      expect(shellAsked, 'the shell chunk was asked for').to.equal(true);
      // React runs now (the header is not there yet): the spinner is still what the page shows.
      await spinner('the shell held');
      expect(await page.locator('.fw-header').count()).to.equal(0);
      releaseShell();
      await page.locator('.fw-header').waitFor();
      await page.locator('.ant-table-tbody tr.ant-table-row').first().waitFor();
      expect(await page.locator('.fw-boot').count(), 'no spinner once the screen is up').to.equal(0);
      expect(errors).to.deep.equal([]);
    } finally {
      await context.close();
    }
  });

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
