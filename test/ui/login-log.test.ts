// Issue 19 §6: failed sign-ins in the login log, filtered on the login-log page as an
// administrator does it: the generic model page of FwLoginLog, its search form's "Succeeded" and
// "Failure reason" fields.
import { join } from 'node:path';
import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { encodePassword } from '@fw/login/client';
import { describeBrowser } from '@fw/test-utils';
import { apiToken, openPage, openSignedIn, shot, startDemo, tableTexts, waitUntil, type UiDemo } from './support.js';

async function failLogin(url: string, account: string, pwd: string): Promise<void> {
  const res = await fetch(`${url}/fw-api/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'user-agent': 'ui-test/1.0' },
    body: JSON.stringify({ account, pwd: encodePassword(pwd) }),
  });
  expect(res.status).to.equal(401);
}

/** The texts of one column of the table on screen. */
async function column(page: Page, field: string): Promise<string[]> {
  return (await page.locator(`.ant-table-tbody td.fw-col-${field}`).allInnerTexts()).map((s) => s.trim());
}

describeBrowser('admin UI: failed sign-ins on the login-log page', (browser) => {
  let ui: UiDemo;
  let token: string;
  before(async function () {
    this.timeout(120_000);
    ui = await startDemo();
    // Signed in first: two failures from one address make the next sign-in ask for a captcha.
    token = await apiToken(ui.url);
    await failLogin(ui.url, 'admin', 'not-the-password');
    await failLogin(ui.url, 'mallory\u200b', 'guess-123456');
  });
  after(async () => {
    await ui?.close();
  });

  for (const width of [1366, 390]) {
    it(`filters the failed sign-ins at ${width} px`, async function () {
      this.timeout(60_000);
      const { context, page, errors } = await openPage(browser());
      try {
        await page.setViewportSize({ width, height: 900 });
        await openSignedIn(page, ui.url, '/model/FwLoginLog', token);
        await page.locator('.fw-page-title', { hasText: 'Login log' }).waitFor();
        await page.locator('.ant-table-tbody tr.ant-table-row').first().waitFor();
        expect((await tableTexts(page)).length, 'two failures and at least one success').to.be.at.least(3);

        const tables: Array<Record<string, unknown>> = [];
        page.on('request', (r) => {
          if (r.url().includes('/fw-api/data/table/FwLoginLog')) tables.push(JSON.parse(r.postData() ?? '{}') as Record<string, unknown>);
        });
        const succeeded = page.locator('.fw-search .ant-form-item', { hasText: 'Succeeded' }).locator('.ant-select');
        // On a phone the search form may sit behind a toggle; open it when it does.
        if (!(await succeeded.isVisible())) await page.getByRole('button', { name: 'Search' }).first().click();
        await succeeded.click();
        await page.locator('.ant-select-item-option', { hasText: 'No' }).click();
        await page.getByRole('button', { name: 'Search' }).last().click();
        await waitUntil(page, `document.querySelector('.ant-pagination-total-text')?.textContent === 'Total 2'`);
        expect(tables.at(-1)?.conditions).to.deep.equal([{ field: 'success', op: 'eq', value: false }]);
        expect((await column(page, 'accountTyped')).sort()).to.deep.equal(['admin', 'mallory\ufffd']);
        expect(await column(page, 'reason')).to.deep.equal(['Unknown account or wrong password', 'Unknown account or wrong password']);
        expect(await page.locator('.ant-table-tbody').innerText())
          .to.not.contain('guess-123456')
          .and.not.contain('not-the-password');
        await shot(page, join(ui.shots, `login-log-failures-${width}.png`));
        expect(errors).to.deep.equal([]);
      } finally {
        await context.close();
      }
    });
  }
});
