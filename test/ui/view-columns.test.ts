// Issue 23 §1 in the browser: a saved view keeps the columns shown when it was kept (which, and in
// what order) and shows them again when chosen, while the person's own stored layout stays as it
// was; a view naming a column this person cannot see shows the others and says so.
import { join } from 'node:path';
import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { describeBrowser } from '@fw/test-utils';
import { apiToken, openPage, openSignedIn, rowWith, shot, startDemo, type UiDemo } from './support.js';

const SHOTS = process.env.FW_UI_SHOTS;

/** The header texts of the table, in order (the selection and actions columns left out). */
async function headers(page: Page): Promise<string[]> {
  const texts = await page.locator('.ant-table-thead th:not(.ant-table-selection-column):not(.fw-col-actions)').allInnerTexts();
  return texts.map((s) => s.trim()).filter(Boolean);
}

/** Waits until the table's headers are `expected`, then checks them (the message names both). */
async function headersAre(page: Page, expected: string[]): Promise<void> {
  for (let i = 0; i < 100 && JSON.stringify(await headers(page)) !== JSON.stringify(expected); i++) await page.waitForTimeout(50);
  expect(await headers(page)).to.deep.equal(expected);
}

/** Picks `label` in the antd select, typing to narrow the list first. */
async function pick(page: Page, select: ReturnType<Page['locator']>, label: string): Promise<void> {
  await select.click();
  await page.keyboard.type(label);
  await page.locator('.ant-select-dropdown:not(.ant-select-dropdown-hidden) .ant-select-item-option', { hasText: label }).first().click();
}

const ALL = ['ID', 'Title', 'ISBN', 'Genre', 'Price', 'Published', 'In print'];
const KEPT = ['ID', 'Price', 'Title', 'Genre', 'Published', 'In print'];

describeBrowser('admin UI: saved views keep their columns (issue 23 §1)', (browser) => {
  let ui: UiDemo;
  let token: string;
  let adminId: number;
  before(async function () {
    this.timeout(120_000);
    ui = await startDemo();
    token = await apiToken(ui.url);
    adminId = (await ui.demo.store.users.findByAccount('admin'))!.id;
    const res = await fetch(`${ui.url}/fw-api/data/modify/Book`, {
      method: 'POST',
      headers: { token, 'content-type': 'application/json' },
      body: JSON.stringify({ title: 'Dune', genre: 'novel', price: 9.5 }),
    });
    expect(res.status, await res.clone().text()).to.equal(200);
  });
  after(async () => {
    await ui?.close();
  });

  it('keeps a view with a column hidden and one moved, and shows them so again after a reload, leaving the own layout alone', async () => {
    const { context, page } = await openPage(browser());
    const stored = async () => (await ui.demo.store.prefs.get(adminId, 'table:Book'))?.value;
    try {
      await page.setViewportSize({ width: 1366, height: 900 });
      await openSignedIn(page, ui.url, '/model/Book', token);
      await rowWith(page, 'Dune').waitFor();
      await headersAre(page, ALL);
      // ISBN hidden, Price moved up past Genre, (hidden) ISBN and Title.
      await page.locator('.fw-columns').click();
      const chooser = page.locator('.fw-col-chooser');
      await chooser.getByRole('checkbox', { name: 'Show ISBN' }).click();
      for (let i = 0; i < 3; i++) await chooser.getByRole('button', { name: 'Move Price up' }).click();
      await page.keyboard.press('Escape');
      await headersAre(page, KEPT);

      await page.locator('.fw-view-save').click();
      await page.locator('#save-view_name').fill('Price first');
      await page.locator('.fw-view-save-ok').click();
      await page.locator('.fw-view-select', { hasText: 'Price first' }).waitFor();
      const kept = await ui.demo.store.knex('fw_saved_view').where({ name: 'Price first' }).first();
      expect(JSON.parse(kept.columns)).to.deep.equal(['id', 'price', 'title', 'genre', 'published', 'inPrint']);

      // The own layout back to the defaults (no view chosen), then a reload: all columns.
      await page.locator('.fw-view-select .ant-select-clear').click({ force: true });
      await page.locator('.fw-columns').click();
      await page.locator('.fw-col-reset').click();
      await page.keyboard.press('Escape');
      await headersAre(page, ALL);
      for (let i = 0; i < 100 && (await stored()) !== undefined; i++) await page.waitForTimeout(50);
      await page.reload();
      await rowWith(page, 'Dune').waitFor();
      await headersAre(page, ALL);
      // An own layout of the person's: Published hidden.
      await page.locator('.fw-columns').click();
      await page.locator('.fw-col-chooser').getByRole('checkbox', { name: 'Show Published' }).click();
      await page.keyboard.press('Escape');
      const OWN = ['ID', 'Title', 'ISBN', 'Genre', 'Price', 'In print'];
      await headersAre(page, OWN);
      for (let i = 0; i < 100 && (await stored()) === undefined; i++) await page.waitForTimeout(50);
      const own = await stored();
      expect(own).to.deep.equal({ hidden: ['published'] });

      // Chosen: its columns, in its order (Published too); the stored layout is not written.
      await pick(page, page.locator('.fw-view-select'), 'Price first');
      await headersAre(page, KEPT);
      expect(await stored()).to.deep.equal(own);
      expect(page.url()).to.match(/[?&]v=\d+/);
      // A reload with the view in the address shows its columns again.
      await page.reload();
      await rowWith(page, 'Dune').waitFor();
      await headersAre(page, KEPT);
      if (SHOTS) await shot(page, join(SHOTS, 'view-columns-1366.png'));
      await page.setViewportSize({ width: 390, height: 844 });
      await page.waitForTimeout(300);
      if (SHOTS) await shot(page, join(SHOTS, 'view-columns-390.png'));
      await page.setViewportSize({ width: 1366, height: 900 });
      // The chooser under a view changes this page only: Genre hidden here, nothing stored; its
      // reset goes back to the view's columns and forgets nothing stored either.
      await page.locator('.fw-columns').click();
      await page.locator('.fw-col-chooser').getByRole('checkbox', { name: 'Show Genre' }).click();
      await headersAre(page, ['ID', 'Price', 'Title', 'Published', 'In print']);
      await page.waitForTimeout(300);
      expect(await stored()).to.deep.equal(own);
      await page.locator('.fw-col-reset').click();
      await page.keyboard.press('Escape');
      await headersAre(page, KEPT);
      await page.waitForTimeout(300);
      expect(await stored()).to.deep.equal(own);

      // Leaving the view: the person's own layout, untouched.
      await page.locator('.fw-view-select .ant-select-clear').click({ force: true });
      await headersAre(page, OWN);
    } finally {
      await context.close();
    }
  });

  it('a view naming a column the person cannot see shows the others and says so', async () => {
    await ui.demo.store.views.create(adminId, 'Book', { name: 'Old columns', conditions: [], sort: [], pageSize: null, columns: ['title', 'shelf', 'price'], roleIds: [] });
    const { context, page } = await openPage(browser());
    try {
      await page.setViewportSize({ width: 1366, height: 900 });
      await openSignedIn(page, ui.url, '/model/Book', token);
      await rowWith(page, 'Dune').waitFor();
      await pick(page, page.locator('.fw-view-select'), 'Old columns');
      await headersAre(page, ['Title', 'Price']);
      const note = page.locator('.fw-view-columns-missing');
      await note.waitFor();
      expect(await note.innerText()).to.include('shelf');
      // Told once: the columns are not also reported as a broken view.
      expect(await page.locator('.fw-view-broken').count()).to.equal(0);
      if (SHOTS) await shot(page, join(SHOTS, 'view-columns-missing-1366.png'));
      await page.setViewportSize({ width: 390, height: 844 });
      await page.waitForTimeout(300);
      if (SHOTS) await shot(page, join(SHOTS, 'view-columns-missing-390.png'));
    } finally {
      await context.close();
    }
  });
});
