// Issue 23 in the browser, as a person uses it: the filter builder (AND/OR groups, in the
// address), saved views, bulk edit of selected rows, paste of a block copied from a spreadsheet
// (preview, server dry run, one save), a row's history with restore, and the trash.
import { join } from 'node:path';
import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { describeBrowser } from '@fw/test-utils';
import { apiToken, openPage, openSignedIn, rowAction, rowWith, shot, startDemo, tableTexts, waitUntil, type UiDemo } from './support.js';

const SHOTS = process.env.FW_UI_SHOTS;

async function add(ui: UiDemo, token: string, row: Record<string, unknown>): Promise<number> {
  const res = await fetch(`${ui.url}/fw-api/data/modify/Book`, { method: 'POST', headers: { token, 'content-type': 'application/json' }, body: JSON.stringify(row) });
  expect(res.status, await res.clone().text()).to.equal(200);
  return ((await res.json()) as { id: number }).id;
}

/** The titles of the rows on screen. */
async function titles(page: Page): Promise<string[]> {
  return (await page.locator('.ant-table-tbody td.fw-col-title').allInnerTexts()).map((s) => s.trim()).sort();
}

/** Picks `label` in the antd select inside `scope`, typing to narrow the list first. */
async function pick(page: Page, select: ReturnType<Page['locator']>, label: string): Promise<void> {
  await select.click();
  await page.keyboard.type(label);
  await page.locator('.ant-select-dropdown:not(.ant-select-dropdown-hidden) .ant-select-item-option', { hasText: label }).first().click();
}

describeBrowser('admin UI: find rows, change many, take it back (issue 23)', (browser) => {
  let ui: UiDemo;
  let token: string;
  const books = () => ui.demo.store.knex(ui.demo.registry.get('Book')!.table);
  before(async function () {
    this.timeout(120_000);
    ui = await startDemo();
    token = await apiToken(ui.url);
    for (const [title, genre, price] of [
      ['Dune', 'novel', 9.5],
      ['Solaris', 'novel', 7.75],
      ['Silent Spring', 'essay', 12.25],
      ['Leaves of Grass', 'poetry', 6],
      ['The Waste Land', 'poetry', 4.25],
      ['Walden', 'essay', 3],
    ] as const)
      await add(ui, token, { title, genre, price });
  });
  after(async () => {
    await ui?.close();
  });

  it('builds an AND/OR filter, keeps it in the address, and saves it as a view that brings it back', async () => {
    const { context, page } = await openPage(browser());
    try {
      await page.setViewportSize({ width: 1366, height: 900 });
      await openSignedIn(page, ui.url, '/model/Book', token);
      await rowWith(page, 'Dune').waitFor();
      await page.locator('.fw-filter-button').click();
      const drawer = page.locator('.fw-filter-drawer');
      await drawer.waitFor();
      // Any of: genre is novel, price below 5 (two novels, two cheap books).
      await drawer.locator('.fw-filter-join .ant-segmented-item', { hasText: 'Any of these' }).first().click();
      await drawer.getByRole('button', { name: 'Add condition' }).first().click();
      await pick(page, drawer.locator('.fw-filter-rule').nth(0).locator('.fw-filter-field'), 'Genre');
      await pick(page, drawer.locator('.fw-filter-rule').nth(0).locator('.fw-filter-value .ant-select'), 'Novel');
      await drawer.getByRole('button', { name: 'Add condition' }).first().click();
      await pick(page, drawer.locator('.fw-filter-rule').nth(1).locator('.fw-filter-field'), 'Price');
      await pick(page, drawer.locator('.fw-filter-rule').nth(1).locator('.fw-filter-op'), 'less than');
      await drawer.locator('.fw-filter-rule').nth(1).locator('.fw-filter-value input').fill('5');
      if (SHOTS) await shot(page, join(SHOTS, 'filter-builder-1366.png'));
      await drawer.getByRole('button', { name: 'Apply' }).click();
      await waitUntil(page, `document.querySelectorAll('.ant-table-tbody td.fw-col-title').length === 4`);
      expect(await titles(page)).to.deep.equal(['Dune', 'Solaris', 'The Waste Land', 'Walden']);
      expect(decodeURIComponent(page.url())).to.include('"join":"or"');
      // The button counts the conditions in force; a reload keeps them.
      expect(await page.locator('.fw-filter-button').getAttribute('aria-label')).to.include('2');
      await page.reload();
      await rowWith(page, 'Solaris').waitFor();
      expect(await titles(page)).to.deep.equal(['Dune', 'Solaris', 'The Waste Land', 'Walden']);

      // Saved as a view; cleared; chosen again.
      await page.locator('.fw-view-save').click();
      await page.locator('#save-view_name').fill('Novels or cheap');
      await page.locator('.fw-view-save-ok').click();
      await page.locator('.fw-view-select', { hasText: 'Novels or cheap' }).waitFor();
      await page.locator('.fw-view-select .ant-select-clear').click({ force: true });
      await waitUntil(page, `document.querySelectorAll('.ant-table-tbody td.fw-col-title').length === 6`);
      await pick(page, page.locator('.fw-view-select'), 'Novels or cheap');
      await waitUntil(page, `document.querySelectorAll('.ant-table-tbody td.fw-col-title').length === 4`);
      expect(await titles(page)).to.deep.equal(['Dune', 'Solaris', 'The Waste Land', 'Walden']);
      if (SHOTS) await shot(page, join(SHOTS, 'saved-view-1366.png'));

      // A phone: the filter drawer's rules wrap inside the screen.
      await page.setViewportSize({ width: 390, height: 844 });
      await page.locator('.fw-filter-button').click();
      await page.locator('.fw-filter-drawer .fw-filter-rule').first().waitFor();
      // Measured once the drawer has slid in (during the slide its content sits off to the right).
      await waitUntil(page, 'document.getAnimations().every((a) => a.playState !== "running" || a.effect?.getTiming().iterations === Infinity)');
      const overflow = await page.evaluate(
        `[...document.querySelectorAll('.fw-filter-drawer :is(.fw-filter-rule, .fw-filter-join)')].some((r) => r.getBoundingClientRect().right > window.innerWidth + 1)`,
      );
      if (SHOTS) await shot(page, join(SHOTS, 'filter-builder-390.png'));
      expect(overflow).to.equal(false);
    } finally {
      await context.close();
    }
  });

  it('bulk-edits the selected rows in one request, and each row’s history shows it with a restore', async () => {
    const { context, page } = await openPage(browser());
    try {
      await page.setViewportSize({ width: 1366, height: 900 });
      await openSignedIn(page, ui.url, '/model/Book', token);
      await rowWith(page, 'Walden').waitFor();
      await rowWith(page, 'Walden').locator('.ant-checkbox-input').check();
      await rowWith(page, 'Silent Spring').locator('.ant-checkbox-input').check();
      await page.locator('.fw-bulk-edit').click();
      const dialog = page.locator('.fw-bulk-dialog');
      await dialog.waitFor();
      await pick(page, dialog.locator('.fw-bulk-fields'), 'Price');
      await dialog.locator('.fw-field-price input').fill('20');
      if (SHOTS) await shot(page, join(SHOTS, 'bulk-edit-1366.png'));
      await page.locator('.fw-bulk-apply').click();
      await dialog.waitFor({ state: 'detached' });
      const prices = await books().whereIn('title', ['Walden', 'Silent Spring']).select('price');
      expect(prices.map((r) => Number(r.price))).to.deep.equal([20, 20]);
      const logs = await ui.demo.store.knex('fw_operate_log').where({ model: 'Book', source: 'bulk' }).select('batch', 'target_id');
      expect(logs).to.have.length(2);
      expect(new Set(logs.map((l) => l.batch)).size).to.equal(1);

      // History of Walden: the bulk change, then restore to before it.
      const row = rowWith(page, 'Walden');
      await (await rowAction(page, row, 'fw-row-details')).click();
      await page.locator('.fw-row-tabs').getByRole('tab', { name: 'History' }).click();
      const entry = page.locator('.fw-history-entry').first();
      await entry.waitFor();
      expect(await entry.innerText()).to.include('Bulk edit');
      // Who: the name, as the header and the live notes show people, with the account beside it.
      expect(await entry.locator('.fw-history-head').innerText()).to.match(/^Administrator \(admin\)/);
      if (SHOTS) await shot(page, join(SHOTS, 'history-1366.png'));
      await entry.locator('.fw-history-restore').click();
      await page.locator('.ant-popconfirm .ant-btn-primary').click();
      await waitUntil(page, `document.querySelectorAll('.fw-history-entry').length >= 3`);
      expect(Number((await books().where({ title: 'Walden' }).first()).price)).to.equal(3);
    } finally {
      await context.close();
    }
  });

  it('pastes a block from a spreadsheet: preview with refusals marked, then one save', async () => {
    const { context, page } = await openPage(browser());
    try {
      await page.setViewportSize({ width: 1366, height: 900 });
      await openSignedIn(page, ui.url, '/model/Book?sort=title,asc', token);
      await rowWith(page, 'Dune').waitFor();
      const first = await tableTexts(page);
      expect(first[0]).to.include('Dune');
      // Paste two rows × two cells on Dune's price: the second price does not read as a number.
      await rowWith(page, 'Dune').locator('td.fw-col-price').focus();
      await page.evaluate(`(() => {
        const data = new DataTransfer();
        data.setData('text/plain', '11\\tnovel\\r\\nabc\\tessay\\r\\n');
        document.activeElement.dispatchEvent(new ClipboardEvent('paste', { clipboardData: data, bubbles: true, cancelable: true }));
      })()`);
      const dialog = page.locator('.fw-paste-dialog');
      await dialog.waitFor();
      await dialog.locator('.fw-paste-bad[data-problem="number"]').waitFor();
      // The dry run found nothing else wrong: the save is offered.
      await waitUntil(page, `!document.querySelector('.fw-paste-save').disabled`);
      if (SHOTS) await shot(page, join(SHOTS, 'paste-preview-1366.png'));
      await page.locator('.fw-paste-save').click();
      await dialog.waitFor({ state: 'detached' });
      expect(Number((await books().where({ title: 'Dune' }).first()).price)).to.equal(11);
    } finally {
      await context.close();
    }
  });

  it('a deleted row waits in the trash and comes back with its id', async () => {
    const { context, page } = await openPage(browser());
    try {
      await page.setViewportSize({ width: 1366, height: 900 });
      await openSignedIn(page, ui.url, '/model/Book', token);
      const id = (await books().where({ title: 'Leaves of Grass' }).first()).id as number;
      const res = await fetch(`${ui.url}/fw-api/data/modify/Book/delete`, {
        method: 'POST',
        headers: { token, 'content-type': 'application/json' },
        body: JSON.stringify({ ids: [id] }),
      });
      expect(res.status).to.equal(200);
      await page.reload();
      await page.locator('.fw-trash-open').click();
      const trash = page.locator('.fw-trash');
      await trash.locator('.ant-table-row', { hasText: 'Leaves of Grass' }).waitFor();
      if (SHOTS) await shot(page, join(SHOTS, 'trash-1366.png'));
      await trash.locator('.ant-table-row', { hasText: 'Leaves of Grass' }).locator('.ant-checkbox-input').check();
      await trash.locator('.fw-trash-restore').click();
      await waitUntil(page, `!document.querySelector('.fw-trash .ant-table-row')`);
      expect((await books().where({ id }).first())?.title).to.equal('Leaves of Grass');
    } finally {
      await context.close();
    }
  });
});
