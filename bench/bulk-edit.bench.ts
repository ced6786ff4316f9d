// What a safe bulk edit costs (issue 23 §2): one POST update-many that sets a field on 10,000 rows
// (each row through the cell editor's path: visibility, switches, whole-row validation, hooks, only
// changed columns, one operate-log row per row, one transaction), against single update-cell
// requests one after the other (a sample of 1,000, scaled to 10,000) and against a raw
// `UPDATE … WHERE id IN (…)` in one transaction; the undo of that edit, and of an import of as many
// new rows (issue 23 §3). Then a row's history (issue 23 §3): the page of a
// row with 1,000 entries in a 1,000,000-row operate log, through the route and as its query alone,
// with the query plan. On a SQLite file always, and on PostgreSQL when FW_TEST_PG_URL is set.
// Run: npm run bench -- bulk-edit
import Koa from 'koa';
import { createRegistry } from '@fw/core';
import { fwData } from '@fw/data';
import { createStore, type FwStore } from '@fw/store';
import { createTestDatabase, sqlBackends } from '@fw/test-utils';
import type { Knex } from 'knex';
import { benchUser, listen, median } from './lib.js';
import { Task } from './task-model.js';

const ROWS = Number(process.env.BENCH_ROWS ?? 10_000);
const SINGLE_SAMPLE = Number(process.env.BENCH_SINGLE_SAMPLE ?? 1000);
const LOG_ROWS = Number(process.env.BENCH_LOG_ROWS ?? 1_000_000);
const ROW_ENTRIES = 1000;
const HOT_ID = 42;

async function post(url: string, token: string, body: unknown): Promise<unknown> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', token }, body: JSON.stringify(body) });
  if (res.status !== 200) throw new Error(`${url} answered ${res.status}: ${await res.text()}`);
  return res.json();
}

/**
 * Fills the operate log to LOG_ROWS rows: ROW_ENTRIES of them for Task row HOT_ID first (the oldest
 * ids, so walking the key backwards finds them last), then the rest over 100,000 other rows and
 * three models.
 */
async function fillLog(store: FwStore): Promise<void> {
  const others = LOG_ROWS - ROW_ENTRIES;
  const request = `'{"id":1,"changes":{"note":"x"}}'`;
  const before = `'{"id":1,"subject":"s","note":"y"}'`;
  if (store.dialect === 'postgres') {
    // One statement per part, longer than the store's query timeout allows.
    await store.knex.transaction(async (trx) => {
      await trx.raw('set local statement_timeout = 0');
      await fillPg(trx, others, before, request);
    });
    await store.knex.raw('analyze fw_operate_log');
    return;
  }
  const now = Date.now();
  await store.knex.raw(
    `with recursive g(x) as (select 1 union all select x + 1 from g where x < ${ROW_ENTRIES})
     insert into fw_operate_log (user_id, account, model, action, source, target_id, before_data, request, status, duration_ms, created_at)
     select 1, 'bench', 'Task', 'update', 'http', '${HOT_ID}', ${before}, ${request}, 'success', 1, ${now} - x * 1000 from g`,
  );
  await store.knex.raw(
    `with recursive g(x) as (select 1 union all select x + 1 from g where x < ${others})
     insert into fw_operate_log (user_id, account, model, action, source, target_id, before_data, request, status, duration_ms, created_at)
     select 1, 'bench', case x % 4 when 2 then 'Other' when 3 then 'Third' else 'Task' end, 'update', 'http', cast((x * 7919) % 100000 + 1000 as text), ${before}, ${request}, 'success', 1, ${now} - x from g`,
  );
  await store.knex.raw('analyze');
}

async function fillPg(trx: Knex.Transaction, others: number, before: string, request: string): Promise<void> {
  await trx.raw(
    `insert into fw_operate_log (user_id, account, model, action, source, target_id, before_data, request, status, duration_ms, created_at)
       select 1, 'bench', 'Task', 'update', 'http', '${HOT_ID}', ${before}, ${request}, 'success', 1, now() - (g || ' s')::interval from generate_series(1, ${ROW_ENTRIES}) g`,
  );
  await trx.raw(
    `insert into fw_operate_log (user_id, account, model, action, source, target_id, before_data, request, status, duration_ms, created_at)
       select 1, 'bench', (array['Task','Task','Other','Third'])[1 + g % 4], 'update', 'http', ((g::bigint * 7919) % 100000 + 1000)::text, ${before}, ${request}, 'success', 1, now() - (g || ' ms')::interval
       from generate_series(1, ${others}) g`,
  );
}

// BENCH_DIALECT=sqlite or postgres runs one of them only.
const only = process.env.BENCH_DIALECT;
for (const spec of sqlBackends().filter((b) => (b.dialect === 'sqlite' || (b.dialect === 'postgres' && b.serverUrl)) && (!only || b.dialect === only))) {
  const database = await createTestDatabase(spec);
  // Filling a 1,000,000-row log takes single statements far past the default 5 s query timeout.
  const store = createStore({ url: database.url, queryTimeoutMs: 600_000 });
  let close: (() => void) | undefined;
  try {
    await store.migrate.latest();
    const registry = createRegistry([Task]);
    await store.createModelTables(registry.list());
    for (let i = 0; i < ROWS; i += 500) {
      await store.knex('bench_task').insert(
        Array.from({ length: Math.min(500, ROWS - i) }, (_, j) => ({
          subject: `Write report ${i + j + 1}`,
          note: 'start',
          startDate: '2024-01-01',
          endDate: '2024-02-01',
          done: false,
        })),
      );
    }
    const ids = ((await store.knex('bench_task').orderBy('id').select('id')) as Array<{ id: number }>).map((r) => Number(r.id));
    const { tokens, token } = await benchUser(store, Task, true);
    const app = new Koa();
    app.use(fwData({ store, tokens, registry, bulkMaxRows: ROWS }));
    const server = await listen(app);
    close = server.close;
    const base = `${server.url}/fw-api/data/modify/Task`;
    // Warm up the paths (plans, schema caches) on a few rows.
    await post(`${base}/update-many`, token, { ids: ids.slice(0, 10), values: { note: 'warm' } });
    for (const id of ids.slice(0, 10)) await post(`${base}/update-cell`, token, { id, field: 'note', value: 'warm' });

    let t = performance.now();
    const bulk = (await post(`${base}/update-many`, token, { ids, values: { note: 'bulk' } })) as { updated: number; changed: number; batch: string };
    const bulkMs = performance.now() - t;
    if (bulk.changed !== ROWS) throw new Error(`update-many changed ${bulk.changed} rows, not ${ROWS}`);

    // Undo of that bulk edit (issue 23 §3): every row put back through the update path, one transaction.
    const undoUrl = `${server.url}/fw-api/data/undo`;
    t = performance.now();
    const undone = (await post(undoUrl, token, { batch: bulk.batch })) as { undone: number; conflicted: number };
    const undoBulkMs = performance.now() - t;
    if (undone.undone !== ROWS) throw new Error(`undo of the bulk edit undid ${undone.undone} rows (${undone.conflicted} conflicts), not ${ROWS}`);

    // An import of ROWS new rows, then its undo: every imported row deleted to the trash.
    const csv = ['subject,note,startDate,endDate,done', ...Array.from({ length: ROWS }, (_, i) => `Imported ${i + 1},n,2024-01-01,2024-02-01,false`)].join('\n');
    t = performance.now();
    const importRes = await fetch(`${server.url}/fw-api/data/import/Task`, { method: 'POST', headers: { 'content-type': 'text/csv', token }, body: csv });
    const importMs = performance.now() - t;
    const imported = (await importRes.json()) as { added: number; batch?: string };
    if (importRes.status !== 200 || imported.added !== ROWS) throw new Error(`the import answered ${importRes.status}: ${JSON.stringify(imported).slice(0, 300)}`);
    let undoImportMs = NaN;
    if (imported.batch) {
      t = performance.now();
      const gone = (await post(undoUrl, token, { batch: imported.batch })) as { undone: number };
      undoImportMs = performance.now() - t;
      if (gone.undone !== ROWS) throw new Error(`undo of the import undid ${gone.undone} rows, not ${ROWS}`);
    }

    const sample = ids.slice(0, SINGLE_SAMPLE);
    t = performance.now();
    for (const id of sample) await post(`${base}/update-cell`, token, { id, field: 'note', value: 'single' });
    const singleMs = ((performance.now() - t) / sample.length) * ROWS;

    t = performance.now();
    await store.knex.transaction(async (trx) => {
      // SQLite binds at most 32,766 values a statement; 1,000 ids a statement fits every dialect.
      for (let i = 0; i < ids.length; i += 1000)
        await trx('bench_task')
          .whereIn('id', ids.slice(i, i + 1000))
          .update({ note: 'raw' });
    });
    const rawMs = performance.now() - t;

    const rate = (ms: number) => `${((ROWS / ms) * 1000).toFixed(0)} rows/s`;
    console.log(`bulk edit of ${ROWS} rows on ${spec.label} (one field, every row changed):`);
    console.log(`  update-many, one request          ${(bulkMs / 1000).toFixed(2)} s   ${rate(bulkMs)}`);
    console.log(`  update-cell, one request per row  ${(singleMs / 1000).toFixed(2)} s   ${rate(singleMs)}   (${SINGLE_SAMPLE} requests one after another, scaled to ${ROWS})`);
    console.log(`  raw UPDATE … WHERE id IN (…)      ${(rawMs / 1000).toFixed(3)} s   ${rate(rawMs)}   (chunks of 1,000 ids, one transaction)`);
    console.log(`  ratios: update-many is ${(singleMs / bulkMs).toFixed(1)}x faster than single cells, ${(bulkMs / rawMs).toFixed(0)}x slower than the raw UPDATE`);
    console.log(`  undo of that bulk edit            ${(undoBulkMs / 1000).toFixed(2)} s   ${rate(undoBulkMs)}   (${(undoBulkMs / bulkMs).toFixed(2)}x the edit's time)`);
    console.log(`import of ${ROWS} new rows (CSV)       ${(importMs / 1000).toFixed(2)} s   ${rate(importMs)}`);
    console.log(
      `  undo of that import (rows to the trash) ${Number.isNaN(undoImportMs) ? 'n/a: the import answered no batch' : `${(undoImportMs / 1000).toFixed(2)} s   ${rate(undoImportMs)}   (${(undoImportMs / importMs).toFixed(2)}x the import's time)`}`,
    );

    t = performance.now();
    await fillLog(store);
    const fillS = (performance.now() - t) / 1000;
    const logRows = Number((await store.knex('fw_operate_log').count({ n: '*' }))[0]!.n);
    const history = `${server.url}/fw-api/data/Task/${HOT_ID}/history`;
    // The client's idle connection may have been closed by the server while the log filled.
    await fetch(history, { headers: { token } }).catch(() => undefined);
    const times: number[] = [];
    let total = 0;
    for (let i = 0; i < 30; i++) {
      t = performance.now();
      const res = await fetch(`${history}?page=${1 + (i % 5)}&size=20`, { headers: { token } });
      const page = (await res.json()) as { total: number; rows: unknown[] };
      times.push(performance.now() - t);
      if (res.status !== 200 || page.rows.length !== 20) throw new Error(`history answered ${res.status}`);
      total = page.total;
    }
    const query = store.knex('fw_operate_log').where('model', 'Task').where('target_id', String(HOT_ID)).where('status', 'success').orderBy('id', 'desc').limit(20);
    const queryTimes: number[] = [];
    for (let i = 0; i < 30; i++) {
      t = performance.now();
      await query.clone();
      await store.knex('fw_operate_log').where('model', 'Task').where('target_id', String(HOT_ID)).where('status', 'success').count({ n: '*' });
      queryTimes.push(performance.now() - t);
    }
    const plan =
      store.dialect === 'postgres'
        ? ((await store.knex.raw(`explain ${query.toQuery()}`)).rows as Array<{ 'QUERY PLAN': string }>).map((r) => r['QUERY PLAN'].trim()).join(' | ')
        : ((await store.knex.raw(`explain query plan ${query.toQuery()}`)) as Array<{ detail: string }>).map((r) => r.detail).join(' | ');
    console.log(`history of one row on ${spec.label}: ${total} entries in a ${logRows}-row operate log (filled in ${fillS.toFixed(0)} s):`);
    console.log(`  GET …/history (page of 20, pages 1–5)   median ${median(times).toFixed(2)} ms   max ${Math.max(...times).toFixed(2)} ms   (30 requests)`);
    console.log(`  its two queries (page + count)         median ${median(queryTimes).toFixed(2)} ms   max ${Math.max(...queryTimes).toFixed(2)} ms`);
    console.log(`  plan: ${plan}`);
  } finally {
    close?.();
    await store.destroy();
    await database.drop();
  }
}
