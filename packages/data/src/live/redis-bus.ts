// Live messages over Redis pub/sub (issue 24 §2). One Redis: PUBLISH / SUBSCRIBE on
// `<prefix>live`. A Redis Cluster: sharded pub/sub (SPUBLISH / SSUBSCRIBE, Redis 7+) on
// `{<prefix>live}`. Sharded, not plain PUBLISH, because ioredis sends a keyless PUBLISH to any
// master, and each master forwards it to the others over the cluster bus on its own schedule: two
// messages from one publisher could then arrive out of order. SPUBLISH names its channel like a
// key, so every message goes to the one master that owns the channel's slot and is delivered by it
// in the order it was sent, without crossing the cluster bus.
//
// Delivery is at most once. ioredis resubscribes after a reconnection, but what was published
// while the subscriber's connection was down is not replayed (Redis keeps no pub/sub history),
// and a publish while the publisher's connection is down fails (reported, not retried). The hub's
// resume window and "reload" cover those gaps.
import { FwDefinitionError } from '@fw/core';
import { redisReady, type FwRedisClient } from '@fw/token';
import type { LiveBus, LiveBusMessage } from './bus.js';
import { decodeLiveMessage, deliver } from './decode.js';

/** The pub/sub commands used, declared here so that @fw/data needs no ioredis types. */
interface PubSubClient extends FwRedisClient {
  publish(channel: string, message: string): Promise<unknown>;
  spublish?(channel: string, message: string): Promise<unknown>;
  duplicate(startupNodes?: unknown[], options?: object): SubscriberClient;
}

interface SubscriberClient extends FwRedisClient {
  subscribe(channel: string): Promise<unknown>;
  ssubscribe?(channel: string): Promise<unknown>;
  on(event: 'message' | 'smessage', listener: (channel: string, message: string) => void): unknown;
  on(event: 'error', listener: (error: Error) => void): unknown;
  on(event: 'ready', listener: (...args: unknown[]) => void): unknown;
}

export interface RedisBusOptions {
  /** An ioredis client or Cluster (createRedis / createRedisCluster of @fw/token). It publishes; it stays yours. */
  client: FwRedisClient;
  /** Put before the channel's name, as the Redis stores put it before their keys. Default `fw:`. */
  prefix?: string;
  /** Told of failed publishes, dropped payloads, connection errors and receivers that threw. */
  onError?: (error: Error) => void;
}

/** How long the subscriber connection may take to come up before `subscribe` rejects. */
const READY_MS = 5000;

/**
 * A {@link LiveBus} over Redis. The subscriber is a `duplicate()` of `client` (a subscribed
 * connection cannot publish), opened on the first `subscribe` and closed by `close()`.
 */
export function redisBus(options: RedisBusOptions): LiveBus {
  const client = options.client as PubSubClient;
  if (typeof client?.duplicate !== 'function' || typeof client.publish !== 'function') {
    throw new FwDefinitionError('redisBus.client', 'must be an ioredis client or Cluster (createRedis or createRedisCluster of @fw/token)');
  }
  const onError = options.onError ?? (() => {});
  const prefix = options.prefix ?? 'fw:';
  const cluster = typeof client.nodes === 'function';
  const channel = cluster ? `{${prefix}live}` : `${prefix}live`;
  const receivers = new Set<(message: LiveBusMessage) => void>();
  let subscriber: SubscriberClient | undefined;
  let subscribing: Promise<void> | undefined;
  let closed = false;
  // Publishes go one after the other, each once the previous one was answered. Sent side by side,
  // a Cluster client may retry one (a node connection still opening, a slot moving) after a later
  // one went out, and the receivers would see them out of order.
  let tail: Promise<void> = Promise.resolve();

  function open(): Promise<void> {
    const sub = cluster ? client.duplicate([], { shardedSubscribers: true }) : client.duplicate();
    subscriber = sub;
    let down = false;
    // One report per outage: ioredis retries about once a second while Redis is away.
    sub.on('error', (error: Error) => {
      if (down) return;
      down = true;
      onError(error);
    });
    sub.on('ready', () => {
      down = false;
    });
    sub.on(cluster ? 'smessage' : 'message', (from: string, payload: string) => {
      if (from !== channel) return;
      const message = decodeLiveMessage(payload);
      if (message instanceof Error) onError(message);
      else deliver(receivers, message, onError);
    });
    return (async () => {
      await redisReady(sub, READY_MS);
      if (cluster) await sub.ssubscribe!(channel);
      else await sub.subscribe(channel);
    })();
  }

  return {
    kind: cluster ? 'redis-cluster' : 'redis',
    publish(message) {
      if (closed) return Promise.resolve();
      const payload = JSON.stringify(message);
      tail = tail.then(async () => {
        try {
          await (cluster ? client.spublish!(channel, payload) : client.publish(channel, payload));
        } catch (error) {
          onError(error instanceof Error ? error : new Error(String(error)));
        }
      });
      return tail;
    },
    async subscribe(receive) {
      if (closed) throw new Error('redisBus: subscribe after close');
      subscribing ??= open().catch((error: unknown) => {
        // The next subscribe tries again with a new connection.
        subscriber?.disconnect();
        subscriber = undefined;
        subscribing = undefined;
        throw error;
      });
      await subscribing;
      receivers.add(receive);
      return async () => {
        receivers.delete(receive);
      };
    },
    async close() {
      closed = true;
      receivers.clear();
      subscriber?.disconnect();
      subscriber = undefined;
    },
  };
}
