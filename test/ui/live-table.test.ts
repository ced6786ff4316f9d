// Live tables (issue 24 §3) as two people meet them: A (the administrator) and B (bob) have the
// Book table open in two Chromium pages. B edits a cell → A's cell shows the new value, marked,
// with no request for the table; B adds a row → it appears on A's page where it belongs (under a
// search, once the server says it matches), or a notice floating over the table lists the rows
// that went to other pages; B deletes a row → it fades out of A's table and the total drops.
// A's open cell editor and A's edit form say so when B changes their row, with the new value,
// before A saves, without moving what A types into. The stream carries the token in a header and
// the tab's client key.
import { join } from 'node:path';
import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { describeBrowser } from '@fw/test-utils';
import { axeViolations, formatViolations } from './axe.js';
import { apiToken, openPage, openSignedIn, rowAction, rowWith, shot, startDemo, userWithMenus, waitUntil, type UiDemo } from './support.js';

/** A write to Book through the data API as the holder of `token` (`path`: '' adds, '/delete', …). */
async function modify(ui: UiDemo, token: string, path: string, body: unknown): Promise<void> {
  const res = await fetch(`${ui.url}/fw-api/data/modify/Book${path}`, { method: 'POST', headers: { token, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  expect(res.status, await res.clone().text()).to.equal(200);
}

const add = (ui: UiDemo, token: string, row: Record<string, unknown>) => modify(ui, token, '', row);

/** The cell of `field` in the row showing `text`. */
function cell(page: Page, text: string, field: string) {
  return rowWith(page, text).locator(`td.fw-col-${field}`);
}

/** Counts the table requests a page sends, and records how it opened its live streams. */
function watch(page: Page) {
  const seen = { tables: 0, streams: [] as Array<{ url: string; headers: Record<string, string> }> };
  page.on('request', (r) => {
    if (r.url().endsWith('/fw-api/data/table/Book')) seen.tables += 1;
    if (r.url().includes('/fw-api/data/events/')) seen.streams.push({ url: r.url(), headers: r.headers() });
  });
  return seen;
}

/** B saves a cell through the cell editor, as a person does. */
async function editCell(page: Page, title: string, field: string, value: string): Promise<void> {
  await cell(page, title, field).dblclick();
  const input = page.locator(`.fw-cell-editor[data-field="${field}"] input`).first();
  await input.fill(value);
  await input.press('Enter');
  await page.locator('.fw-cell-editor').waitFor({ state: 'detached' });
}

const live = (page: Page) => page.locator('.fw-live-status[data-status="live"]').waitFor({ timeout: 30_000 });

/**
 * Starts noting, in the page, when the cell of `field` in the row showing `title` is marked as
 * changed with `text`: the mark lasts two seconds, which polling from a busy machine may miss.
 * Answers the expression that is true once it was seen.
 */
async function watchMark(page: Page, title: string, field: string, text: string): Promise<string> {
  const flag = `fwMarked_${field}_${text.replace(/\W/g, '_')}`;
  const seen = `[...document.querySelectorAll('tr')].some((tr) => tr.textContent.includes(${JSON.stringify(title)}) && tr.querySelector('td.fw-col-${field}.fw-live-changed')?.textContent === ${JSON.stringify(text)})`;
  await page.evaluate(`(() => {
    window.${flag} = false;
    new MutationObserver(() => { if (${seen}) window.${flag} = true; }).observe(document.body, { subtree: true, attributes: true, childList: true, characterData: true });
  })()`);
  return `window.${flag} === true`;
}

describeBrowser('admin UI: live tables', (browser) => {
  let ui: UiDemo;
  let token: string;
  let bob: { account: string; password: string };
  const books = () => ui.demo.store.knex(ui.demo.registry.get('Book')!.table);
  before(async () => {
    ui = await startDemo();
    token = await apiToken(ui.url);
    bob = await userWithMenus(ui, 'bob', ['Book', 'Book@ADD', 'Book@EDIT', 'Book@DELETE']);
    for (const [title, price] of [
      ['Dune', 9.5],
      ['Solaris', 7.75],
      ['Foundation', 8.99],
      ['Walden', 3],
    ] as const)
      await add(ui, token, { title, genre: 'novel', price, published: '1965-08-01' });
  });
  after(async () => {
    await ui?.close();
  });

  async function twoPages(width: number, locale?: string) {
    const a = await openPage(browser());
    const b = await openPage(browser());
    // Two browsers and the server share a machine that may be busy: steps get more time than usual.
    for (const one of [a, b]) one.page.setDefaultTimeout(30_000);
    await a.page.setViewportSize({ width, height: 900 });
    await b.page.setViewportSize({ width: 1366, height: 900 });
    if (locale) {
      await a.page.goto(`${ui.url}/login`);
      await a.page.evaluate(`window.localStorage.setItem('fw-locale', ${JSON.stringify(locale)})`);
    }
    const seenA = watch(a.page);
    await openSignedIn(a.page, ui.url, '/model/Book', token);
    await openSignedIn(b.page, ui.url, '/model/Book', await apiToken(ui.url, bob.account, bob.password));
    await Promise.all([live(a.page), live(b.page)]);
    return { a, b, seenA, close: () => Promise.all([a.context.close(), b.context.close()]) };
  }

  it('B edits, adds and deletes; A’s table follows without loading again', async () => {
    const { a, b, seenA, close } = await twoPages(1366);
    try {
      // The stream: the token in a header, never in the URL; the tab's key beside it.
      expect(seenA.streams).to.have.length(1);
      expect(seenA.streams[0]!.url).to.equal(`${ui.url}/fw-api/data/events/Book`);
      expect(seenA.streams[0]!.headers.token).to.be.a('string').with.length(16);
      expect(seenA.streams[0]!.headers['x-fw-live-client']).to.match(/^[A-Za-z0-9_-]{8,64}$/);
      const tablesBefore = seenA.tables;

      const duneMarked = await watchMark(a.page, 'Dune', 'price', '12');
      // B's own save is not news to B: B's editor never shows a live note, not even for a moment.
      await b.page.evaluate(`(() => {
        window.fwOwnNote = false;
        new MutationObserver(() => { if (document.querySelector('.fw-cell-editor .fw-live-note')) window.fwOwnNote = true; }).observe(document.body, { subtree: true, childList: true });
      })()`);
      await editCell(b.page, 'Dune', 'price', '12');
      await waitUntil(a.page, duneMarked, 10_000);
      await a.page.screenshot({ path: join(ui.shots, 'live-changed-1366.png') });
      // B's own edit is not marked on B's page.
      await waitUntil(b.page, `[...document.querySelectorAll('td.fw-col-price')].some((td) => td.textContent === '12')`);
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(await b.page.locator('td.fw-live-changed').count()).to.equal(0);
      expect(await b.page.evaluate('window.fwOwnNote'), 'B’s editor warned B of B’s own save').to.equal(false);
      // The mark goes after about two seconds.
      await waitUntil(a.page, `document.querySelectorAll('td.fw-live-changed').length === 0`, 15_000);

      // B adds a row: on A's page (ids ascending, one page) it belongs at the end, so it appears.
      await b.page.locator('.fw-add').click();
      await b.page.locator('.fw-drawer-add input#row-add_title').fill('Neuromancer');
      await b.page.locator('.fw-drawer-add .ant-drawer-extra .ant-btn-primary').click();
      await b.page.locator('.fw-drawer-add').waitFor({ state: 'detached' });
      await rowWith(a.page, 'Neuromancer').waitFor({ timeout: 15_000 });
      expect(await a.page.locator('.ant-table-tbody tr.ant-table-row').last().innerText()).to.contain('Neuromancer');
      expect(await a.page.locator('.ant-pagination-total-text').innerText()).to.equal('Total 5');

      // B deletes it: A's row fades, then leaves; the total follows.
      // The fade lasts 0.6 s: an observer in A's page notes it, however busy the machine is.
      await a.page.evaluate(`(() => {
        window.fwFaded = false;
        new MutationObserver(() => {
          if ([...document.querySelectorAll('tr.fw-live-leaving')].some((tr) => tr.textContent.includes('Neuromancer'))) window.fwFaded = true;
        }).observe(document.body, { subtree: true, attributes: true, attributeFilter: ['class'] });
      })()`);
      await (await rowAction(b.page, rowWith(b.page, 'Neuromancer'), 'fw-row-delete')).click();
      await b.page.locator('.ant-popconfirm:not(.ant-popover-hidden) .fw-confirm-delete').click();
      await rowWith(a.page, 'Neuromancer').waitFor({ state: 'detached' });
      expect(await a.page.evaluate('window.fwFaded'), 'the row faded before it left').to.equal(true);
      expect(await a.page.locator('.ant-pagination-total-text').innerText()).to.equal('Total 4');

      expect(seenA.tables, 'A asked for no table page').to.equal(tablesBefore);
      expect(a.errors).to.deep.equal([]);
    } finally {
      await close();
    }
  });

  it('with a search in force, the server says which of B’s new rows match it (one question at a time): the one that does appears in place, the other is not counted', async () => {
    const bobToken = await apiToken(ui.url, bob.account, bob.password);
    const { context, page, errors } = await openPage(browser());
    const matches: unknown[] = [];
    page.on('request', (r) => {
      if (r.url().endsWith('/fw-api/data/table/Book')) matches.push(JSON.parse(r.postData() ?? '{}'));
    });
    try {
      await openSignedIn(page, ui.url, `/model/Book?s=${encodeURIComponent(JSON.stringify({ title: 'Zen' }))}`, token);
      await live(page);
      await page.locator('.ant-table-placeholder').waitFor();
      const loads = matches.length;
      await add(ui, bobToken, { title: 'Motorcycle Maintenance', genre: 'novel', price: 4, published: '1974-04-01' });
      await add(ui, bobToken, { title: 'Zen and the Art', genre: 'novel', price: 5, published: '1974-04-01' });
      await rowWith(page, 'Zen and the Art').waitFor({ timeout: 15_000 });
      expect(await page.locator('.ant-pagination-total-text').innerText()).to.equal('Total 1');
      await page.waitForTimeout(500);
      expect(await page.locator('.fw-live-show').count(), 'no notice for a row that does not match').to.equal(0);
      expect(await rowWith(page, 'Motorcycle Maintenance').count()).to.equal(0);
      // The question was one request naming the new rows' ids under the search, not a reload.
      const asked = matches.slice(loads) as Array<{ conditions: Array<{ field: string; op: string; value: unknown }> }>;
      expect(asked.length, 'requests for the table after the inserts').to.be.within(1, 2);
      for (const q of asked) expect(q.conditions.at(-1)).to.include({ field: 'id', op: 'in' });

      // A new row deleted while its match is being asked: the answer (read before the delete) does not bring it back.
      let release!: () => void;
      const released = new Promise<void>((resolve) => (release = resolve));
      let held = false;
      await page.route('**/fw-api/data/table/Book', async (route) => {
        if (!(route.request().postData() ?? '').includes('"op":"in"')) return route.continue();
        const response = await route.fetch();
        held = true;
        await released;
        await route.fulfill({ response });
      });
      await add(ui, bobToken, { title: 'Zen Ghost', genre: 'novel', price: 2, published: '2001-01-01' });
      for (let i = 0; i < 300 && !held; i++) await new Promise((r) => setTimeout(r, 50));
      expect(held, 'the match request was sent and answered').to.equal(true);
      const ghost = (await books().where({ title: 'Zen Ghost' }).first()).id as number;
      const del = await fetch(`${ui.url}/fw-api/data/modify/Book/delete`, {
        method: 'POST',
        headers: { token: bobToken, 'content-type': 'application/json' },
        body: JSON.stringify({ ids: [ghost] }),
      });
      expect(del.status).to.equal(200);
      // A row added while that answer is awaited waits for it: one match request at a time.
      const asking = () => matches.filter((m) => JSON.stringify(m).includes('"op":"in"')).length;
      const askedBefore = asking();
      await add(ui, bobToken, { title: 'Zen Later', genre: 'novel', price: 3, published: '2002-02-02' });
      // The delete's and the insert's events reach the page (no sign while the rows are not shown): give them time.
      await page.waitForTimeout(1000);
      expect(asking(), 'a second match request went out while the first was unanswered').to.equal(askedBefore);
      release();
      await rowWith(page, 'Zen Later').waitFor({ timeout: 15_000 });
      await page.waitForTimeout(750);
      expect(await rowWith(page, 'Zen Ghost').count(), 'the deleted row came back with the match answer').to.equal(0);
      expect(await page.locator('.ant-pagination-total-text').innerText()).to.equal('Total 2');
      await page.unroute('**/fw-api/data/table/Book');
      expect(errors).to.deep.equal([]);
    } finally {
      await context.close();
    }
  });

  it('rows B adds on later pages: a notice floats over the table (nothing moves), lists them and opens one — by keyboard', async () => {
    const bobToken = await apiToken(ui.url, bob.account, bob.password);
    const count = async () => Number(((await books().count({ n: '*' })) as Array<{ n: number | string }>)[0]!.n);
    while ((await count()) < 12) await add(ui, token, { title: `Filler ${await count()}`, genre: 'novel', price: 1, published: '2000-01-01' });
    const { context, page, errors } = await openPage(browser());
    try {
      await page.setViewportSize({ width: 1366, height: 900 });
      await openSignedIn(page, ui.url, '/model/Book?size=10', token);
      await live(page);
      await page.locator('.ant-table-tbody tr.ant-table-row').nth(9).waitFor();
      const top = (await page.locator('.ant-table-tbody tr.ant-table-row').first().boundingBox())!.y;
      await add(ui, bobToken, { title: 'Elsewhere One', genre: 'novel', price: 2, published: '2001-01-01' });
      await add(ui, bobToken, { title: 'Elsewhere Two', genre: 'novel', price: 2, published: '2001-01-01' });
      const show = page.locator('.fw-live-show');
      await show.filter({ hasText: '2 new rows' }).waitFor({ timeout: 15_000 });
      expect((await page.locator('.ant-table-tbody tr.ant-table-row').first().boundingBox())!.y, 'the table did not move').to.equal(top);
      expect(await page.locator('.fw-live-fresh-region').getAttribute('role')).to.equal('status');
      expect(await page.locator('.ant-table-tbody tr.ant-table-row').count(), 'page 1 keeps its ten rows').to.equal(10);
      const violations = await axeViolations(page, { include: '.fw-model', impacts: ['minor', 'moderate', 'serious', 'critical'] });
      expect(violations, formatViolations('the model page with the new-rows notice', violations)).to.deep.equal([]);
      await shot(page, join(ui.shots, 'live-new-rows-1366.png'));
      // By keyboard: Enter opens the list with its first row focused; Enter there opens that row.
      await show.focus();
      await page.keyboard.press('Enter');
      const list = page.locator('.fw-live-fresh-list');
      await list.waitFor();
      expect(await list.locator('.fw-live-fresh-row').allInnerTexts()).to.deep.equal(['Elsewhere One', 'Elsewhere Two']);
      await waitUntil(page, `document.activeElement?.textContent === 'Elsewhere One'`, 5000);
      await shot(page, join(ui.shots, 'live-new-rows-list-1366.png'));
      await page.keyboard.press('Enter');
      const details = page.locator('.fw-drawer-details');
      await details.locator('.fw-details', { hasText: 'Elsewhere One' }).waitFor();
      expect(await show.innerText()).to.contain('1 new row');
      await page.keyboard.press('Escape');
      await details.waitFor({ state: 'detached' });
      // The focus is back on the notice it came from, not on the page's body.
      await waitUntil(page, `document.activeElement?.classList.contains('fw-live-show')`, 5000);
      // The page's title is its one h1 (axe's page-has-heading-one).
      expect(await page.locator('h1').allInnerTexts()).to.deep.equal(['Books']);
      // The last listed row opened: the notice goes with it; closing the details leaves the focus
      // on the table's reload button (the notice it came from is gone), not on the page.
      await show.focus();
      await page.keyboard.press('Enter');
      await list.waitFor();
      await waitUntil(page, `document.activeElement?.textContent === 'Elsewhere Two'`, 5000);
      await page.keyboard.press('Enter');
      await details.locator('.fw-details', { hasText: 'Elsewhere Two' }).waitFor();
      await show.waitFor({ state: 'detached' });
      await page.keyboard.press('Escape');
      await details.waitFor({ state: 'detached' });
      await waitUntil(page, `document.activeElement?.classList.contains('fw-table-reload')`, 5000);
      // Dismissed, it goes; the total counted every new row all along.
      await add(ui, bobToken, { title: 'Elsewhere Three', genre: 'novel', price: 2, published: '2001-01-01' });
      await show.filter({ hasText: '1 new row' }).waitFor({ timeout: 15_000 });
      await page.locator('.fw-live-dismiss').click();
      await show.waitFor({ state: 'detached' });
      expect(await page.locator('.ant-pagination-total-text').innerText()).to.equal(`Total ${await count()}`);
      expect(errors).to.deep.equal([]);
    } finally {
      await context.close();
    }
  });

  it('a table load in flight when B deletes a row and changes another does not bring back either: the events apply to what it brings', async () => {
    const bobToken = await apiToken(ui.url, bob.account, bob.password);
    const post = (path: string, body: unknown) => modify(ui, bobToken, path, body);
    await add(ui, bobToken, { title: 'Ulysses One', genre: 'novel', price: 5, published: '1922-02-02' });
    const { context, page } = await openPage(browser());
    try {
      await openSignedIn(page, ui.url, `/model/Book?s=${encodeURIComponent(JSON.stringify({ title: 'Ulysses' }))}`, token);
      await live(page);
      await rowWith(page, 'Ulysses One').waitFor();
      await add(ui, bobToken, { title: 'Ulysses Two', genre: 'novel', price: 6, published: '1922-02-02' });
      await rowWith(page, 'Ulysses Two').waitFor({ timeout: 15_000 });
      // The next table load reads the table at once (both rows, the old price) and answers only
      // when released: a load that read before B's changes and lands after their events.
      let loads = 0;
      let release!: () => void;
      const released = new Promise<void>((resolve) => (release = resolve));
      let landed!: () => void;
      const fulfilled = new Promise<void>((resolve) => (landed = resolve));
      await page.route('**/fw-api/data/table/Book', async (route) => {
        loads += 1;
        if (loads > 1) return route.continue();
        const response = await route.fetch();
        await released;
        await route.fulfill({ response });
        landed();
      });
      await page.getByRole('button', { name: 'Reload' }).click();
      for (let i = 0; i < 300 && loads === 0; i++) await new Promise((r) => setTimeout(r, 50));
      expect(loads, 'the table was loaded again after "Reload"').to.equal(1);
      const two = await books().where({ title: 'Ulysses Two' }).first();
      const one = await books().where({ title: 'Ulysses One' }).first();
      await post('/delete', { ids: [two.id] });
      await post('/update-cell', { id: one.id, field: 'price', value: 7.25 });
      // The update's event comes after the delete's on the stream: once A shows the new price,
      // both reached the page while the load was held.
      await waitUntil(
        page,
        `[...document.querySelectorAll('tr')].some((tr) => tr.textContent.includes('Ulysses One') && tr.querySelector('td.fw-col-price')?.textContent.includes('7.25'))`,
        15_000,
      );
      release();
      await fulfilled;
      // The held answer is in the page: give it time to render what it would.
      await page.waitForTimeout(750);
      expect(await rowWith(page, 'Ulysses Two').count(), 'the deleted row came back with the older load').to.equal(0);
      expect(await cell(page, 'Ulysses One', 'price').innerText(), 'the older load put the old price back').to.contain('7.25');
      expect(loads, 'no load was sent again for it').to.equal(1);
    } finally {
      await context.close();
    }
  });

  it('B deletes two rows and puts them back at once (Undo while they fade): on A’s page they stay, elsewhere the total and the notice are untouched', async () => {
    const bobToken = await apiToken(ui.url, bob.account, bob.password);
    const post = (path: string, body: unknown) => modify(ui, bobToken, path, body);
    await add(ui, bobToken, { title: 'Odyssey Back', genre: 'poetry', price: 4, published: '1900-01-01' });
    await add(ui, bobToken, { title: 'Iliad Back', genre: 'poetry', price: 4, published: '1900-01-01' });
    const ids = (await books().whereIn('title', ['Odyssey Back', 'Iliad Back'])).map((r) => r.id as number);
    // The rows on A's page (all of the table), then on a page of two that does not hold them.
    for (const [path, onPage, price] of [
      ['/model/Book', true, '11.5'],
      ['/model/Book?size=2', false, '12.5'],
    ] as const) {
      const { context, page } = await openPage(browser());
      try {
        await openSignedIn(page, ui.url, path, token);
        await live(page);
        const first = page.locator('.ant-table-tbody tr.ant-table-row').first();
        await first.waitFor();
        const firstTitle = (await first.locator('td.fw-col-title').innerText()).trim();
        const firstId = (await books().where({ title: firstTitle }).first()).id as number;
        const total = await page.locator('.ant-pagination-total-text').innerText();
        await post('/delete', { ids });
        await post('/undelete', { ids });
        // Then a change A sees on its page: the stream is in order, so once A shows it, the delete
        // and the put-back reached A (within well under the fade's 0.6 s of each other).
        await post('/update-cell', { id: firstId, field: 'price', value: Number(price) });
        await waitUntil(page, `document.querySelector('.ant-table-tbody tr.ant-table-row td.fw-col-price')?.textContent.includes(${JSON.stringify(price)})`, 15_000);
        // Past the fade: the rows were put back, so they stay, and the total with them.
        await page.waitForTimeout(1500);
        if (onPage) {
          expect(await rowWith(page, 'Odyssey Back').count(), 'a row put back left A’s table when its fade ended').to.equal(1);
          expect(await rowWith(page, 'Iliad Back').count(), 'a row put back left A’s table when its fade ended').to.equal(1);
          expect(await page.locator('tr.fw-live-leaving').count(), 'a row put back still looks as if it were leaving').to.equal(0);
        }
        expect(await page.locator('.ant-pagination-total-text').innerText(), `the total on ${path}`).to.equal(total);
        expect(await page.locator('.fw-live-show').count(), `rows put back listed as new on ${path}`).to.equal(0);
      } finally {
        await context.close();
      }
    }
  });

  it('on a phone: A’s open cell editor shows B’s new value before A saves; the conflict dialog stays the last guard', async () => {
    const { a, b, close } = await twoPages(390);
    try {
      await cell(a.page, 'Solaris', 'price').dblclick();
      const editor = a.page.locator('.fw-cell-editor[data-field="price"]');
      const input = editor.locator('.ant-input-number input');
      await input.fill('20');
      const inputAt = (await input.boundingBox())!;
      await editCell(b.page, 'Solaris', 'price', '15');
      const note = editor.locator('.fw-live-note');
      await note.waitFor({ timeout: 15_000 });
      // The note hangs below the editor: the input A types into has not moved.
      expect(await input.boundingBox(), 'the input moved when the note came').to.deep.equal(inputAt);
      expect(await note.getAttribute('role'), 'a polite note, not an alert').to.equal('status');
      expect(await note.innerText()).to.contain('bob changed this cell meanwhile');
      expect(await note.locator('.fw-live-note-value').innerText()).to.equal('15');
      const violations = await axeViolations(a.page, { include: '.fw-cell-editor', impacts: ['minor', 'moderate', 'serious', 'critical'] });
      expect(violations, formatViolations('the cell editor with a live note', violations)).to.deep.equal([]);
      await shot(a.page, join(ui.shots, 'live-editor-390.png'));
      const box = (await editor.boundingBox())!;
      expect(box.x + box.width).to.be.at.most(390);
      // Saving anyway still meets the server's check: the dialog with both values.
      await input.focus();
      await input.press('Enter');
      const dialog = a.page.locator('.fw-stale-dialog');
      await dialog.waitFor();
      // The editor waits under the dialog's mask, unusable until the dialog decides.
      expect(await a.page.evaluate(`(() => { const e = document.querySelector('.fw-cell-editor'); return { inert: e.inert, z: getComputedStyle(e).zIndex }; })()`)).to.deep.equal({
        inert: true,
        z: '999',
      });
      await dialog.locator('.fw-stale-keep').click();
      await dialog.waitFor({ state: 'detached' });
      expect((await books().where({ title: 'Solaris' }).first()).price).to.equal(15);

      // "Use this value" puts B's value in and makes it the expected one: Enter then saves nothing.
      // By keyboard: while the note shows, Tab goes to its button instead of saving and moving on.
      await cell(a.page, 'Solaris', 'price').dblclick();
      await editCell(b.page, 'Solaris', 'price', '16');
      await note.waitFor({ timeout: 15_000 });
      expect(await editor.locator('.fw-cell-editor-hint').innerText()).to.contain('Tab: to “Use this value”');
      await input.press('Tab');
      expect(await a.page.evaluate(`document.activeElement?.classList.contains('fw-live-take')`)).to.equal(true);
      await a.page.keyboard.press('Enter');
      expect(await input.inputValue()).to.equal('16');
      await waitUntil(a.page, `document.activeElement === document.querySelector('.fw-cell-editor .ant-input-number input')`, 5000);
      await input.press('Escape');
      await editor.waitFor({ state: 'detached' });
    } finally {
      await close();
    }
  });

  it('A’s edit form says which fields B changed; "Load their changes" keeps A’s own edits and saves', async () => {
    const { a, b, close } = await twoPages(1366);
    try {
      await (await rowAction(a.page, rowWith(a.page, 'Foundation'), 'fw-row-edit')).click();
      const drawer = a.page.locator('.fw-drawer-edit');
      await drawer.locator('input#row-edit_title').fill('Foundation (1951)');
      // Where the field is once the drawer has slid in.
      await waitUntil(a.page, `document.getAnimations().every((x) => x.playState !== 'running')`, 5000);
      const titleAt = (await drawer.locator('input#row-edit_title').boundingBox())!;
      await editCell(b.page, 'Foundation', 'price', '11');
      const note = drawer.locator('.fw-live-row-changed');
      await note.waitFor({ timeout: 15_000 });
      // The note is in the drawer's footer: the field A types into has not moved.
      expect(await drawer.locator('.ant-drawer-footer .fw-live-row-changed').count()).to.equal(1);
      expect(await drawer.locator('input#row-edit_title').boundingBox(), 'the title field moved when the note came').to.deep.equal(titleAt);
      expect(await note.innerText()).to.contain('bob changed this row while you were editing it');
      expect(await note.locator('.ant-descriptions-item-content').innerText()).to.equal('11');
      const violations = await axeViolations(a.page, { include: '.fw-drawer-edit', impacts: ['minor', 'moderate', 'serious', 'critical'] });
      expect(violations, formatViolations('the edit form with a live note', violations)).to.deep.equal([]);
      await shot(a.page, join(ui.shots, 'live-form-1366.png'));
      // By keyboard: Enter on "Load their changes"; the focus goes to the field it loaded.
      await note.locator('.fw-live-load').focus();
      await a.page.keyboard.press('Enter');
      await note.waitFor({ state: 'detached' });
      expect(await drawer.locator('.ant-input-number input').first().inputValue()).to.equal('11');
      await waitUntil(a.page, `document.activeElement?.id === 'row-edit_price'`, 5000);
      expect(await drawer.locator('input#row-edit_title').inputValue()).to.equal('Foundation (1951)');
      await drawer.locator('.ant-drawer-extra .ant-btn-primary').click();
      await drawer.waitFor({ state: 'detached' });
      const row = await books()
        .where({ id: (await books().where({ title: 'Foundation (1951)' }).first()).id })
        .first();
      expect([row.title, row.price]).to.deep.equal(['Foundation (1951)', 11]);
    } finally {
      await close();
    }
  });

  it('A saves over B’s change anyway: one warning, not two, and "Load the current values" keeps A’s typed edits', async () => {
    const bobToken = await apiToken(ui.url, bob.account, bob.password);
    await add(ui, token, { title: 'Kindred', genre: 'novel', price: 6, published: '1979-06-01' });
    const id = (await books().where({ title: 'Kindred' }).first()).id as number;
    const { context, page } = await openPage(browser());
    try {
      page.setDefaultTimeout(30_000);
      await openSignedIn(page, ui.url, '/model/Book', token);
      await live(page);
      await (await rowAction(page, rowWith(page, 'Kindred'), 'fw-row-edit')).click();
      const drawer = page.locator('.fw-drawer-edit');
      await drawer.locator('input#row-edit_title').fill('Kindred (revised)');
      const res = await fetch(`${ui.url}/fw-api/data/modify/Book/update-cell`, {
        method: 'POST',
        headers: { token: bobToken, 'content-type': 'application/json' },
        body: JSON.stringify({ id, field: 'price', value: 13 }),
      });
      expect(res.status).to.equal(200);
      await drawer.locator('.fw-live-row-changed').waitFor({ timeout: 15_000 });
      // Saved anyway: the server refuses (the row's version moved); its warning replaces the live note.
      await drawer.locator('.ant-drawer-extra .ant-btn-primary').click();
      await drawer.locator('.fw-stale').waitFor();
      expect(await drawer.locator('.fw-live-row-changed').count(), 'two warnings at once').to.equal(0);
      await drawer.locator('.fw-stale-load').click();
      await drawer.locator('.fw-stale').waitFor({ state: 'detached' });
      expect(await drawer.locator('input#row-edit_title').inputValue(), 'the typed title was dropped').to.equal('Kindred (revised)');
      expect(await drawer.locator('#row-edit_price').inputValue()).to.equal('13');
      await waitUntil(page, `document.activeElement?.id === 'row-edit_price'`, 5000);
      await drawer.locator('.ant-drawer-extra .ant-btn-primary').click();
      await drawer.waitFor({ state: 'detached' });
      const row = await books().where({ id }).first();
      expect([row.title, row.price]).to.deep.equal(['Kindred (revised)', 13]);
    } finally {
      await context.close();
    }
  });

  it('B deletes the row under A’s cell editor: it says so, stops editing, keeps the focus inside, and Enter closes without a request', async () => {
    const bobToken = await apiToken(ui.url, bob.account, bob.password);
    await add(ui, token, { title: 'Doomed Row', genre: 'novel', price: 3, published: '1990-01-01' });
    const id = (await books().where({ title: 'Doomed Row' }).first()).id as number;
    const { context, page, errors } = await openPage(browser());
    const writes: string[] = [];
    page.on('request', (r) => {
      if (r.url().includes('/fw-api/data/modify/')) writes.push(r.url());
    });
    try {
      page.setDefaultTimeout(30_000);
      await openSignedIn(page, ui.url, '/model/Book', token);
      await live(page);
      await cell(page, 'Doomed Row', 'price').dblclick();
      const editor = page.locator('.fw-cell-editor[data-field="price"]');
      await editor.locator('.ant-input-number input').fill('4');
      const res = await fetch(`${ui.url}/fw-api/data/modify/Book/delete`, {
        method: 'POST',
        headers: { token: bobToken, 'content-type': 'application/json' },
        body: JSON.stringify({ ids: [id] }),
      });
      expect(res.status).to.equal(200);
      const note = editor.locator('.fw-live-note');
      await note.waitFor({ timeout: 15_000 });
      expect(await note.innerText()).to.contain('bob deleted this row meanwhile');
      expect(await editor.locator('.ant-input-number input').isDisabled()).to.equal(true);
      await waitUntil(page, `document.activeElement?.classList.contains('fw-live-close')`, 5000);
      await page.keyboard.press('Enter');
      await editor.waitFor({ state: 'detached' });
      expect(writes, 'nothing was sent for the deleted row').to.deep.equal([]);
      // The focus goes to the same column of the row beside, not to the page's body.
      const focused = `(() => { const td = document.activeElement?.closest('td[data-fw-cell]'); return td ? { col: td.dataset.fwCol, row: td.closest('tr').dataset.rowKey } : null; })()`;
      await rowWith(page, 'Doomed Row').waitFor({ state: 'detached' });
      await waitUntil(page, `(${focused})?.col === 'price'`, 5000);
      expect(((await page.evaluate(focused)) as { row: string }).row).to.not.equal(String(id));

      // A focused cell (no editor) of a row B deletes: the focus moves to the row beside as it leaves.
      const other = (await page.evaluate(focused)) as { col: string; row: string };
      await fetch(`${ui.url}/fw-api/data/modify/Book/delete`, {
        method: 'POST',
        headers: { token: bobToken, 'content-type': 'application/json' },
        body: JSON.stringify({ ids: [Number(other.row)] }),
      });
      await waitUntil(page, `(${focused})?.row !== ${JSON.stringify(other.row)} && (${focused})?.col === 'price'`, 10_000);
      expect(errors).to.deep.equal([]);
    } finally {
      await context.close();
    }
  });

  it('a yes/no cell by keyboard: Enter saves the switch (it does not flip it back); with a live note Tab reaches "Use this value" and Enter there returns to the switch', async () => {
    const bobToken = await apiToken(ui.url, bob.account, bob.password);
    await add(ui, token, { title: 'Switch Row', genre: 'novel', price: 3, published: '1990-01-01', inPrint: true });
    const id = (await books().where({ title: 'Switch Row' }).first()).id as number;
    const { context, page, errors } = await openPage(browser());
    try {
      page.setDefaultTimeout(30_000);
      await openSignedIn(page, ui.url, `/model/Book?s=${encodeURIComponent(JSON.stringify({ title: 'Switch Row' }))}`, token);
      await live(page);
      await cell(page, 'Switch Row', 'inPrint').focus();
      await page.keyboard.press('Enter');
      const editor = page.locator('.fw-cell-editor[data-field="inPrint"]');
      await editor.waitFor();
      await waitUntil(page, `document.activeElement?.getAttribute('role') === 'switch'`, 5000);
      await page.keyboard.press('Space');
      await page.keyboard.press('Enter');
      await editor.waitFor({ state: 'detached' });
      const stored = async () => Boolean((await books().where({ id }).first()).inPrint);
      for (let i = 0; i < 50 && (await stored()); i++) await new Promise((r) => setTimeout(r, 100));
      expect(await stored(), 'Enter saved the switched-off value').to.equal(false);

      await cell(page, 'Switch Row', 'inPrint').focus();
      await page.keyboard.press('Enter');
      await editor.waitFor();
      const res = await fetch(`${ui.url}/fw-api/data/modify/Book/update-cell`, {
        method: 'POST',
        headers: { token: bobToken, 'content-type': 'application/json' },
        body: JSON.stringify({ id, field: 'inPrint', value: true }),
      });
      expect(res.status).to.equal(200);
      await editor.locator('.fw-live-note').waitFor({ timeout: 15_000 });
      await waitUntil(page, `document.activeElement?.getAttribute('role') === 'switch'`, 5000);
      await page.keyboard.press('Tab');
      await waitUntil(page, `document.activeElement?.classList.contains('fw-live-take')`, 5000);
      await page.keyboard.press('Shift+Tab');
      await waitUntil(page, `document.activeElement?.getAttribute('role') === 'switch'`, 5000);
      await page.keyboard.press('Tab');
      await page.keyboard.press('Enter');
      await editor.locator('.fw-live-note').waitFor({ state: 'detached' });
      await waitUntil(page, `document.activeElement?.getAttribute('role') === 'switch' && document.activeElement.getAttribute('aria-checked') === 'true'`, 5000);
      expect(await editor.count(), 'the editor is still open').to.equal(1);
      await page.keyboard.press('Escape');
      await editor.waitFor({ state: 'detached' });
      expect(errors).to.deep.equal([]);
    } finally {
      await context.close();
    }
  });

  it('the stream cannot open: "Reconnecting…" with "Reconnect now", which goes away once the stream is back and leaves the focus on the reload button (pressed, or not)', async () => {
    for (const press of [true, false]) {
      const { context, page, errors } = await openPage(browser());
      try {
        // The stream's requests fail until `blocked` is lifted.
        let blocked = true;
        await page.route('**/fw-api/data/events/Book', (route) => (blocked ? route.abort('failed') : route.continue()));
        await openSignedIn(page, ui.url, '/model/Book', token);
        await page.locator('.fw-live-status[data-status="retrying"]').waitFor({ timeout: 15_000 });
        expect(await page.locator('.fw-live-status').innerText()).to.equal('Reconnecting…');
        const retry = page.locator('.fw-live-retry');
        await retry.focus();
        blocked = false;
        // Pressed: it tries at once. Not pressed: the next try on its own reconnects, and the
        // button, which had the focus, goes: the focus is not dropped to the page.
        if (press) await page.keyboard.press('Enter');
        await live(page);
        expect(await retry.count()).to.equal(0);
        await waitUntil(page, `document.activeElement?.classList.contains('fw-table-reload')`, 5000);
        expect(errors).to.deep.equal([]);
      } finally {
        await context.close();
      }
    }
  });

  it('a reference someone else set shows by its label, asked for by id (no table page)', async () => {
    const { context, page } = await openPage(browser());
    const seen = { tables: 0 };
    page.on('request', (r) => {
      if (r.url().endsWith('/fw-api/data/table/Author')) seen.tables += 1;
    });
    try {
      const res = await fetch(`${ui.url}/fw-api/data/modify/Author`, {
        method: 'POST',
        headers: { token, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'Le Guin' }),
      });
      expect(res.status).to.equal(200);
      await openSignedIn(page, ui.url, '/model/Author', token);
      await live(page);
      await rowWith(page, 'Le Guin').waitFor();
      const before = seen.tables;
      const author = (await ui.demo.store.knex('demo_author').where({ name: 'Le Guin' }).first()).id as number;
      const book = (await books().where({ title: 'Walden' }).first()).id as number;
      // Another session of the administrator: the label is needed whoever changed the value.
      const other = await apiToken(ui.url);
      const set = await fetch(`${ui.url}/fw-api/data/modify/Author/update-cell`, {
        method: 'POST',
        headers: { token: other, 'content-type': 'application/json' },
        body: JSON.stringify({ id: author, field: 'favouriteBookId', value: book, expect: null }),
      });
      expect(set.status, await set.clone().text()).to.equal(200);
      await waitUntil(
        page,
        `[...document.querySelectorAll('tr')].some((tr) => tr.textContent.includes('Le Guin') && tr.querySelector('td.fw-col-favouriteBookId')?.textContent === 'Walden')`,
        15_000,
      );
      expect(seen.tables).to.equal(before);
    } finally {
      await context.close();
    }
  });

  it('at 390 px the columns fixed to the sides stay opaque while a row arrives or fades out: what scrolls beneath never shows through', async () => {
    const { a, b, close } = await twoPages(390);
    try {
      // Scrolled sideways, as a person on a phone reads the price: the title runs beneath the fixed key column.
      await cell(a.page, 'Walden', 'price').scrollIntoViewIfNeeded();
      // In A's page: when a row gets the mark, its animations are stopped at 1.5 s (the arrival's
      // colour half gone) or at their end (the fade's last frame), and the fixed cells are read then.
      await a.page.evaluate(`(() => {
        window.fwFixed = {};
        const read = (tr, kind, at) => {
          for (const td of tr.querySelectorAll('td')) for (const anim of td.getAnimations({ subtree: true })) { anim.pause(); anim.currentTime = at; }
          const fixed = [...tr.querySelectorAll('td[class*="ant-table-cell-fix"]')];
          window.fwFixed[kind] = {
            fixed: fixed.length,
            cells: fixed.map((td) => { const cs = getComputedStyle(td); return { opacity: cs.opacity, background: cs.backgroundColor }; }),
            // The faded row's contents: the text colour of a cell and the opacity of what it holds.
            title: (() => { const td = tr.querySelector('td.fw-col-title'); const child = td && td.firstElementChild; return td && { color: getComputedStyle(td).color, child: child ? getComputedStyle(child).opacity : null }; })(),
          };
          for (const td of tr.querySelectorAll('td')) for (const anim of td.getAnimations({ subtree: true })) anim.play();
        };
        // A new row may come with its mark already on (no change of class to observe): every
        // change looks for the row afresh.
        new MutationObserver(() => {
          const tr = [...document.querySelectorAll('tr.fw-live-arrived, tr.fw-live-leaving')].find((r) => r.textContent.includes('Opaque Fixed'));
          if (!tr) return;
          if (tr.classList.contains('fw-live-arrived') && !window.fwFixed.arrived) read(tr, 'arrived', 1500);
          if (tr.classList.contains('fw-live-leaving') && !window.fwFixed.leaving) read(tr, 'leaving', 600);
        }).observe(document.body, { subtree: true, childList: true, attributes: true, attributeFilter: ['class'] });
      })()`);
      await b.page.locator('.fw-add').click();
      await b.page.locator('.fw-drawer-add input#row-add_title').fill('Opaque Fixed');
      await b.page.locator('.fw-drawer-add .ant-drawer-extra .ant-btn-primary').click();
      await b.page.locator('.fw-drawer-add').waitFor({ state: 'detached' });
      await waitUntil(a.page, 'Boolean(window.fwFixed.arrived)', 15_000);
      await (await rowAction(b.page, rowWith(b.page, 'Opaque Fixed'), 'fw-row-delete')).click();
      await b.page.locator('.ant-popconfirm:not(.ant-popover-hidden) .fw-confirm-delete').click();
      await waitUntil(a.page, 'Boolean(window.fwFixed.leaving)', 15_000);
      type Seen = { fixed: number; cells: Array<{ opacity: string; background: string }>; title: { color: string; child: string | null } | null };
      const seen = (await a.page.evaluate('window.fwFixed')) as { arrived: Seen; leaving: Seen };
      const opaque = (background: string) => /^rgb\(/.test(background) || /^rgba\(.*,\s*1\)$/.test(background);
      for (const kind of ['arrived', 'leaving'] as const) {
        expect(seen[kind].fixed, `${kind}: the row has fixed cells at 390 px`).to.be.at.least(2);
        for (const c of seen[kind].cells) {
          expect(c.opacity, `${kind}: a fixed cell's opacity`).to.equal('1');
          expect(opaque(c.background), `${kind}: a fixed cell's background ${c.background}`).to.equal(true);
        }
      }
      // The leaving row did fade: at the end its title's text is transparent (and what it holds too).
      const title = seen.leaving.title!;
      expect(title.color, 'the faded title text').to.match(/rgba\(.*,\s*0\)$/);
      if (title.child !== null) expect(title.child).to.equal('0');
      await rowWith(a.page, 'Opaque Fixed').waitFor({ state: 'detached' });
    } finally {
      await close();
    }
  });

  it('in Chinese at 390 px, with reduced motion: the mark holds still, the notice and a failed save speak Chinese, a long cell’s editor fits the screen', async () => {
    const long = 'A Very Long Title That Runs Far Beyond What A Phone Shows In One Line Of The Table';
    await add(ui, token, { title: long, genre: 'novel', price: 9, published: '2010-01-01' });
    const { a, b, close } = await twoPages(390, 'zh-CN');
    try {
      await a.page.emulateMedia({ reducedMotion: 'reduce' });
      expect(await a.page.locator('.fw-live-status').innerText()).to.equal('实时');
      // The price column is off screen on a phone: shown first, so the mark is in the picture.
      await cell(a.page, 'Walden', 'price').scrollIntoViewIfNeeded();
      const waldenMarked = await watchMark(a.page, 'Walden', 'price', '4');
      // Reduced motion: the marked cell has no animation (noted in the page while it is marked).
      await a.page.evaluate(`new MutationObserver(() => {
        const td = document.querySelector('td.fw-live-changed');
        if (td) window.fwMarkAnimation = getComputedStyle(td).animationName;
      }).observe(document.body, { subtree: true, attributes: true, attributeFilter: ['class'] })`);
      await editCell(b.page, 'Walden', 'price', '4');
      await waitUntil(a.page, waldenMarked, 10_000);
      await a.page.screenshot({ path: join(ui.shots, 'live-changed-zh-CN-390.png') });
      expect(await a.page.evaluate('window.fwMarkAnimation')).to.equal('none');
      // The server cannot be reached: the editor says so in Chinese (not the browser's "Failed to fetch").
      await a.page.route('**/fw-api/data/modify/Book/update-cell', (route) => route.abort('failed'));
      await cell(a.page, 'Walden', 'price').dblclick();
      const editor = a.page.locator('.fw-cell-editor[data-field="price"]');
      await editor.locator('.ant-input-number input').fill('5');
      await editor.locator('.ant-input-number input').press('Enter');
      await editor.locator('.fw-cell-editor-error').waitFor();
      expect(await editor.locator('.fw-cell-editor-error').innerText()).to.equal('无法连接服务器：未保存任何内容。请稍后重试。');
      await a.page.unroute('**/fw-api/data/modify/Book/update-cell');
      await editor.locator('.ant-input-number input').press('Escape');
      await editor.waitFor({ state: 'detached' });
      // A long title's editor stays within the phone's width.
      await a.page.goto(`${ui.url}/model/Book?s=${encodeURIComponent(JSON.stringify({ title: 'Very Long Title' }))}`);
      await live(a.page);
      await cell(a.page, long, 'title').dblclick();
      const titleEditor = a.page.locator('.fw-cell-editor[data-field="title"]');
      await titleEditor.waitFor();
      const box = (await titleEditor.boundingBox())!;
      expect(box.x, 'the editor starts left of the screen').to.be.at.least(0);
      expect(box.x + box.width, 'the editor ends right of the screen').to.be.at.most(390);
      await shot(a.page, join(ui.shots, 'live-long-editor-zh-CN-390.png'));
      await titleEditor.locator('input').press('Escape');
      // Page 1 of several: B's new row belongs at the end, so the notice says so, in Chinese.
      await a.page.goto(`${ui.url}/model/Book?size=10`);
      await live(a.page);
      await b.page.locator('.fw-add').click();
      await b.page.locator('.fw-drawer-add input#row-add_title').fill('Walden Two');
      await b.page.locator('.fw-drawer-add .ant-drawer-extra .ant-btn-primary').click();
      await a.page.locator('.fw-live-show').waitFor({ timeout: 15_000 });
      expect(await a.page.locator('.fw-live-show').innerText()).to.contain('有 1 条新记录');
      const pill = (await a.page.locator('.fw-live-fresh').boundingBox())!;
      expect(pill.x >= 0 && pill.x + pill.width <= 390, 'the notice fits the phone').to.equal(true);
      // Nothing of the table (its fixed key column's header) is drawn over the notice.
      const over = await a.page.evaluate(
        `(() => { const r = document.querySelector('.fw-live-show').getBoundingClientRect(); return [r.left + 3, r.right - 3].map((x) => document.elementFromPoint(x, r.top + r.height / 2)?.closest('.fw-live-fresh') !== null); })()`,
      );
      expect(over, 'the notice’s two ends are on top').to.deep.equal([true, true]);
      await shot(a.page, join(ui.shots, 'live-new-rows-zh-CN-390.png'));
      // Nothing slides in either: the add drawer is there at once, with no animation or
      // transition running (antd's motion is off, app.css ends the rest; motion.ts).
      await a.page.locator('.fw-add').click();
      const running = await a.page.evaluate(`(() => {
        const drawer = document.querySelector('.fw-drawer-add');
        return { drawer: !!drawer, running: document.getAnimations().filter((x) => x.playState === 'running').length };
      })()`);
      expect(running).to.deep.equal({ drawer: true, running: 0 });
      await a.page.locator('.fw-drawer-add input#row-add_title').waitFor();
    } finally {
      await close();
    }
  });
  it('on a full last page, B’s new row appears at its end: the page never empties (antd’s pager cut a page longer than its size)', async () => {
    // Books up to a whole number of pages of 10, then A on the last one.
    const count = async () => Number(((await books().count({ n: '*' })) as Array<{ n: number | string }>)[0]!.n);
    while ((await count()) % 10 !== 0 || (await count()) < 20) await add(ui, token, { title: `Filler ${await count()}`, genre: 'novel', price: 1, published: '2000-01-01' });
    const pages = (await count()) / 10;
    const { context, page } = await openPage(browser());
    try {
      await openSignedIn(page, ui.url, `/model/Book?page=${pages}&size=10`, token);
      await live(page);
      await page.locator('.ant-table-tbody tr.ant-table-row').nth(9).waitFor();
      await add(ui, token, { title: 'Last Page Arrival', genre: 'novel', price: 2, published: '2001-01-01' });
      await rowWith(page, 'Last Page Arrival').waitFor({ timeout: 15_000 });
      expect(await page.locator('.ant-table-tbody tr.ant-table-row').count(), 'the ten rows and the new one').to.equal(11);
      expect(await page.locator('.ant-table-tbody tr.ant-table-row').last().innerText()).to.contain('Last Page Arrival');
      // The pager knows there is one row more: a next page now exists.
      expect(await page.locator('.ant-pagination-total-text').innerText()).to.equal(`Total ${pages * 10 + 1}`);
      expect(await page.locator(`.ant-pagination-item-${pages + 1}`).count()).to.equal(1);
    } finally {
      await context.close();
    }
  });
});
