// What a safe cell edit costs: POST update-cell through the full stack (token, power, both cell
// switches, row visibility, the whole-row schema, hooks, a transaction, the operate log and the
// edit event) against a raw knex single-row UPDATE behind a bare Koa route. Every request writes
// a new value (autocannon's -I), so both sides really write. On a SQLite file always, and on
// PostgreSQL and MariaDB/MySQL (pooled connections, a database of its own created and dropped
// here) when FW_TEST_PG_URL / FW_TEST_MYSQL_URL is set (BENCH_DB=mysql keeps one; see lib.ts). Run: npm run bench -- update-cell
import { bodyParser } from '@koa/bodyparser';
import Koa from 'koa';
import { createRegistry } from '@fw/core';
import { fwData } from '@fw/data';
import { createStore } from '@fw/store';
import { createTestDatabase } from '@fw/test-utils';
import { benchBackends, benchUser, compare, countRequests, listen, load, spread, withServerCpu } from './lib.js';
import { Task } from './task-model.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const ROWS = 1000;
const HOT_ROW = process.env.BENCH_HOT_ROW === '1';
const CONNECTIONS = 10;

for (const spec of benchBackends()) {
  const database = await createTestDatabase(spec);
  const store = createStore(database.url);
  const closers: Array<() => void> = [];
  try {
    await store.migrate.latest();
    const registry = createRegistry([Task]);
    await store.createModelTables(registry.list());
    await store.knex('bench_task');
    for (let i = 0; i < ROWS; i += 100)
      await store
        .knex('bench_task')
        .insert(Array.from({ length: 100 }, (_, j) => ({ subject: `Write report ${i + j + 1}`, note: 'start', startDate: '2024-01-01', endDate: '2024-02-01', done: false })));
    const { tokens, token } = await benchUser(store, Task, true);

    const fw = new Koa();
    fw.use(fwData({ store, tokens, registry }));
    // The baseline: the standard body parser and one UPDATE, trusting the client entirely.
    const bare = new Koa();
    bare.use(bodyParser());
    bare.use(async (ctx) => {
      const { id, value } = ctx.request.body as { id: number; value: string };
      await store.knex('bench_task').where('id', id).update({ note: value });
      ctx.body = { id, note: value };
    });
    const fwAnswered = countRequests(fw);
    const bareAnswered = countRequests(bare);
    const fwServer = await listen(fw);
    const bareServer = await listen(bare);
    closers.push(fwServer.close, bareServer.close);
    // Each request edits the next of the rows (a new value every time); with BENCH_HOT_ROW=1 every
    // request edits row 1, where on PostgreSQL the writers queue for the one row lock.
    const body = `{"id":${HOT_ROW ? 1 : '[<row>]'},"field":"note","value":"note [<id>]"}`;
    const opts = { seconds: SECONDS, connections: CONNECTIONS, body, uniqueIds: true, rows: ROWS };

    const check = await fetch(`${fwServer.url}/fw-api/data/modify/Task/update-cell`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', token },
      body: JSON.stringify({ id: 1, field: 'note', value: 'checked' }),
    });
    if (check.status !== 200) throw new Error(`update-cell answered ${check.status}: ${await check.text()}`);

    const { baseline, candidate, rounds } = await compare(
      ROUNDS,
      () => withServerCpu(bareAnswered, () => load(`${bareServer.url}/bare`, opts)),
      () => withServerCpu(fwAnswered, () => load(`${fwServer.url}/fw-api/data/modify/Task/update-cell`, { ...opts, headers: { token } })),
    );
    const logged = Number((await store.knex('fw_operate_log').count({ n: '*' }))[0]!.n);
    console.log(`update one cell on ${spec.label}, ${HOT_ROW ? 'always row 1' : `rows 1..${ROWS} in turn`}, ${CONNECTIONS} connections, ${ROUNDS} x ${SECONDS} s each (median):`);
    console.log(
      `  raw knex UPDATE route  ${baseline.rps.toFixed(0)} req/s   mean ${baseline.mean.toFixed(2)} ms   p99 ${baseline.p99} ms   server CPU ${baseline.cpu!.toFixed(0)} µs/req`,
    );
    console.log(
      `  update-cell full stack ${candidate.rps.toFixed(0)} req/s   mean ${candidate.mean.toFixed(2)} ms   p99 ${candidate.p99} ms   server CPU ${candidate.cpu!.toFixed(0)} µs/req`,
    );
    console.log(
      `  ratio full/raw: throughput ${(candidate.rps / baseline.rps).toFixed(3)}, server CPU ${(baseline.cpu! / candidate.cpu!).toFixed(3)}, mean latency ${(candidate.mean / baseline.mean).toFixed(2)}x, p99 latency ${(candidate.p99 / Math.max(baseline.p99, 0.001)).toFixed(2)}x`,
    );
    console.log(`  per round (each against the raw run just before it): throughput ${spread(rounds.map((r) => r.rps))}, server CPU ${spread(rounds.map((r) => r.cpu!))}`);
    console.log(`  (${logged} operate-log rows written by the full stack)`);
  } finally {
    for (const close of closers) close();
    await store.destroy();
    await database.drop();
  }
}
