// The price of fwAuth on the smallest route: GET /hello behind fwAuth against the same route
// without it, with the token in a SQLite store's own table (one lookup), in the memory store,
// in a knex store on PostgreSQL (when BENCH_PG_URL or FW_TEST_PG_URL is set), on MariaDB/MySQL (when
// BENCH_MYSQL_URL or FW_TEST_MYSQL_URL is set) and in Redis (when
// BENCH_REDIS_URL or FW_TEST_REDIS_URL is set). Both servers run in this process; the load comes
// from autocannon in a second process, runs alternate bare / fwAuth. Besides requests per second,
// the server's own CPU time per request is recorded (process.cpuUsage over the run divided by the
// requests it answered), which holds up better than throughput on a loaded machine.
// Goal: fwAuth at 0.95 or more of the bare route. Run: npm run bench -- auth-overhead
import { mkdtempSync, rmSync } from 'node:fs';
import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Koa from 'koa';
import { fwAuth } from '@fw/login';
import { createStore, type FwStore } from '@fw/store';
import { createTestDatabase } from '@fw/test-utils';
import { FwTokenService, KnexTokenStore, MemoryTokenStore, RedisTokenStore, createRedis, hashToken, type TokenStore } from '@fw/token';
import { Redis } from 'ioredis';
import { listen, load, median, spread, type LoadResult } from './lib.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 3);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7);
const CONNECTIONS = 10;
const PG_URL = process.env.BENCH_PG_URL ?? process.env.FW_TEST_PG_URL;
const MYSQL_URL = process.env.BENCH_MYSQL_URL ?? process.env.FW_TEST_MYSQL_URL;
const REDIS_URL = process.env.BENCH_REDIS_URL ?? process.env.FW_TEST_REDIS_URL;

interface Served {
  app: Koa;
  /** Requests answered so far. */
  count: () => number;
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

interface Run extends LoadResult {
  /** Server CPU microseconds per answered request. */
  cpu: number;
}

async function measure(url: string, served: Served, token: string): Promise<Run> {
  const before = served.count();
  const cpu = process.cpuUsage();
  const result = await load(`${url}/hello`, { seconds: SECONDS, connections: CONNECTIONS, method: 'GET', headers: { token } });
  const used = process.cpuUsage(cpu);
  const answered = served.count() - before;
  return { ...result, cpu: (used.user + used.system) / Math.max(1, answered) };
}

async function compareAuth(label: string, store: FwStore, tokenStore: TokenStore): Promise<void> {
  const tokens = new FwTokenService({ store: tokenStore });
  const user = await store.users.create({ account: `bench-${label.replace(/\W+/g, '-')}`, password: 'bench-password', mustChangePassword: false });
  const { token } = await tokens.loginToken({ id: user.id, account: user.account });
  const bare = hello();
  const authed = hello(fwAuth({ tokens, store }));
  const bareServer = await listen(bare.app);
  const authServer = await listen(authed.app);
  try {
    const runBare = () => measure(bareServer.url, bare, token);
    const runAuth = () => measure(authServer.url, authed, token);
    await runBare();
    await runAuth();
    const a: Run[] = [];
    const b: Run[] = [];
    for (let i = 0; i < ROUNDS; i += 1) {
      a.push(await runBare());
      b.push(await runAuth());
    }
    const failed = [...a, ...b].reduce((n, r) => n + r.failed, 0);
    if (failed > 0) throw new Error(`${label}: ${failed} requests failed during the load`);
    const pick = (runs: Run[], key: keyof Run) => median(runs.map((r) => r[key]));
    const rpsRatio = pick(b, 'rps') / pick(a, 'rps');
    const cpuRatio = pick(a, 'cpu') / pick(b, 'cpu');
    // Each fwAuth run against the bare run just before it (the same machine weather).
    const perRound = `per round: req/s ${spread(a.map((r, i) => b[i]!.rps / r.rps))}, CPU ${spread(a.map((r, i) => r.cpu / b[i]!.cpu))}`;
    console.log(
      `${label.padEnd(40)} bare ${Math.round(pick(a, 'rps')).toLocaleString('en-US').padStart(7)} req/s ${pick(a, 'cpu').toFixed(1).padStart(6)} µs CPU/req | ` +
        `fwAuth ${Math.round(pick(b, 'rps')).toLocaleString('en-US').padStart(7)} req/s ${pick(b, 'cpu').toFixed(1).padStart(6)} µs CPU/req | ` +
        `ratio req/s ${rpsRatio.toFixed(2)}, CPU ${cpuRatio.toFixed(2)} (goal >= 0.95)\n${''.padEnd(41)}${perRound}`,
    );
  } finally {
    bareServer.close();
    authServer.close();
    await tokens.revokeUser(user.id); // leaves no bench token behind in a shared Redis
  }
}

/**
 * The store as fwAuth saw it before `store.sessions.user`: the user read through the objection
 * model (`users.findById`), for a before/after comparison within one run.
 */
function withObjectionUserRead(store: FwStore): FwStore {
  return {
    ...store,
    sessions: {
      ...store.sessions,
      async user(id) {
        const user = await store.users.findById(id);
        return user ? { user: { ...user, mustChangePassword: user.hasPassword && user.resetPwdTime === null }, grantsVersion: 0 } : undefined;
      },
    },
  };
}

/** CPU microseconds per call of `fn`, awaited one after the other, after a warm-up. */
async function cpuPerCall(fn: () => unknown, calls = 5000): Promise<number> {
  for (let i = 0; i < 500; i += 1) await fn();
  const start = process.cpuUsage();
  for (let i = 0; i < calls; i += 1) await fn();
  const used = process.cpuUsage(start);
  return (used.user + used.system) / calls;
}

/** Microseconds per call of `fn` (wall time in this process) when each call follows a commit of another row. */
async function afterCommit(store: FwStore, fn: () => unknown, calls = 2000): Promise<number> {
  let spent = 0n;
  for (let i = 0; i < calls; i += 1) {
    await store
      .knex('fw_meta')
      .insert({ name: 'bench-commit', value: String(i) })
      .onConflict('name')
      .merge();
    const start = process.hrtime.bigint();
    await fn();
    spent += process.hrtime.bigint() - start;
  }
  return Number(spent) / 1000 / calls;
}

/** The parts of one authentication, each timed on its own in this process (no HTTP). */
async function breakdown(store: FwStore): Promise<void> {
  const memory = new FwTokenService({ store: new MemoryTokenStore() });
  const knexTokens = new FwTokenService({ store: new KnexTokenStore({ knex: store.knex }) });
  const user = await store.users.create({ account: 'bench-breakdown', password: 'bench-password', mustChangePassword: false });
  const { token } = await knexTokens.loginToken({ id: user.id, account: user.account });
  const { token: memoryToken } = await memory.loginToken({ id: user.id, account: user.account });
  const hash = hashToken(token);
  // A Koa context as a request to GET /hello carrying the token makes it (no socket behind it).
  const app = new Koa();
  const socket = new Socket();
  const context = (value: string) => {
    const req = new IncomingMessage(socket);
    req.method = 'GET';
    req.url = '/hello';
    req.headers = { host: 'bench', token: value };
    return app.createContext(req, new ServerResponse(req));
  };
  const next = async () => {};
  const oneLookup = fwAuth({ tokens: knexTokens, store });
  const inMemory = fwAuth({ tokens: memory, store });
  const parts: Array<[string, number]> = [
    ['hashToken (SHA-256 of the token)', await cpuPerCall(() => hashToken(token))],
    ['store.sessions.lookup, nothing committed since the last', await cpuPerCall(() => store.sessions.lookup(hash, Date.now()))],
    ['store.sessions.lookup right after a commit', await afterCommit(store, () => store.sessions.lookup(hash, Date.now()))],
    ['memory store: tokens.resolve', await cpuPerCall(() => memory.resolve(memoryToken))],
    ['store.users.findById (the user row, objection)', await cpuPerCall(() => store.users.findById(user.id))],
    ['store.sessions.user, nothing committed since the last', await cpuPerCall(() => store.sessions.user(user.id))],
    ['a Koa context alone (both lines below include one)', await cpuPerCall(() => context(token))],
    ['fwAuth middleware, SQLite one lookup', await cpuPerCall(() => oneLookup(context(token), next))],
    ['fwAuth middleware, memory store', await cpuPerCall(() => inMemory(context(memoryToken), next))],
  ];
  console.log('where the time goes, CPU per call in this process (SQLite):');
  for (const [label, micros] of parts) console.log(`  ${label.padEnd(56)} ${micros.toFixed(1).padStart(6)} µs`);
}

const dir = mkdtempSync(join(tmpdir(), 'fw-bench-auth-'));
const sqlite = createStore(`sqlite:${join(dir, 'bench.db')}`);
const started = Date.now();
console.log(
  `${CONNECTIONS} connections, ${ROUNDS} × ${SECONDS} s alternating, medians; load average ${(await import('node:os'))
    .loadavg()
    .map((x) => x.toFixed(2))
    .join(' ')}`,
);
try {
  await sqlite.migrate.latest();
  await breakdown(sqlite);
  await compareAuth('SQLite, token in fw_token', sqlite, new KnexTokenStore({ knex: sqlite.knex }));
  await compareAuth('memory store (users on SQLite)', sqlite, new MemoryTokenStore());
  await compareAuth('memory, objection read (before)', withObjectionUserRead(sqlite), new MemoryTokenStore());
  if (REDIS_URL) {
    const redis = createRedis(REDIS_URL);
    try {
      await compareAuth('Redis store (users on SQLite)', sqlite, new RedisTokenStore({ redis, prefix: `fw-bench-${process.pid}:` }));
    } finally {
      redis.disconnect();
      // The bench's token (every key under its prefix) goes with it.
      const cleaner = new Redis(REDIS_URL);
      const keys = await cleaner.keys(`fw-bench-${process.pid}:*`);
      if (keys.length > 0) await cleaner.del(...keys);
      cleaner.disconnect();
    }
  } else console.log('Redis: skipped (set BENCH_REDIS_URL)');
  for (const server of [
    { dialect: 'postgres' as const, label: 'PostgreSQL', short: 'PG', envVar: 'BENCH_PG_URL', url: PG_URL },
    { dialect: 'mysql' as const, label: 'MariaDB/MySQL', short: 'MariaDB', envVar: 'BENCH_MYSQL_URL', url: MYSQL_URL },
  ]) {
    if (!server.url) {
      console.log(`${server.label}: skipped (set ${server.envVar})`);
      continue;
    }
    // A database of its own on the server, dropped afterwards.
    const database = await createTestDatabase({ dialect: server.dialect, label: server.label, envVar: server.envVar, serverUrl: server.url });
    const db = createStore(database.url);
    try {
      await db.migrate.latest();
      await compareAuth(`${server.label}, token in fw_token`, db, new KnexTokenStore({ knex: db.knex }));
      await compareAuth(`memory store (users on ${server.label})`, db, new MemoryTokenStore());
      await compareAuth(`memory, users on ${server.short}, objection (before)`, withObjectionUserRead(db), new MemoryTokenStore());
    } finally {
      await db.destroy();
      await database.drop();
    }
  }
} finally {
  await sqlite.destroy();
  rmSync(dir, { recursive: true, force: true });
}
console.log(
  `(${((Date.now() - started) / 1000).toFixed(0)} s; load average now ${(await import('node:os'))
    .loadavg()
    .map((x) => x.toFixed(2))
    .join(' ')})`,
);
