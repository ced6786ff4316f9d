// A server-sent-events client for tests: opens a stream with plain node:http (supertest buffers a
// response to its end, which a live stream never reaches), parses its events as they arrive and
// waits for the one a test wants.
import { request as httpRequest, type IncomingMessage } from 'node:http';

/** One parsed event: the `id:` line (when there is one), the `event:` name, the JSON `data:`. */
export interface SseEvent {
  id?: string;
  event: string;
  data: Record<string, unknown>;
}

/** An open test stream. */
export interface SseStream {
  status: number;
  headers: IncomingMessage['headers'];
  /** Every event received so far, in order. */
  events: SseEvent[];
  /** Everything received so far, as text. */
  text(): string;
  /** Resolves when the response closes (either side). */
  ended: Promise<void>;
  /** Drops the connection, as a closed tab would. */
  close(): void;
  /** The first event (already received or still to come) that passes `test`; rejects after `ms`. */
  waitFor(test: (event: SseEvent) => boolean, ms?: number): Promise<SseEvent>;
}

/** Opens `GET path` on `127.0.0.1:port` with `headers` and parses the events it sends. */
export function openEventStream(port: number, path: string, headers: Record<string, string> = {}): Promise<SseStream> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path, headers }, (res) => {
      let raw = '';
      let buffer = '';
      const events: SseEvent[] = [];
      const waiters: Array<() => void> = [];
      const ended = new Promise<void>((done) => res.on('close', done));
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        raw += chunk;
        buffer += chunk;
        let end: number;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const lines = buffer
            .slice(0, end)
            .split('\n')
            .filter((line) => !line.startsWith(':'));
          buffer = buffer.slice(end + 2);
          const field = (name: string) => lines.find((line) => line.startsWith(`${name}: `))?.slice(name.length + 2);
          const event = field('event');
          if (event === undefined) continue;
          const id = field('id');
          const data = field('data');
          events.push({ ...(id === undefined ? {} : { id }), event, data: data ? (JSON.parse(data) as Record<string, unknown>) : {} });
        }
        for (const wake of waiters.splice(0)) wake();
      });
      resolve({
        status: res.statusCode ?? 0,
        headers: res.headers,
        events,
        text: () => raw,
        ended,
        close: () => req.destroy(),
        waitFor: (test, ms = 5000) =>
          new Promise((found, fail) => {
            const timer = setTimeout(() => fail(new Error(`no such event within ${ms} ms in ${JSON.stringify(events)}`)), ms);
            const look = () => {
              const hit = events.find(test);
              if (hit) {
                clearTimeout(timer);
                found(hit);
              } else waiters.push(look);
            };
            look();
          }),
      });
    });
    req.on('error', reject);
    req.end();
  });
}

/**
 * {@link openEventStream}, asked again while the server answers 503 (its live bus is not
 * subscribed yet: an instance just started on a busy machine), as the admin UI does, for up to
 * `waitMs`; then the last answer, whatever it is.
 */
export async function openLiveStream(port: number, path: string, headers: Record<string, string> = {}, waitMs = 30_000): Promise<SseStream> {
  const end = Date.now() + waitMs;
  for (;;) {
    const stream = await openEventStream(port, path, headers);
    if (stream.status !== 503 || Date.now() > end) return stream;
    stream.close();
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}
