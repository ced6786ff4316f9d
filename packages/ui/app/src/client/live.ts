// Live tables (issue 24 §3): the stream of one model's committed changes, `GET /data/events/{fw}`,
// read with `fetch` (the token goes in its header, as on every call; `EventSource` could only put
// it in the URL). A channel keeps one stream open while the model page is, reconnects after a
// drop with a growing pause and `Last-Event-ID` (the server sends what was missed, or `reload`),
// closes while the tab stays hidden, and hands every event to whoever listens for its name:
// `insert`, `update`, `delete`, `reload`, and names added later (`presence`) alike.
import { useEffect, useState } from 'react';
import { getToken } from '../auth';
import { apiUrl, toSignIn } from './api';
import { routes } from './routes';
import { SseParser } from './sse';

/** One event of the stream: its name, its JSON data and the message id it came with. */
export interface LiveEvent {
  type: string;
  data: Record<string, unknown>;
  id?: string;
}

/**
 * Where the channel is: opening (or reopening) the stream, following it, waiting before the next
 * attempt, paused while the tab is hidden, or ended for good: `denied` (the person lost `query` on
 * the model), `gone` (no such model, or the server does not serve live tables).
 */
export type LiveStatus = 'connecting' | 'live' | 'retrying' | 'paused' | 'denied' | 'gone';

/** A model's stream, shared by the components of its page. */
export interface LiveChannel {
  readonly fw: string;
  /** Calls `listener` with every event named `type` (`'*'`: every event); answers the unsubscribe. */
  on(type: string, listener: (event: LiveEvent) => void): () => void;
  readonly status: LiveStatus;
  /** Calls `listener` whenever {@link status} changes; answers the unsubscribe. */
  onStatus(listener: (status: LiveStatus) => void): () => void;
  /** While waiting to reconnect (`retrying`): tries at once instead. */
  retryNow(): void;
  /** Ends the stream for good. */
  close(): void;
}

/** Timings of a channel (tests and hosts may shorten them). */
export interface LiveTimings {
  /** The first pause after a drop, ms; doubled each time up to `maxRetryMs`. @default the server's `retry:` (3000), else 1000 */
  retryMs?: number;
  /** @default 30000 */
  maxRetryMs?: number;
  /** A tab hidden this long closes its stream (it reopens, resuming, when shown again), ms. @default 60000 */
  hiddenMs?: number;
  /**
   * No byte for this long (the server answers at once and sends a heartbeat every 15 s): the
   * connection is taken as dead, ms; also the longest wait for the answer's headers. @default 45000
   */
  silentMs?: number;
}

const KEY_SHAPE = /^[A-Za-z0-9_-]{8,64}$/;
let clientKey: string | undefined;

/**
 * This tab's key, sent as `X-Fw-Live-Client` with every stream (see the presence contract of issue
 * 24 §4): random, made once per page load, so two tabs of one person are two clients. The presence
 * posts of a later module name the same key.
 */
export function liveClientKey(): string {
  if (clientKey) return clientKey;
  const made =
    typeof crypto.randomUUID === 'function' ? crypto.randomUUID() : Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, '0')).join('');
  clientKey = KEY_SHAPE.test(made) ? made : made.replace(/[^A-Za-z0-9_-]/g, '');
  return clientKey;
}

/** Opens the live stream of `fw` (see the file's head); the caller closes it. */
export function openLiveChannel(fw: string, timings: LiveTimings = {}): LiveChannel {
  const maxRetry = timings.maxRetryMs ?? 30_000;
  const hiddenMs = timings.hiddenMs ?? 60_000;
  const silentMs = timings.silentMs ?? 45_000;
  const listeners = new Map<string, Set<(event: LiveEvent) => void>>();
  const statusListeners = new Set<(status: LiveStatus) => void>();
  let status: LiveStatus = 'connecting';
  let lastId: string | undefined;
  let serverRetry: number | undefined;
  let attempt = 0;
  let ended = false;
  let abort: AbortController | undefined;
  let wait: ReturnType<typeof setTimeout> | undefined;
  let hiddenTimer: ReturnType<typeof setTimeout> | undefined;

  const setStatus = (next: LiveStatus) => {
    if (next === status) return;
    status = next;
    for (const listener of [...statusListeners]) listener(next);
  };
  const dispatch = (event: LiveEvent) => {
    for (const type of [event.type, '*']) for (const listener of [...(listeners.get(type) ?? [])]) listener(event);
  };
  const stop = (final: LiveStatus) => {
    ended = true;
    clearTimeout(wait);
    clearTimeout(hiddenTimer);
    abort?.abort();
    setStatus(final);
    document.removeEventListener('visibilitychange', onVisibility);
  };

  // The pause before attempt n: doubling from the server's `retry:`, at most maxRetry, with jitter
  // so that every tab of a restarted server does not come back in the same millisecond.
  const retryLater = (atLeastMs = 0) => {
    if (ended) return;
    const base = timings.retryMs ?? serverRetry ?? 1000;
    const delay = Math.max(atLeastMs, Math.min(maxRetry, base * 2 ** Math.min(attempt, 10)) * (0.5 + Math.random() / 2));
    attempt += 1;
    setStatus('retrying');
    clearTimeout(wait);
    wait = setTimeout(connect, delay);
  };

  async function connect(): Promise<void> {
    if (ended) return;
    clearTimeout(wait);
    if (document.visibilityState === 'hidden') return setStatus('paused');
    abort?.abort();
    const controller = new AbortController();
    abort = controller;
    // Reopening after a drop stays "reconnecting" (one state to announce, not two in turn).
    setStatus(attempt === 0 ? 'connecting' : 'retrying');
    // A request that hangs before its headers (a proxy holding it, a server stuck) is dead too.
    let timedOut = false;
    const headersDue = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, silentMs);
    const headers: Record<string, string> = { accept: 'text/event-stream', 'x-fw-live-client': liveClientKey() };
    const token = getToken();
    if (token) headers.token = token;
    if (lastId) headers['last-event-id'] = lastId;
    let response: Response;
    try {
      response = await fetch(apiUrl(routes.liveEvents(fw).path), { headers, signal: controller.signal, cache: 'no-store' });
    } catch {
      if (abort === controller && (timedOut || !controller.signal.aborted)) retryLater();
      return;
    } finally {
      clearTimeout(headersDue);
    }
    if (abort !== controller) return;
    if (!response.ok || !response.body) {
      void response.body?.cancel();
      if (response.status === 401) {
        stop('gone');
        toSignIn();
        return;
      }
      if (response.status === 403) return stop('denied');
      if (response.status === 404 || response.status === 400) return stop('gone');
      const after = Number(response.headers.get('retry-after'));
      return retryLater(Number.isFinite(after) && after > 0 ? after * 1000 : 0);
    }
    await read(response.body, controller);
  }

  // Reads one open stream to its end; then decides how to go on.
  async function read(body: ReadableStream<Uint8Array>, controller: AbortController): Promise<void> {
    const reader = body.getReader();
    const decoder = new TextDecoder();
    const parser = new SseParser(lastId);
    let silence: ReturnType<typeof setTimeout> | undefined;
    const watch = () => {
      clearTimeout(silence);
      silence = setTimeout(() => controller.abort(), silentMs);
    };
    // What the server said last decides what follows the end of the stream.
    let then: 'resume' | 'fresh' | 'stop' = 'resume';
    watch();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        watch();
        if (status !== 'live') {
          setStatus('live');
          attempt = 0;
        }
        const chunk = parser.push(decoder.decode(value, { stream: true }));
        if (chunk.retryMs !== undefined) serverRetry = chunk.retryMs;
        for (const message of chunk.messages) {
          let data: Record<string, unknown>;
          try {
            const parsed: unknown = JSON.parse(message.data);
            data = parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : { value: parsed };
          } catch {
            continue;
          }
          if (message.id !== undefined) lastId = message.id;
          if (message.event === 'reload') then = 'fresh';
          if (message.event === 'closed') then = data.reason === 'power' ? 'stop' : 'resume';
          dispatch({ type: message.event, data, ...(message.id !== undefined ? { id: message.id } : {}) });
        }
      }
    } catch {
      // Aborted (closed, hidden, silent too long) or the connection broke: decided below.
    } finally {
      clearTimeout(silence);
    }
    if (ended || abort !== controller) return;
    if (then === 'stop') return stop('denied');
    // After `reload` the page loads the table again: the next stream starts from now.
    if (then === 'fresh') {
      lastId = undefined;
      attempt = 0;
      return void connect();
    }
    // `closed` for a token: the next attempt is refused with 401, which is the normal signed-out
    // path (the sign-in page); another tab's new token is used if there is one. `shutdown`, or a
    // drop: resume after the last id received.
    retryLater();
  }

  function onVisibility(): void {
    if (ended) return;
    clearTimeout(hiddenTimer);
    if (document.visibilityState === 'hidden') {
      hiddenTimer = setTimeout(() => {
        abort?.abort();
        abort = undefined;
        clearTimeout(wait);
        setStatus('paused');
      }, hiddenMs);
    } else if (status === 'paused') {
      attempt = 0;
      void connect();
    }
  }
  document.addEventListener('visibilitychange', onVisibility);
  void connect();

  return {
    fw,
    get status() {
      return status;
    },
    on(type, listener) {
      let set = listeners.get(type);
      if (!set) listeners.set(type, (set = new Set()));
      set.add(listener);
      return () => void set.delete(listener);
    },
    onStatus(listener) {
      statusListeners.add(listener);
      return () => void statusListeners.delete(listener);
    },
    close() {
      if (!ended) stop(status);
    },
    retryNow() {
      if (ended || status !== 'retrying' || document.visibilityState === 'hidden') return;
      void connect();
    },
  };
}

/** The live channel of `fw` while the calling component is mounted (none while `enabled` is false). */
export function useLiveChannel(fw: string, enabled = true): LiveChannel | undefined {
  const [channel, setChannel] = useState<LiveChannel>();
  useEffect(() => {
    if (!enabled) return;
    const opened = openLiveChannel(fw);
    setChannel(opened);
    return () => {
      opened.close();
      setChannel(undefined);
    };
  }, [fw, enabled]);
  return channel;
}

/** The channel's status, following its changes. */
export function useLiveStatus(channel: LiveChannel | undefined): LiveStatus | undefined {
  const [status, setStatus] = useState(channel?.status);
  useEffect(() => {
    if (!channel) return setStatus(undefined);
    setStatus(channel.status);
    return channel.onStatus(setStatus);
  }, [channel]);
  return status;
}

/** Calls `listener` with the channel's events of `type` while mounted (the latest `listener`, without resubscribing). */
export function useLiveEvent(channel: LiveChannel | undefined, type: string, listener: (event: LiveEvent) => void): void {
  const [box] = useState<{ current: (event: LiveEvent) => void }>(() => ({ current: listener }));
  box.current = listener;
  useEffect(() => channel?.on(type, (event) => box.current(event)), [channel, type, box]);
}
