// The in-table cell editor, spec rule 7, as a person uses it: double-click (or the edit icon)
// opens the form's own input for the field; Enter or leaving it saves through update-cell, Esc
// cancels; a row rule the value breaks keeps the editor open with the server's message and the
// database unchanged; and no editor where cellEdit is off (field, model) or the user lacks edit.
import { join } from 'node:path';
import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { describeBrowser } from '@fw/test-utils';
import { apiToken, openPage, openSignedIn, rowWith, shot, startDemo, userWithMenus, waitUntil, type UiDemo } from './support.js';

async function add(ui: UiDemo, token: string, fw: string, row: Record<string, unknown>): Promise<{ id: number }> {
  const res = await fetch(`${ui.url}/fw-api/data/modify/${fw}`, { method: 'POST', headers: { token, 'content-type': 'application/json' }, body: JSON.stringify(row) });
  expect(res.status, await res.clone().text()).to.equal(200);
  return (await res.json()) as { id: number };
}

/** The cell of `field` in the row showing `text`. */
function cell(page: Page, text: string, field: string) {
  return rowWith(page, text).locator(`td.fw-col-${field}`);
}

describeBrowser('admin UI: in-table cell editor', (browser) => {
  let ui: UiDemo;
  let token: string;
  const books = () => ui.demo.store.knex(ui.demo.registry.get('Book')!.table);
  const projects = () => ui.demo.store.knex(ui.demo.registry.get('Project')!.table);
  before(async () => {
    ui = await startDemo();
    token = await apiToken(ui.url);
    for (const [title, genre, price, published] of [
      ['Dune', 'novel', 9.5, '1965-08-01'],
      ['The Left Hand of Darkness', 'novel', 8, '1969-03-01'],
      ['Silent Spring', 'essay', 12.25, '1962-09-27'],
      ['Leaves of Grass', 'poetry', 6, '1855-07-04'],
      ['Solaris', 'novel', 7.75, '1961-06-01'],
      ['A Room of One’s Own', 'essay', 5.5, '1929-10-24'],
      ['The Waste Land', 'poetry', 4.25, '1922-10-01'],
      ['Foundation', 'novel', 8.99, '1951-06-01'],
    ] as const)
      await add(ui, token, 'Book', { title, genre, price, published, isbn: title === 'Dune' ? '0441172717' : null });
  });
  after(async () => {
    await ui?.close();
  });

  it('double-click opens the field’s own input seeded from the row; Enter saves through update-cell and the row shows the answer', async () => {
    const { context, page } = await openPage(browser());
    const cells: unknown[] = [];
    page.on('request', (r) => {
      if (r.url().endsWith('/fw-api/data/modify/Book/update-cell')) cells.push(r.postDataJSON());
    });
    try {
      await openSignedIn(page, ui.url, '/model/Book', token);
      const id = (await books().where({ title: 'Dune' }).first()).id as number;
      await cell(page, 'Dune', 'price').dblclick();
      const editor = page.locator('.fw-cell-editor[data-field="price"]');
      await editor.waitFor();
      // The NUMBER input of the form, seeded with the row's value.
      const input = editor.locator('.ant-input-number input');
      expect(await input.inputValue()).to.equal('9.5');
      await input.fill('11');
      await shot(page, join(ui.shots, 'model-page-cell-edit.png'));
      await input.press('Enter');
      await editor.waitFor({ state: 'detached' });
      await waitUntil(page, `[...document.querySelectorAll('tr')].some((tr) => tr.textContent.includes('Dune') && tr.querySelector('td.fw-col-price')?.textContent === '11')`);
      expect(cells).to.deep.equal([{ id, field: 'price', value: 11, expect: 9.5 }]);
      expect((await books().where({ id }).first()).price).to.equal(11);
    } finally {
      await context.close();
    }
  });

  it('the edit icon opens it too; choosing a value and clicking elsewhere saves; Esc cancels without a request', async () => {
    const { context, page } = await openPage(browser());
    const cells: unknown[] = [];
    page.on('request', (r) => {
      if (r.url().endsWith('/update-cell')) cells.push(r.postDataJSON());
    });
    try {
      await openSignedIn(page, ui.url, '/model/Book', token);
      const target = cell(page, 'Solaris', 'genre');
      await target.hover();
      await target.locator('.fw-cell-edit').click();
      const editor = page.locator('.fw-cell-editor[data-field="genre"]');
      await editor.waitFor();
      // The CHOICE input opens its list at once.
      await page.locator('.ant-select-dropdown:not(.ant-select-dropdown-hidden) .ant-select-item-option', { hasText: 'Essay' }).click();
      await page.locator('.fw-page-title').click();
      await editor.waitFor({ state: 'detached' });
      await target.locator('text=Essay').waitFor();
      expect((await books().where({ title: 'Solaris' }).first()).genre).to.equal('essay');
      expect(cells).to.have.length(1);

      await cell(page, 'Silent Spring', 'title').dblclick();
      const title = page.locator('.fw-cell-editor[data-field="title"] input');
      await title.fill('Loud Spring');
      await title.press('Escape');
      await page.locator('.fw-cell-editor').waitFor({ state: 'detached' });
      expect(await cell(page, 'Silent Spring', 'title').innerText()).to.equal('Silent Spring');
      expect(cells).to.have.length(1);
      expect(await books().where({ title: 'Loud Spring' })).to.deep.equal([]);

      // A value the form's own rules refuse is caught in the browser, like in the form.
      await cell(page, 'Silent Spring', 'price').dblclick();
      const price = page.locator('.fw-cell-editor[data-field="price"] .ant-input-number input');
      await price.fill('-3');
      await price.press('Enter');
      await page.locator('.fw-cell-editor .ant-form-item-explain-error', { hasText: 'Price must be at least 0' }).waitFor();
      expect(cells).to.have.length(1);
      await price.press('Escape');
    } finally {
      await context.close();
    }
  });

  it('a value breaking a cross-field rule: the server’s message in the open editor, the database unchanged', async () => {
    const project = await add(ui, token, 'Project', { name: 'Apollo', startDate: '2024-03-01', endDate: '2024-06-30' });
    const { context, page } = await openPage(browser());
    try {
      await openSignedIn(page, ui.url, '/model/Project', token);
      await cell(page, 'Apollo', 'endDate').dblclick();
      const editor = page.locator('.fw-cell-editor[data-field="endDate"]');
      await editor.waitFor();
      const input = editor.locator('.ant-picker input');
      await input.fill('2024-01-15');
      await input.press('Enter');
      // The picker takes the first Enter for itself when its calendar is open.
      if (!(await editor.locator('.fw-cell-editor-error').count())) await input.press('Enter');
      const message = editor.locator('.fw-cell-editor-error');
      await message.waitFor();
      expect(await message.innerText()).to.equal('the end date must not be before the start date');
      await shot(page, join(ui.shots, 'cell-edit-refused.png'));
      expect(await editor.isVisible()).to.equal(true);
      const stored = await projects().where({ id: project.id }).first();
      expect(String(stored.end_date ?? stored.endDate)).to.contain('2024-06-30');
      // The row still shows the stored date (in the browser's locale), not the refused one.
      const shown = await cell(page, 'Apollo', 'endDate').innerText();
      expect(shown).to.contain('30').and.not.contain('15');
    } finally {
      await context.close();
    }
  });

  it('offers no editor on a cellEdit: false field nor on a cellEdit: false model, though both stay editable in the form', async () => {
    await add(ui, token, 'Contract', { party: 'Acme', signedOn: '2024-01-02' });
    const { context, page } = await openPage(browser());
    try {
      await openSignedIn(page, ui.url, '/model/Book', token);
      // Book.isbn declares edit.cellEdit: false.
      const isbn = cell(page, 'Dune', 'isbn');
      await isbn.hover();
      expect(await isbn.locator('.fw-cell-edit').count()).to.equal(0);
      expect(await cell(page, 'Dune', 'title').locator('.fw-cell-edit').count()).to.equal(1);
      await isbn.dblclick();
      expect(await page.locator('.fw-cell-editor').count()).to.equal(0);
      expect(await rowWith(page, 'Dune').locator('.fw-row-edit').count()).to.equal(1);

      // Contract declares power.cellEdit: false.
      await page.locator('.fw-nav').getByRole('menuitem', { name: 'Contracts' }).click();
      await rowWith(page, 'Acme').waitFor();
      expect(await page.locator('.fw-cell-edit').count()).to.equal(0);
      await cell(page, 'Acme', 'party').dblclick();
      expect(await page.locator('.fw-cell-editor').count()).to.equal(0);
      expect(await rowWith(page, 'Acme').locator('.fw-row-edit').count()).to.equal(1);
    } finally {
      await context.close();
    }
  });

  it('offers no editor to a user without edit', async () => {
    const viewer = await userWithMenus(ui, 'viewer', ['Book', 'Book@VIEW_DETAIL']);
    const { context, page } = await openPage(browser());
    try {
      await openSignedIn(page, ui.url, '/model/Book', await apiToken(ui.url, viewer.account, viewer.password));
      await rowWith(page, 'Dune').waitFor();
      expect(await page.locator('.fw-cell-edit').count()).to.equal(0);
      await cell(page, 'Dune', 'title').dblclick();
      expect(await page.locator('.fw-cell-editor').count()).to.equal(0);
      expect(await page.locator('.fw-row-edit').count()).to.equal(0);
      expect(await page.locator('.fw-row-details').count()).to.be.greaterThan(0);
    } finally {
      await context.close();
    }
  });

  it("edits references and tags in a cell with the form's pickers: a searched table reference, a tree reference, a new tag", async () => {
    for (let i = 1; i <= 30; i += 1) await add(ui, token, 'Book', { title: `Volume ${String(i).padStart(2, '0')}` });
    const fiction = await add(ui, token, 'Category', { name: 'Fiction' });
    const sf = await add(ui, token, 'Category', { name: 'Science fiction', parentId: fiction.id });
    const dune = (await books().where({ title: 'Dune' }).first()).id as number;
    const author = await add(ui, token, 'Author', { name: 'Herbert', favouriteBookId: dune, categoryId: fiction.id, languages: ['en'] });
    const authors = () => ui.demo.store.knex(ui.demo.registry.get('Author')!.table);
    const { context, page } = await openPage(browser());
    try {
      await openSignedIn(page, ui.url, '/model/Author', token);
      expect(await cell(page, 'Herbert', 'favouriteBookId').innerText()).to.equal('Dune');
      // REFERENCE_TABLE: the picker opens at once, searches on the server, and the label shows after saving.
      await cell(page, 'Herbert', 'favouriteBookId').dblclick();
      await page.locator('.fw-cell-editor[data-field="favouriteBookId"]').waitFor();
      await page.keyboard.type('Volume 2');
      await page.locator('.ant-select-dropdown:not(.ant-select-dropdown-hidden) .ant-select-item-option', { hasText: 'Volume 27' }).click();
      await page.keyboard.press('Enter');
      await page.locator('.fw-cell-editor').waitFor({ state: 'detached' });
      await cell(page, 'Herbert', 'favouriteBookId').locator('text=Volume 27').waitFor();
      const v27 = (await books().where({ title: 'Volume 27' }).first()).id as number;
      expect((await authors().where({ id: author.id }).first()).favourite_book_id).to.equal(v27);

      // REFERENCE_TREE: a tree of the candidates.
      await cell(page, 'Herbert', 'categoryId').dblclick();
      await page.locator('.ant-select-tree-treenode', { hasText: 'Science fiction' }).locator('.ant-select-tree-node-content-wrapper').click();
      await page.locator('.fw-page-title').click();
      await cell(page, 'Herbert', 'categoryId').locator('text=Science fiction').waitFor();
      expect((await authors().where({ id: author.id }).first()).category_id).to.equal(sf.id);

      // TAGS: Enter with text makes a tag; Enter again saves.
      await cell(page, 'Herbert', 'languages').dblclick();
      await page.keyboard.type('fr');
      await page.keyboard.press('Enter');
      await page.locator('.fw-cell-editor .ant-select-selection-item', { hasText: 'fr' }).waitFor();
      await page.keyboard.press('Enter');
      await page.locator('.fw-cell-editor').waitFor({ state: 'detached' });
      await cell(page, 'Herbert', 'languages').locator('.ant-tag', { hasText: 'fr' }).waitFor();
      expect(JSON.parse((await authors().where({ id: author.id }).first()).languages as string)).to.deep.equal(['en', 'fr']);
    } finally {
      await context.close();
    }
  });
});
