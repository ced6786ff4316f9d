// Live sessions in the admin UI (issue 19 §6): "My sessions" from the header's user menu lists
// where the account is signed in and ends one or all the others; an administrator's "Online
// users" page lists everyone signed in and ends their sessions. Screenshots at 390 and 1366 px.
import { join } from 'node:path';
import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { encodePassword } from '@fw/login/client';
import { describeBrowser } from '@fw/test-utils';
import { ADMIN_PASSWORD, openPage, openSignedIn, shot, signIn, startDemo, userWithMenus, waitUntil, type UiDemo } from './support.js';

/** Signs in through the API with a given user agent, as another device would. */
async function deviceToken(url: string, account: string, password: string, userAgent: string): Promise<string> {
  const res = await fetch(`${url}/fw-api/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'user-agent': userAgent },
    body: JSON.stringify({ account, pwd: encodePassword(password) }),
  });
  const body = (await res.json()) as { token: string };
  return body.token;
}

async function works(url: string, token: string): Promise<boolean> {
  return (await fetch(`${url}/fw-api/userinfo`, { headers: { token } })).status === 200;
}

async function openUserMenu(page: Page, entry: string): Promise<void> {
  await page.locator('.fw-user-menu').click();
  await page.getByRole('menuitem', { name: entry }).click();
}

const PHONE_UA = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1';
const FIREFOX_UA = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:128.0) Gecko/20100101 Firefox/128.0';

describeBrowser('admin UI: live sessions', (browser) => {
  let ui: UiDemo;
  let alice: { account: string; password: string };
  before(async () => {
    ui = await startDemo();
    alice = await userWithMenus(ui, 'alice', ['Book']);
  });
  after(async () => {
    await ui?.close();
  });

  it('"My sessions" lists where the account is signed in, ends one, then all the others', async function () {
    // Several sign-ins and page loads on a shared two-core machine.
    this.timeout(120_000);
    const phone = await deviceToken(ui.url, 'admin', ADMIN_PASSWORD, PHONE_UA);
    const firefox = await deviceToken(ui.url, 'admin', ADMIN_PASSWORD, FIREFOX_UA);
    const { context, page, errors } = await openPage(browser());
    try {
      await page.goto(`${ui.url}/login`);
      await signIn(page);
      await openUserMenu(page, 'My sessions');
      const items = page.locator('.fw-session');
      await waitUntil(page, "document.querySelectorAll('.fw-session').length === 3");
      const texts = await items.allInnerTexts();
      expect(texts[0]).to.contain('This session');
      expect(texts.join('\n')).to.contain('Safari · iOS').and.contain('Firefox · Windows').and.contain('127.0.0.1');
      // The current session offers no "End" (that is "Sign out"); the others do.
      expect(await items.nth(0).getByRole('button', { name: 'End' }).count()).to.equal(0);
      await page.setViewportSize({ width: 1366, height: 768 });
      await shot(page, join(ui.shots, 'sessions-mine-1366.png'));
      await page.setViewportSize({ width: 390, height: 844 });
      await shot(page, join(ui.shots, 'sessions-mine-390.png'));

      await page.locator('.fw-session', { hasText: 'Firefox' }).getByRole('button', { name: 'End' }).click();
      await page.locator('.ant-popconfirm').getByRole('button', { name: 'End' }).click();
      await waitUntil(page, "document.querySelectorAll('.fw-session').length === 2");
      expect(await works(ui.url, firefox)).to.equal(false);
      expect(await works(ui.url, phone)).to.equal(true);

      await page.getByRole('button', { name: 'End all other sessions' }).click();
      await page.locator('.ant-popconfirm').getByRole('button', { name: 'End all other sessions' }).click();
      await waitUntil(page, "document.querySelectorAll('.fw-session').length === 1");
      expect(await works(ui.url, phone)).to.equal(false);
      // Still signed in here.
      await page.reload();
      await page.locator('.fw-session').waitFor();
      expect(await page.getByRole('button', { name: 'End all other sessions' }).isDisabled()).to.equal(true);
      expect(errors).to.deep.equal([]);
    } finally {
      await context.close();
    }
  });

  it('"Online users" lists everyone signed in for an administrator, shows a user’s sessions and ends them', async function () {
    // Several sign-ins and page loads on a shared two-core machine.
    this.timeout(120_000);
    const aliceTokens = [await deviceToken(ui.url, alice.account, alice.password, PHONE_UA), await deviceToken(ui.url, alice.account, alice.password, FIREFOX_UA)];
    const admin = await deviceToken(ui.url, 'admin', ADMIN_PASSWORD, FIREFOX_UA);
    const { context, page, errors } = await openPage(browser());
    try {
      await page.setViewportSize({ width: 1366, height: 768 });
      await openSignedIn(page, ui.url, '/', admin);
      await openUserMenu(page, 'Online users');
      const aliceRow = page.locator('.ant-table-tbody tr.ant-table-row', { hasText: 'alice' });
      await aliceRow.waitFor();
      expect(await aliceRow.locator('td').allInnerTexts()).to.include('2');
      expect(await page.locator('.ant-table-tbody tr.ant-table-row', { hasText: 'admin' }).count()).to.equal(1);
      await shot(page, join(ui.shots, 'sessions-online-1366.png'));
      await aliceRow.getByRole('button', { name: 'Sessions' }).click();
      await page.locator('.ant-drawer .fw-session').nth(1).waitFor();
      expect(await page.locator('.ant-drawer .fw-session').count()).to.equal(2);
      await shot(page, join(ui.shots, 'sessions-online-drawer-1366.png'));
      await page.locator('.ant-drawer-close').click();
      await page.setViewportSize({ width: 390, height: 844 });
      await shot(page, join(ui.shots, 'sessions-online-390.png'));

      await aliceRow.getByRole('button', { name: 'End all' }).click();
      await page.locator('.ant-popconfirm').getByRole('button', { name: 'End all' }).click();
      await aliceRow.waitFor({ state: 'detached' });
      for (const token of aliceTokens) expect(await works(ui.url, token)).to.equal(false);
      expect(await works(ui.url, admin)).to.equal(true);
      expect(errors).to.deep.equal([]);
    } finally {
      await context.close();
    }
  });

  it('a non-administrator has "My sessions" but no "Online users", in Chinese too', async function () {
    // Several sign-ins and page loads on a shared two-core machine.
    this.timeout(120_000);
    const token = await deviceToken(ui.url, alice.account, alice.password, FIREFOX_UA);
    const { context, page } = await openPage(browser());
    try {
      await page.setViewportSize({ width: 390, height: 844 });
      await page.goto(`${ui.url}/login`);
      await page.evaluate(`window.localStorage.setItem('fw-locale', 'zh-CN')`);
      await openSignedIn(page, ui.url, '/', token);
      await page.locator('.fw-user-menu').click();
      await page.getByRole('menuitem', { name: '我的会话' }).waitFor();
      expect(await page.getByRole('menuitem', { name: '在线用户' }).count()).to.equal(0);
      await page.getByRole('menuitem', { name: '我的会话' }).click();
      await page.locator('.fw-session').first().waitFor();
      expect(await page.locator('.fw-session').first().innerText()).to.contain('当前会话');
      await shot(page, join(ui.shots, 'sessions-mine-zh-390.png'));
      await page.goto(`${ui.url}/online-users`);
      await page.locator('.ant-result-404').waitFor();
    } finally {
      await context.close();
    }
  });
});
