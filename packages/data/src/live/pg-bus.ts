// Live messages over PostgreSQL LISTEN/NOTIFY (issue 24 §2), for an application on PostgreSQL
// without Redis. One connection of the bus's own, outside knex's pool (a pooled connection would
// go back to the pool and stop listening), LISTENs and also sends the NOTIFYs: one connection
// runs its queries in order, so the messages of one publisher arrive in the order published.
//
// A NOTIFY payload must stay under 8,000 bytes. A larger message (1,000 long ids) is sent as
// parts, all NOTIFY'd in one statement so they commit, and arrive, together; the receivers join
// them back into the one message.
//
// Delivery is at most once: while the connection is down (it reconnects and LISTENs again, once a
// second), what others publish is not received and what this instance publishes fails (reported
// to onError). The hub's resume window and "reload" cover those gaps.
import { createRequire } from 'node:module';
import { FwDefinitionError } from '@fw/core';
import type { Knex } from 'knex';
import type { LiveBus, LiveBusMessage } from './bus.js';
import { decodeLiveMessage, deliver } from './decode.js';

/** The part of the `pg` driver's Client used, declared here so that @fw/data needs no pg types. */
interface PgClient {
  connect(): Promise<void>;
  query(text: string, values?: unknown[]): Promise<unknown>;
  end(): Promise<void>;
  on(event: 'notification', listener: (n: { channel: string; payload?: string }) => void): unknown;
  on(event: 'error' | 'end', listener: (error?: Error) => void): unknown;
  removeAllListeners(): unknown;
}

export interface PgBusOptions {
  /** The application's knex (on PostgreSQL): the bus opens one connection of its own with its settings. */
  knex?: Knex;
  /** Or a `postgres://` URL. */
  connection?: string;
  /** The NOTIFY channel. Default `fw_live`. */
  channel?: string;
  /** Told of failed publishes, dropped payloads, lost connections and receivers that threw. */
  onError?: (error: Error) => void;
}

/** Largest payload sent whole (PostgreSQL's limit is 8,000 bytes, less a margin). */
export const PG_NOTIFY_MAX_BYTES = 7900;
// A part carries this many bytes of the message's JSON, base64-encoded (7,200 characters), so a
// multi-byte character is never cut in two and the part's header fits in the margin.
const PART_BYTES = 5400;
const PART = /^#([^ ]{1,200}) (\d{1,4})\/(\d{1,4}) ([A-Za-z0-9+/=]*)$/;
/** Incomplete messages kept while their remaining parts are awaited. */
const MAX_PENDING = 100;
const RECONNECT_MS = 1000;

const requireCjs = createRequire(import.meta.url);

/** The NOTIFY payloads of one message: the JSON alone, or parts `#<id> <i>/<n> <base64>`. */
export function pgPayloads(message: LiveBusMessage): string[] {
  const json = JSON.stringify(message);
  const bytes = Buffer.from(json, 'utf8');
  if (bytes.length <= PG_NOTIFY_MAX_BYTES) return [json];
  const count = Math.ceil(bytes.length / PART_BYTES);
  const parts: string[] = [];
  for (let i = 0; i < count; i++) {
    parts.push(`#${message.id.slice(0, 200).replace(/ /g, '_')} ${i + 1}/${count} ${bytes.subarray(i * PART_BYTES, (i + 1) * PART_BYTES).toString('base64')}`);
  }
  return parts;
}

/** A {@link LiveBus} over PostgreSQL LISTEN/NOTIFY. */
export function pgBus(options: PgBusOptions): LiveBus {
  const onError = options.onError ?? (() => {});
  const channel = options.channel ?? 'fw_live';
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(channel)) throw new FwDefinitionError('pgBus.channel', 'must be a lower-case SQL name (letters, digits, _; at most 63)');
  const config = options.connection ?? (options.knex?.client as { config?: { connection?: unknown } } | undefined)?.config?.connection;
  if (typeof config !== 'string' && (typeof config !== 'object' || config === null) && typeof config !== 'function') {
    throw new FwDefinitionError('pgBus.connection', 'give a knex on PostgreSQL or a postgres:// URL');
  }
  const receivers = new Set<(message: LiveBusMessage) => void>();
  const pending = new Map<string, string[]>();
  let client: PgClient | undefined;
  let connecting: Promise<PgClient> | undefined;
  let timer: NodeJS.Timeout | undefined;
  let closed = false;

  function receive(payload: string): void {
    const part = PART.exec(payload);
    let json = payload;
    if (part) {
      const [, key = '', index, total, data = ''] = part;
      const i = Number(index) - 1;
      const n = Number(total);
      if (n < 1 || i < 0 || i >= n) return onError(new Error('live bus: dropped a part with a bad number'));
      const parts = pending.get(key) ?? new Array<string>(n).fill('');
      if (!pending.has(key)) {
        // A sender that died between parts cannot happen (they commit together), but a stray
        // NOTIFY from another client could leave one open: the oldest goes.
        if (pending.size >= MAX_PENDING) pending.delete(pending.keys().next().value!);
        pending.set(key, parts);
      }
      parts[i] = data;
      if (parts.some((p) => p === '')) return;
      pending.delete(key);
      json = Buffer.concat(parts.map((p) => Buffer.from(p, 'base64'))).toString('utf8');
    }
    const message = decodeLiveMessage(json);
    if (message instanceof Error) onError(message);
    else deliver(receivers, message, onError);
  }

  async function open(): Promise<PgClient> {
    const { Client } = requireCjs('pg') as { Client: new (config: unknown) => PgClient };
    const settings = typeof config === 'function' ? await (config as () => unknown)() : config;
    const next = new Client(typeof settings === 'string' ? { connectionString: settings } : settings);
    const lost = (error?: Error) => {
      if (client !== next) return;
      client = undefined;
      connecting = undefined;
      next.removeAllListeners();
      next.on('error', () => {});
      next.end().catch(() => {});
      if (closed) return;
      onError(error ?? new Error('live bus: the PostgreSQL connection ended'));
      reconnectSoon();
    };
    next.on('error', lost);
    next.on('end', () => lost());
    next.on('notification', (n) => {
      if (n.channel === channel && typeof n.payload === 'string') receive(n.payload);
    });
    try {
      await next.connect();
      await next.query(`LISTEN "${channel}"`);
    } catch (error) {
      next.removeAllListeners();
      next.on('error', () => {});
      await next.end().catch(() => {});
      throw error;
    }
    if (closed) {
      await next.end().catch(() => {});
      throw new Error('pgBus: closed');
    }
    client = next;
    return next;
  }

  function connection(): Promise<PgClient> {
    if (client) return Promise.resolve(client);
    connecting ??= open().catch((error: unknown) => {
      connecting = undefined;
      throw error;
    });
    return connecting;
  }

  function reconnectSoon(): void {
    if (closed || timer) return;
    timer = setTimeout(() => {
      timer = undefined;
      connection().catch((error: unknown) => {
        if (closed) return;
        onError(error instanceof Error ? error : new Error(String(error)));
        reconnectSoon();
      });
    }, RECONNECT_MS);
  }

  return {
    kind: 'postgres',
    async publish(message) {
      if (closed) return;
      try {
        const payloads = pgPayloads(message);
        const db = await connection();
        // One statement, so every part commits (and is delivered) together, in this order.
        await db.query(`select ${payloads.map((_, i) => `pg_notify($1, $${i + 2})`).join(', ')}`, [channel, ...payloads]);
      } catch (error) {
        onError(error instanceof Error ? error : new Error(String(error)));
      }
    },
    async subscribe(receiver) {
      if (closed) throw new Error('pgBus: subscribe after close');
      await connection();
      receivers.add(receiver);
      return async () => {
        receivers.delete(receiver);
      };
    },
    async close() {
      closed = true;
      receivers.clear();
      pending.clear();
      if (timer) clearTimeout(timer);
      timer = undefined;
      const open = client ?? (await connecting?.catch(() => undefined));
      client = undefined;
      if (open) {
        open.removeAllListeners();
        open.on('error', () => {});
        await open.end().catch(() => {});
      }
    },
  };
}
