// Issue 20 §7: logs people can read. An operate-log row's details show a before/after table per
// field (the changed ones highlighted, secrets masked) instead of raw JSON; the login log filters
// failures and successes by result, account and time.
import { join } from 'node:path';
import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { encodePassword } from '@fw/login/client';
import { describeBrowser } from '@fw/test-utils';
import { apiToken, openPage, openSignedIn, rowAction, rowWith, shot, startDemo, tableTexts, userWithMenus, waitUntil, type UiDemo } from './support.js';

async function post<T>(url: string, path: string, token: string, body: unknown): Promise<T> {
  const res = await fetch(`${url}/fw-api${path}`, { method: 'POST', headers: { token, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  expect(res.status, `${path}: ${await res.clone().text()}`).to.equal(200);
  return (await res.json()) as T;
}

/** The diff table's lines as [field, before, after, changed]. */
async function diffLines(page: Page): Promise<Array<[string, string, string, boolean]>> {
  // A string, not a function: tsx's helpers do not exist inside the page.
  return (await page.evaluate(`[...document.querySelectorAll('.fw-log-diff .ant-table-tbody tr.ant-table-row')].map((r) => [
    r.querySelector('td.fw-diff-field')?.textContent.trim() ?? '',
    r.querySelector('td.fw-diff-before')?.textContent.trim() ?? '',
    r.querySelector('td.fw-diff-after')?.textContent.trim() ?? '',
    r.classList.contains('fw-diff-changed'),
  ])`)) as Array<[string, string, string, boolean]>;
}

describeBrowser('admin UI: readable logs (operate-log diff, login-log filters)', (browser) => {
  let ui: UiDemo;
  let token: string;
  let clerkId: number;
  before(async function () {
    this.timeout(120_000);
    ui = await startDemo();
    token = await apiToken(ui.url);
    const ubik = (await post<{ id: number }>(ui.url, '/data/modify/Book', token, { title: 'Ubik', price: 9.5, genre: 'novel' })).id;
    await post(ui.url, '/data/modify/Book/update-cell', token, { id: ubik, field: 'price', value: 12 });
    await userWithMenus(ui, 'clerk', ['Book']);
    clerkId = (await ui.demo.store.users.findByAccount('clerk'))!.id;
    // The edit form's save of a new password for the clerk.
    const clerk = (await (await fetch(`${ui.url}/fw-api/data/FwUser/${clerkId}`, { headers: { token } })).json()) as Record<string, unknown>;
    await post(ui.url, '/data/modify/FwUser/update', token, { ...clerk, password: 'brand-new-secret-42' });
    // Sign-ins: the clerk's success and failure, a stranger's failure (two failures from one
    // address make the next sign-in ask for a captcha, so the success comes first).
    await apiToken(ui.url, 'clerk', 'brand-new-secret-42');
    for (const [account, pwd] of [
      ['clerk', 'wrong-password-1'],
      ['nobody', 'guess-guess-1'],
    ]) {
      const res = await fetch(`${ui.url}/fw-api/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ account, pwd: encodePassword(pwd!) }),
      });
      expect(res.status).to.equal(401);
    }
  });
  after(async () => {
    await ui?.close();
  });

  for (const width of [1366, 390]) {
    it(`shows an operate-log row as before/after per field, secrets masked, at ${width} px`, async function () {
      this.timeout(60_000);
      const { context, page, errors } = await openPage(browser());
      try {
        await page.setViewportSize({ width, height: 900 });
        await openSignedIn(page, ui.url, '/model/FwOperateLog', token);
        const update = rowWith(page, 'Book').filter({ has: page.locator('td', { hasText: /^update$/ }) });
        await update.waitFor();
        await (await rowAction(page, update, 'fw-row-details')).click();
        await page.locator('.fw-log-diff .fw-diff-changed').waitFor();
        // Only the changed field at first, highlighted, with the model's own title.
        expect(await diffLines(page)).to.deep.equal([['Price', '9.5', '12', true]]);
        // No raw JSON in the details list itself; it stays one click away, collapsed.
        expect(await page.locator('.fw-details').innerText()).to.not.contain('{"');
        expect(await page.locator('.fw-log-raw').getAttribute('open')).to.equal(null);
        await page.getByText('Show unchanged fields').click();
        const all = await diffLines(page);
        expect(all[0]).to.deep.equal(['Price', '9.5', '12', true]);
        expect(all).to.deep.include(['Title', 'Ubik', 'Ubik', false]);
        expect(all).to.deep.include(['Genre', 'Novel', 'Novel', false]);
        await shot(page, join(ui.shots, `logs-operate-diff-${width}.png`));
        await page.keyboard.press('Escape');
        await waitUntil(page, `!document.querySelector('.fw-drawer-details')?.checkVisibility()`);

        // A password change: masked on both sides, the new password nowhere on the page.
        const pwd = rowWith(page, 'FwUser').filter({ has: page.locator('td', { hasText: /^update$/ }) });
        await (await rowAction(page, pwd, 'fw-row-details')).click();
        await waitUntil(page, `[...document.querySelectorAll('.fw-log-diff td.fw-diff-field')].some((td) => td.textContent.trim() === 'Password')`);
        const lines = await diffLines(page);
        expect(lines.find((l) => l[0] === 'Password')?.[2]).to.equal('hidden');
        expect(await page.locator('body').innerText()).to.not.contain('brand-new-secret-42');
        expect(errors).to.deep.equal([]);
      } finally {
        await context.close();
      }
    });
  }

  it('filters the login log by result, account and time', async function () {
    this.timeout(60_000);
    const { context, page, errors } = await openPage(browser());
    try {
      await page.setViewportSize({ width: 1366, height: 900 });
      await openSignedIn(page, ui.url, '/model/FwLoginLog', token);
      await page.locator('.ant-table-tbody tr.ant-table-row').first().waitFor();
      const sent: Array<Record<string, unknown>> = [];
      page.on('request', (r) => {
        if (r.url().includes('/fw-api/data/table/FwLoginLog')) sent.push(JSON.parse(r.postData() ?? '{}') as Record<string, unknown>);
      });
      await page.locator('.fw-search .ant-form-item', { hasText: 'Succeeded' }).locator('.ant-select').click();
      await page.locator('.ant-select-item-option', { hasText: 'No' }).click();
      await page.locator('#search_account').fill('clerk');
      await page.getByRole('button', { name: 'Search' }).click();
      await waitUntil(page, `document.querySelector('.ant-pagination-total-text')?.textContent === 'Total 1'`);
      expect(sent.at(-1)?.conditions).to.deep.include.members([
        { field: 'success', op: 'eq', value: false },
        { field: 'account', op: 'like', value: 'clerk' },
      ]);
      const failure = (await tableTexts(page))[0]!.join(' ');
      expect(failure).to.contain('clerk').and.contain('Unknown account or wrong password');
      await shot(page, join(ui.shots, 'logs-login-failures-1366.png'));

      // A time range (kept in the address like every search): the whole day holds every sign-in,
      // a range in the past none.
      const search = (range: [string, string]) => `/model/FwLoginLog?s=${encodeURIComponent(JSON.stringify({ loginTime: range }))}`;
      const dayAgo = new Date(Date.now() - 86_400_000).toISOString();
      const later = new Date(Date.now() + 3_600_000).toISOString();
      await page.goto(`${ui.url}${search([dayAgo, later])}`);
      await waitUntil(page, `/^Total [3-9]/.test(document.querySelector('.ant-pagination-total-text')?.textContent ?? '')`);
      await page.goto(`${ui.url}${search(['2001-01-01T00:00:00.000Z', '2001-01-02T00:00:00.000Z'])}`);
      await page.locator('.ant-table-placeholder, .ant-empty').first().waitFor();
      expect(await page.locator('.ant-table-tbody tr.ant-table-row').count()).to.equal(0);
      expect(errors).to.deep.equal([]);
    } finally {
      await context.close();
    }
  });
});
