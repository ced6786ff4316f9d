// Signing in to the admin UI as a person does: the password form, a wrong password, the captcha
// after repeated failures, the forced password change, signing out, a 401 sending the person
// back to the sign-in page and then to where they were, and the locale switch.
import { join } from 'node:path';
import { expect } from 'chai';
import { describeBrowser } from '@fw/test-utils';
import { encodePassword } from '@fw/login/client';
import { KnexEphemeralStore } from '@fw/token';
import { ADMIN_PASSWORD, apiToken, openPage, shot, signIn, startDemo, submitSignIn, waitUntil, type UiDemo } from './support.js';

describeBrowser('admin UI: signing in', (browser) => {
  let ui: UiDemo;
  before(async () => {
    ui = await startDemo();
  });
  after(async () => {
    await ui?.close();
  });

  it('sends a deep link to the sign-in page, signs in with the encoded password and returns there', async () => {
    const { context, page, errors } = await openPage(browser());
    try {
      const logins: unknown[] = [];
      page.on('request', (r) => {
        if (r.url().endsWith('/fw-api/login')) logins.push(r.postDataJSON());
      });
      await page.goto(`${ui.url}/model/Book`);
      await page.waitForURL(`${ui.url}/login`);
      const settings = (await (await fetch(`${ui.url}/fw-api/login-settings`)).json()) as { title: string };
      expect(await page.locator('.fw-login-title').innerText()).to.equal(settings.title);
      await signIn(page);
      await page.waitForURL(`${ui.url}/model/Book`);
      await page.locator('.fw-page-title', { hasText: 'Books' }).waitFor();
      // The password travels in the transfer encoding the server asks for (login-settings).
      expect(logins).to.deep.equal([{ account: 'admin', pwd: encodePassword(ADMIN_PASSWORD) }]);
      const stored = (await page.evaluate('window.localStorage.getItem("_token")')) as string;
      expect(stored).to.match(/^\{"token":"[A-Za-z0-9]{16}"\}$/);
      expect(await page.locator('.fw-user-menu').innerText()).to.contain('Administrator');
      expect(errors).to.deep.equal([]);
    } finally {
      await context.close();
    }
  });

  it('forces a new password when the account still has its first one, then lets the person in', async () => {
    await ui.demo.store.users.create({ account: 'dave', name: 'Dave', password: 'dave-first-1' });
    const { context, page } = await openPage(browser());
    try {
      await page.goto(`${ui.url}/login`);
      await submitSignIn(page, 'dave', 'dave-first-1');
      await page.locator('#change-password_pwd').waitFor();
      expect(await page.locator('.ant-alert-info').innerText()).to.contain('new password');
      // No shell until the password is changed.
      expect(await page.locator('.fw-header').count()).to.equal(0);
      await page.locator('#change-password_pwd').fill('dave-first-1');
      await page.locator('#change-password_newPwd').fill('violet-harbour-42');
      await page.locator('#change-password_newPwd2').fill('violet-harbour-42');
      await page.getByRole('button', { name: 'Change password' }).click();
      await page.locator('.fw-page-title', { hasText: 'Welcome, Dave' }).waitFor();
      const again = await fetch(`${ui.url}/fw-api/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ account: 'dave', pwd: encodePassword('violet-harbour-42') }),
      });
      expect((await again.json()) as { pass: boolean; resetPwd: boolean }).to.include({ pass: true, resetPwd: false });
    } finally {
      await context.close();
    }
  });

  it('signs out through the logout route: the token is revoked and forgotten', async () => {
    const { context, page } = await openPage(browser());
    try {
      await page.goto(`${ui.url}/login`);
      await signIn(page);
      const token = (JSON.parse((await page.evaluate('window.localStorage.getItem("_token")')) as string) as { token: string }).token;
      await page.locator('.fw-user-menu').click();
      await page.getByRole('menuitem', { name: 'Sign out' }).click();
      await page.waitForURL(`${ui.url}/login`);
      expect(await page.evaluate('window.localStorage.getItem("_token")')).to.equal(null);
      const me = await fetch(`${ui.url}/fw-api/userinfo`, { headers: { token } });
      expect(me.status).to.equal(401);
    } finally {
      await context.close();
    }
  });

  it('an ended session (401) goes to the sign-in page and, signed in again, back to the same place', async () => {
    const { context, page } = await openPage(browser());
    try {
      const token = await apiToken(ui.url);
      await page.goto(`${ui.url}/login`);
      await page.evaluate(`window.localStorage.setItem('_token', ${JSON.stringify(JSON.stringify({ token }))})`);
      await page.goto(`${ui.url}/model/Project?page=1`);
      await page.locator('.fw-page-title', { hasText: 'Projects' }).waitFor();
      // The session ends elsewhere (logout in another tab, an administrator revoking it).
      await fetch(`${ui.url}/fw-api/logout`, { method: 'POST', headers: { token } });
      await page.getByRole('button', { name: 'Reload' }).click();
      await page.waitForURL(`${ui.url}/login`);
      await signIn(page);
      await page.waitForURL(`${ui.url}/model/Project?page=1`);
      await page.locator('.fw-page-title', { hasText: 'Projects' }).waitFor();
    } finally {
      await context.close();
    }
  });

  it('switches between English and Simplified Chinese, antd strings and Fw strings alike', async () => {
    const { context, page } = await openPage(browser());
    try {
      await page.goto(`${ui.url}/login`);
      await signIn(page);
      await page.goto(`${ui.url}/model/Book`);
      await page.locator('.fw-add').waitFor();
      await page.locator('.fw-header .fw-locale-switch').click();
      await page.locator('.ant-select-item-option', { hasText: '简体中文' }).click();
      await page.locator('.fw-add', { hasText: '新增' }).waitFor();
      expect(await page.locator('html').getAttribute('lang')).to.equal('zh-CN');
      await shot(page, join(ui.shots, 'model-page-zh-CN.png'));
      // antd's own strings (the empty table) follow.
      expect(await page.locator('.ant-table .ant-empty-description').innerText()).to.equal('暂无数据');
      // The choice is kept.
      await page.reload();
      await page.locator('.fw-add', { hasText: '新增' }).waitFor();
      expect(await page.locator('.fw-user-menu').innerText()).to.contain('Administrator');
    } finally {
      await context.close();
    }
  });
  it('shows the refusal of a wrong password and stores no token; a captcha appears after repeated failures and is checked', async () => {
    // Its own demo: failures count per address too, and would put a captcha before every later sign-in.
    const own = await startDemo();
    const account = 'carol';
    await own.demo.store.users.create({ account, name: 'Carol', password: 'carol-pass-1' });
    const carol = await own.demo.store.users.findByAccount(account);
    await own.demo.store.users.setPassword(carol!.id, 'carol-pass-1');
    const { context, page } = await openPage(browser());
    try {
      await page.goto(`${own.url}/login`);
      await page.locator('#login_account').fill(account);
      await page.locator('#login_password').fill('wrong-pass');
      await page.locator('#login button[type=submit]').click();
      const alert = page.locator('.ant-alert-error');
      await alert.waitFor();
      expect(await alert.innerText()).to.match(/password|account/i);
      expect(await page.evaluate('window.localStorage.getItem("_token")')).to.equal(null);
      expect(await page.locator('.fw-captcha img').count()).to.equal(0);

      // The second failure reaches verifyCodeCount (2): the server asks for a captcha.
      await page.locator('#login_password').fill('wrong-again');
      await page.locator('#login button[type=submit]').click();
      const image = page.locator('.fw-captcha img');
      await image.waitFor();
      await waitUntil(page, 'document.querySelector(".fw-captcha img").naturalWidth > 0');
      await shot(page, join(own.shots, 'sign-in-captcha.png'));
      expect(page.url()).to.equal(`${own.url}/login`);

      // The right password with a wrong captcha is still refused.
      await page.locator('#login_password').fill('carol-pass-1');
      await page.locator('#login_verifyCode').fill('nope');
      await page.locator('#login button[type=submit]').click();
      await waitUntil(page, 'document.querySelector(".ant-alert-error") && /captcha|code/i.test(document.querySelector(".ant-alert-error").textContent)');
      expect(await page.evaluate('window.localStorage.getItem("_token")')).to.equal(null);

      // The answer of the image on screen (read from the server's store, as only a person could read the picture).
      await waitUntil(page, 'document.querySelector(".fw-captcha img").naturalWidth > 0');
      const src = (await image.getAttribute('src'))!;
      const mark = new URL(src, own.url).searchParams.get('mark')!;
      const answer = await new KnexEphemeralStore({ knex: own.demo.store.knex }).get(`captcha:${mark}`);
      expect(answer).to.be.a('string');
      await page.locator('#login_password').fill('carol-pass-1');
      await page.locator('#login_verifyCode').fill(answer!);
      await page.locator('#login button[type=submit]').click();
      await page.locator('.fw-header').waitFor();
      expect(await page.locator('.fw-user-menu').innerText()).to.contain('Carol');
    } finally {
      await context.close();
      await own.close();
    }
  });

  it('with transfer encoding off sends the password as typed; a lockout shows its wait from Retry-After', async () => {
    const own = await startDemo({ config: { 'fw-app.pwdTransferEncrypt': false, 'fw-app.verifyCodeCount': 100, 'fw-app.loginLockCount': 2 } });
    const { context, page } = await openPage(browser());
    try {
      const logins: unknown[] = [];
      let retryAfter: string | null = null;
      page.on('request', (r) => {
        if (r.url().endsWith('/fw-api/login')) logins.push(r.postDataJSON());
      });
      page.on('response', (r) => {
        if (r.url().endsWith('/fw-api/login') && r.status() === 429) retryAfter = r.headers()['retry-after'] ?? null;
      });
      await page.goto(`${own.url}/login`);
      for (const attempt of ['wrong-1', 'wrong-2']) {
        await Promise.all([page.waitForResponse((r) => r.url().endsWith('/fw-api/login')), submitSignIn(page, 'admin', attempt)]);
        await page.locator('.ant-alert-error').waitFor();
      }
      expect(logins[0]).to.deep.equal({ account: 'admin', pwd: 'wrong-1' });
      // Locked now: even the right password gets the wait, in seconds.
      await submitSignIn(page, 'admin', ADMIN_PASSWORD);
      const alert = page.locator('.ant-alert-error', { hasText: 'Too many failed attempts' });
      await alert.waitFor();
      expect(retryAfter).to.match(/^\d+$/);
      expect(await alert.innerText()).to.equal(`Too many failed attempts. Try again in ${retryAfter} seconds.`);
      expect(await page.evaluate('window.localStorage.getItem("_token")')).to.equal(null);
    } finally {
      await context.close();
      await own.close();
    }
  });
});
