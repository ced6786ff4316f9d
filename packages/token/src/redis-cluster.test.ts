import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import type { Cluster } from 'ioredis';
import { FwDefinitionError } from '@fw/core';
import { RedisEphemeralStore, RedisTokenStore, createRedisCluster, createTokenService, redisOutageRisks, redisReady, type FwRedisClient } from '@fw/token';
import { ephemeralStoreConformance, tokenStoreConformance } from '@fw/token/conformance';
import { describeRedisCluster, type RedisCluster } from '@fw/test-utils';
import { revokeRaceTests } from './test-setup.js';

/** Every key under `prefix` on every master, with its value and remaining lifetime. */
async function dumpKeys(cluster: Cluster, prefix: string) {
  const out: Array<{ key: string; type: string; value: unknown; pttl: number; node: string }> = [];
  for (const node of cluster.nodes('master')) {
    let cursor = '0';
    do {
      const [next, keys] = await node.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 500);
      cursor = next;
      for (const key of keys) {
        const type = await node.type(key);
        const value = type === 'zset' ? await node.zrange(key, 0, -1, 'WITHSCORES') : await node.get(key);
        out.push({ key, type, value, pttl: await node.pttl(key), node: `${node.options.port}` });
      }
    } while (cursor !== '0');
  }
  return out;
}

describeRedisCluster('Fw Redis stores', (cluster: () => RedisCluster) => {
  let a: Cluster;
  let b: Cluster;
  let c: Cluster;
  const base = `fw-test:${randomBytes(4).toString('hex')}:`;
  let next = 0;
  const freshPrefix = () => `${base}${next++}:`;

  before(async () => {
    [a, b, c] = await Promise.all([cluster().connect(), cluster().connect(), cluster().connect()]);
  });
  after(() => {
    for (const client of [a, b, c]) client?.disconnect();
  });

  it('runs on three masters that split the slots between them', async () => {
    expect(a.nodes('master')).to.have.length(3);
    const slots = (await a.cluster('SLOTS')) as Array<[number, number, ...unknown[]]>;
    expect(slots.reduce((sum, [from, to]) => sum + (to - from + 1), 0)).to.equal(16384);
  });

  describe('RedisTokenStore', () => {
    tokenStoreConformance(() => new RedisTokenStore({ redis: a, prefix: freshPrefix() }), {
      inspect: (store) => dumpKeys(a, store.prefix),
      peer: (store) => new RedisTokenStore({ redis: b, prefix: store.prefix }),
      expiresOnItsOwn: true,
    });

    it('spreads one user’s tokens and set over several masters, and revoke-all still reaches every one', async () => {
      const prefix = freshPrefix();
      const service = createTokenService({ store: new RedisTokenStore({ redis: a, prefix }) });
      const other = createTokenService({ store: new RedisTokenStore({ redis: b, prefix }) });
      const tokens: string[] = [];
      for (let i = 0; i < 12; i++) tokens.push((await service.loginToken({ id: 5, account: 'e' })).token);
      const nodes = new Set((await dumpKeys(a, prefix)).map((k) => k.node));
      expect(nodes.size, 'all keys landed on one master: the test proves nothing about slots').to.be.greaterThan(1);
      expect(await other.revokeUser(5, { except: tokens[3] })).to.equal(11);
      for (const [i, token] of tokens.entries()) expect((await service.resolve(token))?.userId).to.equal(i === 3 ? 5 : undefined);
    });

    it('purges expired tokens held on every master', async () => {
      const prefix = freshPrefix();
      const store = new RedisTokenStore({ redis: a, prefix });
      const now = Date.now();
      const hashes = Array.from({ length: 9 }, () => randomBytes(32).toString('hex'));
      for (const [i, hash] of hashes.entries()) await store.save({ hash, userId: 100 + i, createdAt: now, expiresAt: now + 60_000 }, now);
      expect(new Set((await dumpKeys(a, `${prefix}user-tokens:`)).map((k) => k.node)).size).to.be.greaterThan(1);
      expect(await store.purgeExpired(now + 60_000)).to.equal(9);
      expect(await dumpKeys(a, prefix)).to.deep.equal([]);
    });
  });

  revokeRaceTests(() => ({ a, b, c, prefix: freshPrefix }));

  describe('RedisEphemeralStore', () => {
    ephemeralStoreConformance(() => new RedisEphemeralStore({ redis: a, prefix: freshPrefix() }), {
      realTime: true,
      inspect: (store) => dumpKeys(a, store.prefix),
      peer: (store) => new RedisEphemeralStore({ redis: b, prefix: store.prefix }),
    });
  });

  describe('createRedisCluster(nodes, options)', () => {
    it('connects from the node URLs with the fail-fast settings, and the stores work on it', async () => {
      const redis = createRedisCluster(cluster().urls.slice(0, 1));
      try {
        expect(redisOutageRisks(redis)).to.deep.equal([]);
        await redisReady(redis, 10_000);
        const service = createTokenService({ store: new RedisTokenStore({ redis, prefix: freshPrefix() }) });
        const { token } = await service.loginToken({ id: 9, account: 'i' });
        expect((await service.resolve(token))?.userId).to.equal(9);
        expect(redis.nodes?.('master')).to.have.length(3);
      } finally {
        redis.disconnect();
      }
    });

    it('flags a Cluster made without a command timeout or with an offline queue', () => {
      const risky = { nodes: () => [], options: { enableOfflineQueue: true, redisOptions: {} } } as unknown as FwRedisClient;
      expect(redisOutageRisks(risky)).to.have.length(2);
    });
  });
});

describe('createRedisCluster(nodes, options)', () => {
  it('refuses an empty list, a URL of another shape (password hidden) and URLs that disagree on credentials', () => {
    for (const nodes of [[], 'redis://127.0.0.1:7000', ['http://127.0.0.1:7000'], ['redis://127.0.0.1'], ['redis://u:secret@h:1', 'redis://h:2']]) {
      let error: unknown;
      try {
        createRedisCluster(nodes as string[]);
      } catch (e) {
        error = e;
      }
      expect(error).to.be.instanceOf(FwDefinitionError).with.property('key', 'createRedisCluster.nodes');
      expect((error as Error).message).not.to.include('secret');
    }
  });
});
