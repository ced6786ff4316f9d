import { createRequire } from 'node:module';
import { FwDefinitionError } from '@fw/core';
import type { Redis as IoRedis } from 'ioredis';

/**
 * The ioredis settings Fw reads or sets (any other ioredis option may be passed to
 * {@link createRedis} too). Structural, so that a host without ioredis installed still
 * type-checks Fw's declarations.
 */
export interface FwRedisOptions {
  enableOfflineQueue?: boolean;
  commandTimeout?: number;
  connectTimeout?: number;
  maxRetriesPerRequest?: number | null;
  retryStrategy?: ((times: number) => number | void | null) | null;
  /** Per-node settings of an ioredis `Cluster` (where its `commandTimeout` is). */
  redisOptions?: { commandTimeout?: number };
}

/**
 * The part of an ioredis client (`new Redis(url)` or {@link createRedis}) or an ioredis `Cluster`
 * ({@link createRedisCluster}) that Fw's Redis stores and `fwAdmin` use. Every call the stores
 * make names one key, so each lands on one hash slot of a cluster. Declared here rather than imported from ioredis, an optional peer: a host
 * that does not use Redis need not install it, even to type-check under `skipLibCheck: false`.
 */
export interface FwRedisClient {
  readonly status: string;
  readonly options: FwRedisOptions;
  get(key: string): Promise<string | null>;
  getdel(key: string): Promise<string | null>;
  set(key: string, value: string, mode: 'PX', milliseconds: number): Promise<unknown>;
  del(...keys: string[]): Promise<number>;
  pttl(key: string): Promise<number>;
  zrange(key: string, start: number, stop: number): Promise<string[]>;
  zrem(key: string, ...members: string[]): Promise<number>;
  zadd(key: string, gt: 'GT', score: number, member: string): Promise<unknown>;
  zscore(key: string, member: string): Promise<string | null>;
  zcard(key: string): Promise<number>;
  zrangebyscore(key: string, min: string | number, max: string | number): Promise<string[]>;
  zrevrange(key: string, start: number, stop: number, withScores: 'WITHSCORES'): Promise<string[]>;
  zremrangebyscore(key: string, min: string | number, max: string | number): Promise<number>;
  hgetall(key: string): Promise<Record<string, string>>;
  hdel(key: string, ...fields: string[]): Promise<number>;
  scan(cursor: string | number, match: 'MATCH', pattern: string, count: 'COUNT', n: number): Promise<[cursor: string, keys: string[]]>;
  eval(script: string, numKeys: number, ...keysAndArgs: Array<string | number>): Promise<unknown>;
  evalsha(sha: string, numKeys: number, ...keysAndArgs: Array<string | number>): Promise<unknown>;
  on(event: 'error', listener: (error: Error) => void): unknown;
  on(event: 'ready', listener: (...args: unknown[]) => void): unknown;
  once(event: 'ready', listener: (...args: unknown[]) => void): unknown;
  off(event: 'error', listener: (error: Error) => void): unknown;
  off(event: 'ready', listener: (...args: unknown[]) => void): unknown;
  disconnect(): void;
  /**
   * The servers of a cluster (an ioredis `Cluster` has it, a plain client does not): a SCAN
   * visits each master, since a cluster's SCAN sees only the node it is sent to.
   */
  nodes?(role: 'master'): FwRedisClient[];
}

/**
 * Reconnects forever, quickly at first and then once a second: a Redis that comes back is used
 * again within about a second, with no restart of the app.
 */
export function fwRedisRetryStrategy(times: number): number {
  return Math.min(50 * 2 ** Math.min(times - 1, 5), 1000);
}

/**
 * The ioredis settings {@link createRedis} starts from. Together they make a Redis outage a
 * prompt 503 (`UNAVAILABLE`) instead of requests waiting for the length of the outage:
 * - `enableOfflineQueue: false`: while disconnected, a command fails at once instead of waiting
 *   in a queue for the reconnection;
 * - `commandTimeout: 1000`: a command on a connection that stopped answering (a frozen or
 *   unreachable server, where no socket error ever comes) fails after a second;
 * - `connectTimeout: 2000`, `maxRetriesPerRequest: 1`;
 * - `retryStrategy`: {@link fwRedisRetryStrategy}, reconnecting forever.
 */
export const FW_REDIS_DEFAULTS: Readonly<FwRedisOptions> = Object.freeze({
  enableOfflineQueue: false,
  commandTimeout: 1000,
  connectTimeout: 2000,
  maxRetriesPerRequest: 1,
  retryStrategy: fwRedisRetryStrategy,
});

const requireCjs = createRequire(import.meta.url);

/**
 * An ioredis client for Fw's Redis stores, with {@link FW_REDIS_DEFAULTS} under your `options`
 * (any ioredis option; yours win). It starts connecting at once: with the offline queue off, a
 * command sent before the connection is ready fails rather than waits, so wait for `ready` (as
 * `fwAdmin` does) before serving.
 *
 * @param url `redis://[user:password@]host:port[/db]` or `rediss://…` (TLS).
 * @throws {FwDefinitionError} key `createRedis.url` for anything else (the password is not shown).
 * @example
 * const redis = createRedis(process.env.REDIS_URL!);
 * const tokens = new FwTokenService({ store: new RedisTokenStore({ redis, prefix: 'myapp:' }), config });
 */
export function createRedis(url: string, options: FwRedisOptions & Record<string, unknown> = {}): FwRedisClient {
  if (typeof url !== 'string' || !/^rediss?:\/\/[^\s]*$/i.test(url)) {
    const shown = typeof url === 'string' ? url.replace(/\/\/[^@/]*@/, '//***@') : typeof url;
    throw new FwDefinitionError('createRedis.url', `must be a redis:// or rediss:// URL, got ${JSON.stringify(shown)}`);
  }
  if (typeof options !== 'object' || options === null) throw new FwDefinitionError('createRedis.options', 'must be an object of ioredis options');
  // Loaded here, not imported: ioredis is an optional peer of @fw/token.
  const { Redis: RedisClient } = requireCjs('ioredis') as { Redis: new (url: string, options: object) => IoRedis };
  return new RedisClient(url, { ...FW_REDIS_DEFAULTS, ...options });
}

/**
 * What in a client's settings would make a Redis outage hang requests instead of failing them:
 * an offline queue, no command timeout. Empty for a client from {@link createRedis}.
 */
export function redisOutageRisks(redis: FwRedisClient): string[] {
  const options: FwRedisOptions = (redis as { options?: FwRedisOptions }).options ?? {};
  // A Cluster keeps the per-connection settings under redisOptions.
  const commandTimeout = typeof redis.nodes === 'function' ? options.redisOptions?.commandTimeout : options.commandTimeout;
  const risks: string[] = [];
  if (options.enableOfflineQueue !== false) risks.push('enableOfflineQueue is on (commands wait in a queue while Redis is down)');
  if (typeof commandTimeout !== 'number' || commandTimeout <= 0) risks.push('no commandTimeout (a command waits forever on a frozen or unreachable Redis)');
  return risks;
}

const warned = new WeakSet<object>();

/**
 * Warns once per client (a Node process warning, code `FW_REDIS_CLIENT`) when its settings would
 * let a Redis outage hang requests. The Redis stores call it when they are built.
 */
export function warnOnRedisOutageRisks(redis: FwRedisClient, owner: string): void {
  if (warned.has(redis)) return;
  const risks = redisOutageRisks(redis);
  if (risks.length === 0) return;
  warned.add(redis);
  process.emitWarning(
    `${owner}: this ioredis client would make requests wait through a Redis outage instead of answering 503: ${risks.join('; ')}. ` +
      'Create it with createRedis(url) from @fw/token, or set enableOfflineQueue: false and commandTimeout yourself.',
    { code: 'FW_REDIS_CLIENT' },
  );
}

/**
 * Resolves once `redis` is connected; rejects after `timeoutMs` with the last connection error
 * (or "no answer"), for start-up code that must fail with a clear message instead of hanging.
 * Fw's clients queue no commands while connecting, so a command sent before this would fail.
 */
export function redisReady(redis: FwRedisClient, timeoutMs = 5000): Promise<void> {
  if (redis.status === 'ready') return Promise.resolve();
  return new Promise((resolve, reject) => {
    let last: Error | undefined;
    const onError = (error: Error) => {
      last = error;
    };
    const onReady = () => done();
    const timer = setTimeout(() => done(last ?? new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
    function done(error?: Error): void {
      clearTimeout(timer);
      redis.off('error', onError);
      redis.off('ready', onReady);
      if (error) reject(error);
      else resolve();
    }
    redis.on('error', onError);
    redis.once('ready', onReady);
  });
}
