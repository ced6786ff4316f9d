// Two fwAdmin instances on one database (and one Redis), as two app servers behind a balancer: a
// row added through one reaches the live stream opened on the other, by the bus fwAdmin chose.
import { expect } from 'chai';
import { request as httpRequest, type Server } from 'node:http';
import Koa from 'koa';
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
  type TestDatabase,
} from '@fw/test-utils';
import { fwAdmin, type FwAdmin } from './fw-admin.js';

const Book = defineModel({ name: 'Book', table: 'adm_live_book', fields: { title: { edit: { notNull: true } } } });

interface Instance {
  fw: FwAdmin;
  server: Server;
  port: number;
}

async function instance(db: string, redis: Parameters<typeof fwAdmin>[1]['redis'], redisPrefix: string): Promise<Instance> {
  const app = new Koa();
  app.silent = true;
  app.keys = ['admin-live-test-key'];
  const fw = await fwAdmin(app, { db, models: [Book], redis, redisPrefix, ui: false, purgeIntervalMs: false });
  app.use(fw.middleware);
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  return { fw, server, port: (server.address() as { port: number }).port };
}

function call(port: number, method: string, path: string, headers: Record<string, string>, body?: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, method, path: `/fw-api${path}`, headers: { 'content-type': 'application/json', ...headers } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} }));
    });
    req.on('error', reject);
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

/**
 * The Book event stream on `port`: the names of the events received so far, and its close. Asked
 * again while the instance's bus is not subscribed yet (503), as the UI does.
 */
async function stream(port: number, token: string): Promise<{ status: number; events: string[]; close(): void }> {
  const opened = await openLiveStream(port, '/fw-api/data/events/Book', { token });
  return {
    status: opened.status,
    get events() {
      return opened.events.map((e) => e.event);
    },
    close: () => opened.close(),
  };
}

async function until(check: () => boolean, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`not reached within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** Adds a book on `a` and says whether the stream opened on `b` (and on `a`) heard of it. */
async function addOnOneSeenOnOther(a: Instance, b: Instance, expectOther: boolean): Promise<void> {
  await a.fw.store.users.create({ account: 'admin', password: 'admin-pass-1', isAdmin: true, mustChangePassword: false });
  const login = await call(a.port, 'POST', '/login', {}, { account: 'admin', pwd: encodePassword('admin-pass-1') });
  expect(login.status, JSON.stringify(login.body)).to.equal(200);
  const token = login.body.token as string;
  const onA = await stream(a.port, token);
  const onB = await stream(b.port, token);
  try {
    expect([onA.status, onB.status]).to.deep.equal([200, 200]);
    const added = await call(a.port, 'POST', '/data/modify/Book', { token }, { title: 'Dune' });
    expect(added.status, JSON.stringify(added.body)).to.equal(200);
    await until(() => onA.events.includes('insert'));
    if (expectOther) await until(() => onB.events.includes('insert'));
    else {
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(onB.events).to.not.include('insert');
    }
  } finally {
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

describe('fwAdmin live tables across two instances', function () {
  this.timeout(60_000);
  let db: TestDatabase | undefined;
  let instances: Instance[] = [];
  let namespace: RedisNamespace | undefined;
  const prefix = () => `fw-admin-live-${Date.now().toString(36)}${Math.floor(Math.random() * 1e6)}:`;
  afterEach(async () => {
    await closeAll(instances.splice(0));
    await db?.drop();
    db = undefined;
    // The Redis keys the instances left (presence, seen users, tokens) go with the test.
    await namespace?.cleanup();
    namespace = undefined;
  });

  it('stays in one process on SQLite without Redis (the other instance does not hear of it)', async () => {
    db = await createTestDatabase({ dialect: 'sqlite', label: 'SQLite' });
    instances = [await instance(db.url, undefined, prefix()), await instance(db.url, undefined, prefix())];
    await addOnOneSeenOnOther(instances[0]!, instances[1]!, false);
  });

  const pg = process.env.FW_TEST_PG_URL;
  (pg ? it : it.skip)(`goes through PostgreSQL LISTEN/NOTIFY on PostgreSQL without Redis${pg ? '' : ' (skipped: FW_TEST_PG_URL is not set)'}`, async () => {
    db = await createTestDatabase({ dialect: 'postgres', label: 'PostgreSQL', envVar: 'FW_TEST_PG_URL', serverUrl: pg! });
    instances = [await instance(db.url, undefined, prefix()), await instance(db.url, undefined, prefix())];
    await addOnOneSeenOnOther(instances[0]!, instances[1]!, true);
  });

  const redis = process.env.FW_TEST_REDIS_URL;
  (redis ? it : it.skip)(`goes through Redis when it is configured${redis ? '' : ' (skipped: FW_TEST_REDIS_URL is not set)'}`, async () => {
    db = await createTestDatabase({ dialect: 'sqlite', label: 'SQLite' });
    namespace = await createRedisNamespace(redis!);
    const p = namespace.prefix;
    instances = [await instance(db.url, redis, p), await instance(db.url, redis, p)];
    await addOnOneSeenOnOther(instances[0]!, instances[1]!, true);
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
      await addOnOneSeenOnOther(instances[0]!, instances[1]!, true);
      await closeAll(instances.splice(0));
    } finally {
      await cluster?.close();
    }
  });
});
