// The shell and the model table as a person uses them: the menu tree, paging, sorting and
// searching a table of a few thousand rows, a tree model as an expandable tree table, and a
// reload on a deep link.
import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { describeBrowser } from '@fw/test-utils';
import { apiToken, openPage, openSignedIn, startDemo, tableTexts, waitUntil, type UiDemo } from './support.js';

const BOOKS = 3000;

/** The texts of one column of the table on screen. */
async function column(page: Page, field: string): Promise<string[]> {
  return (await page.locator(`.ant-table-tbody td.fw-col-${field}`).allInnerTexts()).map((s) => s.trim());
}

/** Waits until the pager says `Total <n>` (grouped as English writes numbers: 3,000). */
async function totalIs(page: Page, n: number): Promise<void> {
  await waitUntil(page, `document.querySelector('.ant-pagination-total-text')?.textContent === 'Total ${n.toLocaleString('en')}'`);
}

/** Waits until the table's first row shows `id` in its ID column. */
async function firstIdIs(page: Page, id: number): Promise<void> {
  await waitUntil(page, `document.querySelector('.ant-table-tbody tr.ant-table-row td.fw-col-id')?.textContent.trim() === '${id}'`);
}

describeBrowser('admin UI: menu and table', (browser) => {
  let ui: UiDemo;
  let token: string;
  before(async function () {
    this.timeout(120_000);
    ui = await startDemo();
    const book = ui.demo.registry.get('Book')!;
    const col = (f: string) => book.fields[f]!.column;
    const genres = ['novel', 'essay', 'poetry'];
    const rows = Array.from({ length: BOOKS }, (_, i) => ({
      [col('title')]: `Book ${String(i + 1).padStart(4, '0')}`,
      [col('genre')]: genres[i % 3],
      // Prices out of order, so sorting has work to do.
      [col('price')]: ((i * 7919) % 1000) / 10,
      [col('inPrint')]: i % 2 === 0,
    }));
    for (let i = 0; i < rows.length; i += 100) await ui.demo.store.knex(book.table).insert(rows.slice(i, i + 100));
    token = await apiToken(ui.url);
  });
  after(async () => {
    await ui?.close();
  });

  it('builds the menu tree from /menu: order, folders, links, framed pages; hidden entries left out', async () => {
    const menus = ui.demo.store.menus;
    const dir = await menus.create({ name: 'Help', type: 'dir', sort: 900, icon: 'QuestionOutlined' });
    await menus.create({ name: 'Health page', type: 'page', value: '/health', parentId: dir.id, sort: 1 });
    await menus.create({ name: 'Project site', type: 'link', value: 'https://example.org/fw', parentId: dir.id, sort: 2, icon: 'link' });
    await menus.create({ name: 'Secret tool', type: 'page', value: '/health', parentId: dir.id, sort: 3, status: 'hidden' });
    const { context, page } = await openPage(browser());
    try {
      await openSignedIn(page, ui.url, '/', token);
      const nav = page.locator('.fw-nav');
      await nav.waitFor();
      const top = (await nav.locator(':scope > li').allInnerTexts()).map((s) => s.trim()).filter(Boolean);
      // The server's order (sort, then id): the demo's models first, then the built-in models'
      // folders (issue 20 §6), the host's own folder last.
      expect(top.slice(0, 2)).to.deep.equal(['Books', 'Authors']);
      expect(top.map((s) => s.split('\n')[0])).to.include.members(['System', 'AI', 'Logs']);
      expect(top.at(-1)).to.match(/^Help/);
      const names = (await nav.locator('.ant-menu-title-content').allInnerTexts()).map((s) => s.trim());
      expect(names).to.include.members(['Books', 'Authors', 'Categories', 'Projects', 'Health page', 'Project site']);
      expect(names).to.not.include('Secret tool');
      // No function menus (Book@ADD …) as entries.
      expect(names.filter((n) => /@/.test(n))).to.deep.equal([]);

      await nav.getByRole('menuitem', { name: 'Books' }).click();
      await page.waitForURL(`${ui.url}/model/Book`);
      await page.locator('.fw-page-title', { hasText: 'Books' }).waitFor();
      expect(await nav.locator('.ant-menu-item-selected').innerText()).to.equal('Books');

      // A link entry opens its URL in a new tab; a page entry is framed.
      expect(await nav.getByRole('link', { name: 'Project site' }).getAttribute('href')).to.equal('https://example.org/fw');
      expect(await nav.getByRole('link', { name: 'Project site' }).getAttribute('target')).to.equal('_blank');
      await nav.getByRole('menuitem', { name: 'Health page' }).click();
      const frame = page.locator('iframe.fw-frame');
      await frame.waitFor();
      expect(await frame.getAttribute('src')).to.equal('/health');
      const inside = page.frameLocator('iframe.fw-frame').locator('body');
      expect(await inside.innerText()).to.contain('"status":"ok"');
    } finally {
      await context.close();
    }
  });

  it(`pages, sorts and searches ${BOOKS} rows on the server`, async () => {
    const { context, page } = await openPage(browser());
    const tables: unknown[] = [];
    page.on('request', (r) => {
      if (r.url().endsWith('/fw-api/data/table/Book')) tables.push(r.postDataJSON());
    });
    try {
      await openSignedIn(page, ui.url, '/model/Book', token);
      await firstIdIs(page, 1);
      expect(await page.locator('.ant-pagination-total-text').innerText()).to.equal(`Total ${BOOKS.toLocaleString('en')}`);
      expect(await page.locator('.ant-table-tbody tr.ant-table-row').count()).to.equal(20);
      // Only one page travels.
      expect(tables.at(-1)).to.deep.equal({ page: 1, size: 20 });

      await page.locator('.ant-pagination-item-2').click();
      await firstIdIs(page, 21);
      // Page 2 from page 1 is the next page: by the answer's cursor when the server gives one
      // (issue 21; the cursor then rides in the address too), else by number.
      expect(new URL(page.url()).searchParams.get('page')).to.equal('2');

      // 50 a page.
      await page.locator('.ant-pagination-options .ant-select').click();
      await page.locator('.ant-select-item-option', { hasText: '50 / page' }).click();
      await waitUntil(page, `document.querySelectorAll('.ant-table-tbody tr.ant-table-row').length === 50`);

      // Sorting by price, ascending then descending, is the server's.
      await page.locator('th', { hasText: 'Price' }).click();
      await waitUntil(page, `new URL(location.href).searchParams.get('sort') === 'price,asc'`);
      const book = ui.demo.registry.get('Book')!;
      const priceCol = book.fields.price!.column;
      const cheapest = await ui.demo.store
        .knex(book.table)
        .orderBy([{ column: priceCol }, { column: 'id' }])
        .first('id');
      await firstIdIs(page, cheapest.id);
      const prices = (await column(page, 'price')).map(Number);
      expect(prices).to.deep.equal([...prices].sort((a, b) => a - b));
      await page.locator('th', { hasText: 'Price' }).click();
      await waitUntil(page, `new URL(location.href).searchParams.get('sort') === 'price,desc'`);
      const dearest = await ui.demo.store
        .knex(book.table)
        .orderBy([
          { column: priceCol, order: 'desc' },
          { column: 'id', order: 'desc' },
        ])
        .first('id');
      await firstIdIs(page, dearest.id);
      expect(tables.at(-1)).to.deep.include({ page: 1, size: 50, sort: [{ field: 'price', order: 'desc' }] });

      // Search: title contains "012" and genre is Essay.
      await page.locator('#search_title').fill('012');
      await page.locator('.fw-search .ant-form-item', { hasText: 'Genre' }).locator('.ant-select').click();
      await page.locator('.ant-select-item-option', { hasText: 'Essay' }).click();
      await page.getByRole('button', { name: 'Search' }).click();
      const expected = await ui.demo.store.knex(book.table).where(book.fields.title!.column, 'like', '%012%').andWhere(book.fields.genre!.column, 'essay').count({ n: '*' });
      const n = Number(expected[0]!.n);
      expect(n).to.be.greaterThan(0).and.lessThan(50);
      await totalIs(page, n);
      const shown = await tableTexts(page);
      expect(shown).to.have.length(n);
      for (const title of await column(page, 'title')) expect(title).to.contain('012');
      for (const genre of await column(page, 'genre')) expect(genre).to.equal('Essay');
      expect(tables.at(-1)).to.deep.include({
        conditions: [
          { field: 'title', op: 'like', value: '012' },
          { field: 'genre', op: 'eq', value: 'essay' },
        ],
      });
      await page.getByRole('button', { name: 'Reset' }).click();
      await totalIs(page, BOOKS);
    } finally {
      await context.close();
    }
  });

  it('shows a deep link with its page and sort again after a reload', async () => {
    const { context, page } = await openPage(browser());
    try {
      await openSignedIn(page, ui.url, '/model/Book?page=3&sort=title,desc', token);
      // Titles descending: page 3 of 20 starts at the 41st highest.
      const id = BOOKS - 40;
      await firstIdIs(page, id);
      await page.reload();
      await firstIdIs(page, id);
      expect(await page.locator('.ant-pagination-item-active').innerText()).to.equal('3');
      expect(await page.locator('th.ant-table-column-sort').innerText()).to.contain('Title');
    } finally {
      await context.close();
    }
  });

  it('shows a tree model as an expandable tree table, without cell editors', async () => {
    const cats = ui.demo.registry.get('Category')!;
    const k = ui.demo.store.knex;
    const [fiction] = await k(cats.table).insert({ name: 'Fiction' }).returning('id');
    const fictionId = typeof fiction === 'object' ? (fiction as { id: number }).id : (fiction as number);
    const [sf] = await k(cats.table).insert({ name: 'Science fiction', parent_id: fictionId }).returning('id');
    const sfId = typeof sf === 'object' ? (sf as { id: number }).id : (sf as number);
    await k(cats.table).insert({ name: 'Space opera', parent_id: sfId });
    await k(cats.table).insert({ name: 'Non-fiction' });
    const { context, page } = await openPage(browser());
    try {
      await openSignedIn(page, ui.url, '/model/Category', token);
      await page.locator('.ant-table-row-level-2').waitFor();
      const levels = await page
        .locator('.ant-table-tbody tr.ant-table-row')
        .evaluateAll((trs) => trs.map((tr) => `${/ant-table-row-level-(\d)/.exec(tr.className)?.[1]}:${tr.querySelector('td.fw-col-name')?.textContent}`));
      expect(levels).to.deep.equal(['0:Fiction', '1:Science fiction', '2:Space opera', '0:Non-fiction']);
      // Parent shown by its label.
      expect(await page.locator('tr', { hasText: 'Space opera' }).locator('td.fw-col-parentId').innerText()).to.equal('Science fiction');
      // Collapsing hides the children.
      await page.locator('tr', { hasText: 'Non-fiction' }).waitFor();
      await page.locator('tr.ant-table-row-level-0', { hasText: 'Fiction' }).first().locator('.ant-table-row-expand-icon').click();
      await page.locator('tr', { hasText: 'Space opera' }).waitFor({ state: 'hidden' });
      // A child added under a closed parent opens its ancestors: never added out of sight.
      await k(cats.table).insert({ name: 'Cyberpunk', parent_id: sfId });
      await page.getByRole('button', { name: 'Reload' }).click();
      await page.locator('tr.ant-table-row-level-2', { hasText: 'Cyberpunk' }).waitFor();
      expect(await page.locator('tr', { hasText: 'Space opera' }).isVisible()).to.equal(true);
      // A parent closed again stays closed across a reload that brings nothing new.
      await page.locator('tr.ant-table-row-level-0', { hasText: 'Fiction' }).first().locator('.ant-table-row-expand-icon').click();
      await page.locator('tr', { hasText: 'Cyberpunk' }).waitFor({ state: 'hidden' });
      await Promise.all([page.waitForResponse((r) => r.url().includes('/Category')), page.getByRole('button', { name: 'Reload' }).click()]);
      await waitUntil(page, `!document.querySelector('.ant-table .ant-spin-spinning')`);
      expect(await page.locator('tr', { hasText: 'Cyberpunk' }).isVisible()).to.equal(false);
      // Tree tables offer no cell editing (spec rule 7), though the user may edit.
      expect(await page.locator('.fw-cell-edit').count()).to.equal(0);
      await page.locator('td.fw-col-name', { hasText: 'Non-fiction' }).dblclick();
      expect(await page.locator('.fw-cell-editor').count()).to.equal(0);
      expect(await page.locator('.fw-row-edit').count()).to.be.greaterThan(0);
    } finally {
      await context.close();
    }
  });
});
