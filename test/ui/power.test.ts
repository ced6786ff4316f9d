// Buttons follow the power object (spec Power rule 1): a non-administrator whose role grants only
// part of a model's menus sees only those buttons, and only those models in the menu; a power
// handler that takes a flag away takes the button away too. The server refuses the rest anyway.
import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { describeBrowser } from '@fw/test-utils';
import { apiToken, openPage, openSignedIn, rowWith, startDemo, userWithMenus, type UiDemo } from './support.js';

/** What the model page offers, read off the screen. */
async function offered(page: Page): Promise<Record<string, boolean>> {
  const has = async (selector: string) => (await page.locator(selector).count()) > 0;
  return {
    add: await has('.fw-add'),
    export: await has('.fw-export'),
    import: await has('.fw-import'),
    select: await has('.ant-table-selection-column'),
    details: await has('.fw-row-details'),
    edit: await has('.fw-row-edit'),
    copy: await has('.fw-row-copy'),
    print: await has('.fw-row-print'),
    delete: await has('.fw-row-delete'),
    cellEdit: await has('.fw-cell-edit'),
  };
}

describeBrowser('admin UI: buttons by power', (browser) => {
  let ui: UiDemo;
  let admin: string;
  before(async () => {
    ui = await startDemo();
    admin = await apiToken(ui.url);
    for (const title of ['Dune', 'Emma']) {
      await fetch(`${ui.url}/fw-api/data/modify/Book`, { method: 'POST', headers: { token: admin, 'content-type': 'application/json' }, body: JSON.stringify({ title }) });
    }
  });
  after(async () => {
    await ui?.close();
  });

  it('an administrator sees every button Book allows', async () => {
    const { context, page } = await openPage(browser());
    try {
      await openSignedIn(page, ui.url, '/model/Book', admin);
      await rowWith(page, 'Dune').waitFor();
      expect(await offered(page)).to.deep.equal({
        add: true,
        export: true,
        import: true,
        select: true,
        details: true,
        edit: true,
        copy: true,
        print: true,
        delete: true,
        cellEdit: true,
      });
    } finally {
      await context.close();
    }
  });

  it('a role with the page, Add and Export of Book shows exactly Add and Export, and no other model', async () => {
    const clerk = await userWithMenus(ui, 'clerk', ['Book', 'Book@ADD', 'Book@EXPORT']);
    const token = await apiToken(ui.url, clerk.account, clerk.password);
    const { power } = (await (await fetch(`${ui.url}/fw-api/build/Book`, { headers: { token } })).json()) as { power: Record<string, boolean> };
    const { context, page } = await openPage(browser());
    try {
      await openSignedIn(page, ui.url, '/model/Book', token);
      await rowWith(page, 'Dune').waitFor();
      const shown = await offered(page);
      expect(shown).to.deep.include({ add: true, export: true, import: false, select: false, details: false, edit: false, delete: false, cellEdit: false });
      // Copy and print have no menus of their own: they follow the power object the server computed.
      expect(shown.copy).to.equal(power.copy === true && power.add === true);
      expect(shown.print).to.equal(power.print === true);
      const names = (await page.locator('.fw-nav .ant-menu-title-content').allInnerTexts()).map((s) => s.trim());
      expect(names).to.deep.equal(['Books']);
      // A model without a grant: the page says so instead of showing buttons.
      await page.goto(`${ui.url}/model/Salary`);
      await page.locator('.ant-result-403, .ant-result').first().waitFor();
      expect(await page.locator('.fw-add').count()).to.equal(0);
    } finally {
      await context.close();
    }
  });

  it('a role with the page, Edit and Delete of Book: row edit, cell editor, delete and selection, nothing else', async () => {
    const editor = await userWithMenus(ui, 'editor', ['Book', 'Book@EDIT', 'Book@DELETE']);
    const { context, page } = await openPage(browser());
    try {
      await openSignedIn(page, ui.url, '/model/Book', await apiToken(ui.url, editor.account, editor.password));
      await rowWith(page, 'Dune').waitFor();
      await rowWith(page, 'Dune').hover();
      expect(await offered(page)).to.deep.include({
        add: false,
        export: false,
        import: false,
        select: true,
        details: false,
        edit: true,
        copy: false,
        delete: true,
        cellEdit: true,
      });
    } finally {
      await context.close();
    }
  });

  it('a power handler that turns delete off for non-administrators hides delete even with the Delete menu', async () => {
    const worker = await userWithMenus(ui, 'worker', ['Task', 'Task@ADD', 'Task@EDIT', 'Task@DELETE']);
    const token = await apiToken(ui.url, worker.account, worker.password);
    await fetch(`${ui.url}/fw-api/data/modify/Task`, {
      method: 'POST',
      headers: { token, 'content-type': 'application/json' },
      body: JSON.stringify({ subject: 'Water the plants' }),
    });
    const { context, page } = await openPage(browser());
    try {
      await openSignedIn(page, ui.url, '/model/Task', token);
      await rowWith(page, 'Water the plants').waitFor();
      expect(await offered(page)).to.deep.include({ add: true, edit: true, delete: false, select: false });
    } finally {
      await context.close();
    }
  });

  it('print: false (Salary) removes the row print entry, and only that', async () => {
    await fetch(`${ui.url}/fw-api/data/modify/Salary`, {
      method: 'POST',
      headers: { token: admin, 'content-type': 'application/json' },
      body: JSON.stringify({ employee: 'Ada', amount: 100 }),
    });
    const { context, page } = await openPage(browser());
    try {
      await openSignedIn(page, ui.url, '/model/Salary', admin);
      await rowWith(page, 'Ada').waitFor();
      expect(await offered(page)).to.deep.include({ print: false, details: true, edit: true, copy: true, delete: true, add: true });
      const printed = await fetch(`${ui.url}/fw-api/data/print/Salary/1?_token=${admin}`);
      expect(printed.status).to.equal(403);
    } finally {
      await context.close();
    }
  });
});
