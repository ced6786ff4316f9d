// Issue 19 §4: what one instance holds under a burst of 1,000 connections on POST /fw-api/login,
// with fwAdmin's load shedding (the default budgets) against the same burst without it (the
// baseline, `overload: false`: every request admitted, as before). The flood comes from a second
// process (bench/burst-worker.ts), which also asks GET /fw-api/userinfo with a valid token every
// 50 ms during the burst. Reported: the answers by status and code, their latency, the requests
// in flight in the server (peak) and its peak RSS.
//
// BENCH_DB_URL picks the database server (postgres://… or mysql://…: a database of its own is
// created there and dropped); SQLite without it. BENCH_CONNECTIONS changes the burst (1,000).
// The load average at the start and the end is printed: on a shared machine it explains much.
import { fork } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import { loadavg } from 'node:os';
import type { AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Koa from 'koa';
import { fwAdmin, type FwAdminOptions } from '@fw/admin';
import { encodePassword } from '@fw/login/client';
import { createStore } from '@fw/store';
import { createTestDatabase, type SqlBackendSpec } from '@fw/test-utils';

const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 1000);
const PASSWORD = 'burst-bench-pass-1';
const here = dirname(fileURLToPath(import.meta.url));

interface Answer {
  status: number;
  code: string;
  ms: number;
}

function spec(): SqlBackendSpec {
  const url = process.env.BENCH_DB_URL;
  if (!url) return { dialect: 'sqlite', label: 'SQLite' };
  return url.startsWith('postgres') ? { dialect: 'postgres', label: 'PostgreSQL', serverUrl: url } : { dialect: 'mysql', label: 'MariaDB/MySQL', serverUrl: url };
}

function percentile(xs: number[], p: number): number {
  if (xs.length === 0) return Number.NaN;
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

const ms = (x: number) => (Number.isNaN(x) ? '–' : `${Math.round(x)} ms`);

async function run(label: string, overload: FwAdminOptions['overload']): Promise<void> {
  const db = await createTestDatabase(spec());
  const seed = createStore(db.url);
  await seed.migrate.latest();
  await seed.users.create({ account: 'admin', password: PASSWORD, isAdmin: true });
  await seed.destroy();
  const app = new Koa();
  app.silent = true;
  const fw = await fwAdmin(app, { db: db.url, ui: false, ai: false, purgeIntervalMs: false, overload, config: { 'fw-app.pwdTransferEncrypt': true } });
  app.use(fw.middleware);
  // The baseline has no shedder: count its requests in flight the same way, at the front.
  let inFlight = 0;
  let peakInFlight = 0;
  const outer = new Koa();
  outer.silent = true;
  // Why 503s and 500s happened: the error behind each, by its first line.
  const causes = new Map<string, number>();
  outer.on('error', (error: Error & { cause?: Error }) => {
    const inner = error.cause ?? error;
    const key = `${error.message.split('\n')[0]} <- ${inner.name}: ${inner.message.split('\n')[0]!.slice(0, 120)}`;
    causes.set(key, (causes.get(key) ?? 0) + 1);
  });
  outer.use(async (ctx, next) => {
    inFlight++;
    peakInFlight = Math.max(peakInFlight, inFlight);
    try {
      await next();
    } finally {
      inFlight--;
    }
  });
  outer.use(fw.middleware);
  const server: Server = createServer(outer.callback());
  await new Promise<void>((resolve) => server.listen({ port: 0, host: '127.0.0.1', backlog: CONNECTIONS * 2 }, resolve));
  const port = (server.address() as AddressInfo).port;
  const body = JSON.stringify({ account: 'admin', pwd: encodePassword(PASSWORD) });
  const token = (
    (await (await fetch(`http://127.0.0.1:${port}/fw-api/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body })).json()) as { token: string }
  ).token;

  global.gc?.();
  const rssBefore = process.memoryUsage().rss;
  let peakRss = rssBefore;
  const sampler = setInterval(() => {
    peakRss = Math.max(peakRss, process.memoryUsage().rss);
  }, 10);
  const worker = fork(join(here, 'burst-worker.ts'), { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const result = await new Promise<{ answers: Answer[]; reads: Answer[]; wallMs: number }>((resolve, reject) => {
    worker.once('message', (m) => resolve(m as { answers: Answer[]; reads: Answer[]; wallMs: number }));
    worker.once('exit', (code) => (code === 0 ? undefined : reject(new Error(`burst worker exited with ${String(code)}`))));
    worker.send({ port, connections: CONNECTIONS, body, token, readEveryMs: 50 });
  });
  clearInterval(sampler);

  const tally = new Map<string, Answer[]>();
  for (const a of result.answers) {
    const key = a.status === 200 ? '200' : `${a.status} ${a.code}`;
    tally.set(key, [...(tally.get(key) ?? []), a]);
  }
  console.log(
    `\nload average ${loadavg()
      .map((x) => x.toFixed(1))
      .join(' ')}`,
  );
  console.log(`${label} — ${CONNECTIONS} connections on POST /fw-api/login, ${spec().label}, burst over in ${ms(result.wallMs)}`);
  console.log('| answer | count | median | p99 | max |');
  console.log('|---|---|---|---|---|');
  for (const [key, answers] of [...tally].sort((a, b) => b[1].length - a[1].length)) {
    const times = answers.map((a) => a.ms);
    console.log(`| ${key} | ${answers.length} | ${ms(percentile(times, 50))} | ${ms(percentile(times, 99))} | ${ms(Math.max(...times))} |`);
  }
  const readTimes = result.reads.map((r) => r.ms);
  const readStatuses = [...new Set(result.reads.map((r) => (r.status === 200 ? '200' : `${r.status} ${r.code}`)))].join(', ');
  console.log(`signed-in reads during the burst: ${result.reads.length} (${readStatuses}), median ${ms(percentile(readTimes, 50))}, max ${ms(Math.max(...readTimes))}`);
  const stats = fw.loadShed?.stats();
  console.log(
    `requests in flight: peak ${peakInFlight}${stats ? ` (shedder: peak ${stats.peakInFlight}, shed ${stats.shed})` : ''}; RSS ${Math.round(rssBefore / 2 ** 20)} MiB before, peak ${Math.round(peakRss / 2 ** 20)} MiB`,
  );
  for (const [cause, n] of causes) console.log(`  error behind a 5xx: ${n} × ${cause}`);
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await fw.close();
  await db.drop();
}

// BENCH_PUBLIC_IN_FLIGHT tries another sign-in budget than the default; BENCH_BASELINE=0 skips the baseline.
const publicInFlight = process.env.BENCH_PUBLIC_IN_FLIGHT ? Number(process.env.BENCH_PUBLIC_IN_FLIGHT) : undefined;
if (process.env.BENCH_BASELINE !== '0') await run('baseline: overload: false (every request admitted)', false);
await run(
  publicInFlight === undefined ? 'fwAdmin defaults (maxInFlight 256, maxPublicInFlight 32)' : `fwAdmin with maxPublicInFlight ${publicInFlight}`,
  publicInFlight === undefined ? undefined : { maxPublicInFlight: publicInFlight },
);
