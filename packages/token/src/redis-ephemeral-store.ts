import { FwDefinitionError } from '@fw/core';
import { checkEphemeralKey, checkEphemeralValue, checkTtl, type EphemeralStore } from './ephemeral-store.js';
import { warnOnRedisOutageRisks, type FwRedisClient } from './redis-client.js';
import { runScript, script } from './redis-store.js';

/** Options of {@link RedisEphemeralStore}. */
export interface RedisEphemeralStoreOptions {
  /** A connected (or lazily connecting) ioredis client; the store never closes it. */
  redis: FwRedisClient;
  /**
   * Prepended to every key the store writes: `<prefix>kv:<key>`. App instances that must share
   * counters use the same prefix; apps sharing a Redis use different ones.
   * @default 'fw:'
   */
  prefix?: string;
}

// KEYS: the entry. ARGV: ttl ms. INCR and the expiry of a new counter in one atomic step: a
// counter never exists without an expiry, and a live one keeps its first expiry (a fixed window).
const INCREMENT = script(`
local fresh = redis.call('EXISTS', KEYS[1]) == 0
local count = redis.call('INCR', KEYS[1])
if fresh then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return count`);

/**
 * Counters and short-lived values in Redis (ioredis), for app instances that share a Redis.
 * Each entry is one string key with a millisecond expiry, so Redis removes expired entries by
 * itself (there is no `purgeExpired`). `increment` is a Lua script (INCR, then PEXPIRE only for a
 * new key), `take` is GETDEL (Redis 6.2 or later), `ttl` is PTTL. Time is Redis's own clock.
 *
 * @throws {FwDefinitionError} when `redis` is not an ioredis client or `prefix` is not a string
 * of at most 200 characters.
 * @example
 * const ephemeral = new RedisEphemeralStore({ redis: new Redis(process.env.REDIS_URL!), prefix: 'myapp:' });
 */
export class RedisEphemeralStore implements EphemeralStore {
  /** The ioredis client the store uses. */
  readonly redis: FwRedisClient;
  /** Prefix of every key the store writes. */
  readonly prefix: string;
  private readonly keyPrefix: string;

  constructor(options: RedisEphemeralStoreOptions) {
    if (typeof options !== 'object' || options === null) throw new FwDefinitionError('RedisEphemeralStore', 'options must be an object');
    const { redis, prefix = 'fw:' } = options;
    if (typeof redis !== 'object' || redis === null || typeof redis.evalsha !== 'function' || typeof redis.getdel !== 'function' || typeof redis.pttl !== 'function') {
      throw new FwDefinitionError('RedisEphemeralStore.redis', 'must be an ioredis client (new Redis(url))');
    }
    if (typeof prefix !== 'string' || prefix.length > 200) {
      throw new FwDefinitionError('RedisEphemeralStore.prefix', `must be a string of at most 200 characters, got ${JSON.stringify(prefix)}`);
    }
    warnOnRedisOutageRisks(redis, 'RedisEphemeralStore');
    this.redis = redis;
    this.prefix = prefix;
    this.keyPrefix = `${prefix}kv:`;
  }

  async increment(key: string, ttlMs: number): Promise<number> {
    checkEphemeralKey(key);
    checkTtl(ttlMs);
    return Number(await runScript(this.redis, INCREMENT, [this.keyPrefix + key], [ttlMs]));
  }

  async get(key: string): Promise<string | undefined> {
    checkEphemeralKey(key);
    return (await this.redis.get(this.keyPrefix + key)) ?? undefined;
  }

  async set(key: string, value: string, ttlMs: number): Promise<void> {
    checkEphemeralKey(key);
    checkEphemeralValue(value);
    checkTtl(ttlMs);
    await this.redis.set(this.keyPrefix + key, value, 'PX', ttlMs);
  }

  async take(key: string): Promise<string | undefined> {
    checkEphemeralKey(key);
    return (await this.redis.getdel(this.keyPrefix + key)) ?? undefined;
  }

  async delete(key: string): Promise<void> {
    checkEphemeralKey(key);
    await this.redis.del(this.keyPrefix + key);
  }

  async ttl(key: string): Promise<number | undefined> {
    checkEphemeralKey(key);
    // -2: no such key; -1: a key without expiry, which this store never writes.
    const left = await this.redis.pttl(this.keyPrefix + key);
    return left > 0 ? left : undefined;
  }
}
