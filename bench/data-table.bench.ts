// The price of Fw on a read: an authenticated, permission-checked table query (20 rows of
// 100,000, with the total count) through fwData, against the same knex queries behind a bare Koa
// route: without a condition, and with one (`stock` = 7, an indexed column: 2,000 rows match). On a SQLite file always,
// and on PostgreSQL and MariaDB/MySQL (a database of its own, created and dropped here) when
// FW_TEST_PG_URL / FW_TEST_MYSQL_URL is set (BENCH_DB=mysql keeps one; see lib.ts).
// The load comes from autocannon in a second process; runs alternate bare / Fw so drift in
// machine load hits both. Goal: Fw at 0.9 or more of the bare route.
// Run: npm run bench -- data-table
import { bodyParser } from '@koa/bodyparser';
import Koa from 'koa';
import type { Knex } from 'knex';
import { createRegistry, defineModel } from '@fw/core';
import { fwData } from '@fw/data';
import { createStore } from '@fw/store';
import { createTestDatabase } from '@fw/test-utils';
import { benchBackends, benchUser, compare, countRequests, listen, load, spread, withServerCpu } from './lib.js';

const ROWS = 100_000;
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CONNECTIONS = 10;

const Item = defineModel({
  name: 'Item',
  table: 'bench_item',
  fields: {
    title: { edit: { notNull: true } },
    price: { edit: { type: 'NUMBER' } },
    stock: { edit: { type: 'NUMBER', integer: true } },
    active: { edit: { type: 'BOOLEAN' } },
    added: { edit: { type: 'DATE' } },
  },
});

for (const spec of benchBackends()) {
  const database = await createTestDatabase(spec);
  const store = createStore(database.url);
  const closers: Array<() => void> = [];
  try {
    await store.migrate.latest();
    const registry = createRegistry([Item]);
    await store.createModelTables(registry.list());
    const started = Date.now();
    await store.knex.transaction(async (trx) => {
      for (let i = 0; i < ROWS; i += 500) {
        const batch = Array.from({ length: Math.min(500, ROWS - i) }, (_, j) => ({
          title: `Item ${i + j}`,
          price: ((i + j) % 1000) / 10,
          stock: (i + j) % 50,
          active: (i + j) % 3 !== 0,
          added: `2024-0${((i + j) % 9) + 1}-1${(i + j) % 10}`,
        }));
        await trx('bench_item').insert(batch);
      }
    });
    await store.knex.schema.alterTable('bench_item', (t) => t.index(['stock']));
    console.log(`seeded ${ROWS} rows in ${Date.now() - started} ms`);

    const { tokens, token } = await benchUser(store, Item, false);

    const fw = new Koa();
    fw.use(fwData({ store, tokens, registry }));
    // The baseline is what a hand-written route would be: the standard body parser, the page and
    // size from the body, the same two queries fwData sends (one page in key order, and the total),
    // and no authentication, permission check, validation or conversion.
    const bare = new Koa();
    bare.use(bodyParser());
    const columns = ['id', 'title', 'price', 'stock', 'active', 'added'].map((c) => `bench_item.${c}`);
    bare.use(async (ctx) => {
      const { page = 1, size = 20, conditions = [] } = ctx.request.body as { page?: number; size?: number; conditions?: Array<{ value: number }> };
      // The one condition the conditioned run sends: stock equal to a number.
      const where = (q: Knex.QueryBuilder) => (conditions[0] ? q.where('bench_item.stock', conditions[0].value) : q);
      const [rows, counted] = await Promise.all([
        where(store.knex('bench_item').select(columns))
          .orderBy('bench_item.id', 'asc')
          .limit(size)
          .offset((page - 1) * size),
        where(store.knex('bench_item').count({ n: '*' })),
      ]);
      ctx.body = { rows, total: Number((counted as Array<{ n: unknown }>)[0]?.n), page, size };
    });
    const fwAnswered = countRequests(fw);
    const bareAnswered = countRequests(bare);
    const fwServer = await listen(fw);
    const bareServer = await listen(bare);
    closers.push(fwServer.close, bareServer.close);
    const fwUrl = `${fwServer.url}/fw-api/data/table/Item`;
    const bareUrl = `${bareServer.url}/bare`;
    for (const conditioned of [false, true]) {
      const body = JSON.stringify(conditioned ? { page: 1, size: 20, conditions: [{ field: 'stock', op: 'eq', value: 7 }] } : { page: 1, size: 20 });
      const expected = conditioned ? ROWS / 50 : ROWS;

      // Same answer on both sides before timing anything.
      const check = async (url: string, headers: Record<string, string>) =>
        (await (await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body })).json()) as {
          rows: unknown[];
          total: number;
          totalIsEstimate?: boolean;
        };
      const [a, b] = await Promise.all([check(fwUrl, { token }), check(bareUrl, {})]);
      // Fw may answer a large table's total from the database's statistics, flagged as an estimate
      // (InnoDB's row count is approximate): within 5% then.
      const fwTotal = a.totalIsEstimate ? Math.abs(a.total - expected) <= expected * 0.05 : a.total === expected;
      if (!fwTotal || b.total !== expected || a.rows.length !== 20 || b.rows.length !== 20)
        throw new Error(`unexpected answers: ${a.total}/${a.rows.length} vs ${b.total}/${b.rows.length}`);

      const opts = { seconds: SECONDS, connections: CONNECTIONS, body };
      const { baseline, candidate, rounds } = await compare(
        ROUNDS,
        () => withServerCpu(bareAnswered, () => load(bareUrl, opts)),
        () => withServerCpu(fwAnswered, () => load(fwUrl, { ...opts, headers: { token } })),
      );
      if (a.totalIsEstimate) console.log(`  (Fw's total is an estimate: ${a.total})`);
      console.log(
        `table query on ${spec.label}, 20 of ${ROWS} rows + count, ${conditioned ? 'stock = 7' : 'no condition'}, ${CONNECTIONS} connections, ${ROUNDS} x ${SECONDS} s each (median):`,
      );
      console.log(
        `  bare knex route     ${baseline.rps.toFixed(0)} req/s   mean ${baseline.mean.toFixed(2)} ms   p99 ${baseline.p99} ms   server CPU ${baseline.cpu!.toFixed(0)} µs/req`,
      );
      console.log(
        `  fwData (auth+power) ${candidate.rps.toFixed(0)} req/s   mean ${candidate.mean.toFixed(2)} ms   p99 ${candidate.p99} ms   server CPU ${candidate.cpu!.toFixed(0)} µs/req`,
      );
      console.log(`  ratio fw/bare ${(candidate.rps / baseline.rps).toFixed(3)} (goal >= 0.9); p99 ratio ${(candidate.p99 / Math.max(baseline.p99, 0.001)).toFixed(2)}`);
      console.log(`  per round (each against the bare run just before it): throughput ${spread(rounds.map((r) => r.rps))}, server CPU ${spread(rounds.map((r) => r.cpu!))}`);
    }
  } finally {
    for (const close of closers) close();
    await store.destroy();
    await database.drop();
  }
}
