// Red-team probes of the workbook reader (issue 13): zips whose local entries, which the streaming
// reader (exceljs → unzipper) unpacks in file order, differ from the central directory the size
// check reads. Each failed before its fix: the hidden part was unpacked past the limit.
import { randomBytes } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { PassThrough } from 'node:stream';
import { crc32, deflateRawSync } from 'node:zlib';
import { expect } from 'chai';
import ExcelJS from 'exceljs';
import type { FwError } from '@fw/core';
import { buffer as readAll } from 'node:stream/consumers';
import { checkUnpackedSize, readWorkbook, workbookStream, writeWorkbook } from './xlsx.js';

const limits = { maxRows: 100, maxColumns: 10, maxUnpacked: 16 * 1024 * 1024 };

async function smallWorkbook(): Promise<Buffer> {
  const book = new ExcelJS.Workbook();
  const sheet = book.addWorksheet('S');
  sheet.addRow(['title']);
  sheet.addRow(['hello']);
  return Buffer.from(await book.xlsx.writeBuffer());
}

/** A deflated local entry (header, name, data) that no central directory record names. */
function localEntry(name: string, unpacked: Buffer): Buffer {
  const data = deflateRawSync(unpacked, { level: 9 });
  const header = Buffer.alloc(30);
  header.writeUInt32LE(0x04034b50, 0);
  header.writeUInt16LE(20, 4);
  header.writeUInt16LE(8, 8);
  header.writeUInt32LE(crc32(unpacked), 14);
  header.writeUInt32LE(data.length, 18);
  header.writeUInt32LE(unpacked.length, 22);
  header.writeUInt16LE(Buffer.byteLength(name), 26);
  return Buffer.concat([header, Buffer.from(name), data]);
}

function endRecord(zip: Buffer): number {
  for (let i = zip.length - 22; i >= 0; i -= 1) if (zip.readUInt32LE(i) === 0x06054b50) return i;
  throw new Error('no end record');
}

/** `zip` with `extra` inserted at byte `at` (a local header's offset), the central directory's offsets moved past it. */
function insertAt(zip: Buffer, at: number, extra: Buffer): Buffer {
  const out = Buffer.concat([zip.subarray(0, at), extra, zip.subarray(at)]);
  const end = endRecord(out);
  const cd = out.readUInt32LE(end + 16) + extra.length;
  out.writeUInt32LE(cd, end + 16);
  let p = cd;
  for (let n = 0; n < out.readUInt16LE(end + 10); n += 1) {
    const local = out.readUInt32LE(p + 42);
    if (local >= at) out.writeUInt32LE(local + extra.length, p + 42);
    p += 46 + out.readUInt16LE(p + 28) + out.readUInt16LE(p + 30) + out.readUInt16LE(p + 32);
  }
  return out;
}

/** The local header offsets the central directory lists, in order. */
function localOffsets(zip: Buffer): number[] {
  const end = endRecord(zip);
  const out: number[] = [];
  let p = zip.readUInt32LE(end + 16);
  for (let n = 0; n < zip.readUInt16LE(end + 10); n += 1) {
    out.push(zip.readUInt32LE(p + 42));
    p += 46 + zip.readUInt16LE(p + 28) + zip.readUInt16LE(p + 30) + zip.readUInt16LE(p + 32);
  }
  return out.sort((a, b) => a - b);
}

// 64 MiB of spaces inside a worksheet: exceljs would write it to a temporary file, unpacked.
const SHEET_BOMB = Buffer.concat([
  Buffer.from('<?xml version="1.0" encoding="UTF-8"?><worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>'),
  Buffer.alloc(64 * 1024 * 1024, 0x20),
  Buffer.from('</sheetData></worksheet>'),
]);

describe('transfer/xlsx probes: what the streaming reader unpacks is what the size check counted', () => {
  it('reads a plain workbook (the check does not refuse what exceljs writes)', async () => {
    const book = await smallWorkbook();
    await checkUnpackedSize(book, limits.maxUnpacked);
    expect((await readWorkbook(book, limits)).rows).to.deep.equal([['hello']]);
    // The streaming writer puts a data descriptor after each part.
    const streamed = await readAll(workbookStream('S', [{ title: 'title' }], (async function* () { yield [['hello']]; })()));
    expect(streamed.readUInt16LE(6) & 8, 'a data descriptor').to.equal(8);
    expect((await readWorkbook(streamed, limits)).rows).to.deep.equal([['hello']]);
  });

  it('refuses a part hidden before the first listed entry (a bomb the central directory does not name)', async () => {
    const bomb = insertAt(await smallWorkbook(), 0, localEntry('xl/worksheets/sheet1.xml', SHEET_BOMB));
    expect(bomb.length).to.be.below(256 * 1024);
    const error = (await readWorkbook(bomb, limits).catch((e: FwError) => e)) as FwError;
    expect(error, 'read past the limit').to.be.instanceOf(Error);
    expect(error.status).to.equal(400);
    expect(error.message).to.match(/not an \.xlsx file/);
  });

  it('refuses a part hidden between two listed entries, and bytes after the last one', async () => {
    const book = await smallWorkbook();
    const second = localOffsets(book)[1]!;
    const hiddenBetween = insertAt(book, second, localEntry('xl/sharedStrings.xml', Buffer.alloc(32 * 1024 * 1024, 0x20)));
    expect(await checkUnpackedSize(hiddenBetween, limits.maxUnpacked).catch((e: FwError) => e)).to.include({ status: 400 });
    const end = endRecord(book);
    const cd = book.readUInt32LE(end + 16);
    const hiddenAfter = insertAt(book, cd, localEntry('xl/worksheets/sheet2.xml', SHEET_BOMB));
    expect(await checkUnpackedSize(hiddenAfter, limits.maxUnpacked).catch((e: FwError) => e)).to.include({ status: 400 });
  });

  it('refuses a local header that declares another size or method than its central record', async () => {
    const book = Buffer.from(await smallWorkbook());
    const first = localOffsets(book)[0]!;
    const changed = Buffer.from(book);
    changed.writeUInt16LE(changed.readUInt16LE(first + 8) === 8 ? 0 : 8, first + 8);
    expect(await checkUnpackedSize(changed, limits.maxUnpacked).catch((e: FwError) => e)).to.include({ status: 400 });
  });
});

describe('transfer/xlsx probes: the streaming writer follows its reader', () => {
  /** 50 batches of 200 rows of 2 KB that does not compress; counts the batches taken. */
  function batches(): { pulled: () => number; done: () => boolean; source: AsyncIterable<string[][]> } {
    let pulled = 0;
    let done = false;
    return {
      pulled: () => pulled,
      done: () => done,
      source: (async function* () {
        try {
          for (let b = 0; b < 50; b += 1) {
            pulled += 1;
            yield Array.from({ length: 200 }, () => [randomBytes(1500).toString('base64')]);
          }
        } finally {
          done = true;
        }
      })(),
    };
  }

  it('takes no more rows while nobody reads what it wrote (it took all 20 MB before)', async () => {
    const out = new PassThrough();
    const rows = batches();
    const writing = writeWorkbook(out, 'S', [{ title: 'notes' }], rows.source).catch(() => undefined);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const taken = rows.pulled();
    await new Promise((resolve) => setTimeout(resolve, 1000));
    // It stalls after the few batches the zip's buffers hold, whatever the size of the export.
    expect(rows.pulled(), 'batches taken while nobody reads').to.equal(taken);
    expect(taken).to.be.below(25);
    // A reader comes: the rest follows, and the workbook is whole.
    const chunks: Buffer[] = [];
    const ended = new Promise((resolve) => out.once('end', resolve));
    out.on('data', (c: Buffer) => chunks.push(c));
    await writing;
    await ended;
    expect(rows.pulled()).to.equal(50);
    expect((await readWorkbook(Buffer.concat(chunks), { maxRows: 20_000, maxColumns: 5 })).rows).to.have.length(10_000);
  });

  it('stops taking rows once its reader is gone (a cancelled download)', async () => {
    const out = new PassThrough();
    const rows = batches();
    const writing = writeWorkbook(out, 'S', [{ title: 'notes' }], rows.source).catch((error: unknown) => error);
    await new Promise((resolve) => setTimeout(resolve, 300));
    out.destroy();
    expect(await writing).to.be.instanceOf(Error);
    expect(rows.done(), 'the row source was closed').to.equal(true);
    expect(rows.pulled(), 'batches taken in all').to.be.below(50);
  });
});

describe('transfer/xlsx probes: reading leaves no temporary files', () => {
  // exceljs's reader writes a worksheet met before the shared strings to a temporary file (named
  // tmp-<pid>-…) and removes it only after the whole workbook is read, or at exit.
  const ours = () => readdirSync(tmpdir()).filter((name) => name.startsWith(`tmp-${process.pid}-`));

  async function twoSheets(): Promise<Buffer> {
    const book = new ExcelJS.Workbook();
    const data = book.addWorksheet('Data');
    data.addRow(['title']);
    data.addRow(['x']);
    book.addWorksheet('Lists').addRow(['a', 'b']);
    return Buffer.from(await book.xlsx.writeBuffer());
  }

  it('reads the first sheet of a workbook (sheets before shared strings, or none at all) and leaves nothing behind', async () => {
    const before = ours();
    const streamed = await readAll(workbookStream('S', [{ title: 'title' }], (async function* () { yield [['y']]; })()));
    for (let i = 0; i < 3; i += 1) {
      expect((await readWorkbook(await twoSheets(), limits)).rows).to.deep.equal([['x']]);
      expect((await readWorkbook(streamed, limits)).rows).to.deep.equal([['y']]);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(ours().filter((name) => !before.includes(name)), 'temporary files left').to.deep.equal([]);
  });

  it('leaves nothing behind when it refuses a sheet half-way (too many rows)', async () => {
    const before = ours();
    const book = new ExcelJS.Workbook();
    const sheet = book.addWorksheet('Data');
    for (let i = 0; i < 30; i += 1) sheet.addRow([`row ${i}`]);
    book.addWorksheet('Lists').addRow(['a']);
    const bytes = Buffer.from(await book.xlsx.writeBuffer());
    expect(await readWorkbook(bytes, { ...limits, maxRows: 5 }).catch((e: FwError) => e)).to.include({ status: 413, code: 'TOO_MANY_ROWS' });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(ours().filter((name) => !before.includes(name)), 'temporary files left').to.deep.equal([]);
  });
});
