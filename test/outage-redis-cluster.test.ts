// Issue 14 item 7, with issue 10 §5's rule: an fwAdmin app on a Redis Cluster (`redis: { cluster }`)
// whose master stops answering refuses the requests that need that master with 503 UNAVAILABLE
// within about a second, keeps serving the tokens held by the other masters until the cluster
// marks itself down, then answers 503 (never 500) for every token, and serves again by itself once
// the master is back. The cluster is the test's own (three redis-server processes).
import { expect } from 'chai';
import Koa from 'koa';
import request from 'supertest';
import { Redis } from 'ioredis';
import { fwAdmin, type FwAdmin } from '@fw/admin';
import { encodePassword } from '@fw/login/client';
import { hashToken } from '@fw/token';
import { createTestDatabase, hasRedisClusterTools, startRedisCluster, type RedisCluster, type TestDatabase } from '@fw/test-utils';

/** A correctness bound for "about a second", generous for a loaded machine; not a benchmark. */
const BOUND_MS = 5_000;
const PREFIX = 'fw-outage:';

async function clusterState(port: number): Promise<string> {
  const node = new Redis(port, '127.0.0.1', { lazyConnect: true, commandTimeout: 1000, maxRetriesPerRequest: 0 });
  try {
    await node.connect();
    return /cluster_state:(\w+)/.exec(await node.cluster('INFO'))?.[1] ?? 'unknown';
  } catch {
    return 'unreachable';
  } finally {
    node.disconnect();
  }
}

async function until(what: string, check: () => Promise<boolean>, ms = 30_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('Redis Cluster outage (fwAdmin with redis: { cluster }, a cluster of the test’s own)', function () {
  this.timeout(120_000);
  if (!hasRedisClusterTools()) {
    it('skipped: redis-server or redis-cli is not on the PATH, so the Redis Cluster outage test did not run', function () {
      this.skip();
    });
    return;
  }
  let cluster: RedisCluster;
  let db: TestDatabase;
  let fw: FwAdmin;
  let agent: ReturnType<typeof request>;
  before(async () => {
    cluster = await startRedisCluster({ nodeTimeoutMs: 3000 });
    db = await createTestDatabase({ dialect: 'sqlite', label: 'SQLite' });
    const app = new Koa();
    app.silent = true;
    app.keys = ['cluster-outage-key'];
    fw = await fwAdmin(app, { db: db.url, redis: { cluster: cluster.urls }, redisPrefix: PREFIX, ui: false });
    app.use(fw.middleware);
    agent = request(app.callback());
    await fw.store.users.create({ account: 'admin', password: 'admin-pass-1', isAdmin: true, mustChangePassword: false });
  });
  after(async () => {
    await fw?.close();
    await cluster?.close();
    await db?.drop();
  });

  async function userinfo(token: string): Promise<{ status: number; code: unknown; retryAfter: string | undefined; ms: number }> {
    const started = performance.now();
    const res = await agent.get('/fw-api/userinfo').set('token', token);
    return { status: res.status, code: (res.body as { error?: { code?: unknown } }).error?.code, retryAfter: res.headers['retry-after'], ms: performance.now() - started };
  }

  it('answers 503 for the frozen master’s tokens, 200 for the others, 503 for all once the cluster is down, and recovers', async () => {
    // Tokens until one lives on master 0 (the one frozen) and one on another master.
    const probe = await cluster.connect();
    const owner = new Map<string, number>();
    try {
      const slots = await probe.cluster('SLOTS');
      while (![...owner.values()].includes(0) || ![...owner.values()].some((i) => i !== 0)) {
        const login = await agent.post('/fw-api/login').send({ account: 'admin', pwd: encodePassword('admin-pass-1') });
        expect(login.status).to.equal(200);
        const token = login.body.token as string;
        const slot = Number(await probe.cluster('KEYSLOT', `${PREFIX}token:${hashToken(token)}`));
        const port = slots.find(([from, to]) => slot >= from && slot <= to)![2]![1];
        owner.set(token, cluster.ports.indexOf(port));
      }
    } finally {
      probe.disconnect();
    }
    const onFrozen = [...owner].find(([, i]) => i === 0)![0];
    const onLive = [...owner].find(([, i]) => i !== 0)![0];

    cluster.signal(0, 'SIGSTOP');
    try {
      const live = await userinfo(onLive);
      const frozen = await userinfo(onFrozen);
      expect(live.status, 'a token on a master that answers').to.equal(200);
      expect(frozen).to.include({ status: 503, code: 'UNAVAILABLE', retryAfter: '5' });
      expect(frozen.ms).to.be.below(BOUND_MS);

      // No replica takes over: after the node timeout the other masters declare the cluster down
      // and refuse every command (CLUSTERDOWN, which ioredis retries until the one-second command
      // timeout). Still a 503, never a 500.
      await until('cluster_state:fail', async () => (await clusterState(cluster.ports[1]!)) === 'fail');
      const down = await userinfo(onLive);
      expect(down).to.include({ status: 503, code: 'UNAVAILABLE', retryAfter: '5' });
      expect(down.ms).to.be.below(BOUND_MS);
    } finally {
      cluster.signal(0, 'SIGCONT');
    }
    await until('cluster_state:ok', async () => (await Promise.all(cluster.ports.map(clusterState))).every((s) => s === 'ok'));
    await until('both tokens served again', async () => (await userinfo(onLive)).status === 200 && (await userinfo(onFrozen)).status === 200);
  });
});
