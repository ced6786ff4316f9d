// Issue 20 §4/§5 as a person meets them: a table's layout (hidden, resized and reordered columns,
// row height) kept on the server and found again in another browser, a second user untouched;
// on a phone the row actions in one "…" menu and the first column pinned while the table
// scrolls; at 1366 px the Actions column covers no other; the login log newest first.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { expect } from 'chai';
import type { Browser, Page } from 'playwright-core';
import { describeBrowser } from '@fw/test-utils';
import { apiToken, openSignedIn, shot, startDemo, userWithMenus, waitUntil, type UiDemo } from './support.js';

/** A new browser context (its own storage: another browser) at this size, signed in on `path`. */
async function browse(browser: Browser, ui: UiDemo, token: string, path: string, width = 1366, height = 800): Promise<Page> {
  const context = await browser.newContext({ viewport: { width, height } });
  const page = await context.newPage();
  page.setDefaultTimeout(15_000);
  await openSignedIn(page, ui.url, path, token);
  await page.locator('.ant-table-tbody tr.ant-table-row').first().waitFor();
  return page;
}

/** The header texts of the table, in order (the selection and actions columns left out). */
async function headers(page: Page): Promise<string[]> {
  const texts = await page.locator('.ant-table-thead th:not(.ant-table-selection-column):not(.fw-col-actions)').allInnerTexts();
  return texts.map((s) => s.trim()).filter(Boolean);
}

/** The header cell of the column titled `title`. */
const th = (page: Page, title: string) => page.locator('.ant-table-thead th', { hasText: new RegExp(`^${title}$`) });

async function box(page: Page, selector: string): Promise<{ left: number; right: number; top: number; width: number }> {
  const rect = await page
    .locator(selector)
    .first()
    .evaluate((e) => e.getBoundingClientRect().toJSON() as { left: number; right: number; top: number; width: number });
  return rect;
}

/** axe-core's serious and critical violations inside `selectors` (the page's own parts are others' to check). */
async function axeViolations(page: Page, selectors: string[]): Promise<string[]> {
  // Evaluated as a string: the UI's content security policy lets no script tag in.
  await page.evaluate(readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8'));
  const found = await page.evaluate(
    `axe.run({ include: ${JSON.stringify(selectors.map((s) => [s]))} }).then((r) => r.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id + ': ' + v.nodes.map((n) => n.target.join(' ')).join(', ')))`,
  );
  return found as string[];
}

describeBrowser('admin UI: table layout, phones and default sort (issue 20 §4/§5)', (browser) => {
  let ui: UiDemo;
  let admin: string;
  let adminId: number;
  let reader: string;

  before(async function () {
    this.timeout(120_000);
    ui = await startDemo();
    const { knex } = ui.demo.store;
    const book = ui.demo.registry.get('Book')!;
    const col = (f: string) => book.fields[f]!.column;
    await knex(book.table).insert(
      Array.from({ length: 12 }, (_, i) => ({
        [col('title')]: `The Left Hand of Darkness, volume ${i + 1}`,
        [col('isbn')]: `978044100${String(i).padStart(4, '0')}`,
        [col('genre')]: 'novel',
        [col('price')]: 10 + i,
        [col('inPrint')]: i % 2 === 0,
      })),
    );
    const author = ui.demo.registry.get('Author')!;
    await knex(author.table).insert(Array.from({ length: 5 }, (_, i) => ({ name: `Ursula ${i + 1}`, [author.fields.lastSeen!.column]: new Date(Date.UTC(2026, 0, i + 1)) })));
    admin = await apiToken(ui.url);
    adminId = (await ui.demo.store.users.findByAccount('admin'))!.id;
    const r = await userWithMenus(ui, 'reader', ['Book', 'Book@EDIT', 'Book@DELETE']);
    reader = await apiToken(ui.url, r.account, r.password);
  });
  after(async () => {
    await ui?.close();
  });

  it('keeps hidden, reordered and resized columns and the row height per user, in another browser too; reset forgets them', async function () {
    // Three browsers one after the other, each loading the app.
    this.timeout(90_000);
    const page = await browse(browser(), ui, admin, '/model/Book');
    expect(await headers(page)).to.deep.equal(['ID', 'Title', 'ISBN', 'Genre', 'Price', 'Published', 'In print']);
    await page.locator('.fw-columns').click();
    const chooser = page.locator('.fw-col-chooser');
    await chooser.waitFor();
    await chooser.getByRole('checkbox', { name: 'Show ISBN' }).click();
    await waitUntil(page, `![...document.querySelectorAll('.ant-table-thead th')].some((e) => e.textContent === 'ISBN')`);
    // Reordered from the keyboard: Price up past Genre, the hidden ISBN and Title, with Enter on the focused button.
    await chooser.getByRole('button', { name: 'Move Price up' }).focus();
    for (let i = 0; i < 3; i++) await page.keyboard.press('Enter');
    expect(await page.evaluate('document.activeElement?.getAttribute("aria-label")')).to.equal('Move Price up');
    await chooser.getByText('Compact').click();
    await shot(page, join(ui.shots, 'table-prefs-chooser-1366.png'));
    expect(await axeViolations(page, ['.fw-col-chooser', '.ant-table-thead'])).to.deep.equal([]);
    await page.keyboard.press('Escape');
    expect(await headers(page)).to.deep.equal(['ID', 'Price', 'Title', 'Genre', 'Published', 'In print']);
    await page.locator('.ant-table.ant-table-small').waitFor();

    // Title dragged 120 px wider by the handle on its right edge.
    const before = (await th(page, 'Title').boundingBox())!;
    const handle = (await th(page, 'Title').locator('.fw-col-resize').boundingBox())!;
    const [x, y] = [handle.x + handle.width / 2, handle.y + handle.height / 2];
    await page.mouse.move(x, y);
    await page.mouse.down();
    await page.mouse.move(x + 60, y + 5, { steps: 4 });
    await page.mouse.move(x + 120, y + 5, { steps: 4 });
    await page.mouse.up();
    const widened = Math.round(before.width + 120);
    // The drag sorted nothing.
    expect(page.url()).to.not.contain('sort=');
    const stored = async () => (await ui.demo.store.prefs.get(adminId, 'table:Book'))?.value as { widths?: Record<string, number> } | undefined;
    for (let i = 0; i < 100 && (await stored())?.widths?.title === undefined; i++) await new Promise((resolve) => setTimeout(resolve, 50));
    expect((await stored())?.widths?.title).to.be.within(widened - 3, widened + 3);
    expect(await stored()).to.deep.include({ hidden: ['isbn'], order: ['id', 'price', 'title', 'isbn', 'genre', 'published', 'inPrint'], density: 'small' });
    await page.context().close();

    // Another browser, the same person signed in again: the same layout.
    const other = await browse(browser(), ui, await apiToken(ui.url), '/model/Book');
    await waitUntil(other, `!!document.querySelector('.ant-table.ant-table-small')`);
    expect(await headers(other)).to.deep.equal(['ID', 'Price', 'Title', 'Genre', 'Published', 'In print']);
    expect((await th(other, 'Title').boundingBox())!.width).to.be.within(widened - 3, widened + 3);

    // Another user: the model's defaults.
    const second = await browse(browser(), ui, reader, '/model/Book');
    expect(await headers(second)).to.deep.equal(['ID', 'Title', 'ISBN', 'Genre', 'Price', 'Published', 'In print']);
    expect(await second.locator('.ant-table.ant-table-medium').count()).to.equal(1);
    await second.context().close();

    // Reset: back to the defaults, and nothing stored.
    await other.locator('.fw-columns').click();
    await other.locator('.fw-col-reset').click();
    await waitUntil(other, `!!document.querySelector('.ant-table.ant-table-medium')`);
    expect(await headers(other)).to.deep.equal(['ID', 'Title', 'ISBN', 'Genre', 'Price', 'Published', 'In print']);
    for (let i = 0; i < 100 && (await stored()) !== undefined; i++) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await stored()).to.equal(undefined);
    await other.context().close();
  });

  it('resizes a column from the keyboard on its header handle', async () => {
    const page = await browse(browser(), ui, admin, '/model/Book');
    const before = (await th(page, 'Genre').boundingBox())!.width;
    await th(page, 'Genre').locator('.fw-col-resize').focus();
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowRight');
    await waitUntil(page, `[...document.querySelectorAll('.ant-table-thead th')].some((e) => e.textContent === 'Genre' && e.getBoundingClientRect().width >= ${before + 30})`);
    await ui.demo.store.prefs.delete(adminId, 'table:Book');
    await page.context().close();
  });

  it('at 390 px: row actions in one "…" menu, the first column pinned while the table scrolls, nothing overlapping', async () => {
    const page = await browse(browser(), ui, admin, '/model/Book', 390, 844);
    expect(await page.locator('.ant-table-tbody .fw-row-edit').count()).to.equal(0);
    const more = page.locator('.ant-table-tbody .fw-row-more');
    expect(await more.count()).to.equal(12);
    const actions = await box(page, '.ant-table-thead th.fw-col-actions');
    expect(actions.width).to.be.below(80);
    await shot(page, join(ui.shots, 'table-prefs-390.png'));

    // The first column stays where it was while the rest scrolls under it.
    const first = '.ant-table-tbody tr.ant-table-row td.fw-col-id';
    const pinned = await box(page, first);
    const title = await box(page, '.ant-table-tbody tr.ant-table-row td.fw-col-title');
    await page
      .locator('.ant-table-content, .ant-table-body')
      .first()
      .evaluate((e) => e.scrollTo({ left: 400 }));
    await waitUntil(page, `document.querySelector('.ant-table-tbody tr.ant-table-row td.fw-col-title').getBoundingClientRect().left < ${title.left - 100}`);
    expect((await box(page, first)).left).to.equal(pinned.left);
    // What is at the pinned cell's place is the pinned cell (nothing scrolled over it).
    const atPin = await page.evaluate(
      `(() => { const r = document.querySelector('${first}').getBoundingClientRect(); return document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2)?.closest('td')?.className ?? '' })()`,
    );
    expect(atPin).to.contain('fw-col-id');
    // The pinned column, the actions column and the page do not overlap or overflow.
    expect(pinned.right).to.be.at.most((await box(page, '.ant-table-thead th.fw-col-actions')).left);
    expect(await page.evaluate('document.documentElement.scrollWidth')).to.be.at.most(390);
    await shot(page, join(ui.shots, 'table-prefs-390-scrolled.png'));

    // The menu holds every action the user may take, named; Edit opens the form.
    await more.first().click();
    const menu = page.locator('.ant-dropdown:not(.ant-dropdown-hidden) .ant-dropdown-menu');
    await menu.waitFor();
    expect((await menu.locator('.ant-dropdown-menu-item').allInnerTexts()).map((s) => s.trim())).to.deep.equal(['Details', 'Edit', 'Copy', 'Print', 'Delete']);
    await shot(page, join(ui.shots, 'table-prefs-390-menu.png'));
    expect(await axeViolations(page, ['.ant-table-thead', '.ant-table-tbody td.fw-col-actions', '.ant-dropdown'])).to.deep.equal([]);
    await menu.getByText('Edit').click();
    await page.locator('.ant-drawer-open').waitFor();
    await page.keyboard.press('Escape');
    await page.locator('.ant-drawer-open').waitFor({ state: 'detached' });
    // Delete asks first, in a dialog.
    await more.first().click();
    await page.locator('.ant-dropdown:not(.ant-dropdown-hidden) .ant-dropdown-menu').getByText('Delete').click();
    await page.locator('.ant-modal-confirm .fw-confirm-delete').waitFor();
    await page.locator('.ant-modal-confirm').getByRole('button', { name: 'Cancel' }).click();
    await page.context().close();
  });

  it('at 390 px in 简体中文: the column panel fits the screen and speaks Chinese', async () => {
    const page = await browse(browser(), ui, admin, '/model/Book', 390, 844);
    await page.evaluate(`window.localStorage.setItem('fw-locale', 'zh-CN')`);
    await page.reload();
    await page.locator('.ant-table-tbody tr.ant-table-row').first().waitFor();
    await page.getByRole('button', { name: '列', exact: true }).click();
    const panel = page.locator('.ant-popover:not(.ant-popover-hidden)');
    await panel.locator('.fw-col-chooser').waitFor();
    expect(await panel.innerText())
      .to.contain('本表的列')
      .and.contain('行高')
      .and.contain('紧凑')
      .and.contain('恢复默认');
    expect(await panel.getByRole('button', { name: '将 书名 上移' }).count()).to.equal(1);
    const rect = await panel.evaluate((e) => e.getBoundingClientRect().toJSON() as { left: number; right: number });
    expect(rect.left).to.be.at.least(0);
    expect(rect.right).to.be.at.most(390);
    await shot(page, join(ui.shots, 'table-prefs-chooser-390-zh.png'));
    await page.context().close();
  });

  for (const [fw, trailing] of [
    ['FwMenu', ['Order', 'Status']],
    ['Author', ['Last seen', 'Photo']],
  ] as const) {
    it(`at 1366 px the Actions column covers none of ${fw}'s trailing columns (${trailing.join(', ')})`, async () => {
      const page = await browse(browser(), ui, admin, `/model/${fw}`);
      // Scrolled to the far end, where the Actions column sits beside the last columns.
      await page
        .locator('.ant-table-content, .ant-table-body')
        .first()
        .evaluate((e) => e.scrollTo({ left: e.scrollWidth }));
      await new Promise((resolve) => setTimeout(resolve, 100));
      const actions = await box(page, '.ant-table-thead th.fw-col-actions');
      for (const title of trailing) {
        const header = (await th(page, title).boundingBox())!;
        expect(header.x + header.width, title).to.be.at.most(actions.left + 1);
        expect(header.x, title).to.be.at.least(0);
      }
      // The Actions column is as wide as its buttons, not 200 px.
      const buttons = await page.locator('.ant-table-tbody tr.ant-table-row td.fw-col-actions button').count();
      expect(actions.width).to.be.at.most(buttons * 24 + 40);
      await shot(page, join(ui.shots, `table-prefs-${fw}-1366.png`));
      await page.context().close();
    });
  }

  it('shows a model page at 768, 1366 and 1920 px', async function () {
    this.timeout(60_000);
    for (const width of [768, 1366, 1920]) {
      const page = await browse(browser(), ui, admin, '/model/Book', width, 900);
      expect(await page.locator('.ant-table-tbody .fw-row-more').count(), `${width}`).to.equal(width <= 768 ? 12 : 0);
      expect(await page.evaluate('document.documentElement.scrollWidth'), `${width}`).to.be.at.most(width);
      await shot(page, join(ui.shots, `table-prefs-book-${width}.png`));
      await page.context().close();
    }
  });

  it('lists the login log newest first and shows that sort on the Time column', async () => {
    const logs = ui.demo.store.loginLogs;
    for (const m of [5, 40, 20]) await logs.insert({ userId: null, account: `person-${m}`, method: 'password', loginTime: new Date(Date.UTC(2030, 0, 1, 0, m)) });
    const page = await browse(browser(), ui, admin, '/model/FwLoginLog');
    const accounts = (await page.locator('.ant-table-tbody td.fw-col-account').allInnerTexts()).map((s) => s.trim());
    expect(accounts.slice(0, 3)).to.deep.equal(['person-40', 'person-20', 'person-5']);
    expect(await th(page, 'Time').getAttribute('aria-sort')).to.equal('descending');
    // A click turns the default around (oldest first), rather than off.
    await th(page, 'Time').click();
    await page.waitForURL(/sort=loginTime%2Casc|sort=loginTime,asc/);
    await waitUntil(page, `document.querySelector('.ant-table-tbody td.fw-col-account')?.textContent.trim() !== 'person-40'`);
    expect(await th(page, 'Time').getAttribute('aria-sort')).to.equal('ascending');
    await shot(page, join(ui.shots, 'table-prefs-login-log.png'));
    await page.context().close();
  });
});
