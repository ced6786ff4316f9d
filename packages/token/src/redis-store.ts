import { createHash } from 'node:crypto';
import { FwDefinitionError } from '@fw/core';
import { warnOnRedisOutageRisks, type FwRedisClient } from './redis-client.js';
import { checkNow, checkPage, checkRecord, checkUserId, isHashShape, type TokenRecord, type TokenStore, type TokenUserPage, type TokenUserSummary } from './store.js';

/** Options of {@link RedisTokenStore}. */
export interface RedisTokenStoreOptions {
  /** A connected (or lazily connecting) ioredis client; the store never closes it. */
  redis: FwRedisClient;
  /**
   * Prepended to every key the store writes: `<prefix>token:<hash>` (one per token),
   * `<prefix>user-tokens:<userId>` (a sorted set per user), `<prefix>user-seen:<userId>` (a hash
   * per user: when each token was last used) and `<prefix>online-users` (a sorted set of the users
   * holding tokens, scored by their latest expiry). Give every app sharing a Redis its
   * own prefix; app instances that must share tokens use the same one.
   * @default 'fw:'
   */
  prefix?: string;
}

// Values are `<userId>:<expiresAt>:<createdAt>`, plus `:a` for a token that makes its user an
// administrator; epoch ms and 32-bit ids only, so the hash (the key) is the one secret-derived
// string in the key space and the clear token is never there.
const VALUE_SHAPE = /^(-?\d+):(\d+):(\d+)(:a)?$/;

// Every script touches exactly one key, so each call lands on one hash slot and the store runs
// unchanged on Redis Cluster (issue 14, item 7). A token and its user's set live in different
// slots, so the steps that once ran as one script now run one after the other, ordered so that
// an interruption between them never leaves a live token outside its user's set:
// - save: register the hash in the user's set first, then write the token;
// - revoke-all: read the set, turn each listed token into a tombstone, then remove those members.
//   The tombstone (`revoked:<userId>`, never matching a record) makes a save whose registration
//   came before the read but whose token write comes after it land on the tombstone and write
//   nothing, so no save registered before the revoke survives it.
// Lua numbers are doubles: epoch ms stay exact, and '%.0f' prints them without an exponent.

// KEYS: user set. ARGV: hash, expiresAt, ttl ms, now. Registers the hash unless it is already
// there (a live record with that hash: the save is then refused and nothing is undone).
const REGISTER = `
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[4])
local added = redis.call('ZADD', KEYS[1], 'NX', ARGV[2], ARGV[1])
if redis.call('PTTL', KEYS[1]) < tonumber(ARGV[3]) then redis.call('PEXPIRE', KEYS[1], ARGV[3]) end
return added`;

// KEYS: token key. ARGV: value, ttl ms, now. 0: a live record holds the hash; 1: written, or a
// tombstone was found (a revoke-all passed between the registration and this write: the token
// is saved and revoked at once). A record expired by the caller's clock but not yet by Redis's
// is replaced, like on SQL.
const WRITE = `
local current = redis.call('GET', KEYS[1])
if current then
  if string.sub(current, 1, 8) == 'revoked:' then return 1 end
  local expires = string.match(current, '^%-?%d+:(%d+):')
  if expires and tonumber(expires) > tonumber(ARGV[3]) then return 0 end
end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return 1`;

// KEYS: token key. Removes a record (not a tombstone); returns its user id, or false.
const DELETE = `
local value = redis.call('GET', KEYS[1])
if not value then return false end
local user = string.match(value, '^(%-?%d+):%d+:%d+')
if not user then return false end
redis.call('DEL', KEYS[1])
return user`;

// KEYS: token key. ARGV: user id, tombstone lifetime (ms) when the key is missing. Replaces a
// record of this user, or nothing, by a tombstone; leaves another user's record alone (the
// hash was re-used after its first record expired). 1 when a record of the user was there.
const TOMBSTONE = `
local value = redis.call('GET', KEYS[1])
local tomb = 'revoked:' .. ARGV[1]
if not value then
  redis.call('SET', KEYS[1], tomb, 'PX', ARGV[2])
  return 0
end
local user = string.match(value, '^(%-?%d+):%d+:%d+')
if user ~= ARGV[1] then return 0 end
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 1 then ttl = tonumber(ARGV[2]) end
redis.call('SET', KEYS[1], tomb, 'PX', ttl)
return 1`;

// KEYS: user set. ARGV: hash, new expiresAt, ttl ms. Raises the member's score (never lowers it)
// and keeps the set alive at least as long as the token.
const RAISE = `
redis.call('ZADD', KEYS[1], 'GT', ARGV[2], ARGV[1])
if redis.call('PTTL', KEYS[1]) < tonumber(ARGV[3]) then redis.call('PEXPIRE', KEYS[1], ARGV[3]) end
return 1`;

// KEYS: token key. ARGV: user id, new expiresAt, now.
const EXTEND = `
local value = redis.call('GET', KEYS[1])
if not value then return 0 end
local user, expires, created, flags = string.match(value, '^(%-?%d+):(%d+):(%d+)(.*)$')
if user ~= ARGV[1] then return 0 end
local now = tonumber(ARGV[3])
local wanted = tonumber(ARGV[2])
if tonumber(expires) <= now then return 0 end
if wanted <= tonumber(expires) then return 1 end
redis.call('SET', KEYS[1], user .. ':' .. ARGV[2] .. ':' .. created .. flags, 'PX', string.format('%.0f', wanted - now))
return 1`;

// KEYS: user set. ARGV: now. Removes and returns the members expired at now.
const TAKE_EXPIRED = `
local hashes = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
if #hashes > 0 then redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1]) end
return hashes`;

// KEYS: token key. ARGV: user id, now. Deletes the record when it is this user's and expired at now.
const DROP_EXPIRED = `
local value = redis.call('GET', KEYS[1])
if not value then return 0 end
local user, expires = string.match(value, '^(%-?%d+):(%d+):')
if user ~= ARGV[1] or tonumber(expires) > tonumber(ARGV[2]) then return 0 end
redis.call('DEL', KEYS[1])
return 1`;

// KEYS: user's last-seen hash. ARGV: token hash, at, ttl ms. Moves the field forward only and
// keeps the hash alive at least as long as the token.
const TOUCH = `
local current = redis.call('HGET', KEYS[1], ARGV[1])
if current and tonumber(current) >= tonumber(ARGV[2]) then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
if redis.call('PTTL', KEYS[1]) < tonumber(ARGV[3]) then redis.call('PEXPIRE', KEYS[1], ARGV[3]) end
return 1`;

// KEYS: online-users set. ARGV: user id, score read earlier, new score ('' to remove). Lowers or
// removes the member only if its score is still the one read: a sign-in in between raised it
// (ZADD GT), and then that newer score stands.
const LOWER_ONLINE = `
local score = redis.call('ZSCORE', KEYS[1], ARGV[1])
if not score or tonumber(score) ~= tonumber(ARGV[2]) then return 0 end
if ARGV[3] == '' then redis.call('ZREM', KEYS[1], ARGV[1]) else redis.call('ZADD', KEYS[1], 'XX', ARGV[3], ARGV[1]) end
return 1`;

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
  register: script(REGISTER),
  write: script(WRITE),
  delete: script(DELETE),
  tombstone: script(TOMBSTONE),
  raise: script(RAISE),
  extend: script(EXTEND),
  takeExpired: script(TAKE_EXPIRED),
  dropExpired: script(DROP_EXPIRED),
  touch: script(TOUCH),
  lowerOnline: script(LOWER_ONLINE),
};

/**
 * How long a tombstone stands for a listed token whose key was missing at revoke-all: long
 * enough to outlast the token write of any save that registered before the revoke.
 */
const MISSING_TOMBSTONE_MS = 10 * 60_000;

/** The record a token key holds, or undefined for a missing key, a tombstone or anything else. */
function parseRecord(hash: string, value: string | null): TokenRecord | undefined {
  const match = value === null ? null : VALUE_SHAPE.exec(value);
  if (!match) return undefined;
  const record: TokenRecord = { hash, userId: Number(match[1]), expiresAt: Number(match[2]), createdAt: Number(match[3]) };
  if (match[4] === ':a') record.admin = true;
  return record;
}

/** The servers a SCAN must visit: every master of a cluster, or the one server. */
export function scanTargets(redis: FwRedisClient): FwRedisClient[] {
  return typeof redis.nodes === 'function' ? redis.nodes('master') : [redis];
}

function escapeGlob(text: string): string {
  return text.replace(/[*?[\]\\]/g, '\\$&');
}

/**
 * Tokens in Redis (ioredis): one key per token hash that Redis expires by itself at the token's
 * expiry, plus one sorted set per user (scored by expiry, pruned on every login and expiring
 * with the user's last token) for revoke-all. Every app instance on the same Redis and prefix
 * sees a login or a logout at once. Each call touches one key, so the store runs unchanged on a
 * Redis Cluster (an ioredis `Cluster`, see `createRedisCluster`); a revoked token's key holds a
 * tombstone (`revoked:<userId>`) until the token would have expired.
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
  private readonly seenPrefix: string;
  private readonly onlineKey: string;

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
    this.seenPrefix = `${prefix}user-seen:`;
    this.onlineKey = `${prefix}online-users`;
  }

  async save(record: TokenRecord, now: number): Promise<boolean> {
    checkRecord(record, now);
    const value = `${record.userId}:${record.expiresAt}:${record.createdAt}${record.admin === true ? ':a' : ''}`;
    const ttl = record.expiresAt - now;
    const userKey = this.userPrefix + record.userId;
    const added = await this.run(SCRIPTS.register, [userKey], [record.hash, record.expiresAt, ttl, now]);
    const written = await this.run(SCRIPTS.write, [this.tokenPrefix + record.hash], [value, ttl, now]);
    if (written === 1) {
      // The online index last: it is only an index, and the listing checks each user it shows.
      await this.redis.zadd(this.onlineKey, 'GT', record.expiresAt, String(record.userId));
      return true;
    }
    // A live record holds this hash: take back the registration made just now (only that one,
    // so the index entry of the record already there stays).
    if (added === 1) await this.redis.zrem(userKey, record.hash);
    return false;
  }

  async find(hash: string, now: number): Promise<TokenRecord | undefined> {
    checkNow(now);
    if (!isHashShape(hash)) return undefined;
    const record = parseRecord(hash, await this.redis.get(this.tokenPrefix + hash));
    // Redis drops the key on its own clock; the caller's clock decides as well, so all stores
    // agree on what "expired at now" means.
    return record && record.expiresAt > now ? record : undefined;
  }

  async delete(hash: string): Promise<boolean> {
    if (!isHashShape(hash)) return false;
    const user = await this.run(SCRIPTS.delete, [this.tokenPrefix + hash], []);
    if (typeof user !== 'string') return false;
    await this.redis.zrem(this.userPrefix + user, hash);
    await this.redis.hdel(this.seenPrefix + user, hash);
    await this.reindex(user);
    return true;
  }

  /**
   * Revoke-all in three single-slot steps (see the scripts above): list the user's tokens,
   * replace each by a tombstone, then drop those members from the list. Every token whose save
   * had returned before this call is dead on every instance when it resolves; a save started
   * after it resolves stays valid; a save running meanwhile ends up either valid or revoked,
   * the same on every instance, and never comes back once revoked.
   */
  async deleteByUser(userId: number, keepHash?: string): Promise<number> {
    checkUserId(userId);
    const keep = isHashShape(keepHash) ? keepHash : '';
    const userKey = this.userPrefix + userId;
    const hashes = (await this.redis.zrange(userKey, 0, -1)).filter((hash) => hash !== keep && isHashShape(hash));
    if (hashes.length === 0) return 0;
    const removed = await Promise.all(hashes.map((hash) => this.run(SCRIPTS.tombstone, [this.tokenPrefix + hash], [userId, MISSING_TOMBSTONE_MS])));
    await this.redis.zrem(userKey, ...hashes);
    await this.redis.hdel(this.seenPrefix + userId, ...hashes);
    await this.reindex(String(userId));
    return removed.filter((one) => one === 1).length;
  }

  async extend(hash: string, expiresAt: number, now: number): Promise<boolean> {
    checkNow(now);
    if (!Number.isSafeInteger(expiresAt)) throw new TypeError('expiresAt must be a whole number of epoch milliseconds');
    if (!isHashShape(hash)) return false;
    const record = parseRecord(hash, await this.redis.get(this.tokenPrefix + hash));
    if (!record || record.expiresAt <= now) return false;
    if (expiresAt <= record.expiresAt) return true;
    // The user's set first: if the second step never runs, the set outlives the token anyway,
    // so a revoke-all still reaches it.
    await this.run(SCRIPTS.raise, [this.userPrefix + record.userId], [hash, expiresAt, expiresAt - now]);
    const extended = (await this.run(SCRIPTS.extend, [this.tokenPrefix + hash], [record.userId, expiresAt, now])) === 1;
    if (extended) await this.redis.zadd(this.onlineKey, 'GT', expiresAt, String(record.userId));
    return extended;
  }

  /**
   * Redis removes expired token keys by itself; this also removes tokens expired by the
   * caller's clock but not yet by Redis's, and prunes every user set. It walks the user sets
   * with SCAN (on every master of a cluster), so it never blocks a server for long.
   */
  async purgeExpired(now: number): Promise<number> {
    checkNow(now);
    let count = 0;
    for (const node of scanTargets(this.redis)) {
      let cursor = '0';
      do {
        const [next, keys] = await node.scan(cursor, 'MATCH', `${escapeGlob(this.userPrefix)}*`, 'COUNT', 500);
        cursor = next;
        for (const key of keys) {
          const user = key.slice(this.userPrefix.length);
          const hashes = (await this.run(SCRIPTS.takeExpired, [key], [now])) as string[];
          for (const hash of hashes) count += Number(await this.run(SCRIPTS.dropExpired, [this.tokenPrefix + hash], [user, now]));
          if (hashes.length > 0) await this.redis.hdel(this.seenPrefix + user, ...hashes);
        }
      } while (cursor !== '0');
    }
    await this.redis.zremrangebyscore(this.onlineKey, '-inf', now);
    return count;
  }

  async listByUser(userId: number, now: number): Promise<TokenRecord[]> {
    checkUserId(userId);
    checkNow(now);
    const hashes = (await this.redis.zrangebyscore(this.userPrefix + userId, `(${now}`, '+inf')).filter((hash) => isHashShape(hash));
    if (hashes.length === 0) return [];
    // One GET per token (each key has its own slot on a cluster), sent together.
    const [values, seen] = await Promise.all([Promise.all(hashes.map((hash) => this.redis.get(this.tokenPrefix + hash))), this.redis.hgetall(this.seenPrefix + userId)]);
    const out: TokenRecord[] = [];
    hashes.forEach((hash, i) => {
      const record = parseRecord(hash, values[i] ?? null);
      if (!record || record.userId !== userId || record.expiresAt <= now) return;
      const at = Number(seen[hash]);
      if (Number.isSafeInteger(at) && at > 0) record.lastSeenAt = at;
      out.push(record);
    });
    return out.sort((a, b) => b.createdAt - a.createdAt || (a.hash < b.hash ? -1 : 1));
  }

  async touch(hash: string, at: number): Promise<void> {
    checkNow(at);
    if (!isHashShape(hash)) return;
    const record = parseRecord(hash, await this.redis.get(this.tokenPrefix + hash));
    if (!record || record.expiresAt <= at) return;
    await this.run(SCRIPTS.touch, [this.seenPrefix + record.userId], [hash, at, record.expiresAt - at]);
  }

  /**
   * Reads the online-users index (latest expiry first), which drops users whose tokens all
   * expired by itself (by score). A user whose tokens were revoked may linger in it for an
   * instant (a revoke and a sign-in racing); every user shown is checked, and one with no live
   * token left is dropped from the index and from the page, which is then read again.
   */
  async listUsers(now: number, page: { offset: number; limit: number }): Promise<TokenUserPage> {
    checkNow(now);
    checkPage(page);
    await this.redis.zremrangebyscore(this.onlineKey, '-inf', now);
    for (let attempt = 0; ; attempt++) {
      const total = await this.redis.zcard(this.onlineKey);
      if (page.offset >= total) return { total, users: [] };
      const flat = await this.redis.zrevrange(this.onlineKey, page.offset, page.offset + page.limit - 1, 'WITHSCORES');
      const users: TokenUserSummary[] = [];
      let stale = 0;
      for (let i = 0; i + 1 < flat.length; i += 2) {
        const userId = Number(flat[i]);
        if (!Number.isSafeInteger(userId)) continue;
        const records = await this.listByUser(userId, now);
        if (records.length === 0) {
          stale += Number(await this.run(SCRIPTS.lowerOnline, [this.onlineKey], [flat[i]!, flat[i + 1]!, '']));
          continue;
        }
        users.push({
          userId,
          sessions: records.length,
          lastSeenAt: Math.max(...records.map((r) => Math.max(r.lastSeenAt ?? 0, r.createdAt))),
          expiresAt: Math.max(...records.map((r) => r.expiresAt)),
        });
      }
      if (stale === 0 || attempt >= 3) return { total: total - stale, users };
    }
  }

  /**
   * After a revoke: the user's online-index score becomes the latest expiry of the tokens left,
   * or the user leaves the index when none is (see {@link LOWER_ONLINE}).
   */
  private async reindex(user: string): Promise<void> {
    const score = await this.redis.zscore(this.onlineKey, user);
    if (score === null) return;
    const [, latest] = await this.redis.zrevrange(this.userPrefix + user, 0, 0, 'WITHSCORES');
    if (latest !== undefined && Number(latest) >= Number(score)) return;
    await this.run(SCRIPTS.lowerOnline, [this.onlineKey], [user, score, latest ?? '']);
  }

  private run(s: Script, keys: string[], args: Array<string | number>): Promise<unknown> {
    return runScript(this.redis, s, keys, args);
  }
}
