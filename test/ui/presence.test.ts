// Presence (issue 24 §4) as people meet it, on the demo's Task table (a person who is not an
// administrator sees only their own tasks): Ana owns a task and opens its cell editor or its edit
// form; the administrator, who sees every task, sees Ana's initials on that row (and the outline on
// the cell), with "Ana Lima is editing Subject"; they go when Ana closes. Carl, whose row filter
// hides Ana's task, sees nothing of it, yet sees the administrator on his own task. Ana's tab posts
// its presence with the same key its stream was opened with, and "left" on closing.
import { join } from 'node:path';
import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { describeBrowser } from '@fw/test-utils';
import { axeViolations, formatViolations } from './axe.js';
import { apiToken, openPage, openSignedIn, rowAction, rowWith, shot, startDemo, userWithMenus, waitUntil, type UiDemo } from './support.js';

const ANA_TASK = 'Call the printer';
const CARL_TASK = 'Order paper';

const live = (page: Page) => page.locator('.fw-live-status[data-status="live"]').waitFor();
/** The initials on the row showing `text` (none: null). */
const badgeOf = (page: Page, text: string) =>
  page.evaluate(
    `(() => { const tr = [...document.querySelectorAll('tr.ant-table-row')].find((r) => r.textContent.includes(${JSON.stringify(text)})); const b = tr && tr.querySelector('.fw-presence'); return b ? { label: b.getAttribute('aria-label'), initials: b.textContent, outlined: [...tr.querySelectorAll('td.fw-presence-field')].map((td) => td.dataset.fwCol) } : null; })()`,
  ) as Promise<{ label: string; initials: string; outlined: string[] } | null>;
const hasBadge = (text: string, present: boolean) =>
  `(() => { const tr = [...document.querySelectorAll('tr.ant-table-row')].find((r) => r.textContent.includes(${JSON.stringify(text)})); return Boolean(tr && tr.querySelector('.fw-presence')) === ${present}; })()`;

/** Records the presence posts a page sends and the key its streams were opened with. */
function watch(page: Page) {
  const seen = { posts: [] as Array<{ client: string; id: number | null; field?: string }>, streamKeys: [] as string[] };
  page.on('request', (r) => {
    if (r.url().includes('/fw-api/data/presence/Task') && r.method() === 'POST') seen.posts.push(JSON.parse(r.postData() ?? '{}'));
    if (r.url().includes('/fw-api/data/events/Task')) seen.streamKeys.push(r.headers()['x-fw-live-client'] ?? '');
  });
  return seen;
}

describeBrowser('admin UI: presence', (browser) => {
  let ui: UiDemo;
  let adminToken: string;
  let ana: { account: string; password: string };
  let carl: { account: string; password: string };
  before(async () => {
    ui = await startDemo();
    adminToken = await apiToken(ui.url);
    ana = await userWithMenus(ui, 'ana', ['Task', 'Task@EDIT']);
    carl = await userWithMenus(ui, 'carl', ['Task', 'Task@EDIT']);
    const knex = ui.demo.store.knex;
    await knex('fw_user').where({ account: 'ana' }).update({ name: 'Ana Lima' });
    await knex('fw_user').where({ account: 'carl' }).update({ name: 'Carl Weber' });
    const id = async (account: string) => (await ui.demo.store.users.findByAccount(account))!.id;
    const table = ui.demo.registry.get('Task')!.table;
    await knex(table).insert([
      { subject: ANA_TASK, done: false, ownerId: await id('ana') },
      { subject: 'Book the room', done: false, ownerId: await id('ana') },
      { subject: CARL_TASK, done: false, ownerId: await id('carl') },
    ]);
  });
  after(async () => {
    await ui?.close();
  });

  /** Opens the Task table for `account` (admin when none) at `width`, in `locale`. */
  async function open(account: { account: string; password: string } | undefined, width: number, locale?: string) {
    const opened = await openPage(browser());
    await opened.page.setViewportSize({ width, height: 820 });
    if (locale) {
      await opened.page.goto(`${ui.url}/login`);
      await opened.page.evaluate(`window.localStorage.setItem('fw-locale', ${JSON.stringify(locale)})`);
    }
    const seen = watch(opened.page);
    const token = account ? await apiToken(ui.url, account.account, account.password) : adminToken;
    await openSignedIn(opened.page, ui.url, '/model/Task', token);
    await live(opened.page);
    return { ...opened, seen };
  }

  it('Ana’s cell editor and edit form are seen by the administrator, not by Carl; they go when she leaves', async () => {
    const a = await open(ana, 1366);
    const b = await open(undefined, 1366);
    const c = await open(carl, 1366);
    try {
      // Ana opens the Subject editor of her task: the administrator sees her on that row and cell.
      await rowWith(a.page, ANA_TASK).locator('td.fw-col-subject').dblclick();
      await a.page.locator('.fw-cell-editor[data-field="subject"]').waitFor();
      await waitUntil(b.page, hasBadge(ANA_TASK, true), 5000);
      expect(await badgeOf(b.page, ANA_TASK)).to.deep.equal({ label: 'Ana Lima is editing Subject', initials: 'AL', outlined: ['subject'] });
      // The other rows are untouched; Ana's own page shows nothing of her own tab.
      expect(await badgeOf(b.page, 'Book the room')).to.equal(null);
      expect(await a.page.locator('.fw-presence').count()).to.equal(0);
      // The cell's description names her, for a screen reader on that cell.
      const described = await rowWith(b.page, ANA_TASK).locator('td.fw-col-subject').getAttribute('aria-describedby');
      expect(described).to.match(/fw-presence-/);
      const violations = await axeViolations(b.page, { include: '.ant-table', impacts: ['minor', 'moderate', 'serious', 'critical'] });
      expect(violations, formatViolations('the table with presence', violations)).to.deep.equal([]);
      await rowWith(b.page, ANA_TASK).locator('.fw-presence').hover();
      await b.page.locator('.ant-tooltip:not(.ant-tooltip-hidden)', { hasText: 'Ana Lima is editing Subject' }).waitFor();
      await shot(b.page, join(ui.shots, 'presence-cell-1366.png'));
      // By keyboard: a cell of the row with the focus shows the same tooltip (the initials themselves take no focus).
      await b.page.mouse.move(0, 0);
      await b.page.locator('.ant-tooltip:not(.ant-tooltip-hidden)', { hasText: 'Ana Lima is editing Subject' }).waitFor({ state: 'detached' });
      await rowWith(b.page, ANA_TASK).locator('td.fw-col-subject').focus();
      await b.page.locator('.ant-tooltip:not(.ant-tooltip-hidden)', { hasText: 'Ana Lima is editing Subject' }).waitFor();
      await b.page.evaluate('document.activeElement.blur()');
      // The administrator opens the same cell: both editors say the other has it open too.
      await rowWith(b.page, ANA_TASK).locator('td.fw-col-subject').dblclick();
      const adminLabel = (await ui.demo.store.users.findByAccount('admin'))!.name || 'admin';
      expect(await b.page.locator('.fw-cell-editor .fw-cell-presence').innerText()).to.equal('Ana Lima has this cell open too');
      await a.page.locator('.fw-cell-editor .fw-cell-presence', { hasText: `${adminLabel} has this cell open too` }).waitFor({ timeout: 5000 });
      await b.page.locator('.fw-cell-editor input').press('Escape');
      await a.page.locator('.fw-cell-editor .fw-cell-presence').waitFor({ state: 'detached', timeout: 5000 });

      // Ana's post names her row and field with the key of her stream.
      expect(a.seen.streamKeys.length).to.be.greaterThan(0);
      const key = a.seen.streamKeys[0]!;
      const taskId = Number(await rowWith(a.page, ANA_TASK).getAttribute('data-row-key'));
      expect(a.seen.posts[0]).to.deep.equal({ client: key, id: taskId, field: 'subject' });

      // Carl's row filter hides Ana's task: nothing of her reaches his page.
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(await c.page.locator('.fw-presence').count()).to.equal(0);
      expect(await rowWith(c.page, ANA_TASK).count()).to.equal(0);

      // Ana closes the editor: her initials go, and her tab said "left".
      await a.page.locator('.fw-cell-editor input').press('Escape');
      await waitUntil(b.page, hasBadge(ANA_TASK, false), 5000);
      expect(a.seen.posts.at(-1)).to.deep.equal({ client: key, id: null });

      // Ana opens the edit form: the administrator sees her on the row, with no cell outlined.
      await (await rowAction(a.page, rowWith(a.page, ANA_TASK), 'fw-row-edit')).click();
      await a.page.locator('.fw-drawer-edit input#row-edit_subject').waitFor();
      await waitUntil(b.page, hasBadge(ANA_TASK, true), 5000);
      expect(await badgeOf(b.page, ANA_TASK)).to.deep.equal({ label: 'Ana Lima is editing this row', initials: 'AL', outlined: [] });
      // The administrator opens the same form: it says Ana is there too, and Ana's says it of them.
      await (await rowAction(b.page, rowWith(b.page, ANA_TASK), 'fw-row-edit')).click();
      const note = b.page.locator('.fw-drawer-edit .fw-presence-note');
      await note.waitFor({ timeout: 5000 });
      expect(await note.innerText()).to.contain('Ana Lima is also editing this row');
      const adminName = (await ui.demo.store.users.findByAccount('admin'))!.name || 'admin';
      await a.page.locator('.fw-drawer-edit .fw-presence-note', { hasText: `${adminName} is also editing this row` }).waitFor({ timeout: 5000 });
      // Read once the drawer has slid in (mid-way its colours are still fading in).
      await waitUntil(b.page, `document.getAnimations().every((x) => x.playState !== 'running')`, 5000);
      const formViolations = await axeViolations(b.page, { include: '.fw-drawer-edit', impacts: ['minor', 'moderate', 'serious', 'critical'] });
      expect(formViolations, formatViolations('the edit form with presence', formViolations)).to.deep.equal([]);
      await shot(b.page, join(ui.shots, 'presence-form-1366.png'));
      await b.page.locator('.fw-drawer-edit .ant-drawer-extra .ant-btn:not(.ant-btn-primary)').click();
      await b.page.locator('.fw-drawer-edit').waitFor({ state: 'detached' });

      // Ana cancels: gone again.
      await a.page.locator('.fw-drawer-edit .ant-drawer-extra .ant-btn:not(.ant-btn-primary)').click();
      await waitUntil(b.page, hasBadge(ANA_TASK, false), 5000);

      // Carl's own task: the administrator editing it is seen by Carl (his stream does carry presence).
      await rowWith(b.page, CARL_TASK).locator('td.fw-col-subject').dblclick();
      await waitUntil(c.page, hasBadge(CARL_TASK, true), 5000);
      expect((await badgeOf(c.page, CARL_TASK))!.label).to.equal(`${adminName} is editing Subject`);
      // Ana, meanwhile, never saw the administrator on a row she cannot see.
      expect(await a.page.locator('.fw-presence').count()).to.equal(0);
      await b.page.locator('.fw-cell-editor input').press('Escape');
      await waitUntil(c.page, hasBadge(CARL_TASK, false), 5000);

      // Leaving the page with the form open: the others see her go.
      await (await rowAction(a.page, rowWith(a.page, ANA_TASK), 'fw-row-edit')).click();
      await waitUntil(b.page, hasBadge(ANA_TASK, true), 5000);
      await a.page.goto(`${ui.url}/`);
      await waitUntil(b.page, hasBadge(ANA_TASK, false), 5000);
      expect([...a.errors, ...b.errors, ...c.errors]).to.deep.equal([]);
    } finally {
      await Promise.all([a.context.close(), b.context.close(), c.context.close()]);
    }
  });

  it('an open editor is posted again every 20 s, the same entry; none after it closes', async () => {
    const opened = await openPage(browser());
    try {
      // The page's own clock (timers and Date), installed before the app loads, so 20 s pass at once.
      await opened.page.clock.install();
      const seen = watch(opened.page);
      await openSignedIn(opened.page, ui.url, '/model/Task', await apiToken(ui.url, ana.account, ana.password));
      await live(opened.page);
      await rowWith(opened.page, ANA_TASK).locator('td.fw-col-subject').dblclick();
      await opened.page.locator('.fw-cell-editor[data-field="subject"]').waitFor();
      const until = async (count: number) => {
        for (let i = 0; i < 100 && seen.posts.length < count; i += 1) await new Promise((resolve) => setTimeout(resolve, 50));
      };
      await until(1);
      const first = seen.posts[0]!;
      await opened.page.clock.runFor(20_500);
      await until(2);
      expect(seen.posts).to.deep.equal([first, first]);
      await opened.page.locator('.fw-cell-editor input').press('Escape');
      await until(3);
      expect(seen.posts[2]).to.deep.equal({ client: first.client, id: null });
      await opened.page.clock.runFor(41_000);
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(seen.posts).to.have.length(3);
    } finally {
      await opened.context.close();
    }
  });

  it('one person in two tabs on one row at 390 px: one set of initials naming both editors, and the table does not move', async () => {
    const a = await open(ana, 1366);
    const b = await open(undefined, 390);
    const a2 = await open(ana, 1366);
    try {
      const row = rowWith(b.page, ANA_TASK);
      const before = await row.boundingBox();
      const widthBefore = await b.page.evaluate(`document.querySelector('.ant-table-content, .ant-table-body').scrollWidth`);
      await rowWith(a.page, ANA_TASK).locator('td.fw-col-subject').dblclick();
      await (await rowAction(a2.page, rowWith(a2.page, ANA_TASK), 'fw-row-edit')).click();
      // Two tabs of Ana: both entries named, one person's initials (not "AL AL").
      await waitUntil(b.page, `document.querySelector('.fw-presence')?.getAttribute('aria-label') === 'Ana Lima is editing Subject; Ana Lima is editing this row'`, 5000);
      const badge = await badgeOf(b.page, ANA_TASK);
      expect(badge!.initials).to.equal('AL');
      expect(await b.page.locator('.fw-presence .fw-presence-avatar').count()).to.equal(1);
      expect(await row.boundingBox()).to.deep.equal(before);
      expect(await b.page.evaluate(`document.querySelector('.ant-table-content, .ant-table-body').scrollWidth`)).to.equal(widthBefore);
      const box = (await b.page.locator('.fw-presence').boundingBox())!;
      expect(box.x + box.width).to.be.at.most(390);
      await shot(b.page, join(ui.shots, 'presence-390.png'));
    } finally {
      await Promise.all([a.context.close(), b.context.close(), a2.context.close()]);
    }
  });

  it('in Chinese: the label names the column by its Chinese title', async () => {
    const a = await open(ana, 1366);
    const b = await open(undefined, 390, 'zh-CN');
    try {
      await rowWith(a.page, ANA_TASK).locator('td.fw-col-subject').dblclick();
      await waitUntil(b.page, hasBadge(ANA_TASK, true), 5000);
      expect((await badgeOf(b.page, ANA_TASK))!.label).to.equal('Ana Lima 正在编辑“事项”');
      await rowWith(b.page, ANA_TASK).locator('.fw-presence').hover();
      await b.page.locator('.ant-tooltip:not(.ant-tooltip-hidden)', { hasText: '正在编辑' }).waitFor();
      await shot(b.page, join(ui.shots, 'presence-zh-CN-390.png'));
      await (await rowAction(b.page, rowWith(b.page, ANA_TASK), 'fw-row-edit')).click();
      const note = b.page.locator('.fw-drawer-edit .fw-presence-note');
      await note.waitFor({ timeout: 5000 });
      expect(await note.innerText()).to.contain('Ana Lima 也在编辑这一行');
      await shot(b.page, join(ui.shots, 'presence-form-zh-CN-390.png'));
    } finally {
      await Promise.all([a.context.close(), b.context.close()]);
    }
  });
});
