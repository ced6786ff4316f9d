// Helpers shared by the HTTP benchmarks: the load comes from autocannon in a second process, so
// the measured server never shares its event loop with the load generator.
import { execFile } from 'node:child_process';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type Koa from 'koa';

const run = promisify(execFile);

/** Median of autocannon's per-second request counts, 99th-percentile latency, failures. */
export interface LoadResult {
  rps: number;
  p50: number;
  p99: number;
  failed: number;
}

/** Options of {@link load}. */
export interface LoadOptions {
  seconds: number;
  connections: number;
  method?: string;
  body?: string;
  headers?: Record<string, string>;
  /** Replace `[<id>]` in the body with a fresh id per request (autocannon's -I), so each request differs. */
  uniqueIds?: boolean;
}

/** Runs autocannon against `url` from a child process and reads its JSON summary. */
export async function load(url: string, options: LoadOptions): Promise<LoadResult> {
  const args = ['-c', String(options.connections), '-d', String(options.seconds), '-m', options.method ?? 'POST', '--json'];
  if (options.body !== undefined) args.push('-b', options.body, '-H', 'content-type=application/json');
  if (options.uniqueIds) args.push('-I');
  for (const [k, v] of Object.entries(options.headers ?? {})) args.push('-H', `${k}=${v}`);
  const { stdout } = await run(process.execPath, [join(process.cwd(), 'node_modules/autocannon/autocannon.js'), ...args, url], { maxBuffer: 64 * 1024 * 1024 });
  const json = JSON.parse(stdout) as { requests: { average: number }; latency: { p50: number; p99: number }; non2xx: number; errors: number };
  return { rps: json.requests.average, p50: json.latency.p50, p99: json.latency.p99, failed: json.non2xx + json.errors };
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
 * each; refuses to report if any request failed. Returns the medians.
 */
export async function compare(rounds: number, baseline: () => Promise<LoadResult>, candidate: () => Promise<LoadResult>): Promise<{ baseline: LoadResult; candidate: LoadResult }> {
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
  const pick = (runs: LoadResult[]): LoadResult => ({ rps: median(runs.map((r) => r.rps)), p50: median(runs.map((r) => r.p50)), p99: median(runs.map((r) => r.p99)), failed: 0 });
  return { baseline: pick(a), candidate: pick(b) };
}
