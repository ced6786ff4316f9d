// The load generator of the HTTP benchmarks, run as its own process by lib.ts: autocannon's API,
// so that bodies that must differ per request are built whole (with their Content-Length).
// Input: one JSON argument (url, seconds, connections, method, body, headers, uniqueIds, rows).
// Output: one JSON line { rps, mean, p99, failed } (latencies in milliseconds).
import autocannon, { type Request } from 'autocannon';

const options = JSON.parse(process.argv[2] ?? '{}') as {
  url: string;
  seconds: number;
  connections: number;
  method: 'GET' | 'POST';
  body?: string;
  headers?: Record<string, string>;
  uniqueIds?: boolean;
  rows?: number;
};
let next = 0;
// `[<id>]` becomes a fresh number per request, `[<row>]` cycles through 1..rows.
const fill = (body: string): string => {
  next += 1;
  return body.replaceAll('[<id>]', String(next)).replaceAll('[<row>]', String(((next - 1) % (options.rows ?? 1)) + 1));
};
const result = await autocannon({
  url: options.url,
  connections: options.connections,
  duration: options.seconds,
  method: options.method,
  headers: { ...(options.body !== undefined ? { 'content-type': 'application/json' } : {}), ...options.headers },
  ...(options.body !== undefined ? { body: options.body } : {}),
  ...(options.uniqueIds && options.body !== undefined ? { requests: [{ setupRequest: (req: Request): Request => ({ ...req, body: fill(options.body!) }) }] } : {}),
});
process.stdout.write(
  `${JSON.stringify({ rps: result.requests.average, mean: result.latency.average, p99: result.latency.p99, failed: result.non2xx + result.errors + result.timeouts })}\n`,
);
