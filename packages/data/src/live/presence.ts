// Presence (issue 24 §4): who has which row open in a form or a cell editor. A post becomes one
// presence message on the live bus; every instance (the poster's too) keeps the entries it hears of
// in a table of its own and tells its open streams what their viewers may see of each: a row the
// viewer cannot see is never named, and the field only when the viewer's table shows it — the same
// visibility machinery as row events (viewOf in live/viewer.ts). Entries live `ttlMs` unless posted
// again; each instance expires them on its own clock. A stream opened with a client key ties that
// (user, client) to it: when it ends, a "left" goes out on the bus and every instance drops the entry.
import { FwError, FwDefinitionError, type ModelDefinition } from '@fw/core';
import type { FormRow } from '@fw/row-patch';
import { DATA_ERROR_CODES } from '../error-codes.js';
import { rowNotFound } from '../read/row-keys.js';
import type { Actor, DataService } from '../service.js';
import { liveMessageId, type LiveBus, type LivePresenceMessage } from './bus.js';
import type { LiveHub } from './hub.js';
import { liveActor } from './publish.js';
import type { LiveStream } from './stream.js';
import { viewOf, type LiveChange, type LiveView } from './viewer.js';

/** Options of presence (`fwData({ live: { presence } })`). */
export interface PresenceOptions {
  /** How long an entry lives without being posted again, ms (the UI posts every 20 s). @default 60000 */
  ttlMs?: number;
  /** Entries one user may hold at once (rows open across tabs and models); one more is a 429 `TOO_MANY_PRESENCE`. @default 20 */
  maxPerUser?: number;
  /** Entries this instance keeps in all; past it, new entries heard of are dropped. @default 10000 */
  maxEntries?: number;
  /** Posts one user may make per minute on this instance, on average; more is a 429 `TOO_MANY_PRESENCE` with `Retry-After`. @default 120 */
  postsPerMinute?: number;
  /** Posts one user may make at once before `postsPerMinute` holds them back. @default 20 */
  postBurst?: number;
}

/** A presence post, as its route parsed it (http/presence-route.ts). */
export interface PresenceInput {
  /** The tab's client key. */
  client: string;
  /** The row being edited; `null`: left. */
  id: number | null;
  /** The field being edited (a cell editor). */
  field?: string;
}

/** One entry of the table: (model, user, client) has `row` open since `at`. */
interface Entry {
  key: string;
  model: string;
  user: LivePresenceMessage['user'];
  client: string;
  row: number;
  field?: string;
  at: string;
  /** Local clock, ms: when it is dropped unless posted again. */
  expires: number;
}

/** An open stream as presence sees it, and the entries it told its viewer of (to say when they leave). */
interface Watch {
  stream: LiveStream;
  client: string | undefined;
  told: Map<string, { row: number; field?: string }>;
}

type Views = (actor: Actor) => Promise<LiveView | undefined>;

const TOO_MANY = DATA_ERROR_CODES.TOO_MANY_PRESENCE.status;

const keyOf = (model: string, userId: number, client: string) => `${model}\u0000${userId}\u0000${client}`;

/**
 * viewOf works on a change; presence has rows without one. An update naming no changed field is
 * what it judges as "these rows as they are now" (no filter moves, no deletes).
 */
function asChange(model: ModelDefinition, rows: FormRow[]): LiveChange {
  return { message: { id: '', origin: '', model: model.name, kind: 'update', ids: [], changed: [], actor: { id: 0, account: '' }, at: '' }, rows, trashed: [], before: async () => new Map() };
}

/** `options` with their defaults. @throws {FwDefinitionError} for one that is not a positive whole number. */
export function presenceOptions(options: PresenceOptions): Required<PresenceOptions> {
  const out: Required<PresenceOptions> = { ttlMs: 60_000, maxPerUser: 20, maxEntries: 10_000, postsPerMinute: 120, postBurst: 20 };
  for (const key of Object.keys(out) as Array<keyof PresenceOptions>) {
    const value = options[key];
    if (value === undefined) continue;
    if (!Number.isInteger(value) || value < 1) throw new FwDefinitionError(`fwData.live.presence.${key}`, `must be a positive whole number, got ${String(value)}`);
    out[key] = value;
  }
  return out;
}

/** The presence table of one data service, and its delivery to the hub's streams. */
export class LivePresence {
  readonly #service: DataService;
  readonly #hub: LiveHub;
  readonly #bus: LiveBus;
  readonly #origin: string;
  readonly #options: Required<PresenceOptions>;
  readonly #onError: (error: unknown) => void;
  /** Entries by model, then by key. */
  readonly #entries = new Map<string, Map<string, Entry>>();
  #count = 0;
  readonly #perUser = new Map<number, number>();
  /** Open streams by model. */
  readonly #watches = new Map<string, Set<Watch>>();
  readonly #buckets = new Map<number, { tokens: number; at: number }>();
  // Steps (a message heard, a stream's first entries, an expiry) run one after another, so each
  // stream hears of an entry's changes in the order the table saw them.
  #chain: Promise<void> = Promise.resolve();
  #sweep: NodeJS.Timeout | undefined;
  #closed = false;

  /** @throws {FwDefinitionError} for an option that is not a positive whole number. */
  constructor(service: DataService, hub: LiveHub, bus: LiveBus, origin: string, options: PresenceOptions, onError: (error: unknown) => void) {
    this.#service = service;
    this.#hub = hub;
    this.#bus = bus;
    this.#origin = origin;
    this.#options = presenceOptions(options);
    this.#onError = onError;
    hub.presence = (message) => this.#step(() => this.#heard(message));
  }

  /** Entries this instance holds now. */
  get size(): number {
    return this.#count;
  }

  /**
   * Notes that `actor` (tab `input.client`) has row `input.id` of `model` open, or left it (`id:
   * null`), and publishes it. The route checked `query` and the body's shape.
   * @throws {FwError} 404 `ROW_NOT_FOUND` (a row the caller cannot see), 422 `VALIDATION_FAILED`
   * (a field they cannot see), 429 `TOO_MANY_PRESENCE`.
   */
  async post(model: ModelDefinition, actor: Actor, input: PresenceInput): Promise<void> {
    const user = actor.user;
    this.#spend(user.id);
    if (input.id === null) return this.#publish(model.name, user, input.client, null);
    const held = this.#entries.get(model.name)?.has(keyOf(model.name, user.id, input.client)) ?? false;
    if (!held && (this.#perUser.get(user.id) ?? 0) >= this.#options.maxPerUser) {
      throw new FwError('TOO_MANY_PRESENCE', `You have ${this.#options.maxPerUser} rows open already: close one first`, { status: TOO_MANY, extra: { limit: this.#options.maxPerUser } });
    }
    const view = await viewOf(this.#service, model, actor, asChange(model, await this.#service.rawRows(model, [input.id])));
    if (!view.visible.has(input.id)) throw rowNotFound(model, input.id);
    if (input.field !== undefined && !(Object.hasOwn(model.fields, input.field) && view.shown[0] && Object.hasOwn(view.shown[0], input.field))) {
      const message = `${model.name} has no field ${JSON.stringify(input.field)} you may see`;
      throw new FwError('VALIDATION_FAILED', message, { details: [{ path: 'field', type: 'field', message }] });
    }
    return this.#publish(model.name, user, input.client, input.id, input.field);
  }

  /**
   * Gives `stream` the presence of its model: the current entries its viewer may see at once, then
   * every change. With `client`, the stream carries that tab's presence: when it ends, the tab's
   * entry of this model is cleared everywhere (unless another open stream here carries the tab).
   */
  attach(stream: LiveStream, client: string | undefined): void {
    if (this.#closed) return;
    const watch: Watch = { stream, client, told: new Map() };
    const name = stream.model.name;
    let set = this.#watches.get(name);
    if (!set) this.#watches.set(name, (set = new Set()));
    set.add(watch);
    stream.onEnd(() => this.#detach(watch));
    if (this.#entries.get(name)?.size) this.#step(() => this.#snapshot(watch));
  }

  /**
   * Stops hearing presence and drops the table (the store is closing). The tabs whose streams end
   * with this instance leave first, everywhere: the other instances would otherwise show them
   * until their entries expire (a tab that reconnects elsewhere says again what it has open).
   */
  async close(): Promise<void> {
    if (this.#closed) return;
    const leaving = new Map<string, { model: string; user: Actor['user']; client: string }>();
    for (const [model, set] of this.#watches) {
      for (const { stream, client } of set) if (client) leaving.set(keyOf(model, stream.actor.user.id, client), { model, user: stream.actor.user, client });
    }
    this.#closed = true;
    await Promise.all([...leaving.values()].map(({ model, user, client }) => this.#publish(model, user, client, null)));
    if (this.#hub.presence) this.#hub.presence = undefined;
    if (this.#sweep) clearInterval(this.#sweep);
    this.#sweep = undefined;
    await this.#chain;
    this.#entries.clear();
    this.#watches.clear();
    this.#perUser.clear();
    this.#count = 0;
  }

  #step(run: () => Promise<void> | void): void {
    this.#chain = this.#chain.then(run).catch(this.#onError);
  }

  // A bucket per user: postBurst posts at once, refilled at postsPerMinute.
  #spend(userId: number): void {
    const { postsPerMinute, postBurst } = this.#options;
    const now = Date.now();
    const perMs = postsPerMinute / 60_000;
    const bucket = this.#buckets.get(userId) ?? { tokens: postBurst, at: now };
    bucket.tokens = Math.min(postBurst, bucket.tokens + (now - bucket.at) * perMs);
    bucket.at = now;
    if (bucket.tokens < 1) {
      const wait = Math.max(1, Math.ceil((1 - bucket.tokens) / perMs / 1000));
      throw new FwError('TOO_MANY_PRESENCE', 'Too many presence posts: slow down', { status: TOO_MANY, headers: { 'Retry-After': String(wait) }, extra: { limit: postsPerMinute } });
    }
    bucket.tokens -= 1;
    // Bounded: past 10,000 users the buckets start again full (a burst each, no more).
    if (!this.#buckets.has(userId) && this.#buckets.size >= 10_000) this.#buckets.clear();
    this.#buckets.set(userId, bucket);
  }

  #publish(model: string, user: Actor['user'], client: string, row: number | null, field?: string): Promise<void> {
    const message: LivePresenceMessage = {
      kind: 'presence',
      id: liveMessageId(this.#origin),
      origin: this.#origin,
      model,
      user: liveActor(user),
      client,
      row,
      ...(field === undefined ? {} : { field }),
      at: new Date().toISOString(),
    };
    return this.#bus.publish(message).catch(this.#onError);
  }

  #detach(watch: Watch): void {
    const name = watch.stream.model.name;
    const set = this.#watches.get(name);
    set?.delete(watch);
    if (set?.size === 0) this.#watches.delete(name);
    if (!watch.client || this.#closed) return;
    const user = watch.stream.actor.user;
    // A reconnect that arrived before the old socket was seen to drop still carries the tab.
    for (const other of set ?? []) if (other.client === watch.client && other.stream.actor.user.id === user.id) return;
    void this.#publish(name, user, watch.client, null);
  }

  /** One message from the bus: the table changes, and the streams hear what their viewers may see of it. */
  async #heard(message: LivePresenceMessage): Promise<void> {
    if (this.#closed) return;
    const model = this.#service.registry.get(message.model);
    if (!model) return;
    const key = keyOf(model.name, message.user.id, message.client);
    const table = this.#entries.get(model.name);
    const old = table?.get(key);
    if (message.row === null) {
      if (!old) return;
      this.#drop(old);
      this.#tellLeft(old, message.at);
      return;
    }
    const expires = Date.now() + this.#options.ttlMs;
    // Posted again with nothing new: it lives on, and nobody needs telling.
    if (old && old.row === message.row && old.field === message.field) {
      old.expires = expires;
      return;
    }
    if (!old && ((this.#perUser.get(message.user.id) ?? 0) >= this.#options.maxPerUser || this.#count >= this.#options.maxEntries)) return;
    const entry: Entry = { key, model: model.name, user: message.user, client: message.client, row: message.row, at: message.at, expires, ...(message.field === undefined ? {} : { field: message.field }) };
    if (old) table!.set(key, entry);
    else this.#add(entry);
    const watches = this.#watches.get(model.name);
    if (!watches || watches.size === 0) return;
    const views = this.#viewsOf(model, await this.#service.rawRows(model, [entry.row]));
    for (const watch of [...watches]) await this.#tell(watch, [entry], views);
  }

  async #snapshot(watch: Watch): Promise<void> {
    const model = watch.stream.model;
    const entries = [...(this.#entries.get(model.name)?.values() ?? [])];
    if (entries.length === 0 || watch.stream.closed) return;
    const views = this.#viewsOf(model, await this.#service.rawRows(model, [...new Set(entries.map((e) => e.row))]));
    await this.#tell(watch, entries, views);
  }

  /** Tells one stream about `entries`: `editing` for each its viewer may see, `left` for one it was told of and may no longer see. */
  async #tell(watch: Watch, entries: readonly Entry[], views: Views): Promise<void> {
    if (watch.stream.closed) return;
    let view: LiveView | undefined;
    try {
      view = await views(watch.stream.actor);
    } catch (error) {
      // A hook that fails for one viewer keeps presence from them, never from the others.
      this.#onError(error);
      return;
    }
    const pk = watch.stream.model.primaryKey;
    for (const entry of entries) {
      const shown = view?.visible.has(entry.row) ? view.shown.find((row) => Number(row[pk]) === entry.row) : undefined;
      if (shown) {
        const field = entry.field !== undefined && Object.hasOwn(shown, entry.field) ? entry.field : undefined;
        watch.told.set(entry.key, { row: entry.row, ...(field === undefined ? {} : { field }) });
        watch.stream.notify('presence', this.#event(entry, entry.row, field, 'editing', entry.at));
      } else {
        const told = watch.told.get(entry.key);
        if (!told) continue;
        watch.told.delete(entry.key);
        watch.stream.notify('presence', this.#event(entry, told.row, told.field, 'left', new Date().toISOString()));
      }
    }
  }

  /** `left` to the streams that were told of `entry` (nobody else learns anything from it). */
  #tellLeft(entry: Entry, at: string): void {
    for (const watch of this.#watches.get(entry.model) ?? []) {
      const told = watch.told.get(entry.key);
      if (!told) continue;
      watch.told.delete(entry.key);
      watch.stream.notify('presence', this.#event(entry, told.row, told.field, 'left', at));
    }
  }

  #event(entry: Entry, row: number, field: string | undefined, state: 'editing' | 'left', at: string): Record<string, unknown> {
    return { model: entry.model, client: entry.client, user: entry.user.name ?? entry.user.account, id: row, ...(field === undefined ? {} : { field }), state, at };
  }

  /** What each viewing user may see of `rows`: worked out once per user (their streams share it), after their power is checked again. */
  #viewsOf(model: ModelDefinition, rows: FormRow[]): Views {
    const service = this.#service;
    const change = asChange(model, rows);
    const version = service.store.grants.version();
    const views = new Map<number, Promise<LiveView | undefined>>();
    return (actor) => {
      let view = views.get(actor.user.id);
      if (!view) {
        view = version.then(async (grantsVersion) => {
          const power = await service.power(model, actor.user, grantsVersion);
          return power.query ? viewOf(service, model, { ...actor, grantsVersion }, change) : undefined;
        });
        views.set(actor.user.id, view);
      }
      return view;
    };
  }

  #add(entry: Entry): void {
    let table = this.#entries.get(entry.model);
    if (!table) this.#entries.set(entry.model, (table = new Map()));
    table.set(entry.key, entry);
    this.#count += 1;
    this.#perUser.set(entry.user.id, (this.#perUser.get(entry.user.id) ?? 0) + 1);
    if (!this.#sweep) {
      const every = Math.min(5000, Math.max(20, Math.floor(this.#options.ttlMs / 4)));
      this.#sweep = setInterval(() => this.#step(() => this.#expire()), every);
      this.#sweep.unref();
    }
  }

  #drop(entry: Entry): void {
    const table = this.#entries.get(entry.model);
    if (!table?.delete(entry.key)) return;
    if (table.size === 0) this.#entries.delete(entry.model);
    this.#count -= 1;
    const left = (this.#perUser.get(entry.user.id) ?? 1) - 1;
    if (left > 0) this.#perUser.set(entry.user.id, left);
    else this.#perUser.delete(entry.user.id);
    if (this.#count === 0 && this.#sweep) {
      clearInterval(this.#sweep);
      this.#sweep = undefined;
    }
  }

  // Entries not posted again in time go, told as `left` to the streams that knew them.
  #expire(): void {
    const now = Date.now();
    const at = new Date(now).toISOString();
    for (const table of [...this.#entries.values()]) {
      for (const entry of [...table.values()]) {
        if (entry.expires > now) continue;
        this.#drop(entry);
        this.#tellLeft(entry, at);
      }
    }
  }
}
