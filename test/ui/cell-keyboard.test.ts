// The cell editor by keyboard and on its cell (issue 20 §2), in real Chromium: arrow keys move a
// single cell focus (one Tab stop for the whole table), Enter or F2 opens the editor (typing on a
// text or number cell opens it holding what is typed), Tab saves
// and moves to the next editable cell, Shift+Tab to the previous, Esc cancels, and the focus is
// back on a cell each time. The open editor stays on its cell while the page scrolls 300 px and
// while the table scrolls sideways on a phone, and it is in the app's font.
import { join } from 'node:path';
import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { describeBrowser } from '@fw/test-utils';
import { apiToken, openPage, openSignedIn, rowWith, shot, startDemo, waitUntil, type UiDemo } from './support.js';

/** The focused cell: its column and its row's title. */
function focusedCell(page: Page): Promise<{ col?: string; title?: string }> {
  return page.evaluate(
    `(() => { const td = document.activeElement.closest('td[data-fw-cell]'); return td ? { col: td.dataset.fwCol, title: td.closest('tr').querySelector('td.fw-col-title').textContent } : {}; })()`,
  ) as Promise<{ col?: string; title?: string }>;
}

/** The boxes of the open editor and of the cell it edits, in the viewport. */
async function boxes(page: Page, row: string, field: string) {
  const editor = await page.locator('.fw-cell-editor').boundingBox();
  const cell = await rowWith(page, row).locator(`td.fw-col-${field}`).boundingBox();
  return { editor: editor!, cell: cell! };
}

describeBrowser('admin UI: the cell editor by keyboard, anchored to its cell', (browser) => {
  let ui: UiDemo;
  let token: string;
  const books = () => ui.demo.store.knex(ui.demo.registry.get('Book')!.table);
  before(async () => {
    ui = await startDemo();
    token = await apiToken(ui.url);
    const titles = ['Dune', 'Solaris', 'Foundation', ...Array.from({ length: 30 }, (_, i) => `Volume ${String(i + 1).padStart(2, '0')}`)];
    for (const [i, title] of titles.entries()) {
      const res = await fetch(`${ui.url}/fw-api/data/modify/Book`, {
        method: 'POST',
        headers: { token, 'content-type': 'application/json' },
        body: JSON.stringify({ title, genre: 'novel', price: 5 + i, published: '1965-08-01' }),
      });
      expect(res.status).to.equal(200);
    }
  });
  after(async () => {
    await ui?.close();
  });

  it('arrows move the cell focus; Enter opens, Tab saves and moves on, F2 opens, Esc cancels, Shift+Tab goes back', async function () {
    this.timeout(120_000); // some forty key presses, each a round trip to the browser
    const { context, page } = await openPage(browser());
    const cells: unknown[] = [];
    page.on('request', (r) => {
      if (r.url().endsWith('/update-cell')) cells.push(r.postDataJSON());
    });
    try {
      await openSignedIn(page, ui.url, '/model/Book', token);
      await rowWith(page, 'Dune').waitFor();
      // One Tab stop for the whole table: the first cell.
      expect(await page.locator('td[data-fw-cell][tabindex="0"]').count()).to.equal(1);
      expect(await page.locator('td[data-fw-cell][tabindex="0"]').getAttribute('data-fw-col')).to.equal('title');
      // The editable look without hovering: the pencils are drawn.
      expect(
        await rowWith(page, 'Dune')
          .locator('td.fw-col-price .fw-cell-edit')
          .evaluate((e) => (globalThis as unknown as { getComputedStyle(el: unknown): { visibility: string } }).getComputedStyle(e).visibility),
      ).to.equal('visible');

      await page.locator('.fw-skip-link').focus();
      await page.keyboard.press('Enter');
      for (let i = 0; i < 40 && !(await focusedCell(page)).col; i += 1) await page.keyboard.press('Tab');
      expect(await focusedCell(page)).to.deep.equal({ col: 'title', title: 'Dune' });

      await page.keyboard.press('ArrowRight'); // isbn, not editable
      expect(await focusedCell(page)).to.deep.equal({ col: 'isbn', title: 'Dune' });
      await page.keyboard.press('Enter');
      expect(await page.locator('.fw-cell-editor').count()).to.equal(0);
      await page.keyboard.press('ArrowRight');
      await page.keyboard.press('ArrowRight');
      expect(await focusedCell(page)).to.deep.equal({ col: 'price', title: 'Dune' });
      expect(await page.locator('td[data-fw-cell][tabindex="0"]').count()).to.equal(1);
      await shot(page, join(ui.shots, 'cell-focus.png'));

      // Enter opens the editor on the price, the input focused.
      await page.keyboard.press('Enter');
      const input = page.locator('.fw-cell-editor[data-field="price"] .ant-input-number input');
      await input.waitFor();
      await waitUntil(page, `document.activeElement.closest('.fw-cell-editor') !== null`);
      await page.keyboard.press('Control+A');
      await page.keyboard.type('12');
      // Tab saves and moves to the next editable cell of the row: the date.
      await page.keyboard.press('Tab');
      await page.locator('.fw-cell-editor').waitFor({ state: 'detached' });
      await waitUntil(page, `document.activeElement.matches('td.fw-col-published')`);
      expect(await focusedCell(page)).to.deep.equal({ col: 'published', title: 'Dune' });
      expect(cells).to.deep.equal([{ id: (await books().where({ title: 'Dune' }).first()).id, field: 'price', value: 12, expect: 5 }]);
      expect((await books().where({ title: 'Dune' }).first()).price).to.equal(12);
      await waitUntil(page, `document.querySelector('#' + document.activeElement.id.replace('published', 'price')).textContent === '12'`);

      // Down a row, F2 opens, Esc cancels: no request, the focus back on the cell.
      await page.keyboard.press('ArrowDown');
      expect(await focusedCell(page)).to.deep.equal({ col: 'published', title: 'Solaris' });
      await page.keyboard.press('F2');
      await page.locator('.fw-cell-editor[data-field="published"]').waitFor();
      await page.keyboard.press('Escape');
      await page.locator('.fw-cell-editor').waitFor({ state: 'detached' });
      await waitUntil(page, `document.activeElement.matches('td.fw-col-published')`);
      expect(await focusedCell(page)).to.deep.equal({ col: 'published', title: 'Solaris' });
      expect(cells).to.have.length(1);

      // Shift+Tab from the genre goes back past the read-only ISBN to the title; nothing changed, nothing sent.
      await page.keyboard.press('ArrowLeft');
      await page.keyboard.press('ArrowLeft');
      expect(await focusedCell(page)).to.deep.equal({ col: 'genre', title: 'Solaris' });
      await page.keyboard.press('Enter');
      await page.locator('.fw-cell-editor[data-field="genre"]').waitFor();
      await waitUntil(page, `document.activeElement.closest('.fw-cell-editor') !== null`);
      await page.keyboard.press('Shift+Tab');
      await page.locator('.fw-cell-editor').waitFor({ state: 'detached' });
      await waitUntil(page, `document.activeElement.matches('td.fw-col-title')`);
      expect(await focusedCell(page)).to.deep.equal({ col: 'title', title: 'Solaris' });
      expect(cells).to.have.length(1);

      // Enter saves and stays: the focus is back on the same cell.
      await page.keyboard.press('Enter');
      const title = page.locator('.fw-cell-editor[data-field="title"] input');
      await title.waitFor();
      await title.fill('Solaris (1961)');
      await page.keyboard.press('Enter');
      await page.locator('.fw-cell-editor').waitFor({ state: 'detached' });
      await waitUntil(page, `document.activeElement.matches('td.fw-col-title') && document.activeElement.textContent === 'Solaris (1961)'`);
      expect(cells).to.have.length(2);

      // Typing on a text cell opens its editor holding what is typed, as a spreadsheet does.
      await page.keyboard.type('Lem');
      await page.locator('.fw-cell-editor[data-field="title"]').waitFor();
      await waitUntil(page, `document.querySelector('.fw-cell-editor input')?.value === 'Lem'`);
      await page.keyboard.type(' 1');
      await page.keyboard.press('Enter');
      await page.locator('.fw-cell-editor').waitFor({ state: 'detached' });
      expect(cells[2]).to.deep.include({ field: 'title', value: 'Lem 1' });
      // On a number cell a digit starts the number; on a list cell typing opens nothing.
      await page.keyboard.press('ArrowRight');
      await page.keyboard.press('ArrowRight');
      await page.keyboard.press('ArrowRight');
      expect(await focusedCell(page)).to.deep.include({ col: 'price' });
      await page.keyboard.type('42');
      await waitUntil(page, `document.querySelector('.fw-cell-editor input')?.value === '42'`);
      await page.keyboard.press('Enter');
      await page.locator('.fw-cell-editor').waitFor({ state: 'detached' });
      expect(cells[3]).to.deep.include({ field: 'price', value: 42 });
      await page.keyboard.press('ArrowLeft');
      expect(await focusedCell(page)).to.deep.include({ col: 'genre' });
      await page.keyboard.type('x');
      expect(await page.locator('.fw-cell-editor').count()).to.equal(0);
      expect(cells).to.have.length(4);
    } finally {
      await context.close();
    }
  });

  it('the open editor stays on its cell when the page scrolls 300 px and the table sideways, in the app’s font; screenshots at 1366 and 390 px', async function () {
    this.timeout(120_000);
    const { context, page } = await openPage(browser());
    try {
      await page.setViewportSize({ width: 1366, height: 768 });
      await openSignedIn(page, ui.url, '/model/Book?size=50', token);
      await rowWith(page, 'Volume 20').waitFor();
      await rowWith(page, 'Volume 06').locator('td.fw-col-price').dblclick();
      await page.locator('.fw-cell-editor[data-field="price"]').waitFor();
      const before = await boxes(page, 'Volume 06', 'price');
      expect(before.editor.y).to.be.closeTo(before.cell.y - 8, 1.5);
      expect(before.editor.x).to.be.closeTo(before.cell.x - 8, 1.5);
      await shot(page, join(ui.shots, 'cell-editor-1366.png'));

      await page.locator('.fw-content').evaluate((e) => e.scrollBy(0, 300));
      await waitUntil(page, `document.querySelector('.fw-content').scrollTop >= 300`);
      const after = await boxes(page, 'Volume 06', 'price');
      expect(after.cell.y).to.be.closeTo(before.cell.y - 300, 1.5);
      expect(after.editor.y).to.be.closeTo(after.cell.y - 8, 1.5);
      expect(after.editor.x).to.be.closeTo(after.cell.x - 8, 1.5);

      // The hint and the refusal are in the app's font and theme, not the browser's default serif.
      const fonts = (await page.evaluate(
        `({ app: getComputedStyle(document.querySelector('.fw-page-title')).fontFamily, hint: getComputedStyle(document.querySelector('.fw-cell-editor-hint')).fontFamily, editor: getComputedStyle(document.querySelector('.fw-cell-editor')).fontFamily })`,
      )) as { app: string; hint: string; editor: string };
      expect(fonts.hint).to.equal(fonts.app);
      expect(fonts.editor).to.equal(fonts.app);
      expect(fonts.hint).to.not.match(/times/i);
      await page.keyboard.press('Escape');

      // A phone: the table scrolls sideways under the open editor, which follows its cell.
      await page.setViewportSize({ width: 390, height: 844 });
      await page.locator('.fw-content').evaluate((e) => e.scrollTo(0, 0));
      const cell = rowWith(page, 'Dune').locator('td.fw-col-title');
      await cell.dblclick();
      await page.locator('.fw-cell-editor[data-field="title"]').waitFor();
      const narrow = await boxes(page, 'Dune', 'title');
      expect(narrow.editor.y).to.be.closeTo(narrow.cell.y - 8, 1.5);
      expect(narrow.editor.x + narrow.editor.width).to.be.at.most(390);
      await shot(page, join(ui.shots, 'cell-editor-390.png'));
      const id = (await cell.getAttribute('id'))!;
      const left = `document.getElementById(${JSON.stringify(id)}).getBoundingClientRect().left`;
      const start = (await page.evaluate(left)) as number;
      await page.locator('.ant-table-content').evaluate((e) => e.scrollBy(40, 0));
      await waitUntil(page, `${left} <= ${start - 39}`);
      await waitUntil(page, `Math.abs(document.querySelector('.fw-cell-editor').getBoundingClientRect().left - Math.max(0, ${left} - 8)) < 2`);
    } finally {
      await context.close();
    }
  });
});
