// Presence (issue 24 §4) across two fwAdmin instances on one database (and one Redis), as two app
// servers behind a balancer: a presence posted to one reaches the streams of both, every instance
// keeps the entry, and the drop of the tab's stream on one clears it on the other.
import { expect } from 'chai';
import type { Server } from 'node:http';
import Koa from 'koa';
import request from 'supertest';
import { defineModel } from '@fw/core';
import { encodePassword } from '@fw/login/client';
import {
  createRedisNamespace,
  createTestDatabase,
  hasRedisClusterTools,
  openLiveStream,
  startRedisCluster,
  type RedisCluster,
  type RedisNamespace,
  type SseEvent,
  type TestDatabase,
} from '@fw/test-utils';
import { fwAdmin, type FwAdmin } from './fw-admin.js';

const Book = defineModel({ name: 'Book', table: 'adm_presence_book', fields: { title: { edit: { notNull: true } } } });

interface Instance {
  fw: FwAdmin;
  server: Server;
  port: number;
}

async function instance(db: string, redis: Parameters<typeof fwAdmin>[1]['redis'], redisPrefix: string): Promise<Instance> {
  const app = new Koa();
  app.silent = true;
  app.keys = ['admin-presence-test-key'];
  const fw = await fwAdmin(app, { db, models: [Book], redis, redisPrefix, ui: false, purgeIntervalMs: false });
  app.use(fw.middleware);
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  return { fw, server, port: (server.address() as { port: number }).port };
}

async function until(check: () => boolean, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`not reached within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

const presence = (id: number, state: string) => (e: SseEvent) => e.event === 'presence' && e.data.id === id && e.data.state === state;

/** A tab whose stream is on `a` posts its presence to `b`; a viewer on each hears it; the tab's stream drops on `a`; both hear it left. */
async function presenceAcross(a: Instance, b: Instance, expectOther: boolean): Promise<void> {
  await a.fw.store.users.create({ account: 'admin', name: 'Ada', password: 'admin-pass-1', isAdmin: true, mustChangePassword: false });
  const login = await request(a.server)
    .post('/fw-api/login')
    .send({ account: 'admin', pwd: encodePassword('admin-pass-1') });
  expect(login.status, JSON.stringify(login.body)).to.equal(200);
  const token = login.body.token as string;
  const added = await request(a.server).post('/fw-api/data/modify/Book').set('token', token).send({ title: 'Dune' });
  expect(added.status, JSON.stringify(added.body)).to.equal(200);
  const id = added.body.id as number;
  const path = '/fw-api/data/events/Book';
  const tab = await openLiveStream(a.port, path, { token, 'x-fw-live-client': 'ada-tab-0001' });
  const onA = await openLiveStream(a.port, path, { token });
  const onB = await openLiveStream(b.port, path, { token });
  try {
    expect([tab.status, onA.status, onB.status]).to.deep.equal([200, 200, 200]);
    const posted = await request(b.server).post('/fw-api/data/presence/Book').set('token', token).send({ client: 'ada-tab-0001', id, field: 'title' });
    expect(posted.status, JSON.stringify(posted.body)).to.equal(204);
    const seen = await onB.waitFor(presence(id, 'editing'));
    expect(seen.data).to.deep.include({ model: 'Book', client: 'ada-tab-0001', user: 'Ada', id, field: 'title' });
    if (!expectOther) {
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(
        onA.events.filter((e) => e.event === 'presence'),
        'the other instance does not hear of it',
      ).to.deep.equal([]);
      expect(a.fw.data.presence.size).to.equal(0);
      return;
    }
    await onA.waitFor(presence(id, 'editing'));
    await until(() => a.fw.data.presence.size === 1 && b.fw.data.presence.size === 1);
    // A stream opened later on either instance is told of it at once.
    const late = await openLiveStream(a.port, path, { token });
    try {
      await late.waitFor(presence(id, 'editing'));
    } finally {
      late.close();
    }
    // The tab's stream drops on a: the entry is cleared on both.
    tab.close();
    await onB.waitFor(presence(id, 'left'));
    await onA.waitFor(presence(id, 'left'));
    await until(() => a.fw.data.presence.size === 0 && b.fw.data.presence.size === 0);
  } finally {
    tab.close();
    onA.close();
    onB.close();
  }
}

async function closeAll(instances: Instance[]): Promise<void> {
  for (const { fw, server } of instances) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await fw.close();
  }
}

describe('fwAdmin presence across two instances', function () {
  this.timeout(60_000);
  let db: TestDatabase | undefined;
  let instances: Instance[] = [];
  let namespace: RedisNamespace | undefined;
  const prefix = () => `fw-admin-presence-${Date.now().toString(36)}${Math.floor(Math.random() * 1e6)}:`;
  afterEach(async () => {
    await closeAll(instances.splice(0));
    await db?.drop();
    db = undefined;
    // The Redis keys the instances left (presence, seen users, tokens) go with the test.
    await namespace?.cleanup();
    namespace = undefined;
  });

  it('stays in one process on SQLite without Redis', async () => {
    db = await createTestDatabase({ dialect: 'sqlite', label: 'SQLite' });
    instances = [await instance(db.url, undefined, prefix()), await instance(db.url, undefined, prefix())];
    await presenceAcross(instances[0]!, instances[1]!, false);
  });

  const pg = process.env.FW_TEST_PG_URL;
  (pg ? it : it.skip)(`goes through PostgreSQL LISTEN/NOTIFY on PostgreSQL without Redis${pg ? '' : ' (skipped: FW_TEST_PG_URL is not set)'}`, async () => {
    db = await createTestDatabase({ dialect: 'postgres', label: 'PostgreSQL', envVar: 'FW_TEST_PG_URL', serverUrl: pg! });
    instances = [await instance(db.url, undefined, prefix()), await instance(db.url, undefined, prefix())];
    await presenceAcross(instances[0]!, instances[1]!, true);
  });

  const redis = process.env.FW_TEST_REDIS_URL;
  (redis ? it : it.skip)(`an instance that shuts down clears its tabs' presence on the others at once${redis ? '' : ' (skipped: FW_TEST_REDIS_URL is not set)'}`, async () => {
    db = await createTestDatabase({ dialect: 'sqlite', label: 'SQLite' });
    namespace = await createRedisNamespace(redis!);
    const p = namespace.prefix;
    instances = [await instance(db.url, redis, p), await instance(db.url, redis, p)];
    const [a, b] = instances as [Instance, Instance];
    await a.fw.store.users.create({ account: 'admin', name: 'Ada', password: 'admin-pass-1', isAdmin: true, mustChangePassword: false });
    const login = await request(a.server)
      .post('/fw-api/login')
      .send({ account: 'admin', pwd: encodePassword('admin-pass-1') });
    const token = login.body.token as string;
    const id = (await request(a.server).post('/fw-api/data/modify/Book').set('token', token).send({ title: 'Emma' })).body.id as number;
    const path = '/fw-api/data/events/Book';
    const tab = await openLiveStream(a.port, path, { token, 'x-fw-live-client': 'ada-tab-0002' });
    const onB = await openLiveStream(b.port, path, { token });
    try {
      const posted = await request(a.server).post('/fw-api/data/presence/Book').set('token', token).send({ client: 'ada-tab-0002', id });
      expect(posted.status, JSON.stringify(posted.body)).to.equal(204);
      await onB.waitFor(presence(id, 'editing'));
      // a closes (a deploy, a scale-down): b hears the tab leave now, not when the entry expires (60 s).
      const closing = Date.now();
      await closeAll([instances.shift()!]);
      await onB.waitFor(presence(id, 'left'));
      expect(Date.now() - closing).to.be.below(5000);
      await until(() => b.fw.data.presence.size === 0);
    } finally {
      tab.close();
      onB.close();
    }
  });

  (redis ? it : it.skip)(`goes through Redis when it is configured${redis ? '' : ' (skipped: FW_TEST_REDIS_URL is not set)'}`, async () => {
    db = await createTestDatabase({ dialect: 'sqlite', label: 'SQLite' });
    namespace = await createRedisNamespace(redis!);
    const p = namespace.prefix;
    instances = [await instance(db.url, redis, p), await instance(db.url, redis, p)];
    await presenceAcross(instances[0]!, instances[1]!, true);
  });

  const tools = hasRedisClusterTools();
  (tools ? it : it.skip)(`goes through a Redis Cluster${tools ? '' : ' (skipped: redis-server or redis-cli is not on the PATH)'}`, async () => {
    let cluster: RedisCluster | undefined;
    try {
      cluster = await startRedisCluster();
      db = await createTestDatabase({ dialect: 'sqlite', label: 'SQLite' });
      const p = prefix();
      const nodes = { cluster: cluster.urls.slice(0, 2) };
      instances = [await instance(db.url, nodes, p), await instance(db.url, nodes, p)];
      await presenceAcross(instances[0]!, instances[1]!, true);
      await closeAll(instances.splice(0));
    } finally {
      await cluster?.close();
    }
  });
});
