// What an import's operate log costs (issue 23): every written row gets its log row in the
// import's transaction. Imports IMPORT_ROWS CSV rows (mode add, multi-row INSERTs; then the same
// rows again in mode update, row by row) on SQLite and, when FW_TEST_PG_URL is set, PostgreSQL,
// alternately with the per-row log rows written and with `logRowsIn` made a no-op (the summary
// row stays), in one process; medians of wall time and of this process's CPU time. On a shared
// machine wall time wanders; the alternation and the medians keep the comparison fair.
// Run: npm run bench -- import-log   (BENCH_IMPORT_ROWS, BENCH_REPEAT to change the sizes)
import Koa from 'koa';
import request from 'supertest';
import { createRegistry, defineModel } from '@fw/core';
import { fwData } from '@fw/data';
import { createStore } from '@fw/store';
import { createTestDatabase, sqlBackends } from '@fw/test-utils';
import { AuditedWriter } from '../packages/data/src/write/audited-write.js';
import { csvLines } from '../packages/data/src/transfer/csv.js';
import { benchUser, median } from './lib.js';

const IMPORT_ROWS = Number(process.env.BENCH_IMPORT_ROWS ?? 10_000);
const REPEAT = Number(process.env.BENCH_REPEAT ?? 5);

const Item = defineModel({
  name: 'Item',
  table: 'bench_import_log',
  power: { importable: true },
  fields: { title: { edit: { notNull: true } }, qty: { edit: { type: 'NUMBER', integer: true } }, notes: { edit: { type: 'TEXTAREA' } } },
});
const registry = createRegistry([Item]);

const logRowsIn = AuditedWriter.prototype.logRowsIn;
const skipped: typeof logRowsIn = async () => {};

for (const spec of sqlBackends().filter((b) => b.dialect === 'sqlite' || (b.dialect === 'postgres' && b.serverUrl))) {
  const database = await createTestDatabase(spec);
  const store = createStore(database.url);
  try {
    await store.migrate.latest();
    await store.createModelTables([Item]);
    const { tokens, token } = await benchUser(store, Item, true);
    const app = new Koa();
    app.use(fwData({ store, tokens, registry, importMaxRows: 1_000_000, importBodyLimit: 64 * 1024 * 1024 }));
    const agent = request(app.callback());
    const post = async (text: string, mode: string) => {
      const res = await agent.post(`/fw-api/data/import/Item?mode=${mode}`).set('token', token).set('Content-Type', 'text/csv').send(text);
      if (res.status !== 200) throw new Error(`import ${mode}: ${res.status} ${res.text}`);
    };
    const added = csvLines([['title', 'qty', 'notes'], ...Array.from({ length: IMPORT_ROWS }, (_, i) => [`Row ${i}`, i % 100, `note ${i}`])]);
    const figures: Record<string, { ms: number[]; cpu: number[] }> = {};
    const measure = async (key: string, work: () => Promise<void>) => {
      const cpu = process.cpuUsage();
      const started = performance.now();
      await work();
      const ms = performance.now() - started;
      const used = process.cpuUsage(cpu);
      (figures[key] ??= { ms: [], cpu: [] }).ms.push(ms);
      figures[key].cpu.push((used.user + used.system) / 1000);
    };
    for (let round = 0; round < REPEAT * 2; round += 1) {
      const logged = round % 2 === 0;
      AuditedWriter.prototype.logRowsIn = logged ? logRowsIn : skipped;
      await store.knex('bench_import_log').delete();
      await store.knex('fw_operate_log').delete();
      const label = logged ? 'log rows' : 'summary only';
      await measure(`add ${label}`, () => post(added, 'add'));
      const ids = (await store.knex('bench_import_log').orderBy('id').pluck('id')).map(Number);
      const updated = csvLines([['id', 'title', 'qty', 'notes'], ...ids.map((id, i) => [id, `Row ${i}`, (i % 100) + 1, `note ${i}`])]);
      await measure(`update ${label}`, () => post(updated, 'update'));
      const logs = Number((await store.knex('fw_operate_log').count({ n: '*' }))[0]!.n);
      if (logs !== (logged ? 2 * IMPORT_ROWS + 2 : 2)) throw new Error(`${logs} log rows`);
    }
    AuditedWriter.prototype.logRowsIn = logRowsIn;
    console.log(`\n## ${spec.label}: ${IMPORT_ROWS.toLocaleString('en-US')} rows, median of ${REPEAT}\n`);
    console.log('| import | summary row only | a log row per row | ratio (wall) | CPU ratio |\n|---|---|---|---|---|');
    for (const mode of ['add', 'update']) {
      const off = figures[`${mode} summary only`]!;
      const on = figures[`${mode} log rows`]!;
      const [offMs, onMs, offCpu, onCpu] = [median(off.ms), median(on.ms), median(off.cpu), median(on.cpu)];
      console.log(`| ${mode} | ${(offMs / 1000).toFixed(2)} s | ${(onMs / 1000).toFixed(2)} s | ${(onMs / offMs).toFixed(2)}× | ${(onCpu / offCpu).toFixed(2)}× |`);
    }
  } finally {
    AuditedWriter.prototype.logRowsIn = logRowsIn;
    await store.destroy();
    await database.drop();
  }
}
