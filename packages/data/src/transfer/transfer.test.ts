import { deflateRawSync } from 'node:zlib';
import { expect } from 'chai';
import fc from 'fast-check';
import ExcelJS from 'exceljs';
import { BUILTIN_MODELS, FwError, defineModel } from '@fw/core';
import { validateRow } from '@fw/row-patch';
import { newRow } from '../write/row-changes.js';
import { templateExample } from './transfers.js';
import { cellPosition, columnLetter, fromSheetValue, matchHeader, sheetNumberFormat, toCsvValue, toSheetValue, transferColumns, type SheetValue } from './cells.js';
import { csvCell, csvLine, parseCsv, uncsvCell } from './csv.js';
import { exampleRow, templateCsv, templateWorkbook } from './template.js';
import { checkUnpackedSize, readWorkbook, workbookStream } from './xlsx.js';

const Item = defineModel({
  name: 'Item',
  table: 't_item',
  fields: {
    title: { views: { title: 'Title' }, edit: { notNull: true } },
    genre: { views: { title: 'Genre' }, edit: { type: 'CHOICE', choices: [{ value: 'novel', label: 'Novel' }, { value: 'essay', label: 'Essay, long' }] } },
    price: { views: { title: 'Price' }, edit: { type: 'NUMBER' } },
    published: { views: { title: 'Published' }, edit: { type: 'DATE' } },
    inPrint: { views: { title: 'In print' }, edit: { type: 'BOOLEAN' } },
  },
});
const columns = transferColumns(Object.values(Item.fields).filter((f) => !f.primaryKey));
const limits = { maxRows: 100, maxColumns: 20 };

async function bytesOf(stream: NodeJS.ReadableStream): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

async function workbookOf(rows: SheetValue[][]): Promise<Buffer> {
  const sheet = columns.map((c) => ({ title: c.title, numFmt: sheetNumberFormat(c.field) }));
  return bytesOf(
    workbookStream('Item', sheet, (async function* () {
      yield rows;
    })()),
  );
}

function refusal(fn: () => unknown): FwError {
  try {
    fn();
  } catch (error) {
    if (error instanceof FwError) return error;
    throw error;
  }
  throw new Error('expected a refusal');
}

describe('transfer/csv (csv-parse, csv-stringify)', () => {
  it('writes RFC 4180 lines, formula-looking text disarmed and restored by uncsvCell', () => {
    expect(csvLine(['=SUM(A1)', ' padded', 'a,b', 'say "hi"', null, 3, ['x'], "'=kept"])).to.equal(`'=SUM(A1)," padded","a,b","say ""hi""",,3,"[""x""]",''=kept\r\n`);
    expect(csvCell('-5')).to.equal("'-5");
    expect(csvCell(-5)).to.equal('-5');
    expect(csvLine(['a\nb', 'c\rd', 'e\r\nf'])).to.equal('"a\nb","c\rd","e\r\nf"\r\n');
    expect(parseCsv(`h1,h2,h3\r\n${csvLine(['a\nb', 'c\rd', 'e\r\nf'])}`, limits).rows).to.deep.equal([['a\nb', 'c\rd', 'e\r\nf']]);
    for (const text of ['=1', "'=1", "''+x", '@who', 'plain']) expect(uncsvCell(parseCsv(`h\r\n${csvLine([text])}`, limits).rows[0]![0]!)).to.equal(text);
  });

  it('reads back any text it writes (property: csvLine, then parseCsv and uncsvCell, is the identity)', () => {
    const cell = fc.oneof(fc.string(), fc.constantFrom('=1', "'=1", '-', '\n', '\r', '\r\n', '"', ',', ' x', 'x ', "''@a", '\t'));
    fc.assert(
      fc.property(fc.array(cell, { minLength: 1, maxLength: 6 }), (cells) => {
        const text = csvLine(cells.map((_, i) => `h${i}`)) + csvLine(cells);
        const { rows } = parseCsv(text, limits);
        // A line of one empty cell is a blank line, which the reader skips.
        if (cells.length === 1 && cells[0] === '') return rows.length === 0;
        expect(rows[0]!.map(uncsvCell)).to.deep.equal(cells);
        return true;
      }),
      { numRuns: 500 },
    );
  });

  it('reads quoted cells, BOM, blank lines and CR/LF/CRLF; refuses broken or oversized input', () => {
    expect(parseCsv('\ufeff a ,b\r\n1,"x\r\n""y"""\n\n2,a"b\r', limits)).to.deep.equal({ header: ['a', 'b'], rows: [['1', 'x\r\n"y"'], ['2', 'a"b']] });
    expect(refusal(() => parseCsv('a,b\n1,2,3\n', limits))).to.include({ status: 400, message: 'row 1 has a different number of cells than the header' });
    expect(refusal(() => parseCsv('a\n"open\n', limits)).status).to.equal(400);
    expect(refusal(() => parseCsv('', limits)).status).to.equal(400);
    expect(refusal(() => parseCsv(`a\n${'1\n'.repeat(101)}`, limits))).to.include({ status: 413, code: 'TOO_MANY_ROWS' });
    expect(refusal(() => parseCsv(`${'a,'.repeat(20)}a\n`, limits)).status).to.equal(400);
  });
});

describe('transfer/cells', () => {
  it('names cells as a spreadsheet does and matches headers by name or title', () => {
    expect([0, 1, 25, 26, 27, 701, 702].map(columnLetter)).to.deep.equal(['A', 'B', 'Z', 'AA', 'AB', 'ZZ', 'AAA']);
    expect(cellPosition(3, 1, 'Title')).to.equal('row 3, column B (Title)');
    expect(matchHeader(Item, ['Title', 'price', ' In print ', 'nope'])).to.deep.equal(['title', 'price', 'inPrint', undefined]);
    // Case-insensitive: the name first, then the title.
    expect(matchHeader(Item, ['TITLE', 'PRICE', 'in PRINT', 'inprint'])).to.deep.equal(['title', 'price', 'inPrint', 'inPrint']);
  });

  it('types workbook cells and reads them back: dates, choice labels, booleans; refuses formulas', () => {
    const f = Item.fields;
    expect(toSheetValue(f.published!, '2024-02-29')).to.deep.equal(new Date('2024-02-29T00:00:00Z'));
    expect(toSheetValue(f.genre!, 'essay')).to.equal('Essay, long');
    expect(toSheetValue(f.title!, '=cmd')).to.equal('=cmd');
    expect(fromSheetValue(f.published!, new Date('2024-02-29T00:00:00Z'))).to.deep.equal({ value: '2024-02-29' });
    expect(fromSheetValue(f.genre!, 'Essay, long')).to.deep.equal({ value: 'essay' });
    expect(fromSheetValue(f.genre!, 'novel')).to.deep.equal({ value: 'novel' });
    // Labels that spell another choice's value: both formats export labels, so the label wins.
    const Swap = defineModel({ name: 'Swap', table: 't_swap', fields: { k: { edit: { type: 'CHOICE', choices: [{ value: 'a', label: 'b' }, { value: 'b', label: 'a' }] } } } });
    expect(fromSheetValue(Swap.fields.k!, 'a')).to.deep.equal({ value: 'b' });
    expect(toCsvValue(f.genre!, 'essay')).to.equal('Essay, long');
    expect(toCsvValue(f.published!, '2024-02-29')).to.equal('2024-02-29');
    expect(fromSheetValue(f.price!, { formula: 'A1*2', result: 4 })).to.include({ type: 'formula' });
    expect(fromSheetValue(f.title!, { richText: [{ text: 'a' }, { text: 'b' }] })).to.deep.equal({ value: 'ab' });
  });
});

describe('transfer/xlsx (exceljs streaming)', () => {
  it('writes a typed, frozen, filtered sheet that reads back cell for cell', async () => {
    const file = await workbookOf([['=1+1', 'Essay, long', 3.5, new Date('2024-02-29T00:00:00Z'), false], ['x', null, null, null, true]]);
    const { header, rows } = await readWorkbook(file, limits);
    expect(header).to.deep.equal(['Title', 'Genre', 'Price', 'Published', 'In print']);
    expect(rows).to.deep.equal([['=1+1', 'Essay, long', 3.5, new Date('2024-02-29T00:00:00Z'), false], ['x', null, null, null, true]]);
    const book = new ExcelJS.Workbook();
    await book.xlsx.load(file as unknown as ArrayBuffer);
    const sheet = book.worksheets[0]!;
    expect(sheet.views[0]).to.include({ state: 'frozen', ySplit: 1 });
    expect(sheet.getCell('A2').type).to.equal(ExcelJS.ValueType.String); // text, never a formula
    expect(sheet.getCell('C2').type).to.equal(ExcelJS.ValueType.Number);
    expect(sheet.getCell('D2').type).to.equal(ExcelJS.ValueType.Date);
    expect(sheet.getCell('E2').type).to.equal(ExcelJS.ValueType.Boolean);
  });

  it('refuses what is not a workbook, too many rows, and a zip bomb by its real unpacked size', async () => {
    expect(await readWorkbook(Buffer.from('title\r\nx\r\n'), limits).catch((e: FwError) => e)).to.include({ status: 400 });
    const many = await workbookOf(Array.from({ length: 101 }, (_, i) => [`t${i}`, null, i, null, null]));
    expect(await readWorkbook(many, limits).catch((e: FwError) => e)).to.include({ status: 413, code: 'TOO_MANY_ROWS' });
    // One entry whose 64 MiB of zeros pack into a few KiB, and whose header declares 10 bytes.
    const name = Buffer.from('xl/sharedStrings.xml');
    const packed = deflateRawSync(Buffer.alloc(64 * 1024 * 1024));
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(8, 8);
    local.writeUInt32LE(packed.length, 18);
    local.writeUInt32LE(10, 22);
    local.writeUInt16LE(name.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(8, 10);
    central.writeUInt32LE(packed.length, 20);
    central.writeUInt32LE(10, 24);
    central.writeUInt16LE(name.length, 28);
    const end = Buffer.alloc(22);
    end.writeUInt32LE(0x06054b50, 0);
    end.writeUInt16LE(1, 8);
    end.writeUInt16LE(1, 10);
    end.writeUInt32LE(46 + name.length, 12);
    end.writeUInt32LE(30 + name.length + packed.length, 16);
    const bomb = Buffer.concat([local, name, packed, central, name, end]);
    expect(await checkUnpackedSize(bomb, 16 * 1024 * 1024).catch((e: FwError) => e)).to.include({ status: 413, code: 'PAYLOAD_TOO_LARGE' });
    await checkUnpackedSize(bomb, 128 * 1024 * 1024);
    // The reader itself runs the check first: the bomb never reaches exceljs.
    expect(await readWorkbook(bomb, { ...limits, maxUnpacked: 16 * 1024 * 1024 }).catch((e: FwError) => e)).to.include({ status: 413, code: 'PAYLOAD_TOO_LARGE' });
  });

  it('builds the template: titles, an example row, drop-down lists on CHOICE and BOOLEAN columns', async () => {
    const example = await exampleRow(Item, columns);
    const file = await templateWorkbook('Item', columns, example);
    const { header, rows } = await readWorkbook(file, limits);
    expect(header).to.deep.equal(['Title', 'Genre', 'Price', 'Published', 'In print']);
    expect(rows).to.have.length(1);
    expect(rows[0]![1]).to.equal('Novel');
    const book = new ExcelJS.Workbook();
    await book.xlsx.load(file as unknown as ArrayBuffer);
    const sheet = book.getWorksheet('Item')!;
    const validations = (sheet as unknown as { dataValidations: { model: Record<string, ExcelJS.DataValidation> } }).dataValidations.model;
    expect(validations['B2']).to.include({ type: 'list' });
    expect(validations['B2']!.formulae).to.deep.equal(['Lists!$A$1:$A$2']);
    expect(validations['E2']!.formulae).to.deep.equal(['"TRUE,FALSE"']);
    expect(book.getWorksheet('Lists')!.getCell('A2').value).to.equal('Essay, long');
    // The CSV template writes the same header and values as the workbook.
    expect(templateCsv(columns, example)).to.match(/^Title,Genre,Price,Published,In print\r\nExample Title,Novel,1.5,2025-01-31,true\r\n$/);
  });
});

describe('transfer/template example rows', () => {
  it("pass the model's own rules for every built-in model and for pattern, length, range and row rules", async () => {
    const Isbn = defineModel({
      name: 'Isbn',
      table: 't_isbn',
      fields: {
        isbn: { edit: { notNull: true }, rules: [{ type: 'pattern', pattern: '^(97[89])?\\d{9}[\\dX]$' }] },
        code: { rules: [{ type: 'length', min: 3, max: 5 }] },
        qty: { edit: { type: 'NUMBER', integer: true }, rules: [{ type: 'range', min: 10, max: 20 }] },
        url: { rules: [{ type: 'pattern', pattern: '^https?://' }] },
        start: { edit: { type: 'DATE', notNull: true } },
        end: { edit: { type: 'DATE' } },
      },
      rowRules: [{ name: 'order', fields: ['start', 'end'], test: (row) => row.end == null || String(row.end) >= String(row.start), message: 'end before start' }],
    });
    for (const model of [...BUILTIN_MODELS, Isbn]) {
      const { row, emptied } = await templateExample(model);
      expect(emptied, model.name).to.deep.equal([]);
      // Fields a template has no column for (secrets, read-only) are not the example's to fill.
      const refused = (await validateRow(model, newRow(model, row))).filter((e) => Object.hasOwn(row, e.path ?? ''));
      expect(refused, model.name).to.deep.equal([]);
    }
    const { row } = await templateExample(Isbn);
    expect(row).to.include({ isbn: '9780441172719', code: 'Examp', qty: 10, url: 'https://example.com' });
  });
});
