import { expect } from 'chai';
import type { Redis } from 'ioredis';
import { FwDefinitionError } from '@fw/core';
import { RedisEphemeralStore } from '@fw/token';
import { ephemeralStoreConformance } from '@fw/token/conformance';
import { describeRedis, type RedisNamespace } from '@fw/test-utils';

const MINUTE = 60_000;

/** Every key under `prefix` with its value (strings only: the store writes nothing else) and lifetime. */
async function dumpKeys(redis: Redis, prefix: string) {
  const out: Array<{ key: string; value: string | null; pttl: number }> = [];
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 500);
    cursor = next;
    for (const key of keys) out.push({ key, value: await redis.get(key), pttl: await redis.pttl(key) });
  } while (cursor !== '0');
  return out;
}

describeRedis('RedisEphemeralStore', (ns: () => RedisNamespace) => {
  let next = 0;
  // Each test gets its own prefix inside the suite's namespace, so each starts empty.
  const freshPrefix = () => `${ns().prefix}${next++}:`;

  ephemeralStoreConformance(() => new RedisEphemeralStore({ redis: ns().redis, prefix: freshPrefix() }), {
    realTime: true,
    inspect: (store) => dumpKeys(store.redis as Redis, store.prefix),
    peer: (store) => new RedisEphemeralStore({ redis: ns().peer, prefix: store.prefix }),
  });

  describe('new RedisEphemeralStore(options)', () => {
    it('rejects a missing client and a bad prefix at construction', () => {
      expect(() => new RedisEphemeralStore({ redis: {} as Redis }))
        .to.throw(FwDefinitionError)
        .with.property('key', 'RedisEphemeralStore.redis');
      for (const prefix of [5, 'p'.repeat(201)]) {
        expect(() => new RedisEphemeralStore({ redis: ns().redis, prefix: prefix as string }))
          .to.throw(FwDefinitionError)
          .with.property('key', 'RedisEphemeralStore.prefix');
      }
    });

    it('defaults the prefix to fw:', () => {
      expect(new RedisEphemeralStore({ redis: ns().redis }).prefix).to.equal('fw:');
    });
  });

  it('keeps each entry in one string key <prefix>kv:<key> with a millisecond expiry', async () => {
    const prefix = freshPrefix();
    const store = new RedisEphemeralStore({ redis: ns().redis, prefix });
    await store.increment('login-fail:a:x', 15 * MINUTE);
    await store.increment('login-fail:a:x', 60 * MINUTE);
    await store.set('captcha:m1', 'k3p9', 2 * MINUTE);
    const keys = (await dumpKeys(ns().redis, prefix)).sort((a, b) => a.key.localeCompare(b.key));
    expect(keys.map(({ key, value }) => ({ key, value }))).to.deep.equal([
      { key: `${prefix}kv:captcha:m1`, value: 'k3p9' },
      { key: `${prefix}kv:login-fail:a:x`, value: '2' },
    ]);
    expect(keys[0]?.pttl).to.be.within(2 * MINUTE - 5000, 2 * MINUTE);
    // The second increment did not touch the first one's expiry.
    expect(keys[1]?.pttl).to.be.within(15 * MINUTE - 5000, 15 * MINUTE);
  });

  it('sends the increment script again when the server does not know it (NOSCRIPT after a restart)', async () => {
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
    const store = new RedisEphemeralStore({ redis: forgetful, prefix: freshPrefix() });
    expect(await store.increment('n', MINUTE)).to.equal(1);
    expect(await store.increment('n', MINUTE)).to.equal(2);
    expect(refused).to.have.length(2);
    expect(await store.get('n')).to.equal('2');
  });

  it('keeps apps with different prefixes apart on one Redis', async () => {
    const a = new RedisEphemeralStore({ redis: ns().redis, prefix: freshPrefix() });
    const b = new RedisEphemeralStore({ redis: ns().redis, prefix: freshPrefix() });
    await a.set('captcha:x', 'from a', MINUTE);
    expect(await b.get('captcha:x')).to.equal(undefined);
    expect(await b.increment('n', MINUTE)).to.equal(1);
    expect(await a.increment('n', MINUTE)).to.equal(1);
    expect(await b.take('captcha:x')).to.equal(undefined);
    expect(await a.get('captcha:x')).to.equal('from a');
  });
});
