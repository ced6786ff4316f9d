// The load generator of the HTTP benchmarks, run as its own process by lib.ts: autocannon's API,
// so that bodies that must differ per request are built whole (with their Content-Length).
// Input: one JSON argument (url, seconds, connections, method, body, headers, uniqueIds, rows), or
// the same as messages when started with an IPC channel (lib.ts keeps such workers between runs).
// Output: one JSON line (or message) { rps, mean, p99, failed } (latencies in milliseconds).
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
}

let next = 0;

async function run(options: Options): Promise<{ rps: number; mean: number; p99: number; failed: number }> {
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
  return { rps: result.requests.average, mean: result.latency.average, p99: result.latency.p99, failed: result.non2xx + result.errors + result.timeouts };
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
