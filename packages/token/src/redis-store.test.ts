import { expect } from 'chai';
import type { Redis } from 'ioredis';
import { FwDefinitionError } from '@fw/core';
import { RedisTokenStore, createTokenService, hashToken } from '@fw/token';
import { tokenStoreConformance } from '@fw/token/conformance';
import { describeRedis, type RedisNamespace } from '@fw/test-utils';
import { revokeRaceTests } from './test-setup.js';

const MINUTE = 60_000;

/** Every key under `prefix` with its type, value and remaining lifetime. */
async function dumpKeys(redis: Redis, prefix: string) {
  const out: Array<{ key: string; type: string; pttl: number; value: unknown }> = [];
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 500);
    cursor = next;
    for (const key of keys) {
      const type = await redis.type(key);
      const value =
        type === 'string'
          ? await redis.get(key)
          : type === 'zset'
            ? await redis.zrange(key, 0, -1, 'WITHSCORES')
            : type === 'set'
              ? await redis.smembers(key)
              : type === 'hash'
                ? await redis.hgetall(key)
                : type === 'list'
                  ? await redis.lrange(key, 0, -1)
                  : await redis.dump(key);
      out.push({ key, type, pttl: await redis.pttl(key), value });
    }
  } while (cursor !== '0');
  return out;
}

describeRedis('RedisTokenStore', (ns: () => RedisNamespace) => {
  let next = 0;
  // Each test gets its own prefix inside the suite's namespace, so each starts empty.
  const freshPrefix = () => `${ns().prefix}${next++}:`;

  tokenStoreConformance(() => new RedisTokenStore({ redis: ns().redis, prefix: freshPrefix() }), {
    inspect: (store) => dumpKeys(store.redis as Redis, store.prefix),
    peer: (store) => new RedisTokenStore({ redis: ns().peer, prefix: store.prefix }),
    expiresOnItsOwn: true,
  });

  revokeRaceTests(() => ({ a: ns().redis, b: ns().peer, c: ns().redis, prefix: freshPrefix }));

  describe('new RedisTokenStore(options)', () => {
    it('rejects a missing client and a non-string prefix at construction', () => {
      expect(() => new RedisTokenStore({ redis: {} as Redis }))
        .to.throw(FwDefinitionError)
        .with.property('key', 'RedisTokenStore.redis');
      expect(() => new RedisTokenStore({ redis: ns().redis, prefix: 5 as unknown as string }))
        .to.throw(FwDefinitionError)
        .with.property('key', 'RedisTokenStore.prefix');
    });

    it('defaults the prefix to fw:', () => {
      expect(new RedisTokenStore({ redis: ns().redis }).prefix).to.equal('fw:');
    });
  });

  it('gives each token key a millisecond expiry equal to its lifetime', async () => {
    const prefix = freshPrefix();
    const service = createTokenService({ store: new RedisTokenStore({ redis: ns().redis, prefix }), expireMinutes: 30 });
    const { token } = await service.loginToken({ id: 1, account: 'a' });
    const keys = await dumpKeys(ns().redis, prefix);
    const tokenKey = keys.find((k) => k.key === `${prefix}token:${hashToken(token)}`);
    const userKey = keys.find((k) => k.key === `${prefix}user-tokens:1`);
    expect(tokenKey?.type).to.equal('string');
    expect(tokenKey?.pttl).to.be.within(30 * MINUTE - 5000, 30 * MINUTE);
    expect(userKey?.type).to.equal('zset');
    expect(userKey?.pttl).to.be.within(30 * MINUTE - 5000, 30 * MINUTE);
    // The one shared key: the online-users index, which never expires as a whole; its member is
    // the user id (no secret), scored by the token's expiry, and pruned by score.
    const online = keys.find((k) => k.key === `${prefix}online-users`);
    expect(online?.type).to.equal('zset');
    expect((online?.value as string[])[0]).to.equal('1');
    expect(keys).to.have.length(3);
  });

  it('keeps the per-user set from growing: expired members are pruned and its expiry follows the latest token', async () => {
    const prefix = freshPrefix();
    const store = new RedisTokenStore({ redis: ns().redis, prefix });
    let t = Date.now();
    const service = createTokenService({ store, expireMinutes: 10, now: () => t });
    for (let i = 0; i < 5; i++) await service.loginToken({ id: 2, account: 'b' });
    t += 11 * MINUTE; // all five expired by the service's clock
    const { token } = await service.loginToken({ id: 2, account: 'b' });
    const members = await ns().redis.zrange(`${prefix}user-tokens:2`, 0, -1);
    expect(members).to.deep.equal([hashToken(token)]);
    const pttl = await ns().redis.pttl(`${prefix}user-tokens:2`);
    // At least the new token's lifetime, measured from the service's clock.
    expect(pttl).to.be.at.least(10 * MINUTE - 5000);
  });

  it('sends a script again when the server does not know it (NOSCRIPT after a restart)', async () => {
    // SCRIPT FLUSH would reproduce this for real but empties the cache of everyone sharing the
    // test server, so the client answers NOSCRIPT the way a restarted server would.
    const redis = ns().redis;
    const refused: string[] = [];
    const forgetful = new Proxy(redis, {
      get(target, property, receiver) {
        if (property === 'evalsha') {
          return (sha: string) => {
            refused.push(sha);
            return Promise.reject(new Error('NOSCRIPT No matching script. Please use EVAL.'));
          };
        }
        const value: unknown = Reflect.get(target, property, receiver);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    const service = createTokenService({ store: new RedisTokenStore({ redis: forgetful, prefix: freshPrefix() }) });
    const { token } = await service.loginToken({ id: 3, account: 'c' });
    expect((await service.resolve(token))?.userId).to.equal(3);
    expect(await service.revokeUser(3)).to.equal(1);
    // Login registers the hash and writes the token (two scripts); revoke-all writes a tombstone
    // and takes the user out of the online index.
    expect(refused).to.have.length(4);
    expect(await service.resolve(token)).to.equal(undefined);
  });

  it('reads and revokes tokens written by the single-script layout of earlier versions (same keys and values)', async () => {
    // What the earlier SAVE script left: the token key and the user's sorted set, nothing else.
    const prefix = freshPrefix();
    const redis = ns().redis;
    const now = Date.now();
    const [old, oldAdmin] = [hashToken('AAAAAAAAAAAAAAAA'), hashToken('BBBBBBBBBBBBBBBB')];
    await redis.set(`${prefix}token:${old}`, `11:${now + 30 * MINUTE}:${now}`, 'PX', 30 * MINUTE);
    await redis.set(`${prefix}token:${oldAdmin}`, `11:${now + 30 * MINUTE}:${now}:a`, 'PX', 30 * MINUTE);
    await redis.zadd(`${prefix}user-tokens:11`, now + 30 * MINUTE, old, now + 30 * MINUTE, oldAdmin);
    await redis.pexpire(`${prefix}user-tokens:11`, 30 * MINUTE);
    const store = new RedisTokenStore({ redis, prefix });
    expect(await store.find(old, now)).to.deep.equal({ hash: old, userId: 11, expiresAt: now + 30 * MINUTE, createdAt: now });
    expect((await store.find(oldAdmin, now))?.admin).to.equal(true);
    expect(await store.extend(old, now + 40 * MINUTE, now)).to.equal(true);
    expect(await store.deleteByUser(11)).to.equal(2);
    expect(await store.find(old, now)).to.equal(undefined);
    expect(await store.find(oldAdmin, now)).to.equal(undefined);
  });

  it('keeps apps with different prefixes apart on one Redis', async () => {
    const a = createTokenService({ store: new RedisTokenStore({ redis: ns().redis, prefix: freshPrefix() }) });
    const b = createTokenService({ store: new RedisTokenStore({ redis: ns().redis, prefix: freshPrefix() }) });
    const { token } = await a.loginToken({ id: 4, account: 'd' });
    await b.loginToken({ id: 4, account: 'd' });
    expect(await b.resolve(token)).to.equal(undefined);
    expect(await b.revokeUser(4)).to.equal(1);
    expect((await a.resolve(token))?.userId).to.equal(4);
  });
});
