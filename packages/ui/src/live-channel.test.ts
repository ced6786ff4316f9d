import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { expect } from 'chai';

// Issue 24 §3: the live channel's reconnecting, as the model page's status shows it. The app's
// client/live.ts runs here under Node with a stand-in for the few browser globals it reads and a
// scripted `fetch`: a request that hangs before its headers is given up and tried again (it used to
// say "Connecting…" for ever); a reconnect says "Reconnecting…" throughout (it used to alternate
// with "Connecting…" on every try, each announced); "Reconnect now" does not wait out the pause.
const LIVE = join(dirname(fileURLToPath(import.meta.url)), '..', 'app', 'src', 'client', 'live.ts');

type Status = 'connecting' | 'live' | 'retrying' | 'paused' | 'denied' | 'gone';
interface Channel {
  readonly status: Status;
  onStatus(listener: (status: Status) => void): () => void;
  on(type: string, listener: (event: { type: string; data: Record<string, unknown> }) => void): () => void;
  retryNow(): void;
  close(): void;
}
type Open = (fw: string, timings?: { retryMs?: number; maxRetryMs?: number; silentMs?: number; hiddenMs?: number }) => Channel;

/** What a scripted request does: hang until aborted, fail at once, or answer with a stream. */
type Step = 'hang' | 'fail' | 'stream';

const noop = () => undefined;
const globals = globalThis as unknown as Record<string, unknown>;
const saved = { window: globals.window, document: globals.document, fetch: globals.fetch };
let script: Step[] = [];
let requests = 0;
let dropOpen: (() => void) | undefined;

function scriptedFetch(_url: string, init: { signal: AbortSignal }): Promise<Response> {
  requests += 1;
  const step = script.shift() ?? 'hang';
  if (step === 'fail') return Promise.reject(new TypeError('Failed to fetch'));
  if (step === 'hang') return new Promise((_resolve, reject) => init.signal.addEventListener('abort', () => reject(new DOMException('aborted', 'AbortError'))));
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(new TextEncoder().encode(': open\n\nevent: ready\ndata: {}\n\n'));
      init.signal.addEventListener('abort', () => controller.error(new DOMException('aborted', 'AbortError')));
      // The server goes away: the stream ends.
      dropOpen = () => controller.close();
    },
  });
  return Promise.resolve(new Response(body, { status: 200, headers: { 'content-type': 'text/event-stream' } }));
}

async function load(): Promise<Open> {
  return ((await import(pathToFileURL(LIVE).href)) as { openLiveChannel: Open }).openLiveChannel;
}

/** Follows `channel`'s statuses until `until` is seen (or `ms` pass); answers every status seen. */
function statuses(channel: Channel, until: Status, ms: number): Promise<Status[]> {
  const seen: Status[] = [channel.status];
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(seen), ms);
    channel.onStatus((status) => {
      seen.push(status);
      if (status === until) {
        clearTimeout(timer);
        resolve(seen);
      }
    });
  });
}

describe('ui live channel: reconnecting (issue 24 §3)', () => {
  before(() => {
    globals.document = { visibilityState: 'visible', querySelector: () => null, addEventListener: noop, removeEventListener: noop };
    globals.window = {
      localStorage: { getItem: () => null, setItem: noop, removeItem: noop },
      location: { pathname: '/model/Book', search: '', origin: 'http://localhost' },
      history: { pushState: noop, replaceState: noop },
      addEventListener: noop,
      removeEventListener: noop,
      dispatchEvent: () => true,
    };
    globals.fetch = scriptedFetch;
  });
  after(() => {
    Object.assign(globals, saved);
  });
  beforeEach(() => {
    requests = 0;
  });

  it('a request that hangs before its headers is given up after the silence limit and tried again', async () => {
    const open = await load();
    script = ['hang', 'stream'];
    const channel = open('Book', { silentMs: 150, retryMs: 20 });
    try {
      const seen = await statuses(channel, 'live', 3000);
      expect(seen.at(-1), `statuses: ${seen.join(' → ')}`).to.equal('live');
      expect(requests).to.equal(2);
      expect(seen).to.deep.equal(['connecting', 'retrying', 'live']);
    } finally {
      channel.close();
    }
  });

  it('reconnecting says "retrying" through every try, never "connecting" again in between', async () => {
    const open = await load();
    script = ['stream'];
    const channel = open('Book', { silentMs: 5000, retryMs: 10, maxRetryMs: 20 });
    try {
      expect((await statuses(channel, 'live', 3000)).at(-1)).to.equal('live');
      // The stream drops; the next three tries fail, the fourth opens.
      script = ['fail', 'fail', 'fail', 'stream'];
      const seen = statuses(channel, 'live', 3000);
      dropOpen!();
      const after = await seen;
      expect(after.at(-1), `statuses: ${after.join(' → ')}`).to.equal('live');
      expect(after.slice(1), `statuses: ${after.join(' → ')}`).to.deep.equal(['retrying', 'live']);
      expect(requests).to.equal(5);
    } finally {
      channel.close();
    }
  });

  it('"Reconnect now" tries at once instead of waiting out the pause; it does nothing while live', async () => {
    const open = await load();
    script = ['fail', 'stream'];
    // The pause after the failure is a minute: only retryNow can bring it back within the test.
    const channel = open('Book', { silentMs: 5000, retryMs: 60_000, maxRetryMs: 60_000 });
    try {
      const first = await statuses(channel, 'retrying', 3000);
      expect(first.at(-1)).to.equal('retrying');
      const seen = statuses(channel, 'live', 3000);
      channel.retryNow();
      expect((await seen).at(-1)).to.equal('live');
      expect(requests).to.equal(2);
      channel.retryNow();
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(requests, 'no new request while live').to.equal(2);
      expect(channel.status).to.equal('live');
    } finally {
      channel.close();
    }
  });
});
