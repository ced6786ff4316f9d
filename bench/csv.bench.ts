// CSV read and write speed: csv-parse / csv-stringify (packages/data/src/transfer/csv.ts) against
// the hand-written reader and writer they replaced (bench/csv-legacy.ts), in the same run.
// Run: node --import tsx --conditions=fw-source bench/csv.bench.ts
//
// Input: 10,000 rows (the default import limit) of 8 columns: plain words, numbers, dates, text with
// commas, doubled quotes and line breaks, formula-looking text, JSON lists — about 1 MB.
import { csvLine, csvLines, parseCsv } from '../packages/data/src/transfer/csv.js';
import * as legacy from './csv-legacy.js';

const ROWS = 10_000;
const ROUNDS = 7;
const limits = { maxRows: ROWS, maxColumns: 500 };

const values = Array.from({ length: ROWS }, (_, i) => [
  `Title ${i}`,
  i * 1.5,
  `2024-0${(i % 9) + 1}-1${i % 10}`,
  i % 3 === 0 ? `Smith, "Jr." ${i}` : `Doe ${i}`,
  i % 7 === 0 ? `line one\r\nline two ${i}` : 'short',
  i % 11 === 0 ? `=SUM(A${i})` : `plain ${i}`,
  ['a', 'b', String(i)],
  i % 2 === 0,
]);
const header = ['title', 'price', 'published', 'author', 'notes', 'formula', 'tags', 'inPrint'];

let sink = 0;
function time(fn: () => number): number {
  fn();
  const runs: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    const start = process.hrtime.bigint();
    sink += fn();
    runs.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  return runs.sort((a, b) => a - b)[Math.floor(ROUNDS / 2)]!;
}

const writeNew = time(() => [header, ...values].map((v) => csvLine(v)).join('').length);
const batches = (size: number) => () => {
  let n = 0;
  for (let i = 0; i < values.length; i += size) n += csvLines(values.slice(i, i + size)).length;
  return n;
};
const writeBatch = time(batches(1000));
const writeOld = time(() => [header, ...values].map((v) => legacy.csvLine(v)).join('').length);
const text = [header, ...values].map((v) => csvLine(v)).join('');
if (text !== [header, ...values].map((v) => legacy.csvLine(v)).join('')) throw new Error('the two writers disagree');
const readNew = time(() => parseCsv(text, limits).rows.length);
const readOld = time(() => legacy.parseCsv(text, limits).rows.length);
if (JSON.stringify(parseCsv(text, limits)) !== JSON.stringify(legacy.parseCsv(text, limits))) throw new Error('the two readers disagree');

const mb = Buffer.byteLength(text) / 1e6;
const row = (name: string, ms: number) => console.log(`${name.padEnd(34)} ${ms.toFixed(1).padStart(8)} ms  ${(mb / (ms / 1000)).toFixed(1).padStart(7)} MB/s`);
console.log(`${ROWS} rows, ${mb.toFixed(2)} MB, median of ${ROUNDS}`);
row('read  csv-parse (sync)', readNew);
row('read  hand-written', readOld);
row('write csv-stringify (line by line)', writeNew);
row('write csv-stringify (1000 a call)', writeBatch);
row('write hand-written', writeOld);
if (sink < 0) console.log(sink);
