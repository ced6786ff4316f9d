// Accessibility of the admin UI (issue 20 §3), in real Chromium: axe-core finds no serious or
// critical violation on the sign-in page, home, a model page with rows, the add and edit form
// drawers and the open cell editor; and a keyboard walk: the skip link is the first Tab stop and
// leads into the content, and a drawer closed with Esc gives the focus back to its opener.
import { join } from 'node:path';
import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { describeBrowser } from '@fw/test-utils';
import { axeViolations, formatViolations } from './axe.js';
import { apiToken, openPage, openSignedIn, rowWith, shot, startDemo, waitUntil, type UiDemo } from './support.js';

/** axe checks a whole page in a second or two, many times that on a busy machine. */
const AXE_TIMEOUT = 120_000;

async function expectNoSerious(page: Page, where: string): Promise<void> {
  // Not in the middle of a drawer's fade-in, whose colours are half there.
  await waitUntil(page, 'document.getAnimations().every((a) => a.playState !== "running" || a.effect?.getTiming().iterations === Infinity)');
  const violations = await axeViolations(page);
  expect(violations, formatViolations(where, violations)).to.deep.equal([]);
}

/** A description of the focused element: its tag, class and text, for assertions and failures. */
function focused(page: Page): Promise<{ tag: string; cls: string; text: string; inMain: boolean; id: string }> {
  return page.evaluate(
    `(() => { const e = document.activeElement; return { tag: e.tagName.toLowerCase(), cls: String(e.className), text: (e.textContent || '').trim().slice(0, 60), inMain: Boolean(e.closest('#fw-main')), id: e.id }; })()`,
  ) as Promise<{ tag: string; cls: string; text: string; inMain: boolean; id: string }>;
}

/** The role, accessible name and description Chromium computes for a cell (its accessibility tree, through the DevTools protocol). */
async function heard(page: Page, row: string, field: string): Promise<{ role: string; name: string; description: string }> {
  const id = await rowWith(page, row).locator(`td.fw-col-${field}`).getAttribute('id');
  const cdp = await page.context().newCDPSession(page);
  try {
    const { root } = (await cdp.send('DOM.getDocument')) as { root: { nodeId: number } };
    const { nodeId } = (await cdp.send('DOM.querySelector', { nodeId: root.nodeId, selector: `#${id}` })) as { nodeId: number };
    const { nodes } = (await cdp.send('Accessibility.getPartialAXTree', { nodeId, fetchRelatives: false })) as {
      nodes: { role?: { value: string }; name?: { value: string }; description?: { value: string } }[];
    };
    const node = nodes[0]!;
    return { role: node.role?.value ?? '', name: (node.name?.value ?? '').replace(/\s+/g, ' ').trim(), description: node.description?.value ?? '' };
  } finally {
    await cdp.detach();
  }
}

describeBrowser('admin UI: accessibility (axe-core) and keyboard', (browser) => {
  let ui: UiDemo;
  let token: string;
  before(async () => {
    ui = await startDemo();
    token = await apiToken(ui.url);
    for (const [title, genre, price] of [
      ['Dune', 'novel', 9.5],
      ['Solaris', 'novel', 7.75],
      ['Silent Spring', 'essay', 12.25],
    ] as const) {
      const res = await fetch(`${ui.url}/fw-api/data/modify/Book`, {
        method: 'POST',
        headers: { token, 'content-type': 'application/json' },
        body: JSON.stringify({ title, genre, price }),
      });
      expect(res.status).to.equal(200);
    }
  });
  after(async () => {
    await ui?.close();
  });

  it('axe: 0 serious or critical violations on the sign-in page and home', async function () {
    this.timeout(AXE_TIMEOUT);
    const { context, page } = await openPage(browser());
    try {
      await page.goto(`${ui.url}/login`);
      await page.locator('#login_account').waitFor();
      await expectNoSerious(page, 'the sign-in page');

      await openSignedIn(page, ui.url, '/', token);
      await page.locator('.fw-page-title').waitFor();
      await expectNoSerious(page, 'home');
    } finally {
      await context.close();
    }
  });

  it('axe: 0 serious or critical violations on a model page with rows and its add and edit drawers', async function () {
    this.timeout(AXE_TIMEOUT);
    const { context, page } = await openPage(browser());
    try {
      await openSignedIn(page, ui.url, '/model/Book', token);
      await rowWith(page, 'Dune').waitFor();
      await expectNoSerious(page, 'the Books page');

      await page.locator('.fw-add').click();
      await page.locator('.fw-drawer-add .ant-form').waitFor();
      await shot(page, join(ui.shots, 'a11y-add-drawer.png'));
      await expectNoSerious(page, 'the add drawer');
      await page.keyboard.press('Escape');
      await page.locator('.fw-drawer-add').waitFor({ state: 'detached' });

      await rowWith(page, 'Dune').locator('.fw-row-edit').click();
      await page.locator('.fw-drawer-edit .ant-form').waitFor();
      await waitUntil(page, `document.querySelector('.fw-drawer-edit #row-edit_title')?.value === 'Dune'`);
      await expectNoSerious(page, 'the edit drawer');
    } finally {
      await context.close();
    }
  });

  it('axe: 0 serious or critical violations on the open cell editor, also refusing a value', async function () {
    this.timeout(AXE_TIMEOUT);
    const { context, page } = await openPage(browser());
    try {
      await openSignedIn(page, ui.url, '/model/Book', token);
      await rowWith(page, 'Dune').locator('td.fw-col-price').dblclick();
      await page.locator('.fw-cell-editor').waitFor();
      await expectNoSerious(page, 'the open cell editor');
      // …and showing a refusal (the field's own rule, in the form's error colour).
      await page.keyboard.press('Control+A');
      await page.keyboard.type('-3');
      await page.keyboard.press('Enter');
      await page.locator('.fw-cell-editor .ant-form-item-explain-error').waitFor();
      await expectNoSerious(page, 'the cell editor refusing a value');
    } finally {
      await context.close();
    }
  });

  it('axe: 0 serious or critical violations in 简体中文 on a 390 px phone: home, the Books page, the open cell editor', async function () {
    this.timeout(AXE_TIMEOUT);
    const { context, page } = await openPage(browser());
    try {
      await page.setViewportSize({ width: 390, height: 844 });
      await page.goto(`${ui.url}/login`);
      await page.evaluate(`window.localStorage.setItem('fw-locale', 'zh-CN')`);
      await openSignedIn(page, ui.url, '/', token);
      await page.locator('.fw-page-title').waitFor();
      expect(await page.evaluate('document.documentElement.lang')).to.match(/^zh/);
      await expectNoSerious(page, 'home (zh-CN, 390 px)');
      await page.goto(`${ui.url}/model/Book`);
      await rowWith(page, 'Dune').waitFor();
      await expectNoSerious(page, 'the Books page (zh-CN, 390 px)');
      await rowWith(page, 'Dune').locator('td.fw-col-title').dblclick();
      await page.locator('.fw-cell-editor').waitFor();
      expect(await page.locator('.fw-cell-editor-hint').innerText()).to.equal('回车保存 · Tab 保存并移到下一格 · Esc 取消');
      await expectNoSerious(page, 'the open cell editor (zh-CN, 390 px)');
    } finally {
      await context.close();
    }
  });

  it('axe: 0 serious or critical violations on the account pages: my sessions, online users and its drawer, change password', async function () {
    this.timeout(AXE_TIMEOUT);
    const { context, page } = await openPage(browser());
    try {
      await openSignedIn(page, ui.url, '/sessions', token);
      await page.locator('.fw-page-title').waitFor();
      await expectNoSerious(page, 'my sessions');
      await page.goto(`${ui.url}/online-users`);
      await page.locator('.ant-table-row').first().waitFor();
      await expectNoSerious(page, 'online users');
      await page.locator('.ant-table-row button').first().click();
      await page.locator('.ant-drawer-open').waitFor();
      await expectNoSerious(page, 'the sessions drawer of online users');
      await page.goto(`${ui.url}/password`);
      await page.locator('input[type=password]').first().waitFor();
      await expectNoSerious(page, 'change password');
    } finally {
      await context.close();
    }
  });

  it('keyboard: the skip link is the first Tab stop and leads into the content; the cells say column, row and editable', async () => {
    const { context, page } = await openPage(browser());
    try {
      await openSignedIn(page, ui.url, '/model/Book', token);
      await rowWith(page, 'Dune').waitFor();
      await page.locator('body').focus();
      await page.keyboard.press('Tab');
      expect(await focused(page)).to.include({ tag: 'a', cls: 'fw-skip-link', text: 'Skip to content' });
      // Shown while focused.
      const box = await page.locator('.fw-skip-link').boundingBox();
      expect(box!.y).to.be.greaterThanOrEqual(0);
      await shot(page, join(ui.shots, 'a11y-skip-link.png'));
      await page.keyboard.press('Enter');
      expect((await focused(page)).id).to.equal('fw-main');
      // From the content, the next Tab stop is inside it: 3 stops from the page load, not 22.
      await page.keyboard.press('Tab');
      expect((await focused(page)).inMain).to.equal(true);

      // What a screen reader hears on a cell, as Chromium computes it: column, row, value, editable or not.
      expect(await heard(page, 'Dune', 'price')).to.deep.equal({ role: 'cell', name: 'Price, Dune 9.5', description: 'Editable: Enter or F2 to edit' });
      expect(await heard(page, 'Dune', 'isbn')).to.deep.equal({ role: 'cell', name: 'ISBN, Dune', description: 'Read only' });
    } finally {
      await context.close();
    }
  });

  it('keyboard: a drawer closed with Esc, and a confirmation cancelled, give the focus back to the button that opened them (the page when it is gone)', async () => {
    const { context, page } = await openPage(browser());
    try {
      await openSignedIn(page, ui.url, '/model/Book', token);
      await rowWith(page, 'Dune').waitFor();
      await page.locator('.fw-add').focus();
      await page.keyboard.press('Enter');
      await page.locator('.fw-drawer-add .ant-form').waitFor();
      expect((await focused(page)).cls).to.not.contain('fw-add');
      await page.keyboard.press('Escape');
      await page.locator('.fw-drawer-add').waitFor({ state: 'detached' });
      await waitUntil(page, `document.activeElement.classList.contains('fw-add')`);

      const edit = rowWith(page, 'Solaris').locator('.fw-row-edit');
      await edit.focus();
      await page.keyboard.press('Enter');
      await page.locator('.fw-drawer-edit .ant-form').waitFor();
      await page.keyboard.press('Escape');
      await page.locator('.fw-drawer-edit').waitFor({ state: 'detached' });
      await waitUntil(page, `document.activeElement.classList.contains('fw-row-edit') && document.activeElement.closest('tr').textContent.includes('Solaris')`);

      // A delete confirmation answered "Cancel" with the mouse: the focus is back on Delete, not on <body>.
      await rowWith(page, 'Solaris').locator('.fw-row-delete').focus();
      await page.keyboard.press('Enter');
      await page.locator('.ant-popconfirm:not(.ant-popover-hidden) button', { hasText: 'Cancel' }).click();
      await waitUntil(page, `document.activeElement.classList.contains('fw-row-delete') && document.activeElement.closest('tr').textContent.includes('Solaris')`);

      // Confirmed, the row and its button are gone: the focus goes to the page's content, not to <body>.
      await rowWith(page, 'Silent Spring').locator('.fw-row-delete').focus();
      await page.keyboard.press('Enter');
      await page.locator('.ant-popconfirm:not(.ant-popover-hidden) .fw-confirm-delete').click();
      await rowWith(page, 'Silent Spring').waitFor({ state: 'detached' });
      await waitUntil(page, `document.activeElement.id === 'fw-main'`);
    } finally {
      await context.close();
    }
  });
});
