// The password policy and the forced change in the admin UI (issue 19 §2, §3): the rule shown
// before submit, a weak password refused on the field, the sign-out link of the forced-change
// screen, and a 403 PASSWORD_CHANGE_REQUIRED of any request bringing that screen up.
import { join } from 'node:path';
import { expect } from 'chai';
import { describeBrowser } from '@fw/test-utils';
import { openPage, openSignedIn, apiToken, shot, signIn, startDemo, submitSignIn, type UiDemo } from './support.js';

describeBrowser('admin UI: the password policy and the forced change', (browser) => {
  let ui: UiDemo;
  before(async () => {
    ui = await startDemo();
  });
  after(async () => {
    await ui?.close();
  });

  it('shows the rule before submit, refuses weak passwords on the field, and offers signing out (390 and 1366 px)', async () => {
    await ui.demo.store.users.create({ account: 'erin', name: 'Erin', password: 'erin-given-1' });
    for (const width of [390, 1366]) {
      const { context, page, errors } = await openPage(browser());
      try {
        await page.setViewportSize({ width, height: 820 });
        await page.goto(`${ui.url}/login`);
        await submitSignIn(page, 'erin', 'erin-given-1');
        await page.locator('#change-password_pwd').waitFor();
        const form = page.locator('form#change-password');
        // The rule comes with the login settings, asked beside the form: waited for, not raced.
        await form.getByText('At least 10 characters; not your account name; not a common password.').waitFor();
        // Checked in the browser: too short, and the account name.
        await page.locator('#change-password_pwd').fill('erin-given-1');
        await page.locator('#change-password_newPwd').fill('abc');
        await page.locator('#change-password_newPwd2').fill('abc');
        await page.getByRole('button', { name: 'Change password' }).click();
        await page.locator('#change-password_newPwd_help', { hasText: 'at least 10 characters' }).waitFor();
        await page.locator('#change-password_newPwd').fill('Erin-2026-spring');
        await page.locator('#change-password_newPwd2').fill('Erin-2026-spring');
        await page.locator('#change-password_newPwd_help', { hasText: 'must not be or contain the account name' }).waitFor();
        // Checked by the server only: a common password, refused by rule and shown on the field.
        await page.locator('#change-password_newPwd').fill('password123');
        await page.locator('#change-password_newPwd2').fill('password123');
        await page.getByRole('button', { name: 'Change password' }).click();
        await page.locator('#change-password_newPwd_help', { hasText: 'one of the most common' }).waitFor();
        const signOut = page.getByRole('button', { name: 'Sign out instead' });
        await signOut.waitFor();
        await shot(page, join(ui.shots, `forced-change-${width}.png`));
        await signOut.click();
        await page.waitForURL(`${ui.url}/login`);
        expect(await page.evaluate('window.localStorage.getItem("_token")')).to.equal(null);
        expect(errors).to.deep.equal([]);
      } finally {
        await context.close();
      }
    }
  });

  it('brings up the forced-change screen when the server answers 403 PASSWORD_CHANGE_REQUIRED, and lets the person in after the change', async () => {
    const account = 'frank';
    const user = await ui.demo.store.users.create({ account, name: 'Frank', password: 'frank-first-1', isAdmin: true, mustChangePassword: false });
    const token = await apiToken(ui.url, account, 'frank-first-1');
    const { context, page, errors } = await openPage(browser());
    try {
      await openSignedIn(page, ui.url, '/', token);
      // An administrator resets the password while the app is open: the next request is refused.
      await ui.demo.store.knex('fw_user').where('id', user.id).update({ reset_pwd_time: null });
      await page.goto(`${ui.url}/model/Book`);
      await page.locator('#change-password_pwd').waitFor();
      expect(await page.locator('.fw-header').count()).to.equal(0);
      await page.locator('#change-password_pwd').fill('frank-first-1');
      await page.locator('#change-password_newPwd').fill('violet-harbour-42');
      await page.locator('#change-password_newPwd2').fill('violet-harbour-42');
      await page.getByRole('button', { name: 'Change password' }).click();
      await page.locator('.fw-header').waitFor();
      await page.goto(`${ui.url}/model/Book`);
      await page.locator('.fw-page-title', { hasText: 'Books' }).waitFor();
      expect(errors).to.deep.equal([]);
    } finally {
      await context.close();
    }
  });

  it('shows the policy under the password of the user form', async () => {
    const { context, page } = await openPage(browser());
    try {
      await page.setViewportSize({ width: 1366, height: 820 });
      await page.goto(`${ui.url}/login`);
      await signIn(page);
      await page.goto(`${ui.url}/model/FwUser`);
      await page.getByRole('button', { name: /Add/ }).first().click();
      const field = page.locator('.fw-field-password');
      await field.waitFor();
      expect(await field.innerText()).to.contain('At least 10 characters; not the account name; not a common password.');
      await page.locator('.fw-field-account input').fill('gina');
      await field.locator('input').fill('gina-2026');
      await field.locator('input').blur();
      await field.locator('.ant-form-item-explain-error', { hasText: 'at least 10 characters' }).waitFor();
      await shot(page, join(ui.shots, 'user-form-password-1366.png'));
    } finally {
      await context.close();
    }
  });
});
