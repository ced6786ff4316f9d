// Helpers shared by the HTTP benchmarks: the load comes from autocannon in a second process, so
// the measured server never shares its event loop with the load generator.
import { spawn, type ChildProcess, type StdioOptions } from 'node:child_process';
import type { AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type Koa from 'koa';
import type { ModelDefinition } from '@fw/core';
import type { FwStore } from '@fw/store';
import { sqlBackends, type SqlBackendSpec } from '@fw/test-utils';
import { FwTokenService, KnexTokenStore } from '@fw/token';

/** Requests per second (average of autocannon's per-second counts), mean and 99th-percentile latency in ms, failures. */
export interface LoadResult {
  rps: number;
  mean: number;
  p99: number;
  failed: number;
  /** With {@link withServerCpu}: this process's CPU microseconds per answered request. */
  cpu?: number;
}

/** Options of {@link load}. */
export interface LoadOptions {
  seconds: number;
  connections: number;
  method?: string;
  body?: string;
  headers?: Record<string, string>;
  /**
   * Replace `[<id>]` in the body with a fresh number per request, so each request differs; the same
   * placeholders written in `url` (a GET whose query changes per request) are filled there too.
   */
  uniqueIds?: boolean;
  /**
   * With `uniqueIds`: replace `[<row>]` in the body with 1, 2, … `rows`, 1, 2, … (a different row
   * per request), and `[<random>]` with a random whole number from 1 to `rows`.
   */
  rows?: number;
  /**
   * One request after another, each timed to the microsecond (for per-request latency;
   * `connections` is ignored). The load worker's summary then also holds `p50`, the median in ms.
   */
  sequential?: boolean;
}

// Load workers kept between runs: starting one (Node.js and tsx) takes about a second of CPU,
// which would otherwise land on the measured server's cores at the start of every run.
const idleWorkers: ChildProcess[] = [];

function loadWorker(): ChildProcess {
  const idle = idleWorkers.pop();
  if (idle) return idle;
  const worker = join(dirname(fileURLToPath(import.meta.url)), 'load-worker.ts');
  const args = ['--import', 'tsx', worker];
  const stdio: StdioOptions = ['ignore', 'inherit', 'inherit', 'ipc'];
  // BENCH_PIN=1: the load generator on the second core (run the benchmark itself under
  // `taskset -c 0`), so the two never trade places on a core mid-run.
  return process.env.BENCH_PIN === '1' ? spawn('taskset', ['-c', '1', process.execPath, ...args], { stdio }) : spawn(process.execPath, args, { stdio });
}

/**
 * Runs autocannon against `url` in a load worker (a process of its own, kept for the next run) and
 * reads its summary.
 */
export async function load(url: string, options: LoadOptions): Promise<LoadResult> {
  const worker = loadWorker();
  worker.ref();
  const summary = await new Promise<LoadResult & { error?: string }>((resolve, reject) => {
    const onExit = (code: number | null) => reject(new Error(`the load worker stopped (exit code ${String(code)})`));
    worker.once('exit', onExit);
    worker.once('message', (message) => {
      worker.off('exit', onExit);
      resolve(message as LoadResult & { error?: string });
    });
    worker.send({ url, method: options.method ?? 'POST', ...options });
  });
  if (summary.error) throw new Error(`load worker: ${summary.error}`);
  // Idle, it must not keep the benchmark's process alive.
  worker.unref();
  (worker.channel as { unref?: () => void } | undefined)?.unref?.();
  idleWorkers.push(worker);
  return summary;
}

/**
 * Counts the requests an app answers (put first, so it costs both sides of a comparison alike);
 * returns the counter.
 */
export function countRequests(app: Koa): () => number {
  let answered = 0;
  app.middleware.unshift(async (_ctx, next) => {
    answered += 1;
    await next();
  });
  return () => answered;
}

/**
 * Runs `run` and adds the server's CPU time per answered request (`process.cpuUsage` of this
 * process, where the servers live, over the run, divided by the requests `answered` counted), a
 * figure a shared machine disturbs less than requests per second.
 */
export async function withServerCpu(answered: () => number, run: () => Promise<LoadResult>): Promise<LoadResult> {
  const before = answered();
  const start = process.cpuUsage();
  const result = await run();
  const used = process.cpuUsage(start);
  return { ...result, cpu: (used.user + used.system) / Math.max(1, answered() - before) };
}

/** The median of a list of numbers. */
export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[s.length >> 1]!;
}

/** Listens on a free loopback port; returns the base URL and a closer. */
export function listen(app: Koa): Promise<{ url: string; close: () => void }> {
  return new Promise((resolve) => {
    const server = app.listen(0, '127.0.0.1', () => resolve({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => server.close() }));
  });
}

/**
 * Alternates baseline and candidate runs (so drift in machine load hits both), after one warm-up
 * each; refuses to report if any request failed. Returns the medians, and each round's ratios.
 */
export async function compare(
  rounds: number,
  baseline: () => Promise<LoadResult>,
  candidate: () => Promise<LoadResult>,
): Promise<{ baseline: LoadResult; candidate: LoadResult; rounds: Array<{ rps: number; cpu?: number }> }> {
  await baseline();
  await candidate();
  const a: LoadResult[] = [];
  const b: LoadResult[] = [];
  for (let i = 0; i < rounds; i += 1) {
    a.push(await baseline());
    b.push(await candidate());
  }
  const failed = [...a, ...b].reduce((n, r) => n + r.failed, 0);
  if (failed > 0) throw new Error(`${failed} requests failed during the load`);
  const pick = (runs: LoadResult[]): LoadResult => ({
    rps: median(runs.map((r) => r.rps)),
    mean: median(runs.map((r) => r.mean)),
    p99: median(runs.map((r) => r.p99)),
    failed: 0,
    ...(runs.every((r) => r.cpu !== undefined) ? { cpu: median(runs.map((r) => r.cpu!)) } : {}),
  });
  // Each round's candidate against the baseline run just before it (the same machine weather).
  const ratios = a.map((base, i) => ({ rps: b[i]!.rps / base.rps, ...(base.cpu !== undefined && b[i]!.cpu !== undefined ? { cpu: base.cpu / b[i]!.cpu! } : {}) }));
  return { baseline: pick(a), candidate: pick(b), rounds: ratios };
}

/** `0.51 (0.47–0.55)`: the median of per-round ratios and their range. */
export function spread(values: number[]): string {
  const sorted = [...values].sort((x, y) => x - y);
  return `${median(sorted).toFixed(3)} (${sorted[0]!.toFixed(2)}–${sorted[sorted.length - 1]!.toFixed(2)})`;
}

/**
 * A normal (not administrator) user whose role grants `model`'s menu — and its function menus when
 * `allFunctions` — so benchmarks take the full permission path; returns the token service and a
 * live token of that user.
 */
export async function benchUser(store: FwStore, model: ModelDefinition, allFunctions: boolean): Promise<{ tokens: FwTokenService; token: string }> {
  const { menu, functions } = await store.menus.createModelMenu(model);
  const role = await store.roles.create({ code: 'bench', name: 'Bench' });
  await store.roles.setMenus(role.id, [menu.id, ...(allFunctions ? functions.map((f) => f.id) : [])]);
  const user = await store.users.create({ account: 'bench', password: 'bench-password', mustChangePassword: false });
  await store.users.setRoles(user.id, [role.id]);
  const tokens = new FwTokenService({ store: new KnexTokenStore({ knex: store.knex }) });
  const { token } = await tokens.loginToken({ id: user.id, account: 'bench' }, tokens.generateToken());
  return { tokens, token };
}

/** Resolves once a Redis client made by `createRedis` (no offline queue) is connected. */
export function ready(redis: unknown): Promise<void> {
  const client = redis as { status?: string; once(event: string, fn: (...args: unknown[]) => void): unknown };
  if (client.status === 'ready') return Promise.resolve();
  return new Promise((resolve, reject) => {
    client.once('ready', () => resolve());
    client.once('end', () => reject(new Error('the Redis connection ended before it was ready')));
  });
}

/**
 * The databases a benchmark runs on: a SQLite file always, PostgreSQL and MariaDB/MySQL when their
 * test URL (`FW_TEST_PG_URL`, `FW_TEST_MYSQL_URL`) names a server; `BENCH_DB=sqlite,mysql` keeps
 * only the dialects named.
 */
export function benchBackends(): SqlBackendSpec[] {
  const only = process.env.BENCH_DB?.split(',').map((d) => d.trim());
  return sqlBackends().filter((b) => (b.dialect === 'sqlite' || ((b.dialect === 'postgres' || b.dialect === 'mysql') && b.serverUrl)) && (!only || only.includes(b.dialect)));
}
