// The live hub of one data service (issue 24 §2): receives every committed change from the bus,
// reads the changed rows once, and gives each open stream of that model what its viewer may see
// (live/viewer.ts); messages that arrive while a delivery runs are delivered together as a batch
// (live/deliver.ts). It keeps a short ring of recent messages so a client that reconnects with
// `Last-Event-ID` gets what it missed, or is told to reload when that is no longer there.
import { performance } from 'node:perf_hooks';
import type { ModelDefinition } from '@fw/core';
import { FwError } from '@fw/core';
import type { Actor, DataService } from '../service.js';
import { liveMessageId, type LiveBus, type LiveBusMessage, type LiveMessage, type LivePresenceMessage } from './bus.js';
import { BATCH_IDS, BATCH_MESSAGES, deliverBatch, takeBatch, type LiveDelivery } from './deliver.js';
import { LiveStream } from './stream.js';

/** Options of live tables (`fwData({ live })`). */
export interface LiveOptions {
  /** What carries changes between instances. @default memoryBus() (this process only) */
  bus?: LiveBus;
  /** Open streams per user; one more is a 429 `TOO_MANY_STREAMS`. @default 20 */
  maxStreamsPerUser?: number;
  /** Open streams on this instance; one more is a 429 `TOO_MANY_STREAMS`. @default 2000 */
  maxStreams?: number;
  /** Events a stream may hold unsent; past it the stream gets `reload` and is closed. @default 500 */
  queueSize?: number;
  /** Recent messages kept for `Last-Event-ID` resumes. @default 1000 */
  resumeMessages?: number;
  /** How long a message stays resumable, ms. @default 60000 */
  resumeMs?: number;
  /** Heartbeat comment interval, ms. @default 15000 */
  heartbeatMs?: number;
  /** How often an open stream's token is checked again, ms. @default 30000 */
  tokenCheckMs?: number;
  /** The first wait before subscribing to the bus again after a failed subscribe, ms (doubled each time, at most 30 s). @default 1000 */
  subscribeRetryMs?: number;
  /**
   * The shortest time between the starts of two deliveries, ms: a message that finds the hub idle
   * for longer goes out at once, and under a stream of changes the ones of each interval go out as
   * one batch (live/deliver.ts), which costs a fraction of delivering them one by one. While the
   * process is busy (its event loop more than 70 % used since the last delivery, which held 8
   * messages or more) the interval also grows, up to thirty times the last delivery's duration
   * when fully used (that part at most {@link MAX_BATCH_MS}): a saturated instance spends about a
   * thirtieth of its time on deliveries and gives the rest to the writes, and its streams get
   * fewer, larger batches, up to a second apart. 0 on a quiet process delivers each message as
   * soon as the last delivery ends. @default 10
   */
  batchMs?: number;
}

/** The longest the last delivery's duration stretches the interval between deliveries to (batchMs itself may be longer), ms. */
export const MAX_BATCH_MS = 1000;
/** On a fully used event loop, the interval between deliveries is at least this many times the last delivery's duration. */
const BUSY_FACTOR = 30;
/** Below this many messages in the last batch the interval is batchMs alone: changes come one by one, nothing is saved by waiting. */
const BUSY_MESSAGES = 8;
/** Below this event-loop utilization the interval is batchMs alone. */
const BUSY_FROM = 0.7;

/**
 * The time from the start of one delivery to the start of the next, ms: `batchMs` while the event
 * loop was used up to {@link BUSY_FROM} since the last delivery (`used`, 0..1) or the delivery held
 * fewer than {@link BUSY_MESSAGES} messages (`messages`), and beyond that up to
 * {@link BUSY_FACTOR} times the last delivery's duration (`took`, ms) on a fully used loop, that
 * part at most {@link MAX_BATCH_MS}.
 */
export function deliveryInterval(batchMs: number, used: number, took: number, messages: number): number {
  if (messages < BUSY_MESSAGES) return batchMs;
  const factor = BUSY_FACTOR * Math.max(0, (used - BUSY_FROM) / (1 - BUSY_FROM));
  return Math.max(batchMs, Math.min(MAX_BATCH_MS, factor * took));
}

const ID_SHAPE = /^\d{13}-\d{6}-[\w.:-]{1,100}$/;

/** The hub: open streams by model, the resume ring, and the delivery of messages. */
export class LiveHub {
  readonly #service: DataService;
  readonly #options: Required<Omit<LiveOptions, 'bus'>>;
  readonly #checkToken: (token: string, ip: string | null) => Promise<boolean>;
  readonly #onError: (error: unknown) => void;
  readonly #streams = new Map<string, Set<LiveStream>>();
  // Per model, the list of its open streams handed to each message, kept while they stay the same:
  // messages that share a list are delivered to it in one pass (live/deliver.ts).
  readonly #lists = new Map<string, LiveStream[]>();
  readonly #perUser = new Map<number, number>();
  #count = 0;
  #ring: LiveMessage[] = [];
  // Messages below this id may have been missed by a resuming client (before the hub started, or dropped from the ring).
  #floor: string;
  // Messages waiting for delivery, in the order they came; deliveries run one after another (#drain).
  #queue: LiveDelivery[] = [];
  // Row ids of the queued messages: with #queue.length, whether a full batch waits (#full).
  #queuedIds = 0;
  // Set while #drain sleeps between deliveries: ends the sleep at once (a full batch, a resume, close).
  #wake: (() => void) | undefined;
  #draining = false;
  // When the next delivery may start (Date.now() clock): see LiveOptions.batchMs.
  #nextDelivery = 0;
  // The event loop's use as the last delivery ended: how busy the process has been since is measured against it.
  #loopMark = performance.eventLoopUtilization();
  #chain: Promise<void> = Promise.resolve();
  // Set once the bus took the subscription; until then a stream cannot open (503).
  #unsubscribe: (() => Promise<void>) | undefined;
  // The first subscribe, settled either way: a stream asked for at start-up waits for it.
  readonly #firstAttempt: Promise<void>;
  #retry: NodeJS.Timeout | undefined;
  #closed = false;
  /** Where presence messages go (live/presence.ts): they ride this hub's subscription, never its streams or resume ring. */
  presence: ((message: LivePresenceMessage) => void) | undefined;

  /**
   * @param checkToken whether a stream's token still works for its user from their address (false closes the stream with reason `token`; a throw leaves it open until the next check).
   */
  constructor(service: DataService, bus: LiveBus, options: LiveOptions, checkToken: (token: string, ip: string | null) => Promise<boolean>, onError: (error: unknown) => void) {
    this.#service = service;
    this.#checkToken = checkToken;
    this.#onError = onError;
    this.#options = {
      maxStreamsPerUser: options.maxStreamsPerUser ?? 20,
      maxStreams: options.maxStreams ?? 2000,
      queueSize: options.queueSize ?? 500,
      resumeMessages: options.resumeMessages ?? 1000,
      resumeMs: options.resumeMs ?? 60_000,
      heartbeatMs: options.heartbeatMs ?? 15_000,
      tokenCheckMs: options.tokenCheckMs ?? 30_000,
      subscribeRetryMs: options.subscribeRetryMs ?? 1000,
      batchMs: options.batchMs ?? 10,
    };
    this.#floor = `${String(Date.now()).padStart(13, '0')}-`;
    this.#firstAttempt = this.#subscribe(bus, 0);
  }

  /**
   * Subscribes to the bus; a failure (Redis not ready, PostgreSQL unreachable at start-up) is
   * reported and tried again, more slowly each time, until it succeeds or the hub closes. Changes
   * published meanwhile are not seen here, and no stream can open to miss them.
   */
  async #subscribe(bus: LiveBus, attempt: number): Promise<void> {
    try {
      const unsubscribe = await bus.subscribe((message) => this.#receive(message));
      if (this.#closed) await unsubscribe();
      else this.#unsubscribe = unsubscribe;
    } catch (error) {
      this.#onError(error);
      if (this.#closed) return;
      this.#retry = setTimeout(
        () => {
          this.#retry = undefined;
          void this.#subscribe(bus, attempt + 1);
        },
        Math.min(30_000, this.#options.subscribeRetryMs * 2 ** Math.min(attempt, 15)),
      );
      this.#retry.unref();
    }
  }

  /** Open streams on this instance. */
  get size(): number {
    return this.#count;
  }

  /**
   * Opens a stream of `model` for `actor` (power `query` needed), resuming after `lastEventId`
   * when given. @throws {FwError} 403 `POWER_DENIED`, 429 `TOO_MANY_STREAMS`.
   */
  async open(model: ModelDefinition, actor: Actor, token: string, lastEventId: string | undefined): Promise<LiveStream> {
    await this.#firstAttempt;
    if (!this.#unsubscribe && !this.#closed) throw new FwError('UNAVAILABLE', 'Live changes cannot be followed right now: the message bus cannot be reached; try again shortly');
    await this.#service.requirePower(model, actor, 'query');
    const userId = actor.user.id;
    if (this.#closed || this.#count >= this.#options.maxStreams) throw new FwError('TOO_MANY_STREAMS', 'This server has too many open live streams', { extra: { limit: this.#options.maxStreams } });
    if ((this.#perUser.get(userId) ?? 0) >= this.#options.maxStreamsPerUser) {
      throw new FwError('TOO_MANY_STREAMS', 'You have too many open live streams', { extra: { limit: this.#options.maxStreamsPerUser } });
    }
    const stream = new LiveStream(model, actor, token, this.#options, (t) => this.#checkToken(t, actor.ip), (s) => this.#remove(s));
    this.#count += 1;
    this.#perUser.set(userId, (this.#perUser.get(userId) ?? 0) + 1);
    let set = this.#streams.get(model.name);
    if (!set) this.#streams.set(model.name, (set = new Set()));
    set.add(stream);
    this.#lists.delete(model.name);
    if (lastEventId !== undefined) {
      this.#trim();
      if (!ID_SHAPE.test(lastEventId) || lastEventId < this.#floor) stream.reload('resume');
      else {
        const missed = this.#ring.filter((m) => m.model === model.name && m.id > lastEventId);
        for (const message of missed) this.#enqueue(message, [stream]);
        // A resuming client waits for nothing: the interval spaces deliveries to open streams.
        if (missed.length > 0) this.#wake?.();
      }
    } else stream.ready(liveMessageId('open'));
    return stream;
  }

  /** Closes every stream and stops receiving (the store is closing). */
  async close(): Promise<void> {
    this.#closed = true;
    this.#wake?.();
    for (const set of this.#streams.values()) for (const stream of [...set]) stream.close('shutdown');
    if (this.#retry) clearTimeout(this.#retry);
    await this.#firstAttempt;
    await this.#unsubscribe?.();
    this.#unsubscribe = undefined;
    await this.#chain;
  }

  #remove(stream: LiveStream): void {
    const set = this.#streams.get(stream.model.name);
    if (!set?.delete(stream)) return;
    this.#lists.delete(stream.model.name);
    if (set.size === 0) this.#streams.delete(stream.model.name);
    this.#count -= 1;
    const left = (this.#perUser.get(stream.actor.user.id) ?? 1) - 1;
    if (left > 0) this.#perUser.set(stream.actor.user.id, left);
    else this.#perUser.delete(stream.actor.user.id);
  }

  // Drops messages past the ring's size or age; the floor rises with them.
  #trim(): void {
    const oldest = Date.now() - this.#options.resumeMs;
    let drop = 0;
    while (drop < this.#ring.length && (this.#ring.length - drop > this.#options.resumeMessages || Date.parse(this.#ring[drop]!.at) < oldest)) drop += 1;
    if (drop === 0) return;
    this.#floor = this.#ring[drop - 1]!.id;
    this.#ring = this.#ring.slice(drop);
  }

  #receive(message: LiveBusMessage): void {
    if (message?.kind === 'presence') {
      if (!this.#closed) this.presence?.(message);
      return;
    }
    if (this.#closed || !message || typeof message.id !== 'string' || !Array.isArray(message.ids)) return;
    this.#ring.push(message);
    if (this.#ring.length > this.#options.resumeMessages * 2) this.#trim();
    const set = this.#streams.get(message.model);
    if (!set || set.size === 0) return;
    let list = this.#lists.get(message.model);
    if (!list) this.#lists.set(message.model, (list = [...set]));
    this.#enqueue(message, list);
  }

  #enqueue(message: LiveMessage, streams: LiveStream[]): void {
    this.#queue.push({ message, streams });
    this.#queuedIds += message.ids.length;
    if (this.#full()) this.#wake?.();
    if (this.#draining) return;
    this.#draining = true;
    this.#chain = this.#chain.then(() => this.#drain());
  }

  // Whether a whole batch waits (by messages or by row ids): it goes out without waiting for the interval.
  #full(): boolean {
    return this.#queue.length >= BATCH_MESSAGES || this.#queuedIds >= BATCH_IDS;
  }

  // Delivers what waits, one round per interval (batchMs, or longer while the process is busy): a
  // round delivers every message waiting as it starts, each model's as batches (live/deliver.ts),
  // so a busy model never holds back another's; what arrives meanwhile goes out with the next
  // round, or at once when a whole batch waits.
  async #drain(): Promise<void> {
    try {
      while (this.#queue.length > 0) {
        const wait = this.#full() ? 0 : this.#nextDelivery - Date.now();
        if (wait > 0 && !this.#closed) await this.#sleep(wait);
        const started = Date.now();
        const waiting = this.#queue.length;
        let taken = 0;
        while (taken < waiting && this.#queue.length > 0) {
          const batch = takeBatch(this.#queue);
          taken += batch.length;
          for (const { message } of batch) this.#queuedIds -= message.ids.length;
          await deliverBatch(this.#service, batch, this.#onError).catch(this.#onError);
        }
        const used = performance.eventLoopUtilization(this.#loopMark).utilization;
        this.#loopMark = performance.eventLoopUtilization();
        this.#nextDelivery = started + deliveryInterval(this.#options.batchMs, used, Date.now() - started, waiting);
      }
    } finally {
      this.#draining = false;
    }
  }

  // Sleeps `ms`, or less when #wake is called meanwhile.
  #sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.#wake = undefined;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.#wake = done;
    });
  }
}
