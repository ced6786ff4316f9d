// Workbook write and read speed with exceljs's streaming WorkbookWriter / WorkbookReader
// (packages/data/src/transfer/xlsx.ts), on the import limit's 10,000 rows, beside CSV for scale.
// Run: node --import tsx --conditions=fw-source bench/xlsx.bench.ts
import { csvLines, parseCsv } from '../packages/data/src/transfer/csv.js';
import { readWorkbook, workbookStream } from '../packages/data/src/transfer/xlsx.js';

const ROWS = 10_000;
const ROUNDS = 3;
const columns = ['Title', 'Price', 'Published', 'Author', 'Notes', 'In print'].map((title) => ({ title, ...(title === 'Published' ? { numFmt: 'yyyy-mm-dd' } : {}) }));
const values = Array.from({ length: ROWS }, (_, i) => [
  `Title ${i}`,
  i * 1.5,
  new Date(Date.UTC(2024, i % 12, (i % 28) + 1)),
  `Doe, "Jr." ${i}`,
  i % 7 === 0 ? `line one\nline two ${i}` : 'short',
  i % 2 === 0,
]);

async function write(): Promise<Buffer> {
  const chunks: Buffer[] = [];
  const stream = workbookStream(
    'Bench',
    columns,
    (async function* () {
      for (let i = 0; i < values.length; i += 1000) yield values.slice(i, i + 1000);
    })(),
  );
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

async function time(fn: () => Promise<unknown> | unknown): Promise<number> {
  await fn();
  const runs: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    const start = process.hrtime.bigint();
    await fn();
    runs.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  return runs.sort((a, b) => a - b)[Math.floor(ROUNDS / 2)]!;
}

const file = await write();
const limits = { maxRows: ROWS, maxColumns: 500 };
const { rows } = await readWorkbook(file, limits);
if (rows.length !== ROWS) throw new Error(`read ${rows.length} rows`);
const csv = csvLines([columns.map((c) => c.title), ...values]);
const row = (name: string, ms: number) => console.log(`${name.padEnd(28)} ${ms.toFixed(0).padStart(7)} ms`);
console.log(`${ROWS} rows x ${columns.length} columns; workbook ${(file.length / 1e6).toFixed(2)} MB, CSV ${(Buffer.byteLength(csv) / 1e6).toFixed(2)} MB; median of ${ROUNDS}`);
row('xlsx write (streaming)', await time(write));
row('xlsx read (streaming)', await time(() => readWorkbook(file, limits)));
row('csv write (csv-stringify)', await time(() => csvLines([columns.map((c) => c.title), ...values])));
row('csv read (csv-parse)', await time(() => parseCsv(csv, limits)));
