// One open server-sent-events stream of a live table (issue 24 §2). Events wait in a bounded queue
// until the socket takes them: a subscriber that does not keep up is told to reload and closed, so
// it never holds memory or slows a writer. One timer per stream sends heartbeats and, every so
// often, checks that the viewer's token still holds.
import { Readable } from 'node:stream';
import type { ModelDefinition } from '@fw/core';
import type { Actor } from '../service.js';
import type { LiveEvent } from './viewer.js';

/** Limits and timings of streams (see LiveOptions in hub.ts). */
export interface StreamTimings {
  queueSize: number;
  heartbeatMs: number;
  tokenCheckMs: number;
}

/** Most row ids a stream remembers having told its viewer about (for deletes and leaves). */
const KNOWN_IDS = 10_000;

/** The text of one event of message `id` on the stream (`id:`, `event:`, `data:` lines). */
export function eventText(id: string, event: LiveEvent): string {
  return `id: ${id}\nevent: ${event.type}\ndata: ${JSON.stringify(event.data)}\n\n`;
}

/** One open stream: its viewer, its model, and the text it sends. */
export class LiveStream {
  readonly model: ModelDefinition;
  readonly actor: Actor;
  readonly token: string;
  /** Ids of rows this stream sent as inserted or updated (bounded; oldest forgotten first). */
  readonly known = new Set<number>();
  readonly body: Readable;
  // Text waiting for the socket; null marks the end.
  #queue: Array<string | Buffer | null> = [];
  // How many events each queued text holds, parallel to #queue, and their sum: the bound counts events, not writes.
  #counts: number[] = [];
  // Whether the readable asked for more (its read()) since a push last found it full: text moves
  // over only then, so what the socket has not taken stays counted in the queue's bound.
  #wanted = false;
  #queued = 0;
  #closed = false;
  #timer: NodeJS.Timeout;
  #lastCheck = Date.now();
  readonly #timings: StreamTimings;
  readonly #onClose: (stream: LiveStream) => void;
  #ended: Array<() => void> = [];

  constructor(model: ModelDefinition, actor: Actor, token: string, timings: StreamTimings, checkToken: (token: string) => Promise<boolean>, onClose: (stream: LiveStream) => void) {
    this.model = model;
    this.actor = actor;
    this.token = token;
    this.#timings = timings;
    this.#onClose = onClose;
    this.body = new Readable({
      read: () => {
        this.#wanted = true;
        this.#pump();
      },
    });
    // A first comment opens the response at once, so the client knows it is subscribed.
    this.#queue.push(': live\nretry: 3000\n\n');
    this.#counts.push(1);
    this.#queued = 1;
    this.#timer = setInterval(() => {
      this.#enqueue(': heartbeat\n\n');
      if (Date.now() - this.#lastCheck >= this.#timings.tokenCheckMs) {
        this.#lastCheck = Date.now();
        checkToken(this.token).then(
          (ok) => ok || this.close('token'),
          () => undefined,
        );
      }
    }, timings.heartbeatMs);
    this.#timer.unref();
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** Queues the events of one message (all or, when the queue is full, a reload and the end). */
  send(id: string, events: readonly LiveEvent[]): void {
    this.remember(events);
    this.write(events.map((event) => eventText(id, event)).join(''), events.length);
  }

  /** Notes the rows that `events` told this stream about (see {@link known}); call it before working out the next message's events. */
  remember(events: readonly LiveEvent[]): void {
    for (const event of events) {
      if (event.type === 'delete') continue;
      const rowId = event.data.id as number;
      this.known.delete(rowId);
      this.known.add(rowId);
      if (this.known.size > KNOWN_IDS) this.known.delete(this.known.values().next().value as number);
    }
  }

  /**
   * Queues `count` events already written as text (one socket write for them all): all, or a reload
   * and the end when they do not fit. A Buffer may be shared by several streams (it is never changed).
   */
  write(text: string | Buffer, count: number): void {
    this.#enqueue(text, count);
  }

  /**
   * Gives the client a resume point before any change reaches it: an empty `ready` event with an
   * `id:` of the moment the stream opened. A client cut off before its first change then resumes
   * from here (`Last-Event-ID`) instead of reconnecting without an id and missing what happened.
   */
  ready(id: string): void {
    this.#enqueue(`id: ${id}\nevent: ready\ndata: {}\n\n`);
  }

  /** Queues one event without a message id (presence, issue 24 §4): it is never resumed. */
  notify(type: string, data: Record<string, unknown>): void {
    this.#enqueue(`event: ${type}\ndata: ${JSON.stringify(data)}\n\n`);
  }

  /** Calls `fn` once when the stream ends, however it ends (at once when it has already). */
  onEnd(fn: () => void): void {
    if (this.#closed) fn();
    else this.#ended.push(fn);
  }

  /** Tells the client to load the table again, then ends the stream. */
  reload(reason: string): void {
    if (this.#closed) return;
    this.#drop();
    this.#finish(`event: reload\ndata: ${JSON.stringify({ reason })}\n\n`);
  }

  /** Ends the stream; with a reason, the client is told why (`closed` event). */
  close(reason?: string): void {
    if (this.#closed) return;
    this.#finish(reason ? `event: closed\ndata: ${JSON.stringify({ type: 'closed', reason })}\n\n` : undefined);
  }

  /** The client went away: drop everything. */
  abandon(): void {
    if (this.#closed) return;
    this.#drop();
    this.#finish(undefined);
    this.body.destroy();
  }

  #enqueue(text: string | Buffer, count = 1): void {
    if (this.#closed) return;
    // The bound is on what the socket has not taken: a stream that took everything so far gets one
    // delivery of any size (a batch of a busy second may hold more events than queueSize; it is
    // bounded by the batch's own limits), a stream still holding text is told to reload.
    if (this.#queued > 0 && this.#queued + count > this.#timings.queueSize) return this.reload('overflow');
    this.#queue.push(text);
    this.#counts.push(count);
    this.#queued += count;
    this.#pump();
  }

  #drop(): void {
    this.#queue = [];
    this.#counts = [];
    this.#queued = 0;
  }

  #finish(last: string | undefined): void {
    this.#closed = true;
    clearInterval(this.#timer);
    if (last) {
      this.#queue.push(last);
      this.#counts.push(1);
    }
    this.#queue.push(null);
    this.#counts.push(0);
    this.#pump();
    this.#onClose(this);
    const ended = this.#ended;
    this.#ended = [];
    for (const fn of ended) fn();
  }

  // Moves queued text into the readable while it asks for more; null marks the end. Once a push
  // finds it full, the rest waits for its next read(), which it makes as the socket takes what it
  // holds. (Stopping by its length instead left a read() unanswered, and the stream stalled until
  // the next event came.)
  #pump(): void {
    while (this.#wanted && this.#queue.length > 0) {
      const text = this.#queue.shift()!;
      this.#queued -= this.#counts.shift() ?? 0;
      if (text === null) {
        this.#drop();
        this.body.push(null);
        return;
      }
      this.#wanted = this.body.push(text);
    }
  }
}
