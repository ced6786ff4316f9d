import { createHash } from 'node:crypto';
import { FwDefinitionError } from '@fw/core';
import { warnOnRedisOutageRisks, type FwRedisClient } from './redis-client.js';
import { checkNow, checkRecord, checkUserId, isHashShape, type TokenRecord, type TokenStore } from './store.js';

/** Options of {@link RedisTokenStore}. */
export interface RedisTokenStoreOptions {
  /** A connected (or lazily connecting) ioredis client; the store never closes it. */
  redis: FwRedisClient;
  /**
   * Prepended to every key the store writes: `<prefix>token:<hash>` (one per token) and
   * `<prefix>user-tokens:<userId>` (a sorted set per user). Give every app sharing a Redis its
   * own prefix; app instances that must share tokens use the same one.
   * @default 'fw:'
   */
  prefix?: string;
}

// Values are `<userId>:<expiresAt>:<createdAt>`, plus `:a` for a token that makes its user an
// administrator; epoch ms and 32-bit ids only, so the hash (the key) is the one secret-derived
// string in the key space and the clear token is never there.
const VALUE_SHAPE = /^(-?\d+):(\d+):(\d+)(:a)?$/;

// Each script runs atomically on the server: a token and its entry in the user's set are
// created, renewed and removed together, so revoke-all cannot miss a token saved concurrently
// by another instance. Scripts name the user set from the stored value, so they are meant for a
// single Redis (optionally replicated), not Redis Cluster.
// Lua numbers are doubles: epoch ms stay exact, and '%.0f' prints them without an exponent.

// KEYS: token key, user set. ARGV: value, ttl ms, hash, expiresAt, now, user set prefix.
// A record expired by the caller's clock but not yet by Redis's is replaced, like on SQL.
const SAVE = `
local current = redis.call('GET', KEYS[1])
if current then
  local user, expires = string.match(current, '^(%-?%d+):(%d+):')
  if expires and tonumber(expires) > tonumber(ARGV[5]) then return 0 end
  if user then redis.call('ZREM', ARGV[6] .. user, ARGV[3]) end
end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', ARGV[5])
redis.call('ZADD', KEYS[2], ARGV[4], ARGV[3])
local ttl = redis.call('PTTL', KEYS[2])
if ttl < tonumber(ARGV[2]) then redis.call('PEXPIRE', KEYS[2], ARGV[2]) end
return 1`;

// KEYS: token key. ARGV: user set prefix, hash.
const DELETE = `
local value = redis.call('GET', KEYS[1])
if not value then return 0 end
redis.call('DEL', KEYS[1])
local user = string.match(value, '^(%-?%d+):')
if user then redis.call('ZREM', ARGV[1] .. user, ARGV[2]) end
return 1`;

// KEYS: user set. ARGV: token key prefix, hash to keep ('' keeps none).
const DELETE_USER = `
local hashes = redis.call('ZRANGE', KEYS[1], 0, -1)
local count = 0
for _, hash in ipairs(hashes) do
  if hash ~= ARGV[2] then
    count = count + redis.call('DEL', ARGV[1] .. hash)
    redis.call('ZREM', KEYS[1], hash)
  end
end
if ARGV[2] == '' then redis.call('DEL', KEYS[1]) end
return count`;

// KEYS: token key. ARGV: user set prefix, hash, new expiresAt, now.
const EXTEND = `
local value = redis.call('GET', KEYS[1])
if not value then return 0 end
local user, expires, created, flags = string.match(value, '^(%-?%d+):(%d+):(%d+)(.*)$')
if not user then return 0 end
local now = tonumber(ARGV[4])
local wanted = tonumber(ARGV[3])
if tonumber(expires) <= now then return 0 end
if wanted <= tonumber(expires) then return 1 end
local ttl = wanted - now
redis.call('SET', KEYS[1], user .. ':' .. ARGV[3] .. ':' .. created .. flags, 'PX', string.format('%.0f', ttl))
local set = ARGV[1] .. user
redis.call('ZADD', set, ARGV[3], ARGV[2])
if redis.call('PTTL', set) < ttl then redis.call('PEXPIRE', set, string.format('%.0f', ttl)) end
return 1`;

// KEYS: user set. ARGV: token key prefix, now.
const PURGE_USER = `
local hashes = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[2])
local count = 0
for _, hash in ipairs(hashes) do count = count + redis.call('DEL', ARGV[1] .. hash) end
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[2])
return count`;

/** A Lua script and its SHA-1, for EVALSHA. */
export interface Script {
  source: string;
  sha: string;
}

/** Wraps Lua source for {@link runScript}. */
export function script(source: string): Script {
  return { source, sha: createHash('sha1').update(source).digest('hex') };
}

/** Runs `s` by its SHA-1, sending the source once when the server does not know it yet. */
export async function runScript(redis: FwRedisClient, s: Script, keys: string[], args: Array<string | number>): Promise<unknown> {
  try {
    return await redis.evalsha(s.sha, keys.length, ...keys, ...args);
  } catch (error) {
    // The script cache is empty after a Redis restart or on a fresh server; send the source
    // once, after which EVALSHA hits again.
    if (error instanceof Error && error.message.startsWith('NOSCRIPT')) return redis.eval(s.source, keys.length, ...keys, ...args);
    throw error;
  }
}

const SCRIPTS = {
  save: script(SAVE),
  delete: script(DELETE),
  deleteUser: script(DELETE_USER),
  extend: script(EXTEND),
  purgeUser: script(PURGE_USER),
};

function escapeGlob(text: string): string {
  return text.replace(/[*?[\]\\]/g, '\\$&');
}

/**
 * Tokens in Redis (ioredis): one key per token hash that Redis expires by itself at the token's
 * expiry, plus one sorted set per user (scored by expiry, pruned on every login and expiring
 * with the user's last token) for revoke-all. Every app instance on the same Redis and prefix
 * sees a login or a logout at once.
 *
 * @throws {FwDefinitionError} when `redis` is not an ioredis client or `prefix` is not a string.
 * @example
 * const store = new RedisTokenStore({ redis: new Redis(process.env.REDIS_URL!), prefix: 'myapp:' });
 */
export class RedisTokenStore implements TokenStore {
  /** The ioredis client the store uses. */
  readonly redis: FwRedisClient;
  /** Prefix of every key the store writes. */
  readonly prefix: string;
  private readonly tokenPrefix: string;
  private readonly userPrefix: string;

  constructor(options: RedisTokenStoreOptions) {
    if (typeof options !== 'object' || options === null) throw new FwDefinitionError('RedisTokenStore', 'options must be an object');
    const { redis, prefix = 'fw:' } = options;
    if (typeof redis !== 'object' || redis === null || typeof redis.evalsha !== 'function' || typeof redis.eval !== 'function' || typeof redis.scan !== 'function') {
      throw new FwDefinitionError('RedisTokenStore.redis', 'must be an ioredis client (new Redis(url))');
    }
    if (typeof prefix !== 'string' || prefix.length > 200) {
      throw new FwDefinitionError('RedisTokenStore.prefix', `must be a string of at most 200 characters, got ${JSON.stringify(prefix)}`);
    }
    warnOnRedisOutageRisks(redis, 'RedisTokenStore');
    this.redis = redis;
    this.prefix = prefix;
    this.tokenPrefix = `${prefix}token:`;
    this.userPrefix = `${prefix}user-tokens:`;
  }

  async save(record: TokenRecord, now: number): Promise<boolean> {
    checkRecord(record, now);
    const value = `${record.userId}:${record.expiresAt}:${record.createdAt}${record.admin === true ? ':a' : ''}`;
    const saved = await this.run(
      SCRIPTS.save,
      [this.tokenPrefix + record.hash, this.userPrefix + record.userId],
      [value, record.expiresAt - now, record.hash, record.expiresAt, now, this.userPrefix],
    );
    return saved === 1;
  }

  async find(hash: string, now: number): Promise<TokenRecord | undefined> {
    checkNow(now);
    if (!isHashShape(hash)) return undefined;
    const value = await this.redis.get(this.tokenPrefix + hash);
    const match = value === null ? null : VALUE_SHAPE.exec(value);
    if (!match) return undefined;
    const record: TokenRecord = { hash, userId: Number(match[1]), expiresAt: Number(match[2]), createdAt: Number(match[3]) };
    if (match[4] === ':a') record.admin = true;
    // Redis drops the key on its own clock; the caller's clock decides as well, so all stores
    // agree on what "expired at now" means.
    return record.expiresAt > now ? record : undefined;
  }

  async delete(hash: string): Promise<boolean> {
    if (!isHashShape(hash)) return false;
    return (await this.run(SCRIPTS.delete, [this.tokenPrefix + hash], [this.userPrefix, hash])) === 1;
  }

  async deleteByUser(userId: number, keepHash?: string): Promise<number> {
    checkUserId(userId);
    const keep = isHashShape(keepHash) ? keepHash : '';
    return Number(await this.run(SCRIPTS.deleteUser, [this.userPrefix + userId], [this.tokenPrefix, keep]));
  }

  async extend(hash: string, expiresAt: number, now: number): Promise<boolean> {
    checkNow(now);
    if (!Number.isSafeInteger(expiresAt)) throw new TypeError('expiresAt must be a whole number of epoch milliseconds');
    if (!isHashShape(hash)) return false;
    return (await this.run(SCRIPTS.extend, [this.tokenPrefix + hash], [this.userPrefix, hash, expiresAt, now])) === 1;
  }

  /**
   * Redis removes expired token keys by itself; this also removes tokens expired by the
   * caller's clock but not yet by Redis's, and prunes every user set. It walks the user sets
   * with SCAN, so it never blocks the server for long.
   */
  async purgeExpired(now: number): Promise<number> {
    checkNow(now);
    let count = 0;
    let cursor = '0';
    do {
      const [next, keys] = await this.redis.scan(cursor, 'MATCH', `${escapeGlob(this.userPrefix)}*`, 'COUNT', 500);
      cursor = next;
      for (const key of keys) count += Number(await this.run(SCRIPTS.purgeUser, [key], [this.tokenPrefix, now]));
    } while (cursor !== '0');
    return count;
  }

  private run(s: Script, keys: string[], args: Array<string | number>): Promise<unknown> {
    return runScript(this.redis, s, keys, args);
  }
}
