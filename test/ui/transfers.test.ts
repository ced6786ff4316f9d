// The admin UI's transfers, clicked the way a person does on the demo: the export menu (CSV and
// Excel), an .xlsx import through the file picker, a refused workbook listing row and column, and
// the template download. Each checks the file or the database too.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import ExcelJS from 'exceljs';
import { describeBrowser } from '@fw/test-utils';
import { apiToken, openPage, openSignedIn, rowWith, shot, startDemo, type UiDemo } from './support.js';

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
      await page.locator('.fw-import-file').setInputFiles({ name: 'books.xlsx', mimeType: XLSX, buffer: good });
      await page.locator('.ant-message', { hasText: 'Imported 2 rows' }).waitFor();
      await rowWith(page, 'Workbook two').waitFor();
      expect(await books().where({ title: 'Workbook one' }).select('genre', 'price', 'published')).to.deep.equal([{ genre: 'novel', price: 4.5, published: '2024-01-15' }]);

      const bad = await workbook([
        ['Title', 'Genre', 'Price'],
        ['Fine row', 'Novel', 1],
        ['Bad price', 'Essay', { formula: 'C2*2', result: 2 }],
        ['Bad genre', 'Comic', 3],
      ]);
      await page.locator('.fw-import-file').setInputFiles({ name: 'bad.xlsx', mimeType: XLSX, buffer: bad });
      const refused = page.locator('.fw-import-refused');
      await refused.waitFor();
      await shot(page, join(ui.shots, 'import-refused-xlsx.png'));
      const items = await refused.locator('.fw-import-errors li').allInnerTexts();
      expect(items).to.have.length(2);
      expect(items[0]).to.match(/^row 3, column C \(Price\): .*formula/);
      expect(items[1]).to.match(/^row 4, column B \(Genre\): /);
      expect(Number((await books().count({ n: '*' }))[0]!.n)).to.equal(before + 2);
      expect(await books().where({ title: 'Fine row' })).to.deep.equal([]);
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
