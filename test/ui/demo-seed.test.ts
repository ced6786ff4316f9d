// The demo as `npm start` shows it (issue 20 §12): seeded with sample data, every demo model's
// page lists rows; the Books page at 1366 px, with the cell editor open on a price, is the
// README's picture (docs/images/model-page-cell-edit.png comes from here).
import { join } from 'node:path';
import { expect } from 'chai';
import { describeBrowser } from '@fw/test-utils';
import { apiToken, openPage, openSignedIn, shot, startDemo, waitUntil, type UiDemo } from './support.js';

describeBrowser('admin UI: the seeded demo', (browser) => {
  let ui: UiDemo;
  let token: string;
  before(async function () {
    this.timeout(60_000);
    ui = await startDemo({ seed: true });
    token = await apiToken(ui.url);
  });
  after(async () => {
    await ui?.close();
  });

  it('shows rows on every demo model page, and a full Books table at 1366 px', async () => {
    const { context, page, errors } = await openPage(browser());
    try {
      await page.setViewportSize({ width: 1366, height: 768 });
      for (const fw of ['Author', 'Category', 'Salary', 'Contract', 'Project', 'Task']) {
        await openSignedIn(page, ui.url, `/model/${fw}`, token);
        await waitUntil(page, `document.querySelectorAll('.fw-model[data-model="${fw}"] .ant-table-tbody tr.ant-table-row').length > 0`);
      }
      await openSignedIn(page, ui.url, '/model/Book', token);
      await waitUntil(page, `document.querySelectorAll('.ant-table-tbody tr.ant-table-row').length === 20`);
      expect(await page.locator('.ant-pagination-total-text').innerText()).to.equal('Total 300');
      await shot(page, join(ui.shots, 'demo-books-seeded.png'));
      // The README's picture: the cell editor open on the first book's price.
      const price = page.locator('.ant-table-tbody tr.ant-table-row').first().locator('td.fw-col-price');
      await price.dblclick();
      const editor = page.locator('.fw-cell-editor[data-field="price"]');
      await editor.waitFor();
      await editor.locator('.ant-input-number input').fill('12.5');
      await shot(page, join(ui.shots, 'model-page-cell-edit.png'));
      await editor.locator('.ant-input-number input').press('Escape');
      expect(errors).to.deep.equal([]);
    } finally {
      await context.close();
    }
  });
});
