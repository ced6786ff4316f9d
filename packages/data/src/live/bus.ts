// Live tables (issue 24 §2): what crosses between instances when a row changes. A write publishes
// one message after its commit; every instance (the writer's own too) receives it from the bus and
// hands it to its hub (live/hub.ts), which reads the rows and sends each open stream what its
// viewer may see. Messages name rows and fields, never values: values are read and filtered per
// viewer on the receiving instance, so nothing a viewer may not see ever travels on the bus.
// Presence (issue 24 §4) rides the same bus as its own kind of message: who has which row (and
// which field) open, never a value.

/** One committed change, as it travels between instances. */
export interface LiveMessage {
  /**
   * Unique, and ordered by time across instances: `<ms since epoch, 13 digits>-<sequence, 6
   * digits>-<origin>` (compare as text). Streams resume after it (`Last-Event-ID`).
   */
  id: string;
  /** The instance that published it. */
  origin: string;
  /** The model's name. */
  model: string;
  kind: 'insert' | 'update' | 'delete';
  /** The rows changed (at most 1,000 per message; a larger write publishes several). */
  ids: number[];
  /** For `update`: the fields whose value changed. */
  changed?: string[];
  /** Who made the change. */
  actor: { id: number; account: string; name?: string };
  /** When it committed (ISO 8601). */
  at: string;
}

/**
 * Someone has a row open in a form or a cell editor, or left it (issue 24 §4), as it travels
 * between instances. Names who, which row and which field, and when: never a value. Every instance
 * keeps the entries it hears of (live/presence.ts) and tells its own streams what their viewers
 * may see of them.
 */
export interface LivePresenceMessage {
  kind: 'presence';
  /** Unique per message, as {@link LiveMessage.id}; the transport's, never sent to a client. */
  id: string;
  /** The instance that published it. */
  origin: string;
  /** The model's name. */
  model: string;
  /** Whose presence: one entry per (model, user, client). */
  user: { id: number; account: string; name?: string };
  /** The browser tab's key (`X-Fw-Live-Client`): 8–64 characters of `[A-Za-z0-9_-]`. */
  client: string;
  /** The row being edited; `null`: the entry is gone (left, or its stream closed). */
  row: number | null;
  /** The field being edited, when one is (a cell editor). */
  field?: string;
  /** When it was posted (ISO 8601). */
  at: string;
}

/** The form of a client key (`X-Fw-Live-Client`, a presence's `client`). */
export const LIVE_CLIENT_KEY = /^[A-Za-z0-9_-]{8,64}$/;

/** What travels on a {@link LiveBus}: a committed change or a presence. */
export type LiveBusMessage = LiveMessage | LivePresenceMessage;

/** Moves {@link LiveBusMessage}s between the instances of one application. */
export interface LiveBus {
  /** Sends a message to every subscriber of every instance, this one included. Never throws: a failure is reported to `onError`. */
  publish(message: LiveBusMessage): Promise<void>;
  /** Calls `receive` with every message published from now on (own ones included); resolves once subscribed. Returns the unsubscribe. */
  subscribe(receive: (message: LiveBusMessage) => void): Promise<() => Promise<void>>;
  /** Stops receiving and frees the connection the bus opened itself (not one it was given). */
  close(): Promise<void>;
  /** What carries it: `memory`, `redis`, `redis-cluster`, `postgres`. */
  readonly kind: string;
}

/** The bus of one process: messages reach the subscribers of this instance only. */
export function memoryBus(): LiveBus {
  const receivers = new Set<(message: LiveBusMessage) => void>();
  return {
    kind: 'memory',
    async publish(message) {
      // Delivered on the next turn, as a network bus would, never inside the writer's call.
      for (const receive of [...receivers]) queueMicrotask(() => receive(message));
    },
    async subscribe(receive) {
      receivers.add(receive);
      return async () => {
        receivers.delete(receive);
      };
    },
    async close() {
      receivers.clear();
    },
  };
}

let sequence = 0;

/** A new message id for `origin` (see {@link LiveMessage.id}). */
export function liveMessageId(origin: string, now = Date.now()): string {
  sequence = (sequence + 1) % 1_000_000;
  return `${String(now).padStart(13, '0')}-${String(sequence).padStart(6, '0')}-${origin}`;
}
