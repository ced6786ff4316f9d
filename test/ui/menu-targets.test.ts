// Issue 19 §1 in the browser: menus that would swap an administrator's session are never drawn,
// links open in a new tab, and when the token changes under the app (another tab, a frame of
// /auth.html, a write the storage event missed) the header names the account now signed in.
import { join } from 'node:path';
import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { describeBrowser } from '@fw/test-utils';
import { apiToken, openPage, openSignedIn, shot, startDemo, userWithMenus, waitUntil, type UiDemo } from './support.js';

/** Waits until the header names `text` (the user button's label). */
async function headerNames(page: Page, text: string): Promise<void> {
  await waitUntil(page, `document.querySelector('.fw-user-menu .fw-user-name')?.textContent === ${JSON.stringify(text)}`);
}

describeBrowser('admin UI: menu targets and the signed-in account', (browser) => {
  let ui: UiDemo;
  let adminToken: string;
  let aliceToken: string;
  before(async function () {
    this.timeout(120_000);
    ui = await startDemo();
    adminToken = await apiToken(ui.url);
    const alice = await userWithMenus(ui, 'alice', ['Book']);
    const row = await ui.demo.store.users.findByAccount('alice');
    await ui.demo.store.knex('fw_user').where('id', row!.id).update({ name: 'Alice' });
    aliceToken = await apiToken(ui.url, alice.account, alice.password);
  });
  after(async () => {
    await ui?.close();
  });

  it('draws only same-origin pages and http(s) links; a link opens in a new tab, a bad page is never framed', async () => {
    const { menus } = ui.demo.store;
    const dir = await menus.create({ name: 'Tools', type: 'dir', sort: 900 });
    // Rows written straight into the database (before the rule, or around it): the UI checks again.
    const insert = async (name: string, type: string, value: string, sort: number) => {
      const [id] = await ui.demo.store.knex('fw_menu').insert({ name, type, value, parent_id: dir.id, sort, status: 'open', created_at: new Date(), updated_at: new Date() });
      return Number(id);
    };
    await insert('Health', 'page', '/health', 1);
    await insert('Project site', 'link', 'https://example.org/fw', 2);
    const swap = await insert('Swap page', 'page', `/auth.html?token=${aliceToken}`, 3);
    const encoded = await insert('Encoded swap', 'page', `/%61uth.html?%74oken=${aliceToken}`, 4);
    const foreign = await insert('Foreign page', 'page', 'https://elsewhere.example/login', 5);
    const protocolRelative = await insert('Protocol-relative', 'page', '//elsewhere.example/login', 6);
    await insert('Script page', 'page', 'javascript:alert(1)', 7);
    await insert('Script link', 'link', 'javascript:alert(1)', 8);
    await insert('Data link', 'link', 'data:text/html,<b>x</b>', 9);

    const { context, page } = await openPage(browser());
    try {
      await openSignedIn(page, ui.url, '/', adminToken);
      const nav = page.locator('.fw-nav');
      await nav.locator('.ant-menu-title-content', { hasText: 'Health' }).waitFor();
      const names = (await nav.locator('.ant-menu-title-content').allInnerTexts()).map((s) => s.trim());
      expect(names).to.include.members(['Health', 'Project site']);
      for (const bad of ['Swap page', 'Encoded swap', 'Foreign page', 'Protocol-relative', 'Script page', 'Script link', 'Data link']) expect(names, bad).to.not.include(bad);
      const link = nav.getByRole('link', { name: 'Project site' });
      expect(await link.getAttribute('href')).to.equal('https://example.org/fw');
      expect(await link.getAttribute('target')).to.equal('_blank');
      expect(await link.getAttribute('rel')).to.equal('noopener noreferrer');
      expect(await page.locator('a[href^="javascript:"], a[href^="data:"]').count()).to.equal(0);

      // A deep link to a bad page menu frames nothing, and the token in storage stays the admin's.
      for (const id of [swap, encoded, foreign, protocolRelative]) {
        await page.goto(`${ui.url}/page/${id}`);
        await page.locator('.ant-result-404').waitFor();
        expect(await page.locator('iframe').count(), String(id)).to.equal(0);
      }
      expect(await page.evaluate(`window.localStorage.getItem('_token')`)).to.equal(JSON.stringify({ token: adminToken }));
      await headerNames(page, 'Administrator (admin)');
    } finally {
      await context.close();
    }
  });

  it('names the account in the header, and names the new one at once when the token changes under the app', async () => {
    const { context, page } = await openPage(browser());
    try {
      await page.setViewportSize({ width: 1366, height: 768 });
      await openSignedIn(page, ui.url, '/', adminToken);
      await headerNames(page, 'Administrator (admin)');
      await shot(page, join(ui.shots, 'account-admin-1366.png'));

      // Another tab of the same origin opens the sign-on hand-off page with alice's token.
      const other = await context.newPage();
      await other.goto(`${ui.url}/auth.html?token=${encodeURIComponent(aliceToken)}`);
      await headerNames(page, 'Alice (alice)');
      await page.locator('.fw-session-switched').waitFor();
      expect(await page.locator('.fw-session-switched').innerText()).to.contain('Alice (alice)');
      await shot(page, join(ui.shots, 'account-switched-1366-notice.png'));
      // Alice's menu, not the administrator's: everything cached was reset.
      const names = (await page.locator('.fw-nav .ant-menu-title-content').allInnerTexts()).map((s) => s.trim());
      expect(names).to.include('Books');
      expect(names).to.not.include('Users');
      await shot(page, join(ui.shots, 'account-switched-1366.png'));
      await other.close();

      // A frame of /auth.html inside the app (what a page menu to it would have done).
      await page.evaluate(`{
        const frame = document.createElement('iframe');
        frame.src = 'auth.html?token=' + encodeURIComponent(${JSON.stringify(adminToken)});
        frame.style.display = 'none';
        document.body.append(frame);
      }`);
      await headerNames(page, 'Administrator (admin)');

      // A write no storage event reports (the same document): seen when the window gets focus.
      await page.setViewportSize({ width: 390, height: 844 });
      await page.evaluate(`{
        window.localStorage.setItem('_token', ${JSON.stringify(JSON.stringify({ token: aliceToken }))});
        window.dispatchEvent(new Event('focus'));
      }`);
      await headerNames(page, 'Alice (alice)');
      // One notice at a time, however often the account changed.
      await page.locator('.fw-session-switched').waitFor();
      expect(await page.locator('.fw-session-switched').count()).to.equal(1);
      await shot(page, join(ui.shots, 'account-switched-390-notice.png'));
      // The notice goes; the header keeps naming the account.
      await page.locator('.fw-session-switched').waitFor({ state: 'detached', timeout: 15_000 });
      await headerNames(page, 'Alice (alice)');
      await shot(page, join(ui.shots, 'account-switched-390.png'));
      const box = await page.locator('.fw-user-menu').boundingBox();
      expect(box, 'the account button is on screen').to.not.equal(null);
      expect(box!.x + box!.width).to.be.at.most(390);
    } finally {
      await context.close();
    }
  });
});
