import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { FwDefinitionError } from '@fw/core';
import { createRedis, redisReady, type FwRedisClient } from '@fw/token';
import { describeRedisCluster, startTcpProxy, type RedisCluster } from '@fw/test-utils';
import type { Cluster, Redis } from 'ioredis';
import { memoryBus } from './bus.js';
import { redisBus } from './redis-bus.js';
import type { LiveBusMessage } from './bus.js';
import { busConformance, closesItsSockets, liveMessage, until, type BusPair } from './test-setup.js';

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

  it('survives a Redis outage: reports it, subscribes again, and delivers what is published after', async function () {
    this.timeout(20_000);
    // The subscriber's Redis behind a proxy that the test takes down and brings back.
    const proxy = await startTcpProxy('127.0.0.1', Number(new URL(url).port || 6379));
    const behind = createRedis(proxy.via(url));
    behind.on('error', () => {});
    const prefix = `fw-test:${randomBytes(4).toString('hex')}:`;
    const errors: Error[] = [];
    const listener = redisBus({ client: behind, prefix, onError: (e) => errors.push(e) });
    const publisher = redisBus({ client: one, prefix });
    try {
      await redisReady(behind);
      const got: LiveBusMessage[] = [];
      await listener.subscribe((m) => got.push(m));
      await publisher.publish(liveMessage('one'));
      await until(() => got.length === 1);
      await proxy.down();
      await until(() => errors.length >= 1);
      // Lost: published while the subscriber was away (at most once, no replay).
      const lost = liveMessage('one');
      await publisher.publish(lost);
      await proxy.up();
      const after = liveMessage('one');
      // Published until it arrives: the resubscription takes a reconnection (about a second).
      await until(() => {
        if (!got.some((m) => m.id === after.id)) void publisher.publish(after);
        return got.some((m) => m.id === after.id);
      }, 10_000);
      expect(got.map((m) => m.id)).to.not.include(lost.id);
      expect(errors.length).to.equal(1);
    } finally {
      await listener.close();
      await publisher.close();
      behind.disconnect();
      await proxy.close();
    }
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
