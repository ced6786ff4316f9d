// Two Fw instances on one PostgreSQL (or MariaDB/MySQL) database against one, under the same total load: every
// instance is a process of its own (bench/instance-worker.ts) with its own connection pool, token
// service and power cache. One instance takes 10 connections; then two take 5 each at the same
// time. Each request edits one cell (the next of 1,000 rows) with its token check, power check and
// operate-log row; nothing is shared between the instances but the database. Refuses to report
// if any request failed.
// Tokens live in the database, or in Redis (both instances on one Redis, one key prefix) when
// FW_TEST_REDIS_URL is set. Needs FW_TEST_PG_URL (or, with BENCH_DB=mysql, FW_TEST_MYSQL_URL).
// Run: npm run bench -- two-instances
import { spawn, type ChildProcess } from 'node:child_process';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { createRegistry } from '@fw/core';
import { createStore } from '@fw/store';
import { FwTokenService, RedisTokenStore, createRedis } from '@fw/token';
import { Redis } from 'ioredis';
import { createTestDatabase, sqlBackends } from '@fw/test-utils';
import { benchUser, load, median, ready, type LoadResult } from './lib.js';
import { Task } from './task-model.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CONNECTIONS = 10;
const ROWS = 1000;
// BENCH_ROWS=3: every request edits one of the first 3 rows, so the instances meet on row locks.
const EDITED = Number(process.env.BENCH_ROWS ?? ROWS);

// BENCH_DB=mysql: on MariaDB/MySQL (FW_TEST_MYSQL_URL) instead of PostgreSQL.
const spec = sqlBackends().find((b) => b.dialect === (process.env.BENCH_DB ?? 'postgres'));
if (!spec?.serverUrl) {
  console.log(`two-instances: ${spec?.envVar ?? 'the database URL'} is not set, nothing measured`);
  process.exit(0);
}
const database = await createTestDatabase(spec);
const redisUrl = process.env.FW_TEST_REDIS_URL;
const prefix = `fw-bench-${process.pid}:`;
const children: ChildProcess[] = [];
/** Starts one instance process; resolves with its URL. */
const start = (): Promise<string> =>
  new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', '--conditions=fw-source', join(dirname(fileURLToPath(import.meta.url)), 'instance-worker.ts'), database.url, ...(redisUrl ? [redisUrl, prefix] : [])],
      {
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    children.push(child);
    child.once('exit', (code) => reject(new Error(`instance exited with ${code}`)));
    createInterface({ input: child.stdout! }).once('line', resolve);
  });
try {
  const store = createStore(database.url);
  await store.migrate.latest();
  await store.createModelTables(createRegistry([Task]).list());
  for (let i = 0; i < ROWS; i += 100)
    await store
      .knex('bench_task')
      .insert(Array.from({ length: 100 }, (_, j) => ({ subject: `Write report ${i + j + 1}`, note: 'start', startDate: '2024-01-01', endDate: '2024-02-01', done: false })));
  let { token } = await benchUser(store, Task, true);
  if (redisUrl) {
    // The same user's token, saved where the instances look for it.
    const redis = createRedis(redisUrl);
    await ready(redis);
    const user = (await store.knex('fw_user').where('account', 'bench').first('id')) as { id: number };
    const tokens = new FwTokenService({ store: new RedisTokenStore({ redis, prefix }) });
    ({ token } = await tokens.loginToken({ id: Number(user.id), account: 'bench' }, tokens.generateToken()));
    redis.disconnect();
  }
  await store.destroy();
  const [a, b] = await Promise.all([start(), start()]);
  const path = '/fw-api/data/modify/Task/update-cell';
  const body = '{"id":[<row>],"field":"note","value":"note [<id>]"}';
  const run = (url: string, connections: number) => load(`${url}${path}`, { seconds: SECONDS, connections, body, uniqueIds: true, rows: EDITED, headers: { token } });
  // CPU time of the instance processes per request answered, over each run.
  const cpu = async (urls: string[]) => {
    const all = await Promise.all(urls.map(async (url) => (await (await fetch(`${url}/bench-cpu`)).json()) as { cpu: number; answered: number }));
    return { cpu: all.reduce((n, x) => n + x.cpu, 0), answered: all.reduce((n, x) => n + x.answered, 0) };
  };
  const perRequest: Record<'one' | 'two', number[]> = { one: [], two: [] };
  const measured = async (which: 'one' | 'two', urls: string[], work: () => Promise<LoadResult>) => {
    const before = await cpu(urls);
    const result = await work();
    const after = await cpu(urls);
    perRequest[which].push((after.cpu - before.cpu) / Math.max(1, after.answered - before.answered));
    return result;
  };
  const one = async (): Promise<LoadResult> => measured('one', [a], () => run(a, CONNECTIONS));
  const two = async (): Promise<LoadResult> => measured('two', [a, b], () => both());
  const both = async (): Promise<LoadResult> => {
    const [x, y] = await Promise.all([run(a, CONNECTIONS / 2), run(b, CONNECTIONS / 2)]);
    // Throughput adds up; the mean latency is the request-weighted mean of both.
    const rps = x.rps + y.rps;
    return { rps, mean: (x.mean * x.rps + y.mean * y.rps) / rps, p99: Math.max(x.p99, y.p99), failed: x.failed + y.failed };
  };
  await one();
  await two();
  const ones: LoadResult[] = [];
  const twos: LoadResult[] = [];
  for (let i = 0; i < ROUNDS; i += 1) {
    ones.push(await one());
    twos.push(await two());
  }
  const failed = [...ones, ...twos].reduce((n, r) => n + r.failed, 0);
  if (failed > 0) throw new Error(`${failed} requests failed during the load`);
  const pick = (runs: LoadResult[]) => ({ rps: median(runs.map((r) => r.rps)), mean: median(runs.map((r) => r.mean)), p99: median(runs.map((r) => r.p99)) });
  const p = pick(ones);
  const q = pick(twos);
  console.log(
    `update-cell on ${spec.label}, rows 1..${EDITED} in turn, tokens in ${redisUrl ? 'Redis' : 'the database'}, ${CONNECTIONS} connections in all, ${ROUNDS} x ${SECONDS} s each (median), 0 failed requests:`,
  );
  console.log(`  one instance   ${p.rps.toFixed(0)} req/s   mean ${p.mean.toFixed(2)} ms   p99 ${p.p99} ms`);
  console.log(`  two instances  ${q.rps.toFixed(0)} req/s   mean ${q.mean.toFixed(2)} ms   p99 ${q.p99} ms (worst of the two)`);
  console.log(`  ratio two/one: mean latency ${(q.mean / p.mean).toFixed(2)}x, throughput ${(q.rps / p.rps).toFixed(2)}x`);
  const [c1, c2] = [median(perRequest.one.slice(1)), median(perRequest.two.slice(1))];
  console.log(`  instance CPU per request: one ${c1.toFixed(0)} µs, two ${c2.toFixed(0)} µs (${(c2 / c1).toFixed(2)}x)`);
} finally {
  for (const child of children) {
    child.removeAllListeners('exit');
    child.kill('SIGTERM');
  }
  await new Promise((resolve) => setTimeout(resolve, 500));
  await database.drop();
  if (redisUrl) {
    const redis = new Redis(redisUrl);
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
    redis.disconnect();
  }
}
