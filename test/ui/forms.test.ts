// The row drawer and the table's buttons as a person uses them: add (a rule refused in the
// browser, then one only the server knows, shown on its field), edit (with the row version, and
// a stale form), details, copy, print, delete, export and import. Each checks the database too.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { describeBrowser } from '@fw/test-utils';
import { apiToken, openPage, openSignedIn, rowWith, shot, startDemo, waitUntil, type UiDemo } from './support.js';

/** Adds a row through the API (test set-up), returning it. */
async function add(ui: UiDemo, token: string, fw: string, row: Record<string, unknown>): Promise<Record<string, unknown> & { id: number }> {
  const res = await fetch(`${ui.url}/fw-api/data/modify/${fw}`, { method: 'POST', headers: { token, 'content-type': 'application/json' }, body: JSON.stringify(row) });
  expect(res.status, await res.clone().text()).to.equal(200);
  return (await res.json()) as Record<string, unknown> & { id: number };
}

/** The error shown under a form field of the open drawer. */
async function fieldError(page: Page, field: string): Promise<string> {
  const explain = page.locator(`.ant-drawer .fw-field-${field} .ant-form-item-explain-error`);
  await explain.first().waitFor();
  return (await explain.allInnerTexts()).join(' ');
}

describeBrowser('admin UI: forms and row buttons', (browser) => {
  let ui: UiDemo;
  let token: string;
  before(async () => {
    ui = await startDemo();
    token = await apiToken(ui.url);
  });
  after(async () => {
    await ui?.close();
  });

  const projects = () => ui.demo.store.knex(ui.demo.registry.get('Project')!.table);
  const books = () => ui.demo.store.knex(ui.demo.registry.get('Book')!.table);

  it('adds a row: the browser refuses a missing required value, the server a broken rule, shown on their fields; fixed, it is stored', async () => {
    const { context, page } = await openPage(browser());
    const posts: unknown[] = [];
    page.on('request', (r) => {
      if (r.method() === 'POST' && r.url().endsWith('/fw-api/data/modify/Project')) posts.push(r.postDataJSON());
    });
    try {
      await openSignedIn(page, ui.url, '/model/Project', token);
      await page.locator('.fw-add').click();
      await page.locator('.ant-drawer-title', { hasText: 'Add Project' }).waitFor();
      // Required marks come from notNull.
      expect(await page.locator('.ant-drawer .fw-field-name .ant-form-item-required').count()).to.equal(1);
      expect(await page.locator('.ant-drawer .fw-field-budget .ant-form-item-required').count()).to.equal(0);
      await page.getByRole('button', { name: 'Save' }).click();
      expect(await fieldError(page, 'name')).to.equal('Name is required');
      expect(await fieldError(page, 'startDate')).to.equal('Start is required');
      expect(posts, 'nothing is sent while the browser can tell').to.deep.equal([]);

      // A budget without an end date: a dynamic rule that only the server runs.
      await page.locator('#row-add_name').fill('Gemini');
      await page.locator('#row-add_startDate').fill('2025-01-10');
      await page.keyboard.press('Enter');
      await page.locator('#row-add_budget').fill('500');
      await page.getByRole('button', { name: 'Save' }).click();
      expect(await fieldError(page, 'budget')).to.equal('a budget needs an end date');
      await shot(page, join(ui.shots, 'add-refused.png'));
      expect(posts).to.have.length(1);
      expect(await projects().where({ name: 'Gemini' })).to.deep.equal([]);

      await page.locator('#row-add_endDate').fill('2025-12-31');
      await page.keyboard.press('Enter');
      await page.getByRole('button', { name: 'Save' }).click();
      await page.locator('.ant-drawer').waitFor({ state: 'hidden' });
      await rowWith(page, 'Gemini').waitFor();
      const stored = await projects().where({ name: 'Gemini' });
      expect(stored).to.have.length(1);
      expect(stored[0]).to.include({ budget: 500 });
      expect(String(stored[0]!.end_date ?? stored[0]!.endDate)).to.contain('2025-12-31');
    } finally {
      await context.close();
    }
  });

  it('edits a row with the version it read; a row changed meanwhile shows its current values and can be reloaded', async () => {
    const book = await add(ui, token, 'Book', { title: 'Emma', genre: 'novel', price: 4 });
    const { context, page } = await openPage(browser());
    const ifMatch: Array<string | undefined> = [];
    page.on('request', (r) => {
      if (r.url().endsWith('/fw-api/data/modify/Book/update')) ifMatch.push(r.headers()['if-match']);
    });
    try {
      await openSignedIn(page, ui.url, '/model/Book', token);
      await rowWith(page, 'Emma').locator('.fw-row-edit').click();
      await page.locator('.ant-drawer-title', { hasText: `Edit Book #${book.id}` }).waitFor();
      await waitUntil(page, `document.querySelector('#row-edit_title')?.value === 'Emma'`);
      // Someone else saves first.
      await books().where({ id: book.id }).update({ price: 6 });
      await page.locator('#row-edit_title').fill('Emma (1815)');
      await page.getByRole('button', { name: 'Save' }).click();
      const stale = page.locator('.fw-stale');
      await stale.waitFor();
      expect(await stale.innerText()).to.contain('Someone changed this row');
      expect(await stale.locator('.ant-descriptions-item', { hasText: 'Price' }).innerText()).to.contain('6');
      expect((await books().where({ id: book.id }).first()).title).to.equal('Emma');
      await stale.getByRole('button', { name: 'Load the current values' }).click();
      expect(await page.locator('#row-edit_price').inputValue()).to.equal('6');
      // Only what changed since the form opened is loaded: the title the person typed stays.
      expect(await page.locator('#row-edit_title').inputValue()).to.equal('Emma (1815)');
      await page.getByRole('button', { name: 'Save' }).click();
      await page.locator('.ant-drawer').waitFor({ state: 'hidden' });
      await rowWith(page, 'Emma (1815)').waitFor();
      expect(await books().where({ id: book.id }).first()).to.include({ title: 'Emma (1815)', price: 6 });
      expect(ifMatch).to.have.length(2);
      for (const v of ifMatch) expect(v).to.match(/^"[A-Za-z0-9_-]{22}"$/);
      expect(ifMatch[0]).to.not.equal(ifMatch[1]);
    } finally {
      await context.close();
    }
  });

  it('shows details with references and collections by their labels', async () => {
    const cat = await add(ui, token, 'Category', { name: 'Science fiction' });
    const dune = await add(ui, token, 'Book', { title: 'Dune', genre: 'novel' });
    const hyperion = await add(ui, token, 'Book', { title: 'Hyperion', genre: 'novel' });
    const author = await add(ui, token, 'Author', {
      name: 'Frank Herbert',
      born: '1920-10-08',
      categoryId: cat.id,
      favouriteBookId: dune.id,
      books: [dune.id, hyperion.id],
      languages: ['en', 'fr'],
      prizes: ['hugo'],
    });
    const { context, page } = await openPage(browser());
    try {
      await openSignedIn(page, ui.url, '/model/Author', token);
      // The table shows labels, not ids.
      const row = rowWith(page, 'Frank Herbert');
      await row.waitFor();
      expect(await row.locator('td.fw-col-categoryId').innerText()).to.equal('Science fiction');
      expect(await row.locator('td.fw-col-favouriteBookId').innerText()).to.equal('Dune');
      expect(await row.locator('td.fw-col-prizes').innerText()).to.equal('Hugo');
      await row.locator('.fw-row-details').click();
      const details = page.locator('.ant-drawer .fw-details');
      await details.waitFor();
      expect(await page.locator('.ant-drawer-title').innerText()).to.equal(`Author #${author.id}`);
      const item = (label: string) => details.locator('tr', { has: page.locator('th', { hasText: new RegExp(`^${label}$`) }) }).locator('td');
      await waitUntil(page, `document.querySelector('.fw-details')?.textContent.includes('Hyperion')`);
      expect(await item('Books').innerText()).to.equal('Dune, Hyperion');
      expect(await item('Category').innerText()).to.equal('Science fiction');
      expect(await item('Favourite book').innerText()).to.equal('Dune');
      expect(await item('Languages').locator('.ant-tag').allInnerTexts()).to.deep.equal(['en', 'fr']);
      await shot(page, join(ui.shots, 'details.png'));
      expect(await page.locator('.ant-drawer').getByRole('button', { name: 'Save' }).count()).to.equal(0);
    } finally {
      await context.close();
    }
  });

  it('copies a row into a new one, letting the person change values first', async () => {
    const source = await add(ui, token, 'Book', { title: 'Solaris', genre: 'essay', price: 12 });
    const { context, page } = await openPage(browser());
    try {
      await openSignedIn(page, ui.url, '/model/Book', token);
      await rowWith(page, 'Solaris').locator('.fw-row-copy').click();
      await page.locator('.ant-drawer-title', { hasText: `Copy Book #${source.id}` }).waitFor();
      await waitUntil(page, `document.querySelector('#row-copy_title')?.value === 'Solaris'`);
      await page.locator('#row-copy_title').fill('Solaris (copy)');
      await page.getByRole('button', { name: 'Save' }).click();
      await page.locator('.ant-drawer').waitFor({ state: 'hidden' });
      await rowWith(page, 'Solaris (copy)').waitFor();
      const copy = await books().where({ title: 'Solaris (copy)' }).first();
      expect(copy).to.include({ genre: 'essay', price: 12 });
      expect(copy.id).to.not.equal(source.id);
      expect(await books().where({ id: source.id }).first()).to.include({ title: 'Solaris' });
    } finally {
      await context.close();
    }
  });

  it('prints a row in a new tab', async () => {
    const row = await add(ui, token, 'Book', { title: 'Middlemarch', genre: 'novel', price: 8 });
    const { context, page } = await openPage(browser());
    try {
      await openSignedIn(page, ui.url, '/model/Book', token);
      const [printed] = await Promise.all([context.waitForEvent('page'), rowWith(page, 'Middlemarch').locator('.fw-row-print').click()]);
      await printed.waitForLoadState();
      expect(await printed.locator('h1').innerText()).to.equal(`Books #${row.id}`);
      expect(await printed.locator('tr', { hasText: 'Genre' }).innerText()).to.contain('Novel');
      expect(new URL(printed.url()).pathname).to.equal(`/fw-api/data/print/Book/${row.id}`);
    } finally {
      await context.close();
    }
  });

  it('deletes one row after confirmation, and several selected rows', async () => {
    const a = await add(ui, token, 'Contract', { party: 'Acme' });
    const b = await add(ui, token, 'Contract', { party: 'Globex' });
    const c = await add(ui, token, 'Contract', { party: 'Initech' });
    const contracts = () => ui.demo.store.knex(ui.demo.registry.get('Contract')!.table);
    const { context, page } = await openPage(browser());
    try {
      await openSignedIn(page, ui.url, '/model/Contract', token);
      await rowWith(page, 'Acme').locator('.fw-row-delete').click();
      await page.locator('.ant-popconfirm', { hasText: 'Delete this row?' }).waitFor();
      await page.locator('.fw-confirm-delete').click();
      await rowWith(page, 'Acme').waitFor({ state: 'detached' });
      expect(await contracts().where({ id: a.id })).to.deep.equal([]);

      await rowWith(page, 'Globex').locator('.ant-checkbox-input').check();
      await rowWith(page, 'Initech').locator('.ant-checkbox-input').check();
      await page.locator('.fw-delete-selected', { hasText: 'Delete selected (2)' }).click();
      await page.locator('.ant-modal-confirm', { hasText: 'Delete 2 rows?' }).waitFor();
      await page.locator('.ant-modal-confirm .fw-confirm-delete').click();
      await rowWith(page, 'Initech').waitFor({ state: 'detached' });
      expect(await contracts().whereIn('id', [b.id, c.id])).to.deep.equal([]);
    } finally {
      await context.close();
    }
  });

  it('exports the rows as a CSV download', async () => {
    await add(ui, token, 'Book', { title: 'Export me', genre: 'poetry', price: 3 });
    const { context, page } = await openPage(browser());
    try {
      await openSignedIn(page, ui.url, '/model/Book', token);
      await page.locator('.fw-export').waitFor();
      const [download] = await Promise.all([page.waitForEvent('download'), page.locator('.fw-export').click()]);
      expect(download.suggestedFilename()).to.equal('Book.csv');
      const text = readFileSync((await download.path())!, 'utf8').replace(/^\uFEFF/, '');
      const lines = text.trim().split('\r\n');
      // Titles in the header and choices as labels, as the workbook export writes them.
      expect(lines[0]).to.equal('Title,ISBN,Genre,Price,Published,In print,id');
      const count = Number((await books().count({ n: '*' }))[0]!.n);
      expect(lines).to.have.length(count + 1);
      expect(lines.some((l) => l.startsWith('Export me,,Poetry,3,'))).to.equal(true);
    } finally {
      await context.close();
    }
  });

  it('imports a good file, and refuses a file with one bad row, listing it and writing nothing', async () => {
    const { context, page } = await openPage(browser());
    try {
      await openSignedIn(page, ui.url, '/model/Book', token);
      const before = Number((await books().count({ n: '*' }))[0]!.n);
      await page.locator('.fw-import').click();
      await page
        .locator('.fw-import-file')
        .setInputFiles({ name: 'good.csv', mimeType: 'text/csv', buffer: Buffer.from('title,genre,price\r\nImported one,novel,1\r\nImported two,essay,2\r\n') });
      await page.locator('.ant-message, .fw-undo-offer', { hasText: 'Imported 2 rows' }).waitFor();
      await rowWith(page, 'Imported two').waitFor();
      expect(Number((await books().count({ n: '*' }))[0]!.n)).to.equal(before + 2);

      await page.locator('.fw-import').click();
      await page
        .locator('.fw-import-file')
        .setInputFiles({ name: 'bad.csv', mimeType: 'text/csv', buffer: Buffer.from('title,genre,price\r\nFine row,novel,1\r\nBad row,novel,-5\r\nAlso fine,essay,2\r\n') });
      const refused = page.locator('.fw-import-refused');
      await refused.waitFor();
      expect(await refused.innerText()).to.contain('The import was refused');
      await shot(page, join(ui.shots, 'import-refused.png'));
      expect((await refused.locator('.fw-import-errors tbody tr').allInnerTexts()).map((r) => r.split(/\s+/).join(' '))).to.deep.equal([
        '3 C (price) price must be greater than or equal to 0',
      ]);
      expect(Number((await books().count({ n: '*' }))[0]!.n)).to.equal(before + 2);
      expect(await books().where({ title: 'Fine row' })).to.deep.equal([]);
    } finally {
      await context.close();
    }
  });
});
