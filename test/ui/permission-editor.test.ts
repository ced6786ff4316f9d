// The permission editor (issue 20 §1), driven as a person would: an administrator grants "Books:
// add but not delete" through the role form's matrix, the role's user then sees Add but not
// Delete, and the explainer says why. A role manager who does not hold Book@DELETE finds it
// disabled, and when a stale screen lets them tick it anyway, the server's refusal lands on that
// cell. axe-core finds no serious or critical violation in the editor or the explainer.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { describeBrowser } from '@fw/test-utils';
import { apiToken, openPage, openSignedIn, rowWith, shot, startDemo, userWithMenus, waitUntil, type UiDemo } from './support.js';

const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/**
 * Serious and critical axe violations inside `selector`. The UI's content security policy refuses
 * inline scripts, so axe is not added as a script tag: its source is evaluated through the
 * DevTools protocol, which the policy does not govern.
 */
async function axeViolations(page: Page, selector: string): Promise<Array<{ id: string; impact: string; nodes: string[] }>> {
  if (!(await page.evaluate('typeof window.axe === "object"'))) await page.evaluate(AXE);
  const json = (await page.evaluate(
    `axe.run({ include: [${JSON.stringify(selector)}] }, { resultTypes: ['violations'] }).then((r) => JSON.stringify(r.violations.map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.map((n) => n.target.join(' ')) }))))`,
  )) as string;
  return (JSON.parse(json) as Array<{ id: string; impact: string; nodes: string[] }>).filter((v) => v.impact === 'serious' || v.impact === 'critical');
}

const matrixRow = (page: Page, name: string) => page.locator('.fw-pm-row').filter({ has: page.locator('th.fw-pm-name', { hasText: new RegExp(`^\\s*${name}\\s*$`) }) });
const box = (page: Page, label: string) => page.locator(`.fw-permission-matrix input[aria-label="${label}"]`);

async function roleMenuCodes(ui: UiDemo, roleName: string): Promise<string[]> {
  const role = await ui.demo.store.knex('fw_role').where('name', roleName).first('id');
  const rows: Array<{ code: string }> = await ui.demo.store
    .knex('fw_menu')
    .join('fw_role_menu', 'fw_role_menu.menu_id', 'fw_menu.id')
    .where('fw_role_menu.role_id', role.id)
    .select('code');
  return rows.map((r) => r.code).sort();
}

async function openRoleForm(page: Page, ui: UiDemo, token: string, roleName: string): Promise<void> {
  await openSignedIn(page, ui.url, '/model/FwRole', token);
  await rowWith(page, roleName).locator('.fw-row-edit').click();
  await page.locator('.fw-permission-matrix .fw-pm-table').waitFor();
}

describeBrowser('admin UI: the permission editor and explainer', (browser) => {
  let ui: UiDemo;
  let admin: string;
  let kimId: number;
  before(async () => {
    ui = await startDemo();
    admin = await apiToken(ui.url);
    await fetch(`${ui.url}/fw-api/data/modify/Book`, { method: 'POST', headers: { token: admin, 'content-type': 'application/json' }, body: JSON.stringify({ title: 'Dune' }) });
    await userWithMenus(ui, 'kim', []);
    kimId = (await ui.demo.store.users.findByAccount('kim'))!.id;
    await userWithMenus(ui, 'rolf', ['FwRole', 'FwRole@EDIT', 'Book', 'Book@ADD']);
    // A folder above Books, so the matrix has a tree: Library → Books, Authors.
    const { menus } = ui.demo.store;
    const library = await menus.create({ code: 'Library', name: 'Library', type: 'dir', sort: 50 });
    for (const code of ['Book', 'Author']) await menus.update((await menus.findByCode(code))!.id, { parentId: library.id });
  });
  after(async () => {
    await ui?.close();
  });

  it('an administrator grants "Books: add but not delete"; the user sees Add, not Delete; the explainer says why', async function () {
    // Many steps through a real browser: room for a busy machine.
    this.timeout(120_000);
    const { context, page, errors } = await openPage(browser());
    try {
      await page.setViewportSize({ width: 1366, height: 900 });
      await openRoleForm(page, ui, admin, 'Role of kim');
      // One row per menu with the model's name beside its functions, not 16 anonymous chips.
      await expect(await matrixRow(page, 'Books').count()).to.equal(1);
      await shot(page, join(ui.shots, 'permission-editor-1366.png'));
      // The matrix itself (the drawer's Save button is antd's primary colour, a theme matter of the shell).
      expect(await axeViolations(page, '.fw-permission-matrix')).to.deep.equal([]);

      // Search narrows the rows: "Book" finds Books (and its folder), not Users.
      await page.locator('.fw-pm-search input').fill('Book');
      await waitUntil(page, `document.querySelectorAll('.fw-pm-row').length < 6`);
      expect(await matrixRow(page, 'Books').count()).to.equal(1);
      expect(await matrixRow(page, 'Users').count()).to.equal(0);
      expect(await matrixRow(page, 'Library').count()).to.equal(1);
      expect(await matrixRow(page, 'Authors').count()).to.equal(0);

      // The "all" of the Books row ticks every function; then delete is taken off again, by keyboard.
      await box(page, 'Books: all').check();
      expect(await box(page, 'Books: delete').isChecked()).to.equal(true);
      await box(page, 'Books: delete').focus();
      await page.keyboard.press('Space');
      expect(await box(page, 'Books: delete').isChecked()).to.equal(false);
      for (const fn of ['edit', 'export', 'import', 'view details']) await box(page, `Books: ${fn}`).uncheck();
      expect(await box(page, 'Books: query').isChecked()).to.equal(true);
      expect(await box(page, 'Books: add').isChecked()).to.equal(true);
      // The row's box is now partly ticked (tri-state).
      expect(
        await page
          .locator('.fw-pm-row .fw-pm-rowall')
          .filter({ has: page.locator('input[aria-label="Books: all"]') })
          .locator('.ant-checkbox-indeterminate')
          .count(),
      ).to.equal(1);
      // The folder's box is partly ticked too; ticking it takes everything below, clearing it all of that.
      const folder = box(page, 'Library: everything in this folder');
      expect(
        await page
          .locator('.fw-pm-rowall')
          .filter({ has: page.locator('input[aria-label="Library: everything in this folder"]') })
          .locator('.ant-checkbox-indeterminate')
          .count(),
      ).to.equal(1);
      await page.locator('.fw-pm-search input').fill('');
      await folder.check();
      expect(await box(page, 'Authors: delete').isChecked()).to.equal(true);
      expect(await box(page, 'Library: query').isChecked()).to.equal(true);
      await folder.uncheck();
      expect(await box(page, 'Books: add').isChecked()).to.equal(false);
      await box(page, 'Books: query').check();
      await box(page, 'Books: add').check();
      await shot(page, join(ui.shots, 'permission-editor-tree-1366.png'));
      await page.locator('.fw-drawer .ant-btn-primary').click();
      await page.locator('.fw-drawer').waitFor({ state: 'detached' });
      expect(await roleMenuCodes(ui, 'Role of kim')).to.deep.equal(['Book', 'Book@ADD']);
      // The role's Details say the same in words, not as a row of "Add" chips.
      await rowWith(page, 'Role of kim').locator('.fw-row-details').click();
      await page.locator('.fw-permission-summary').waitFor();
      expect(await page.locator('.fw-permission-summary').innerText()).to.equal('Books: Query, Add');
      await page.keyboard.press('Escape');
      await page.locator('.fw-drawer').waitFor({ state: 'detached' });

      // The explainer, from the Users row: Add yes through the role, Delete no for want of Book@DELETE.
      await page.goto(`${ui.url}/model/FwUser`);
      await rowWith(page, 'kim').locator('.fw-row-explain').click();
      await page.locator('.fw-explain-model').click();
      await page.keyboard.type('Book');
      await page.locator('.ant-select-item-option', { hasText: '(Book)' }).click();
      await page.locator('.fw-explain-table').waitFor();
      const rowOf = (flag: string) => page.locator('.fw-explain-table tr.ant-table-row').filter({ has: page.locator('td', { hasText: new RegExp(`^${flag}$`) }) });
      expect(await rowOf('Add').locator('.fw-explain-yes').count()).to.equal(1);
      expect(await rowOf('Add').innerText())
        .to.contain('Book@ADD')
        .and.contain('Role of kim');
      expect(await rowOf('Delete').locator('.fw-explain-no').count()).to.equal(1);
      expect(await rowOf('Delete').innerText()).to.contain('Does not hold the function menu Book@DELETE');
      expect(page.url()).to.contain(`user=${kimId}`);
      await shot(page, join(ui.shots, 'permission-explainer-1366.png'));
      expect(await axeViolations(page, '.fw-permissions-page')).to.deep.equal([]);
      // A phone gets one block per flag, the steps below it.
      await page.setViewportSize({ width: 390, height: 844 });
      await page.locator('.fw-explain-item[data-flag="delete"]').waitFor();
      expect(await page.locator('.fw-explain-item[data-flag="delete"]').innerText()).to.contain('Book@DELETE');
      await shot(page, join(ui.shots, 'permission-explainer-390.png'));
      expect(await axeViolations(page, '.fw-permissions-page')).to.deep.equal([]);
      expect(errors).to.deep.equal([]);
    } finally {
      await context.close();
    }

    // Kim, signed in: Add is offered on Books, Delete is not; her own explainer agrees.
    const mine = await openPage(browser());
    try {
      await openSignedIn(mine.page, ui.url, '/model/Book', await apiToken(ui.url, 'kim', 'kim-pass-1'));
      await rowWith(mine.page, 'Dune').waitFor();
      expect(await mine.page.locator('.fw-add').count()).to.equal(1);
      expect(await mine.page.locator('.fw-row-delete').count()).to.equal(0);
      await mine.page.locator('.fw-user-menu').click();
      await mine.page.locator('.ant-dropdown-menu-item', { hasText: 'My permissions' }).click();
      await mine.page.locator('.fw-permissions-page').waitFor();
      expect(await mine.page.locator('.fw-explain-user').count()).to.equal(0);
    } finally {
      await mine.context.close();
    }
  });

  it('a role manager may tick only what they hold; a refused save is shown on the cell it names', async function () {
    // Many steps through a real browser: room for a busy machine.
    this.timeout(120_000);
    const { context, page } = await openPage(browser());
    try {
      const rolf = await apiToken(ui.url, 'rolf', 'rolf-pass-1');
      await page.setViewportSize({ width: 1366, height: 900 });
      await openRoleForm(page, ui, rolf, 'Role of kim');
      expect(await box(page, 'Books: add').isDisabled()).to.equal(false);
      expect(await box(page, 'Books: delete').isDisabled()).to.equal(true);
      await box(page, 'Books: delete').locator('xpath=ancestor::span[contains(@class,"fw-pm-tip")]').hover();
      await page.locator('.ant-tooltip', { hasText: 'You do not hold Book@DELETE' }).waitFor();
      await page.keyboard.press('Escape');
      await page.locator('.fw-drawer .ant-btn').first().click();

      // A screen that still offers Book@DELETE (grants changed since it loaded): the server refuses.
      await page.route('**/fw-api/power/grantable', async (route) => {
        const response = await route.fetch();
        const body = (await response.json()) as { rows: Array<{ menu: { grantable: boolean }; cells: Record<string, { grantable: boolean }> }> };
        for (const row of body.rows) for (const m of [row.menu, ...Object.values(row.cells)]) m.grantable = true;
        await route.fulfill({ response, json: body });
      });
      await rowWith(page, 'Role of kim').locator('.fw-row-edit').click();
      await box(page, 'Books: delete').check();
      await page.locator('.fw-drawer .ant-btn-primary').click();
      await page.locator('.fw-pm-refusal').waitFor();
      expect(await page.locator('.fw-pm-refusal').innerText()).to.contain('Book@DELETE');
      expect(await box(page, 'Books: delete').getAttribute('aria-invalid')).to.equal('true');
      expect(await box(page, 'Books: add').getAttribute('aria-invalid')).to.equal(null);
      await shot(page, join(ui.shots, 'permission-editor-refused-1366.png'));
      expect(await roleMenuCodes(ui, 'Role of kim')).to.deep.equal(['Book', 'Book@ADD']);
      await page.setViewportSize({ width: 390, height: 844 });
      await shot(page, join(ui.shots, 'permission-editor-390.png'));
      expect(await axeViolations(page, '.fw-permission-matrix')).to.deep.equal([]);

      // In Chinese: headings, labels and the refusal tooltip come from the catalog.
      await page.unroute('**/fw-api/power/grantable');
      await page.setViewportSize({ width: 1366, height: 900 });
      await page.evaluate(`window.localStorage.setItem('fw-locale', 'zh-CN')`);
      await openRoleForm(page, ui, rolf, 'Role of kim');
      expect(await page.locator('.fw-pm-table thead').innerText())
        .to.contain('新增')
        .and.contain('删除');
      expect(await box(page, 'Books: 删除').isDisabled()).to.equal(true);
      await shot(page, join(ui.shots, 'permission-editor-zh-1366.png'));
    } finally {
      await context.close();
    }
  });

  it('the user form picks roles and organisations from searchable checklists', async function () {
    // Many steps through a real browser: room for a busy machine.
    this.timeout(120_000);
    const { context, page } = await openPage(browser());
    try {
      await page.setViewportSize({ width: 1366, height: 900 });
      await openSignedIn(page, ui.url, '/model/FwUser', admin);
      await rowWith(page, 'kim').locator('.fw-row-edit').click();
      const roles = page.locator('.fw-assign-roles');
      await roles.waitFor();
      const role = (name: string) => roles.locator('li').filter({ hasText: name }).locator('input[type=checkbox]');
      expect(await role('Role of kim').isChecked()).to.equal(true);
      await roles.locator('.fw-assign-search input').fill('rolf');
      await waitUntil(page, `document.querySelectorAll('.fw-assign-roles li').length === 1`);
      await role('Role of rolf').check();
      await roles.locator('.fw-assign-search input').fill('');
      expect(await roles.locator('.fw-assign-count').innerText()).to.equal('2 selected');
      expect(await page.locator('.fw-assign-orgs').count()).to.equal(1);
      await shot(page, join(ui.shots, 'user-form-roles-1366.png'));
      expect(await axeViolations(page, '.fw-assign-roles')).to.deep.equal([]);
      await page.locator('.fw-drawer .ant-btn-primary').click();
      await page.locator('.fw-drawer').waitFor({ state: 'detached' });
      const kim = (await ui.demo.store.users.findByAccount('kim'))!;
      expect((await ui.demo.store.knex('fw_user_role').where('user_id', kim.id).select('role_id')).length).to.equal(2);
    } finally {
      await context.close();
    }
  });
});
