// Exports and imports at scale (issue 21 §4). Seeds 1,000,000 rows (a SQLite file; PostgreSQL
// too, a database of its own, when FW_TEST_PG_URL is set) and then, each in a child process of its
// own so its peak memory (`process.resourceUsage().maxRSS`) is its alone:
// - exports every row as CSV and as XLSX through the real HTTP route (fwData, a non-administrator
//   with the export power), read by keyset seeks; time, rows/s, bytes and peak RSS;
// - imports 100,000 CSV rows in one request, batched (multi-row INSERTs) and, for comparison, on
//   a model whose `afterAdd` hook makes every row take the single-row path; rows/s and peak RSS.
// In this process, the baseline: reading all rows in batches of 1000 by OFFSET against by keyset
// seek (the same query, no HTTP), by key and by an indexed column with ties.
// Run: npm run bench -- transfer-scale   (BENCH_ROWS, BENCH_IMPORT_ROWS to change the sizes)
import { spawn } from 'node:child_process';
import { get } from 'node:http';
import { fileURLToPath } from 'node:url';
import Koa from 'koa';
import request from 'supertest';
import { createRegistry, defineModel } from '@fw/core';
import { fwData } from '@fw/data';
import { createStore, type FwStore } from '@fw/store';
import { createTestDatabase, sqlBackends } from '@fw/test-utils';
import { FwTokenService, KnexTokenStore } from '@fw/token';
import { offsetBatches, seekBatches, type SeekBatchesOptions } from '../packages/data/src/read/export-reads.js';
import { csvLines } from '../packages/data/src/transfer/csv.js';
import { benchUser, listen } from './lib.js';

const ROWS = Number(process.env.BENCH_ROWS ?? 1_000_000);
const IMPORT_ROWS = Number(process.env.BENCH_IMPORT_ROWS ?? 100_000);

const fields = {
  title: { edit: { notNull: true } },
  status: {
    edit: {
      type: 'CHOICE',
      choices: [
        { value: 'open', label: 'Open' },
        { value: 'done', label: 'Done' },
      ],
    },
  },
  score: { edit: { type: 'NUMBER' } },
  qty: { edit: { type: 'NUMBER', integer: true } },
  day: { edit: { type: 'DATE' } },
  at: { edit: { type: 'DATETIME' } },
  notes: { edit: { type: 'TEXTAREA' } },
} as const;
const Row = defineModel({ name: 'Row', table: 'bench_rows', power: { export: true }, fields });
const Inbox = defineModel({ name: 'Inbox', table: 'bench_inbox', power: { importable: true }, fields });
/** The same columns, with an `afterAdd` hook: every imported row takes the single-row path. */
const Hooked = defineModel({ name: 'Hooked', table: 'bench_hooked', power: { importable: true }, fields, dataProxy: { afterAdd: () => {} } });
const registry = createRegistry([Row, Inbox, Hooked]);

/** What a child process measured. */
interface Measured {
  ms: number;
  rows: number;
  bytes: number;
  /** Peak resident set of the child, MB. */
  peakMb: number;
  /** Resident set of the child before the request (store, app, modules loaded), MB. */
  idleMb: number;
  status: number;
}

const mb = (bytes: number) => bytes / 1024 / 1024;

async function child(url: string, job: string, token: string): Promise<Measured> {
  const store = createStore(url);
  const tokens = new FwTokenService({ store: new KnexTokenStore({ knex: store.knex }) });
  const app = new Koa();
  app.use(fwData({ store, tokens, registry, exportMaxRows: 10_000_000, importMaxRows: 1_000_000, importBodyLimit: 512 * 1024 * 1024 }));
  const idleMb = mb(process.memoryUsage().rss);
  const started = performance.now();
  if (job.startsWith('import')) {
    const text = csvLines([['title', 'status', 'score', 'qty', 'day', 'at', 'notes'], ...Array.from({ length: IMPORT_ROWS }, (_, i) => importRow(i))]);
    const model = job === 'import' ? 'Inbox' : 'Hooked';
    const began = performance.now();
    const res = await request(app.callback()).post(`/fw-api/data/import/${model}`).set('token', token).set('Content-Type', 'text/csv').send(text);
    const ms = performance.now() - began;
    await store.destroy();
    return {
      ms,
      rows: Number((res.body as { imported?: number }).imported ?? 0),
      bytes: Buffer.byteLength(text),
      peakMb: process.resourceUsage().maxRSS / 1024,
      idleMb,
      status: res.status,
    };
  }
  const server = await listen(app);
  const result = await new Promise<{ status: number; bytes: number; lines: number }>((resolve, reject) => {
    get(`${server.url}/fw-api/data/export/Row?format=${job}`, { headers: { token } }, (res) => {
      let bytes = 0;
      let lines = 0;
      res.on('data', (chunk: Buffer) => {
        bytes += chunk.length;
        if (job === 'csv') for (let i = chunk.indexOf(10); i >= 0; i = chunk.indexOf(10, i + 1)) lines += 1;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, bytes, lines }));
      res.on('error', reject);
    }).on('error', reject);
  });
  const ms = performance.now() - started;
  server.close();
  await store.destroy();
  // A CSV has a header line; a workbook's rows are not counted here (the seed says how many).
  return { ms, rows: job === 'csv' ? result.lines - 1 : ROWS, bytes: result.bytes, peakMb: process.resourceUsage().maxRSS / 1024, idleMb, status: result.status };
}

function importRow(i: number): unknown[] {
  return [
    `Imported ${i}`,
    i % 3 === 0 ? 'Done' : 'Open',
    (i % 1000) / 8,
    i % 97,
    `2025-0${(i % 9) + 1}-1${i % 10}`,
    new Date(Date.UTC(2025, 0, 1) + i * 1000).toISOString(),
    i % 5 === 0 ? `note ${i}` : '',
  ];
}

/** Runs one measurement in a child process of its own. */
function inChild(url: string, job: string, token: string): Promise<Measured> {
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, ['--import', 'tsx', '--conditions=fw-source', fileURLToPath(import.meta.url), 'child', url, job, token], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    proc.stdout.on('data', (c: Buffer) => (out += c.toString()));
    proc.on('exit', (code) => {
      const line = out.trim().split('\n').pop() ?? '';
      if (code !== 0 || !line.startsWith('{')) reject(new Error(`child ${job} exited ${String(code)}: ${out}`));
      else resolve(JSON.parse(line) as Measured);
    });
  });
}

/** Fills the table with `ROWS` rows in one statement (a series generated by the database). */
async function seed(store: FwStore): Promise<void> {
  const values = (i: string, text: (s: string) => string, date: (s: string) => string) =>
    `${text(`'Row ' || ${i}`)}, CASE WHEN ${i} % 3 = 0 THEN 'done' ELSE 'open' END, (${i} % 1000) / 8.0, ${i} % 97, ${date(i)}, NULL, CASE WHEN ${i} % 5 = 0 THEN ${text(`'note ' || ${i}`)} ELSE NULL END`;
  const columns = 'title, status, score, qty, day, at, notes';
  if (store.dialect === 'postgres') {
    await store.knex.raw(
      `INSERT INTO bench_rows (${columns}) SELECT ${values(
        'i',
        (s) => s,
        (i) => `DATE '2024-01-01' + (${i} % 365)`,
      )} FROM generate_series(1, ${ROWS}) AS s(i)`,
    );
    await store.knex.raw(`UPDATE bench_rows SET at = TIMESTAMP '2024-01-01' + (id % 86400) * INTERVAL '1 second' WHERE id % 7 <> 0`);
  } else {
    await store.knex.raw(
      `WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < ${ROWS}) INSERT INTO bench_rows (${columns}) SELECT ${values(
        'i',
        (s) => s,
        (i) => `date('2024-01-01', '+' || (${i} % 365) || ' days')`,
      )} FROM s`,
    );
    await store.knex.raw(`UPDATE bench_rows SET at = strftime('%Y-%m-%dT%H:%M:%S.000Z', '2024-01-01', '+' || (id % 86400) || ' seconds') WHERE id % 7 <> 0`);
  }
  // Score repeats (1000 values): an indexed sort column full of ties, the key breaking them.
  await store.knex.schema.alterTable('bench_rows', (t) => t.index(['score', 'id'], 'bench_rows_score_id'));
}

/** Seconds to read every row in batches of 1000. */
async function readAll(batches: AsyncGenerator<Array<Record<string, unknown>>>): Promise<{ s: number; rows: number }> {
  const started = performance.now();
  let rows = 0;
  for await (const batch of batches) rows += batch.length;
  return { s: (performance.now() - started) / 1000, rows };
}

if (process.argv[2] === 'child') {
  const [, , , url, job, token] = process.argv;
  const measured = await child(url!, job!, token!);
  console.log(JSON.stringify(measured));
  process.exit(0);
}

const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
// BENCH_DIALECTS=postgres (or sqlite) runs one database only.
const only = process.env.BENCH_DIALECTS?.split(',');
for (const spec of sqlBackends().filter((b) => (b.dialect === 'sqlite' || (b.dialect === 'postgres' && b.serverUrl)) && (!only || only.includes(b.dialect)))) {
  const database = await createTestDatabase(spec);
  // An hour per statement: seeding a million rows in one statement is meant to take a while.
  const store = createStore({ url: database.url, queryTimeoutMs: 3_600_000 });
  try {
    await store.migrate.latest();
    await store.createModelTables(registry.list());
    let started = performance.now();
    await seed(store);
    if (store.dialect === 'postgres') await store.knex.raw('VACUUM ANALYZE bench_rows');
    console.log(`\n## ${spec.label}: seeded ${fmt(ROWS)} rows in ${((performance.now() - started) / 1000).toFixed(1)} s`);

    // The baseline: the same reads by OFFSET and by seek (BENCH_BASELINE=0 leaves it out).
    const baselines = [
      ['by key', []],
      ['by score (indexed, ties), key', [{ field: 'score', order: 'asc' }]],
    ] as const;
    if (process.env.BENCH_BASELINE !== '0') console.log('\n| read of every row, batches of 1000 | OFFSET | keyset seek | OFFSET / seek |\n|---|---|---|---|');
    for (const [label, sort] of process.env.BENCH_BASELINE === '0' ? [] : baselines) {
      const options: SeekBatchesOptions = {
        knex: store.knex,
        dialect: store.dialect,
        model: Row,
        query: () => store.knex('bench_rows').select('*'),
        sort,
        batchRows: 1000,
        maxRows: ROWS,
      };
      const seek = await readAll(seekBatches(options));
      const offset = await readAll(offsetBatches(options));
      if (seek.rows !== ROWS || offset.rows !== ROWS) throw new Error(`read ${seek.rows} / ${offset.rows} rows`);
      console.log(`| ${label} | ${offset.s.toFixed(1)} s | ${seek.s.toFixed(1)} s | ${(offset.s / seek.s).toFixed(1)}× |`);
    }

    const exporter = await benchUser(store, Row, true);
    console.log('\n| through HTTP (child process) | rows | time | rows/s | size | peak RSS (idle before) |\n|---|---|---|---|---|---|');
    for (const job of ['csv', 'xlsx']) {
      const m = await inChild(database.url, job, exporter.token);
      if (m.status !== 200 || m.rows !== ROWS) throw new Error(`export ${job}: status ${m.status}, ${m.rows} rows`);
      console.log(
        `| export ${job.toUpperCase()} | ${fmt(m.rows)} | ${(m.ms / 1000).toFixed(1)} s | ${fmt(m.rows / (m.ms / 1000))} | ${mb(m.bytes).toFixed(0)} MB | ${m.peakMb.toFixed(0)} MB (${m.idleMb.toFixed(0)} MB) |`,
      );
    }
    // The importer: an administrator token is enough here (power checks are not what is measured).
    const user = await store.users.create({ account: 'importer', password: 'bench-password', isAdmin: true, mustChangePassword: false });
    const tokens = new FwTokenService({ store: new KnexTokenStore({ knex: store.knex }) });
    const { token } = await tokens.loginToken({ id: user.id, account: 'importer', isAdmin: true }, tokens.generateToken());
    for (const job of ['import', 'import-rowwise']) {
      started = performance.now();
      const m = await inChild(database.url, job, token);
      if (m.status !== 200 || m.rows !== IMPORT_ROWS) throw new Error(`${job}: status ${m.status}, ${m.rows} rows`);
      const label = job === 'import' ? 'import CSV, batched INSERTs' : 'import CSV, row by row (afterAdd hook)';
      console.log(
        `| ${label} | ${fmt(m.rows)} | ${(m.ms / 1000).toFixed(1)} s | ${fmt(m.rows / (m.ms / 1000))} | ${mb(m.bytes).toFixed(0)} MB | ${m.peakMb.toFixed(0)} MB (${m.idleMb.toFixed(0)} MB) |`,
      );
    }
  } finally {
    await store.destroy();
    await database.drop();
  }
}
