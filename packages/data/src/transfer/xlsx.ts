import { PassThrough, Readable, type Writable } from 'node:stream';
import { createInflateRaw } from 'node:zlib';
import ExcelJS from 'exceljs';
import { FwError } from '@fw/core';
import { dataError } from '../error-codes.js';
import type { SheetValue } from './cells.js';
import { readerOrder, type ZipPart } from './zip-order.js';

/** The content type of an `.xlsx` workbook. */
export const XLSX_TYPE = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';

/** A column of a written workbook. */
export interface SheetColumn {
  /** The header cell. */
  title: string;
  /** A number format for the column's cells (dates). */
  numFmt?: string | undefined;
}

const widthOf = (title: string) => Math.min(Math.max(title.length + 4, 12), 40);

/**
 * Streams a one-sheet workbook with exceljs's `WorkbookWriter`: a bold header row of the column
 * titles, frozen, with an autofilter over it, then the rows, one batch at a time, each row
 * committed (written out) as it is added.
 */
export async function writeWorkbook(out: Writable, sheetName: string, columns: readonly SheetColumn[], batches: AsyncIterable<SheetValue[][]>): Promise<void> {
  const workbook = new ExcelJS.stream.xlsx.WorkbookWriter({ stream: out, useStyles: true, useSharedStrings: false });
  const sheet = workbook.addWorksheet(sheetName.slice(0, 31) || 'Sheet1', { views: [{ state: 'frozen', ySplit: 1 }] });
  sheet.columns = columns.map((c) => ({ width: widthOf(c.title) }));
  if (columns.length > 0) sheet.autoFilter = { from: { row: 1, column: 1 }, to: { row: 1, column: columns.length } };
  const header = sheet.addRow(columns.map((c) => c.title));
  header.font = { bold: true };
  header.commit();
  for await (const batch of batches) {
    for (const values of batch) {
      const row = sheet.addRow(values);
      columns.forEach((c, i) => {
        if (c.numFmt && values[i] instanceof Date) row.getCell(i + 1).numFmt = c.numFmt;
      });
      row.commit();
    }
    await readerCaughtUp(out, sheet);
  }
  sheet.commit();
  await workbook.commit();
}

/**
 * Where exceljs writes the sheet's XML: its stream buffer hands every chunk straight to the zip
 * entry's input (`pipes`, exceljs 4 internals: a readable-stream PassThrough that archiver
 * reads and deflates), whatever that stream's buffer already holds.
 */
function sheetPipes(sheet: unknown): Writable[] {
  const stream = (sheet as { stream?: { pipes?: unknown } }).stream;
  const pipes = stream?.pipes;
  return Array.isArray(pipes) ? pipes.filter((p): p is Writable => typeof (p as Writable | null)?.once === 'function') : [];
}

/** Whether a writable holds more than its high-water mark (readable-stream 2 has no `writableNeedDrain`). */
function needsDrain(stream: Writable): boolean {
  return stream.writableNeedDrain ?? (stream as unknown as { _writableState?: { needDrain?: boolean } })._writableState?.needDrain === true;
}

/** Resolves once `stream` has room again, or is gone. */
function roomIn(stream: Writable): Promise<void> {
  return new Promise<void>((resolve) => {
    const done = () => {
      stream.off('drain', done);
      stream.off('close', done);
      resolve();
    };
    stream.once('drain', done);
    stream.once('close', done);
  });
}

/**
 * exceljs writes without waiting for its reader: between batches, wait until the zip's deflate
 * has taken in the sheet's XML and `out` has room (a slow download then holds about one batch,
 * not the export), and stop once `out` is gone (a cancelled download then stops reading rows).
 * Without the first wait the uncompressed XML of every row piles up in the deflate stream's
 * buffer whenever rows come faster than they compress: hundreds of MB for a million rows.
 */
async function readerCaughtUp(out: Writable, sheet: unknown): Promise<void> {
  // Let the batch just written reach `out` through the zip's deflate.
  await new Promise((resolve) => setImmediate(resolve));
  for (const pipe of sheetPipes(sheet)) {
    while (needsDrain(pipe) && !pipe.destroyed && !out.destroyed) await roomIn(pipe);
  }
  while (out.writableNeedDrain && !out.destroyed) await roomIn(out);
  if (out.destroyed) throw new Error('the workbook stream was closed before the export was written');
}

/**
 * {@link writeWorkbook} as a readable stream of the file's bytes (for a response body). An error
 * while writing destroys the stream, so the client sees a cut-off download, never a valid-looking
 * partial file.
 */
export function workbookStream(sheetName: string, columns: readonly SheetColumn[], batches: AsyncIterable<SheetValue[][]>): Readable {
  const out = new PassThrough();
  writeWorkbook(out, sheetName, columns, batches).catch((error: unknown) => out.destroy(error instanceof Error ? error : new Error(String(error))));
  return out;
}

/** Limits of {@link readWorkbook}. */
export interface WorkbookLimits {
  /** Most data rows. */
  maxRows: number;
  /** Most columns. */
  maxColumns: number;
  /** Most bytes the workbook's parts may unpack to (a zip bomb stops here). @default 128 MiB */
  maxUnpacked?: number;
}

/** The size a deflated part unpacks to, counted while it streams (nothing is kept), stopping past `max`. */
function inflatedSize(data: Buffer, max: number): Promise<number | 'over' | 'broken'> {
  return new Promise((resolve) => {
    const inflate = createInflateRaw();
    let size = 0;
    inflate.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > max) {
        inflate.destroy();
        resolve('over');
      }
    });
    inflate.on('end', () => resolve(size));
    inflate.on('error', () => resolve('broken'));
    inflate.end(data);
  });
}

/**
 * Checks that a workbook's zip parts unpack to at most `limit` bytes, by inflating each part and
 * counting, so the sizes checked are the real ones, not the ones the file declares. The
 * inflated bytes are dropped as they come: the check holds no more than a chunk in memory.
 * The parts listed must be all the file holds (back to back from its first byte to the
 * directory, local headers agreeing with it), since the reader unpacks what it meets in order.
 * @returns the parts, by their place in the file
 * @throws {FwError} 400 for something that is not a zip, 413 past the limit
 */
export async function checkUnpackedSize(zip: Buffer, limit: number): Promise<ZipPart[]> {
  const notZip = () => dataError('BAD_QUERY', 'the workbook is not an .xlsx file (a zip archive)');
  // The end-of-central-directory record: its signature, within the last 64 KiB + 22 bytes.
  let end = -1;
  for (let i = zip.length - 22; i >= Math.max(0, zip.length - 65_557); i -= 1) {
    if (zip.readUInt32LE(i) === 0x06054b50) {
      end = i;
      break;
    }
  }
  if (end < 0) throw notZip();
  const entries = zip.readUInt16LE(end + 10);
  const directory = zip.readUInt32LE(end + 16);
  let at = directory;
  let budget = limit;
  // Where each listed entry starts and ends: exceljs unzips as a stream, entry after entry from
  // byte 0, so the listed entries must tile the file up to the directory, leaving no hidden part.
  const spans: ZipPart[] = [];
  for (let n = 0; n < entries; n += 1) {
    if (at + 46 > zip.length || zip.readUInt32LE(at) !== 0x02014b50) throw notZip();
    const flags = zip.readUInt16LE(at + 8);
    const method = zip.readUInt16LE(at + 10);
    const packed = zip.readUInt32LE(at + 20);
    const local = zip.readUInt32LE(at + 42);
    at += 46 + zip.readUInt16LE(at + 28) + zip.readUInt16LE(at + 30) + zip.readUInt16LE(at + 32);
    if (local + 30 > zip.length || zip.readUInt32LE(local) !== 0x04034b50) throw notZip();
    // The streaming reader trusts the local header: it must say what the directory says.
    const localFlags = zip.readUInt16LE(local + 6);
    if (zip.readUInt16LE(local + 8) !== method || (localFlags & 8) !== (flags & 8) || ((flags & 8) === 0 && zip.readUInt32LE(local + 18) !== packed)) throw notZip();
    const start = local + 30 + zip.readUInt16LE(local + 26) + zip.readUInt16LE(local + 28);
    if (start + packed > directory) throw notZip();
    // A data descriptor after the data: crc, sizes (12 bytes), with an optional signature before them.
    const descriptor = (flags & 8) === 0 ? 0 : start + packed + 4 <= zip.length && zip.readUInt32LE(start + packed) === 0x08074b50 ? 16 : 12;
    spans.push({ name: zip.toString('utf8', local + 30, local + 30 + zip.readUInt16LE(local + 26)), from: local, to: start + packed + descriptor });
    const data = zip.subarray(start, start + packed);
    let size: number;
    if (method === 0) size = data.length;
    else if (method === 8) {
      const inflated = await inflatedSize(data, budget);
      if (inflated === 'over') throw new FwError('PAYLOAD_TOO_LARGE', `the workbook unpacks to more than ${limit} bytes`);
      if (inflated === 'broken') throw notZip();
      size = inflated;
    } else throw notZip();
    budget -= size;
    if (budget < 0) throw new FwError('PAYLOAD_TOO_LARGE', `the workbook unpacks to more than ${limit} bytes`);
  }
  spans.sort((a, b) => a.from - b.from);
  let next = 0;
  for (const span of spans) {
    if (span.from !== next) throw notZip();
    next = span.to;
  }
  if (next !== directory) throw notZip();
  return spans;
}

/**
 * Reads the first worksheet of a workbook with exceljs's streaming `WorkbookReader`: the header
 * row (as text) and the data rows (cell values: string, number, boolean, Date, or exceljs's
 * objects for formulas, rich text and errors; `null` for an empty cell) with their sheet row
 * numbers. Empty rows are skipped;
 * reading stops one row past `maxRows`.
 * @throws {FwError} 400 for a file that is not a workbook or has no header, 413 past the limits
 */
export async function readWorkbook(file: Buffer, limits: WorkbookLimits): Promise<{ header: string[]; rows: unknown[][]; rowNumbers: number[] }> {
  const parts = await checkUnpackedSize(file, limits.maxUnpacked ?? 128 * 1024 * 1024);
  const ordered = readerOrder(file, parts);
  const rows: unknown[][] = [];
  const rowNumbers: number[] = [];
  let header: string[] | undefined;
  let width = 0;
  try {
    const reader = new ExcelJS.stream.xlsx.WorkbookReader(Readable.from([ordered]), { worksheets: 'emit', sharedStrings: 'cache', styles: 'cache', hyperlinks: 'ignore', entries: 'ignore' });
    for await (const sheet of reader) {
      for await (const row of sheet) {
        const raw = row.values as unknown[];
        const values = Array.from({ length: Math.max(raw.length - 1, 0) }, (_, i) => raw[i + 1] ?? null);
        if (values.every((v) => v === null || v === '')) continue;
        if (!header) {
          if (values.length > limits.maxColumns) throw dataError('BAD_QUERY', `at most ${limits.maxColumns} columns`);
          header = values.map((v) => cellText(v).trim());
          width = header.length;
          continue;
        }
        if (values.length > width) {
          if (values.slice(width).some((v) => v !== null && v !== '')) throw dataError('BAD_QUERY', `row ${row.number} has cells past the last header column`);
          values.length = width;
        }
        while (values.length < width) values.push(null);
        rows.push(values);
        rowNumbers.push(row.number);
        if (rows.length > limits.maxRows) throw dataError('TOO_MANY_ROWS', `at most ${limits.maxRows} rows can be imported at once`);
      }
      // Only the first worksheet is data; the others (lists, notes) are not read.
      break;
    }
  } catch (error) {
    if (error instanceof Error && 'status' in error) throw error;
    throw dataError('BAD_QUERY', `the workbook cannot be read: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (!header) throw dataError('BAD_QUERY', 'the workbook has no header row');
  return { header, rows, rowNumbers };
}

/** The text of a header cell. */
function cellText(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'object' && !(value instanceof Date)) {
    const object = value as { richText?: Array<{ text?: unknown }>; text?: unknown; result?: unknown };
    if (Array.isArray(object.richText)) return object.richText.map((r) => String(r.text ?? '')).join('');
    if (object.text !== undefined) return String(object.text);
    if (object.result !== undefined) return String(object.result);
    return '';
  }
  return value instanceof Date ? value.toISOString() : String(value);
}

/** True when the bytes start like a zip archive (an `.xlsx` file) rather than text. */
export function looksLikeZip(bytes: Buffer): boolean {
  return bytes.length >= 4 && bytes.readUInt32LE(0) === 0x04034b50;
}
