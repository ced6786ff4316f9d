// The token check on a Redis Cluster beside one Redis (issue 14, item 7): GET /hello with no
// auth, behind fwAuth with RedisTokenStore on a single redis-server, and behind fwAuth on a
// 3-master Redis Cluster (ioredis Cluster), all three in the same run, rounds alternating
// bare / single / cluster. Both Redis setups are started here (@fw/test-utils), on this machine,
// so they differ only in being a cluster; clients come from createRedis / createRedisCluster
// (Fw's fail-fast settings), as fwAdmin opens them. Besides requests per second, the server's own
// CPU time per request (process.cpuUsage over the run / requests answered) is shown.
// Run: npm run bench -- token-cluster   (needs redis-server and redis-cli on the PATH)
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import Koa from 'koa';
import { fwAuth } from '@fw/login';
import { createStore } from '@fw/store';
import { FwTokenService, RedisTokenStore, createRedis, createRedisCluster, redisReady, type FwRedisClient } from '@fw/token';
import { hasRedisClusterTools, startRedisCluster, startRedisServer } from '@fw/test-utils';
import { listen, load, median, type LoadResult } from './lib.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 3);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CONNECTIONS = 10;

interface Served {
  app: Koa;
  count: () => number;
}

interface Run extends LoadResult {
  /** Server CPU microseconds per answered request. */
  cpu: number;
}

function hello(auth?: Koa.Middleware): Served {
  const app = new Koa();
  let answered = 0;
  if (auth) app.use(auth);
  app.use((ctx) => {
    answered += 1;
    ctx.body = { hello: 'world' };
  });
  return { app, count: () => answered };
}

if (!hasRedisClusterTools()) {
  console.log('token-cluster: skipped, redis-server or redis-cli is not on the PATH');
  process.exit(0);
}

const avg = () =>
  loadavg()
    .map((x) => x.toFixed(2))
    .join(' ');
const started = Date.now();
const dir = mkdtempSync(join(tmpdir(), 'fw-bench-cluster-'));
const sqlite = createStore(`sqlite:${join(dir, 'bench.db')}`);
const single = await startRedisServer();
const cluster = await startRedisCluster();
const clients: FwRedisClient[] = [];
const servers: Array<{ close: () => void }> = [];
try {
  await sqlite.migrate.latest();
  const user = await sqlite.users.create({ account: 'bench', password: 'bench-password', mustChangePassword: false });
  const singleClient = createRedis(single.url);
  const clusterClient = createRedisCluster(cluster.urls);
  clients.push(singleClient, clusterClient);
  await Promise.all([redisReady(singleClient), redisReady(clusterClient, 10_000)]);
  const setups = await Promise.all(
    [
      ['bare route', undefined],
      ['fwAuth, one Redis', singleClient],
      ['fwAuth, 3-master Redis Cluster', clusterClient],
    ].map(async ([label, redis]) => {
      const tokens = redis ? new FwTokenService({ store: new RedisTokenStore({ redis: redis as FwRedisClient, prefix: 'fw-bench:' }) }) : undefined;
      const token = tokens ? (await tokens.loginToken({ id: user.id, account: user.account })).token : 'none';
      const served = hello(tokens ? fwAuth({ tokens, store: sqlite }) : undefined);
      const server = await listen(served.app);
      servers.push(server);
      const once = async (): Promise<Run> => {
        const before = served.count();
        const cpu = process.cpuUsage();
        const result = await load(`${server.url}/hello`, { seconds: SECONDS, connections: CONNECTIONS, method: 'GET', headers: { token } });
        const used = process.cpuUsage(cpu);
        return { ...result, cpu: (used.user + used.system) / Math.max(1, served.count() - before) };
      };
      return { label: label as string, once, runs: [] as Run[] };
    }),
  );
  console.log(`${CONNECTIONS} connections, ${ROUNDS} × ${SECONDS} s per setup, alternating, medians; load average ${avg()}`);
  for (const s of setups) await s.once(); // warm-up
  for (let round = 0; round < ROUNDS; round += 1) for (const s of setups) s.runs.push(await s.once());
  const failed = setups.flatMap((s) => s.runs).reduce((n, r) => n + r.failed, 0);
  if (failed > 0) throw new Error(`${failed} requests failed during the load`);
  const pick = (runs: Run[], key: keyof Run) => median(runs.map((r) => r[key]));
  const [bare, one, many] = setups as [(typeof setups)[0], (typeof setups)[0], (typeof setups)[0]];
  for (const s of setups) {
    console.log(
      `${s.label.padEnd(32)} ${Math.round(pick(s.runs, 'rps')).toLocaleString('en-US').padStart(7)} req/s  mean ${pick(s.runs, 'mean').toFixed(2)} ms  p99 ${pick(s.runs, 'p99').toFixed(0)} ms  ` +
        `${pick(s.runs, 'cpu').toFixed(1).padStart(6)} µs CPU/req` +
        (s === bare ? '' : `  | vs bare: req/s ${(pick(s.runs, 'rps') / pick(bare.runs, 'rps')).toFixed(2)}, CPU ${(pick(bare.runs, 'cpu') / pick(s.runs, 'cpu')).toFixed(2)}`),
    );
  }
  // The token check alone, without HTTP: resolve() from 10 concurrent callers, alternating.
  const direct = await Promise.all(
    [singleClient, clusterClient].map(async (redis) => {
      const tokens = new FwTokenService({ store: new RedisTokenStore({ redis, prefix: 'fw-bench:' }) });
      const { token } = await tokens.loginToken({ id: user.id, account: user.account });
      return async (ms: number): Promise<number> => {
        let done = 0;
        const until = Date.now() + ms;
        await Promise.all(
          Array.from({ length: CONNECTIONS }, async () => {
            while (Date.now() < until) {
              if (!(await tokens.resolve(token))) throw new Error('the token did not resolve');
              done += 1;
            }
          }),
        );
        return (done * 1000) / ms;
      };
    }),
  );
  const [resolveOne, resolveMany] = direct as [(ms: number) => Promise<number>, (ms: number) => Promise<number>];
  await resolveOne(300);
  await resolveMany(300);
  const one1: number[] = [];
  const many1: number[] = [];
  for (let round = 0; round < ROUNDS; round += 1) {
    one1.push(await resolveOne(1000));
    many1.push(await resolveMany(1000));
  }
  console.log(
    `resolve() alone, ${CONNECTIONS} concurrent: one Redis ${Math.round(median(one1)).toLocaleString('en-US')}/s, cluster ${Math.round(median(many1)).toLocaleString('en-US')}/s (${(median(many1) / median(one1)).toFixed(2)}x)`,
  );
  console.log(
    `cluster / one Redis: req/s ${(pick(many.runs, 'rps') / pick(one.runs, 'rps')).toFixed(2)}, CPU per request ${(pick(one.runs, 'cpu') / pick(many.runs, 'cpu')).toFixed(2)} (1.00 = no cost)`,
  );
} finally {
  for (const server of servers) server.close();
  for (const client of clients) client.disconnect();
  await cluster.close();
  await single.close();
  await sqlite.destroy();
  rmSync(dir, { recursive: true, force: true });
}
console.log(`(${((Date.now() - started) / 1000).toFixed(0)} s; load average now ${avg()})`);
