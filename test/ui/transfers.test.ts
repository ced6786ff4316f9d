// The admin UI's transfers, clicked the way a person does on the demo: the export menu (CSV and
// Excel), an .xlsx import through the file picker, a refused workbook listing row and column, and
// the template download. Each checks the file or the database too.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import ExcelJS from 'exceljs';
import { describeBrowser } from '@fw/test-utils';
import { apiToken, openPage, openSignedIn, rowWith, shot, startDemo, userWithMenus, type UiDemo } from './support.js';

async function workbook(rows: unknown[][]): Promise<Buffer> {
  const book = new ExcelJS.Workbook();
  const sheet = book.addWorksheet('Books');
  for (const row of rows) sheet.addRow(row);
  return Buffer.from(await book.xlsx.writeBuffer());
}

async function readBook(path: string): Promise<ExcelJS.Workbook> {
  const book = new ExcelJS.Workbook();
  await book.xlsx.load(readFileSync(path) as unknown as ArrayBuffer);
  return book;
}

const XLSX = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';

describeBrowser('admin UI: export and import as CSV and Excel, import template', (browser) => {
  let ui: UiDemo;
  let token: string;
  before(async () => {
    ui = await startDemo();
    token = await apiToken(ui.url);
  });
  after(async () => {
    await ui?.close();
  });

  const books = () => ui.demo.store.knex(ui.demo.registry.get('Book')!.table);

  it('exports the rows as an Excel workbook from the export menu, typed and titled', async () => {
    const { context, page } = await openPage(browser());
    try {
      await openSignedIn(page, ui.url, '/model/Book', token);
      await page.locator('.fw-export-menu').click();
      await page.locator('.fw-export-xlsx').waitFor();
      await shot(page, join(ui.shots, 'export-menu.png'));
      const [download] = await Promise.all([page.waitForEvent('download'), page.locator('.fw-export-xlsx').click()]);
      expect(download.suggestedFilename()).to.equal('Book.xlsx');
      const sheet = (await readBook((await download.path())!)).worksheets[0]!;
      expect((sheet.getRow(1).values as unknown[]).slice(1, 7)).to.deep.equal(['Title', 'ISBN', 'Genre', 'Price', 'Published', 'In print']);
      const count = Number((await books().count({ n: '*' }))[0]!.n);
      expect(sheet.actualRowCount).to.equal(count + 1);
      expect(sheet.views[0]).to.include({ state: 'frozen', ySplit: 1 });
    } finally {
      await context.close();
    }
  });

  it('imports an .xlsx file from the file picker, and lists a refused one by row and column', async () => {
    const { context, page } = await openPage(browser());
    try {
      await openSignedIn(page, ui.url, '/model/Book', token);
      const before = Number((await books().count({ n: '*' }))[0]!.n);
      const good = await workbook([
        ['Title', 'Genre', 'Price', 'Published'],
        ['Workbook one', 'Novel', 4.5, new Date(Date.UTC(2024, 0, 15))],
        ['Workbook two', 'Poetry', 2, '2024-02-01'],
      ]);
      await page.locator('.fw-import').click();
      await page.locator('.fw-import-dialog .fw-import-mode-add input').waitFor({ state: 'attached' });
      // Add is the default mode.
      expect(await page.locator('.fw-import-dialog .fw-import-mode-add input').isChecked()).to.equal(true);
      await page.locator('.fw-import-file').setInputFiles({ name: 'books.xlsx', mimeType: XLSX, buffer: good });
      await page.locator('.ant-message, .fw-undo-offer', { hasText: 'Imported 2 rows: 2 added, 0 updated' }).waitFor();
      await rowWith(page, 'Workbook two').waitFor();
      expect(await books().where({ title: 'Workbook one' }).select('genre', 'price', 'published')).to.deep.equal([{ genre: 'novel', price: 4.5, published: '2024-01-15' }]);

      const bad = await workbook([
        ['Title', 'Genre', 'Price'],
        ['Bad genre', 'Comic', 3],
        ['Fine row', 'Novel', 1],
        ['Bad price', 'Essay', { formula: 'C2*2', result: 2 }],
      ]);
      await page.locator('.fw-import').click();
      await page.locator('.fw-import-file').setInputFiles({ name: 'bad.xlsx', mimeType: XLSX, buffer: bad });
      const refused = page.locator('.fw-import-refused');
      await refused.waitFor();
      await shot(page, join(ui.shots, 'import-refused-xlsx.png'));
      // A table sorted by row, then column: the row, the column with its header, the problem.
      const items = await refused.locator('.fw-import-errors tbody tr').allInnerTexts();
      expect(items).to.have.length(2);
      expect(items[0]).to.match(/^2\s+B \(Genre\)\s+/);
      expect(items[1]).to.match(/^4\s+C \(Price\)\s+.*formula/);
      await page.keyboard.press('Escape');
      expect(Number((await books().count({ n: '*' }))[0]!.n)).to.equal(before + 2);
      expect(await books().where({ title: 'Fine row' })).to.deep.equal([]);
    } finally {
      await context.close();
    }
  });

  it('round-trips an export: change a price in the CSV, import it in Update mode, the price changes and no row is added', async () => {
    const { context, page } = await openPage(browser());
    try {
      const [first] = await books().orderBy('id').limit(1);
      if (!first) {
        const res = await fetch(`${ui.url}/fw-api/data/modify/Book`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', token },
          body: JSON.stringify({ title: 'Ubik', isbn: '9780441172719', price: 9.5 }),
        });
        expect(res.status).to.equal(200);
      }
      await openSignedIn(page, ui.url, '/model/Book', token);
      await page.locator('.fw-export-menu').click();
      await page.locator('.fw-export-csv').waitFor();
      const [download] = await Promise.all([page.waitForEvent('download'), page.locator('.fw-export-csv').click()]);
      const csv = readFileSync((await download.path())!, 'utf8');
      const lines = csv.replace(/^\ufeff/, '').split('\r\n');
      // One convention with the workbook: titles in the header, choices as labels.
      expect(lines[0]).to.equal('Title,ISBN,Genre,Price,Published,In print,id');
      const [target] = await books().orderBy('id').limit(1);
      const count = Number((await books().count({ n: '*' }))[0]!.n);
      const edited = lines
        .map((line) => (line.endsWith(`,${target.id}`) ? line.replace(/,(\d+(\.\d+)?|),(\d{4}-\d{2}-\d{2}|),(true|false|),(\d+)$/, ',77.5,$3,$4,$5') : line))
        .join('\r\n');
      expect(edited).to.not.equal(csv.replace(/^\ufeff/, ''));
      await page.locator('.fw-import').click();
      await page.locator('.fw-import-dialog .fw-import-mode-update').click();
      await shot(page, join(ui.shots, 'import-dialog-update.png'));
      await page.locator('.fw-import-file').setInputFiles({ name: 'Book.csv', mimeType: 'text/csv', buffer: Buffer.from(edited) });
      await page.locator('.ant-message, .fw-undo-offer', { hasText: `Imported ${count} rows: 0 added, ${count} updated` }).waitFor();
      expect(Number((await books().count({ n: '*' }))[0]!.n)).to.equal(count);
      expect(Number((await books().where({ id: target.id }).first()).price)).to.equal(77.5);
      // An id nobody has is reported, never added.
      await page.locator('.fw-import').click();
      await page.locator('.fw-import-dialog .fw-import-mode-update').click();
      await page.locator('.fw-import-file').setInputFiles({ name: 'ghost.csv', mimeType: 'text/csv', buffer: Buffer.from('id,Title\r\n999999,Ghost\r\n') });
      await page.locator('.fw-import-refused .fw-import-errors tbody tr').first().waitFor();
      expect(await page.locator('.fw-import-refused .fw-import-errors tbody tr').first().innerText()).to.match(/^2\s+A \(id\)\s+no Book with id 999999/);
      // At 390 px the dialog and its table fit the screen.
      await page.setViewportSize({ width: 390, height: 844 });
      await shot(page, join(ui.shots, 'import-refused-390.png'));
      expect(await page.evaluate('document.documentElement.scrollWidth')).to.be.at.most(390);
      expect(Number((await books().count({ n: '*' }))[0]!.n)).to.equal(count);
    } finally {
      await context.close();
    }
  });

  it('offers only the modes the power allows: Edit and Import without Add gives Update and Update or add', async () => {
    const updater = await userWithMenus(ui, 'updater', ['Book', 'Book@EDIT', 'Book@IMPORTABLE']);
    const { context, page } = await openPage(browser());
    try {
      await openSignedIn(page, ui.url, '/model/Book', await apiToken(ui.url, updater.account, updater.password));
      await page.locator('.fw-import').click();
      await page.locator('.fw-import-dialog .fw-import-mode-update').waitFor();
      expect(await page.locator('.fw-import-dialog .fw-import-mode-add').count()).to.equal(0);
      expect(await page.locator('.fw-import-dialog .fw-import-mode-upsert').count()).to.equal(1);
      expect(await page.locator('.fw-import-dialog .fw-import-mode-update input').isChecked()).to.equal(true);
      // In Simplified Chinese, the dialog's words come from the catalog.
      await page.evaluate(`window.localStorage.setItem('fw-locale', 'zh-CN')`);
      await page.reload();
      await page.locator('.fw-import').click();
      await page.locator('.fw-import-dialog', { hasText: '写入方式' }).waitFor();
      expect(await page.locator('.fw-import-dialog .fw-import-mode-update').innerText()).to.contain('更新');
      await shot(page, join(ui.shots, 'import-dialog-zh.png'));
    } finally {
      await context.close();
    }
  });

  it('downloads the import template from the import menu', async () => {
    const { context, page } = await openPage(browser());
    try {
      await openSignedIn(page, ui.url, '/model/Book', token);
      await page.locator('.fw-import-menu').click();
      await page.locator('.fw-template-xlsx').waitFor();
      await shot(page, join(ui.shots, 'import-menu.png'));
      const [download] = await Promise.all([page.waitForEvent('download'), page.locator('.fw-template-xlsx').click()]);
      expect(download.suggestedFilename()).to.equal('Book-template.xlsx');
      const book = await readBook((await download.path())!);
      const sheet = book.worksheets[0]!;
      expect((sheet.getRow(1).values as unknown[]).slice(1, 6)).to.deep.equal(['Title', 'ISBN', 'Genre', 'Price', 'Published']);
      expect(sheet.rowCount).to.equal(2);
      expect(sheet.getRow(2).getCell(3).value).to.equal('Novel');
    } finally {
      await context.close();
    }
  });
});
