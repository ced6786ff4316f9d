// The parts of a workbook's zip put in the order exceljs's streaming reader reads without
// temporary files. The reader unzips as a stream; a worksheet it meets before the shared strings
// and the workbook's relations (or in a workbook with no shared strings at all, as exceljs's own
// streaming writer makes) is copied to a temporary file that is removed only once the whole
// workbook has been read, so a reader that stops at the first sheet, or refuses a row, left it
// on the disk until the process ended.
import { crc32 } from 'node:zlib';
import { dataError } from '../error-codes.js';

/** One listed part of a zip: its name and where its local entry (header, data, descriptor) lies. */
export interface ZipPart {
  name: string;
  from: number;
  to: number;
}

// The reader's own tests for a worksheet part (exceljs/lib/stream/xlsx/workbook-reader.js).
const SHEET = /xl\/worksheets\/sheet(\d+)[.]xml/;
const SHARED_STRINGS = 'xl/sharedStrings.xml';
const RELATIONS = 'xl/_rels/workbook.xml.rels';
const EMPTY_SHARED_STRINGS = Buffer.from('<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" count="0" uniqueCount="0"/>');

/** A stored (not deflated) local entry. */
function storedEntry(name: string, data: Buffer): Buffer {
  const header = Buffer.alloc(30);
  header.writeUInt32LE(0x04034b50, 0);
  header.writeUInt16LE(10, 4);
  header.writeUInt32LE(crc32(data), 14);
  header.writeUInt32LE(data.length, 18);
  header.writeUInt32LE(data.length, 22);
  header.writeUInt16LE(Buffer.byteLength(name), 26);
  return Buffer.concat([header, Buffer.from(name), data]);
}

/**
 * The same zip with every part but the worksheets first, then the worksheets by number, and an
 * empty shared-strings part when there is none, so the reader parses each worksheet as it
 * streams. `parts` are the listed parts ({@link checkUnpackedSize} gives them), which tile the
 * file up to its directory; the directory is kept at the end (the streaming reader stops there).
 * @throws {FwError} 400 when the workbook has no relations part (every workbook has one)
 */
export function readerOrder(zip: Buffer, parts: readonly ZipPart[]): Buffer {
  if (!parts.some((p) => p.name === RELATIONS)) throw dataError('BAD_QUERY', 'the workbook is not an .xlsx file (it has no xl/_rels/workbook.xml.rels)');
  const sheetNumber = (p: ZipPart) => Number(SHEET.exec(p.name)?.[1] ?? NaN);
  const sheets = parts.filter((p) => SHEET.test(p.name)).sort((a, b) => sheetNumber(a) - sheetNumber(b) || a.from - b.from);
  const others = parts.filter((p) => !SHEET.test(p.name));
  const end = parts.reduce((max, p) => Math.max(max, p.to), 0);
  return Buffer.concat([
    ...(parts.some((p) => p.name === SHARED_STRINGS) ? [] : [storedEntry(SHARED_STRINGS, EMPTY_SHARED_STRINGS)]),
    ...others.map((p) => zip.subarray(p.from, p.to)),
    ...sheets.map((p) => zip.subarray(p.from, p.to)),
    zip.subarray(end),
  ]);
}
