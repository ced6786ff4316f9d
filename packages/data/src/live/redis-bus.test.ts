import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { FwDefinitionError } from '@fw/core';
import { createRedis, redisReady, type FwRedisClient } from '@fw/token';
import { describeRedisCluster, type RedisCluster } from '@fw/test-utils';
import type { Cluster, Redis } from 'ioredis';
import { memoryBus } from './bus.js';
import { redisBus } from './redis-bus.js';
import { busConformance, closesItsSockets, type BusPair } from './test-setup.js';

describe('memoryBus', () => {
  // One process: both "instances" are the one bus (it reaches nobody else, by design).
  busConformance(
    async () => {
      const bus = memoryBus();
      return { a: bus, b: bus, errorsA: [], errorsB: [] };
    },
    { single: true },
  );
});

describe('redisBus', () => {
  it('refuses a client that cannot publish or be duplicated', () => {
    expect(() => redisBus({ client: {} as FwRedisClient })).to.throw(FwDefinitionError, /ioredis client or Cluster/);
  });
});

describe('redisBus on Redis', function () {
  const url = process.env.FW_TEST_REDIS_URL;
  if (!url) {
    it('skipped: FW_TEST_REDIS_URL is not set, so the Redis bus suite did not run', function () {
      this.skip();
    });
    return;
  }
  // Two instances' own clients, and a third that writes on the channel like a foreign client.
  let one: FwRedisClient;
  let two: FwRedisClient;
  let raw: FwRedisClient;
  before(async () => {
    [one, two, raw] = [createRedis(url), createRedis(url), createRedis(url)];
    await Promise.all([one, two, raw].map((client) => redisReady(client)));
  });
  after(() => {
    for (const client of [one, two, raw]) client?.disconnect();
  });
  const pair = async (): Promise<BusPair> => {
    const prefix = `fw-test:${randomBytes(4).toString('hex')}:`;
    const errorsA: Error[] = [];
    const errorsB: Error[] = [];
    return {
      a: redisBus({ client: one, prefix, onError: (e) => errorsA.push(e) }),
      b: redisBus({ client: two, prefix, onError: (e) => errorsB.push(e) }),
      errorsA,
      errorsB,
      inject: async (payload) => {
        await (raw as unknown as Redis).publish(`${prefix}live`, payload);
      },
    };
  };
  busConformance(pair);

  it('is a redis bus on the channel <prefix>live', async () => {
    const p = await pair();
    expect(p.a.kind).to.equal('redis');
    await p.a.close();
    await p.b.close();
  });

  it('closes the subscriber connection it opened, and leaves the client it was given open', async () => {
    await closesItsSockets(pair);
    expect(one.status).to.equal('ready');
  });

  it('reports a failed publish instead of throwing', async () => {
    const errors: Error[] = [];
    const down = createRedis('redis://127.0.0.1:1', { retryStrategy: () => null });
    down.on('error', () => {});
    const bus = redisBus({ client: down, onError: (e) => errors.push(e) });
    await bus.publish({ id: 'x', origin: 'x', model: 'm', kind: 'insert', ids: [1], actor: { id: 1, account: 'a' }, at: '' });
    expect(errors).to.have.length(1);
    await bus.close();
    down.disconnect();
  });
});

describeRedisCluster('redisBus', (cluster: () => RedisCluster) => {
  let one: Cluster;
  let two: Cluster;
  let raw: Cluster;
  before(async () => {
    [one, two, raw] = await Promise.all([cluster().connect(), cluster().connect(), cluster().connect()]);
    // A Cluster connects to a master on its first command there: done now, so that the socket
    // count of the close test sees only the buses' own.
    await Promise.all([one, two, raw].flatMap((client) => client.nodes('master').map((node) => node.ping())));
  });
  after(() => {
    for (const client of [one, two, raw]) client?.disconnect();
  });
  const pair = async (): Promise<BusPair> => {
    const prefix = `fw-test:${randomBytes(4).toString('hex')}:`;
    const errorsA: Error[] = [];
    const errorsB: Error[] = [];
    return {
      a: redisBus({ client: one as unknown as FwRedisClient, prefix, onError: (e) => errorsA.push(e) }),
      b: redisBus({ client: two as unknown as FwRedisClient, prefix, onError: (e) => errorsB.push(e) }),
      errorsA,
      errorsB,
      inject: async (payload) => {
        await raw.spublish(`{${prefix}live}`, payload);
      },
    };
  };
  busConformance(pair);

  it('is a redis-cluster bus, whose messages a plain SUBSCRIBE does not see (sharded channel)', async () => {
    const p = await pair();
    expect(p.a.kind).to.equal('redis-cluster');
    await p.a.close();
    await p.b.close();
  });

  it('closes the connections it opened, and leaves the Cluster it was given open', async () => {
    await closesItsSockets(pair);
    expect(one.status).to.equal('ready');
  });
});
