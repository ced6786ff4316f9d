// A row's history in a large operate log (red-team leftovers §4). The log holds LOG_ROWS rows
// (1,000,000 unless BENCH_LOG_ROWS or `--rows=N` says otherwise), ROW_ENTRIES of them for one row
// of one model, spread evenly through it. Timed: `GET /fw-api/data/{fw}/{id}/history` through the
// real route, its first page and its last (deepest) one, against the route's two queries alone
// (page and count, the baseline: what the HTTP, permission and row-visibility layers add), as the
// median of RUNS requests each; then the query plans, which must use the
// `(model, target_id, id)` index. On a SQLite file always, on PostgreSQL when FW_TEST_PG_URL is set
// (BENCH_DIALECT=sqlite or postgres runs one of them only). The databases are made and dropped
// by the run (temporary files / databases), nothing is left behind.
// Run: npm run bench -- history            (the full size; minutes of filling on a slow machine)
//      BENCH_LOG_ROWS=100000 npm run bench -- history
import Koa from 'koa';
import { createRegistry } from '@fw/core';
import { fwData } from '@fw/data';
import { createStore, type FwStore } from '@fw/store';
import { createTestDatabase, sqlBackends } from '@fw/test-utils';
import { benchUser, listen, median } from './lib.js';
import { Task } from './task-model.js';

const rowsArg = process.argv.find((a) => a.startsWith('--rows='))?.slice('--rows='.length);
const LOG_ROWS = Number(rowsArg ?? process.env.BENCH_LOG_ROWS ?? 1_000_000);
const ROW_ENTRIES = 1000;
const RUNS = Number(process.env.BENCH_RUNS ?? 15);
const PAGE_SIZE = 20;
const DEEP_PAGE = Math.ceil(ROW_ENTRIES / PAGE_SIZE);
const HOT_ID = 42;
const INDEX = 'fw_ix_fw_operate_log_model_target_id_id';
if (!Number.isSafeInteger(LOG_ROWS) || LOG_ROWS < ROW_ENTRIES * 2)
  throw new Error(`the log needs at least ${ROW_ENTRIES * 2} rows (asked: ${String(rowsArg ?? process.env.BENCH_LOG_ROWS)})`);

/**
 * Fills the operate log with LOG_ROWS rows in one INSERT … SELECT per dialect (a recursive
 * counter on SQLite, `generate_series` on PostgreSQL), inside one transaction: every STEP-th row
 * belongs to Task row HOT_ID (ROW_ENTRIES of them), the rest to 100,000 other rows of three
 * models, newest last.
 */
async function fillLog(store: FwStore): Promise<void> {
  const step = Math.floor(LOG_ROWS / ROW_ENTRIES);
  const hot = `x % ${step} = 0 and x <= ${step * ROW_ENTRIES}`;
  const request = `'{"id":1,"changes":{"note":"x"}}'`;
  const before = `'{"id":1,"subject":"s","note":"y"}'`;
  const columns = 'user_id, account, model, action, source, target_id, before_data, request, status, duration_ms, created_at';
  if (store.dialect === 'postgres') {
    await store.knex.transaction(async (trx) => {
      // One statement far longer than the store's query time limit.
      await trx.raw('set local statement_timeout = 0');
      await trx.raw(
        `insert into fw_operate_log (${columns})
         select 1, 'bench', case when ${hot} then 'Task' else (array['Task','Task','Other','Third'])[1 + x % 4] end, 'update', 'http',
                case when ${hot} then '${HOT_ID}' else ((x::bigint * 7919) % 100000 + 1000)::text end,
                ${before}, ${request}, 'success', 1, now() - ((${LOG_ROWS} - x) || ' ms')::interval
         from generate_series(1, ${LOG_ROWS}) as g(x)`,
      );
    });
    await store.knex.raw('analyze fw_operate_log');
    return;
  }
  const now = Date.now();
  await store.knex.transaction((trx) =>
    trx.raw(
      `with recursive g(x) as (select 1 union all select x + 1 from g where x < ${LOG_ROWS})
       insert into fw_operate_log (${columns})
       select 1, 'bench', case when ${hot} then 'Task' else (case x % 4 when 2 then 'Other' when 3 then 'Third' else 'Task' end) end, 'update', 'http',
              case when ${hot} then '${HOT_ID}' else cast((x * 7919) % 100000 + 1000 as text) end,
              ${before}, ${request}, 'success', 1, ${now} - (${LOG_ROWS} - x) from g`,
    ),
  );
  await store.knex.raw('analyze');
}

type Timing = { median: number; max: number };

/** The plan of `sql` as one line (EXPLAIN on PostgreSQL, EXPLAIN QUERY PLAN on SQLite). */
async function planOf(store: FwStore, sql: string): Promise<string> {
  if (store.dialect === 'postgres') return ((await store.knex.raw(`explain ${sql}`)).rows as Array<{ 'QUERY PLAN': string }>).map((r) => r['QUERY PLAN'].trim()).join(' | ');
  return ((await store.knex.raw(`explain query plan ${sql}`)) as Array<{ detail: string }>).map((r) => r.detail).join(' | ');
}

/**
 * Times each of `fs` `runs` times, taking turns (a, b, c, a, b, c, …) so that a slow moment of a
 * shared machine, or a warming cache, falls on all of them alike; median and max per function, in ms.
 */
async function timedInTurns(runs: number, fs: Array<() => Promise<void>>): Promise<Timing[]> {
  const times: number[][] = fs.map(() => []);
  for (let i = 0; i < runs; i++) {
    for (const [j, f] of fs.entries()) {
      const t = performance.now();
      await f();
      times[j]!.push(performance.now() - t);
    }
  }
  return times.map((ts) => ({ median: median(ts), max: Math.max(...ts) }));
}

const only = process.env.BENCH_DIALECT;
let unindexed = 0;
for (const spec of sqlBackends().filter((b) => (b.dialect === 'sqlite' || (b.dialect === 'postgres' && b.serverUrl)) && (!only || b.dialect === only))) {
  const database = await createTestDatabase(spec);
  const store = createStore({ url: database.url, queryTimeoutMs: 600_000 });
  let close: (() => void) | undefined;
  try {
    await store.migrate.latest();
    const registry = createRegistry([Task]);
    await store.createModelTables(registry.list());
    await store
      .knex('bench_task')
      .insert(Array.from({ length: 100 }, (_, i) => ({ subject: `Task ${i + 1}`, note: 'n', startDate: '2024-01-01', endDate: '2024-02-01', done: false })));
    const { tokens, token } = await benchUser(store, Task, true);

    const t = performance.now();
    await fillLog(store);
    const fillS = (performance.now() - t) / 1000;
    const logRows = Number((await store.knex('fw_operate_log').count({ n: '*' }))[0]!.n);

    const app = new Koa();
    app.use(fwData({ store, tokens, registry }));
    const server = await listen(app);
    close = server.close;
    const history = `${server.url}/fw-api/data/Task/${HOT_ID}/history`;
    const page = async (n: number) => {
      const res = await fetch(`${history}?page=${n}&size=${PAGE_SIZE}`, { headers: { token } });
      const body = (await res.json()) as { total: number; rows: unknown[] };
      if (res.status !== 200 || body.total !== ROW_ENTRIES || body.rows.length === 0)
        throw new Error(`history page ${n} answered ${res.status}: ${JSON.stringify(body).slice(0, 200)}`);
    };
    // Warm up: the route's caches, the database's pages.
    for (let i = 0; i < 5; i++) await Promise.all([page(1), page(DEEP_PAGE)]);

    // The route's own two queries (read/history.ts), as the baseline.
    const where = () => store.knex('fw_operate_log').where('model', 'Task').where('target_id', String(HOT_ID)).where('status', 'success');
    const pageQuery = (n: number) =>
      where()
        .orderBy('id', 'desc')
        .offset((n - 1) * PAGE_SIZE)
        .limit(PAGE_SIZE)
        .select('id', 'created_at', 'user_id', 'account', 'source', 'action', 'batch', 'before_data', 'request');
    const countQuery = () => where().count({ n: '*' });
    const queries = async (n: number) => void (await Promise.all([pageQuery(n), countQuery()]));

    const [first, deep, firstQ, deepQ] = (await timedInTurns(RUNS, [() => page(1), () => page(DEEP_PAGE), () => queries(1), () => queries(DEEP_PAGE)])) as [
      Timing,
      Timing,
      Timing,
      Timing,
    ];
    const plans = { page: await planOf(store, pageQuery(DEEP_PAGE).toQuery()), count: await planOf(store, countQuery().toQuery()) };

    const ms = (r: Timing) => `median ${r.median.toFixed(2)} ms   max ${r.max.toFixed(2)} ms`;
    console.log(`history of one row on ${spec.label}: ${ROW_ENTRIES} entries in a ${logRows}-row operate log (filled in ${fillS.toFixed(1)} s), ${RUNS} requests each:`);
    console.log(`  GET …/history?page=1&size=${PAGE_SIZE}          ${ms(first)}`);
    console.log(`  GET …/history?page=${DEEP_PAGE}&size=${PAGE_SIZE} (last)  ${ms(deep)}`);
    console.log(`  its queries alone (page + count), page 1   ${ms(firstQ)}`);
    console.log(`  its queries alone (page + count), page ${DEEP_PAGE}  ${ms(deepQ)}`);
    console.log(
      `  ratios: route / its queries ${(first.median / firstQ.median).toFixed(1)}x (page 1), ${(deep.median / deepQ.median).toFixed(1)}x (page ${DEEP_PAGE}); last page / first page ${(deep.median / first.median).toFixed(2)}x`,
    );
    for (const [name, plan] of Object.entries(plans)) {
      const used = plan.includes(INDEX);
      if (!used) unindexed += 1;
      console.log(`  plan of the ${name} query (${used ? `uses ${INDEX}` : `does NOT use ${INDEX}`}): ${plan}`);
    }
  } finally {
    close?.();
    await store.destroy();
    await database.drop();
  }
}
// A plan without the index is a failure of the run, not only a line in its output.
if (unindexed > 0) process.exitCode = 1;
