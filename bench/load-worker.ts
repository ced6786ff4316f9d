// The load generator of the HTTP benchmarks, run as its own process by lib.ts: autocannon's API,
// so that bodies that must differ per request are built whole (with their Content-Length).
// Input: one JSON argument (url, seconds, connections, method, body, headers, uniqueIds, rows), or
// the same as messages when started with an IPC channel (lib.ts keeps such workers between runs).
// Output: one JSON line (or message) { rps, mean, p50, p99, failed } (latencies in milliseconds).
import autocannon, { type Request } from 'autocannon';

interface Options {
  url: string;
  seconds: number;
  connections: number;
  method: 'GET' | 'POST';
  body?: string;
  headers?: Record<string, string>;
  uniqueIds?: boolean;
  rows?: number;
  /**
   * One request after another for `seconds` (connections ignored), each timed here to the
   * microsecond: autocannon keeps whole milliseconds, too coarse for a 1 ms page.
   */
  sequential?: boolean;
}

let next = 0;

/** Whether the text holds a placeholder the load fills per request. */
const placeholders = (text: string) => /\[<(id|row|random)>\]/.test(text);

type Summary = { rps: number; mean: number; p50: number; p99: number; failed: number };

async function runSequential(options: Options, fill: (body: string) => string): Promise<Summary> {
  const headers = { ...(options.body !== undefined ? { 'content-type': 'application/json' } : {}), ...options.headers };
  const times: number[] = [];
  let failed = 0;
  const start = performance.now();
  const end = start + options.seconds * 1000;
  while (performance.now() < end) {
    const body = options.body === undefined ? undefined : options.uniqueIds ? fill(options.body) : options.body;
    const url = options.uniqueIds && placeholders(options.url) ? fill(options.url) : options.url;
    const t = performance.now();
    const response = await fetch(url, { method: options.method, headers, ...(body !== undefined ? { body } : {}) });
    await response.arrayBuffer();
    times.push(performance.now() - t);
    if (!response.ok) failed += 1;
  }
  const sorted = [...times].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
  const total = times.reduce((a, b) => a + b, 0);
  return { rps: (times.length * 1000) / (performance.now() - start), mean: total / Math.max(1, times.length), p50: at(0.5), p99: at(0.99), failed };
}

async function run(options: Options): Promise<Summary> {
  // `[<id>]` becomes a fresh number per request, `[<row>]` cycles through 1..rows, `[<random>]` is
  // any of 1..rows at random (a deep page somewhere in a big table, not the first few in order).
  const fill = (body: string): string => {
    next += 1;
    return body
      .replaceAll('[<id>]', String(next))
      .replaceAll('[<row>]', String(((next - 1) % (options.rows ?? 1)) + 1))
      .replaceAll('[<random>]', String(1 + Math.floor(Math.random() * (options.rows ?? 1))));
  };
  if (options.sequential) return runSequential(options, fill);
  // Placeholders in the URL (a GET whose query differs per request): autocannon gets the origin,
  // and each request its path and query filled from the URL as written (not as URL-encoded).
  const origin = new URL(options.url).origin;
  const pathTemplate = options.uniqueIds && placeholders(options.url) ? options.url.slice(origin.length) : undefined;
  const setup = (req: Request): Request => ({
    ...req,
    ...(options.body !== undefined ? { body: fill(options.body) } : {}),
    ...(pathTemplate !== undefined ? { path: fill(pathTemplate) } : {}),
  });
  const result = await autocannon({
    url: pathTemplate !== undefined ? origin : options.url,
    connections: options.connections,
    duration: options.seconds,
    method: options.method,
    headers: { ...(options.body !== undefined ? { 'content-type': 'application/json' } : {}), ...options.headers },
    ...(options.body !== undefined ? { body: options.body } : {}),
    ...(options.uniqueIds && (options.body !== undefined || pathTemplate !== undefined) ? { requests: [{ setupRequest: setup }] } : {}),
  });
  return { rps: result.requests.average, mean: result.latency.average, p50: result.latency.p50, p99: result.latency.p99, failed: result.non2xx + result.errors + result.timeouts };
}

if (process.send) {
  // Kept by lib.ts between runs (no start-up per run): one run per message, its summary sent back.
  process.on('message', (options: Options) => {
    run(options).then(
      (summary) => process.send!(summary),
      (error: unknown) => process.send!({ error: String(error) }),
    );
  });
  process.on('disconnect', () => process.exit(0));
} else {
  process.stdout.write(`${JSON.stringify(await run(JSON.parse(process.argv[2] ?? '{}') as Options))}\n`);
}
