import { expect } from 'chai';
import { createStore, type FwStore } from '@fw/store';
import { describeEachSql, describeRedis, describeRedisCluster } from '@fw/test-utils';
import { KnexSessionStore, MemorySessionStore, RedisSessionStore, type FwSessionStore } from './session-store.js';
import { Browser, startHost, startProvider } from './test-setup.js';

function sessionStoreContract(make: () => FwSessionStore, realTime = false) {
  it('stores, reads back, overwrites and destroys a session', async () => {
    const store = make();
    const key = `k-${Math.random().toString(36).slice(2)}`;
    expect(await store.get(key, 60_000)).to.equal(undefined);
    await store.set(key, { grant: { state: 'abc', response: { profile: { sub: 'alice' } } } }, 60_000);
    expect(await store.get(key, 60_000)).to.deep.equal({ grant: { state: 'abc', response: { profile: { sub: 'alice' } } } });
    await store.set(key, { fwUser: { id: 1 } }, 60_000);
    expect(await store.get(key, 60_000)).to.deep.equal({ fwUser: { id: 1 } });
    await store.destroy(key);
    expect(await store.get(key, 60_000)).to.equal(undefined);
  });

  it('keeps a session larger than a cookie could', async () => {
    const store = make();
    const big = { grant: { response: { id_token: 'x'.repeat(20_000) } } };
    await store.set('big', big, 60_000);
    expect(await store.get('big', 60_000)).to.deep.equal(big);
  });

  if (realTime) {
    it('lets a session expire after its max age', async () => {
      const store = make();
      await store.set('short', { a: 1 }, 150);
      expect(await store.get('short', 150)).to.deep.equal({ a: 1 });
      await new Promise((r) => setTimeout(r, 300));
      expect(await store.get('short', 150)).to.equal(undefined);
    });
  }
}

describe('MemorySessionStore', () => {
  sessionStoreContract(() => new MemorySessionStore(), true);

  it('evicts the oldest session when full', async () => {
    const store = new MemorySessionStore({ maxEntries: 2 });
    await store.set('a', { n: 1 }, 60_000);
    await store.set('b', { n: 2 }, 60_000);
    await store.set('c', { n: 3 }, 60_000);
    expect(store.size).to.equal(2);
    expect(await store.get('a', 60_000)).to.equal(undefined);
    expect(await store.get('c', 60_000)).to.deep.equal({ n: 3 });
  });
});

describeEachSql('KnexSessionStore and two instances', (db) => {
  let store: FwStore;
  before(async () => {
    store = createStore(db().url);
    await store.migrate.latest();
  });
  after(() => store?.destroy());

  sessionStoreContract(() => new KnexSessionStore({ knex: store.knex }), true);

  it('finishes on one instance a sign-in started on another', async () => {
    const provider = await startProvider();
    const a = await startHost(provider.issuer, { store, sessionStore: new KnexSessionStore({ knex: store.knex }), migrate: false });
    const b = await startHost(provider.issuer, { store, sessionStore: new KnexSessionStore({ knex: store.knex }), migrate: false });
    try {
      const browser = new Browser();
      const started = await browser.walk(`${a.url}/connect/mock`, (location) => location.includes('/login/oauth2/code/'));
      // The provider sends the browser back to the other instance (a load balancer would).
      const back = started.at(-1)!.location!.replace(a.url, b.url);
      browser.cookies.set(b.url, new Map(browser.cookies.get(a.url)));
      const finished = await browser.walk(back, (location) => location.includes('/auth.html'));
      expect(finished.at(-1)!.location).to.match(/\/auth\.html\?token=[A-Za-z0-9]{16}$/);
      expect(await store.knex('fw_session').count({ n: '*' }).first()).to.satisfy((r: { n: unknown }) => Number(r.n) >= 1);
    } finally {
      await a.close();
      await b.close();
      await provider.stop();
    }
  });
});

describeRedis('RedisSessionStore', (ns) => {
  sessionStoreContract(() => new RedisSessionStore({ redis: ns().redis, prefix: ns().prefix }), true);

  it('keeps nothing in clear outside its prefix', async () => {
    const store = new RedisSessionStore({ redis: ns().redis, prefix: ns().prefix });
    await store.set('p', { a: 1 }, 60_000);
    expect(await ns().redis.get(`${ns().prefix}sess:p`)).to.equal('{"a":1}');
    expect(await ns().redis.pttl(`${ns().prefix}sess:p`)).to.be.within(1, 60_000);
  });
});

describeRedisCluster('RedisSessionStore', (cluster) => {
  let redis: Awaited<ReturnType<ReturnType<typeof cluster>['connect']>>;
  before(async () => {
    redis = await cluster().connect();
  });
  after(() => redis?.disconnect());

  sessionStoreContract(() => new RedisSessionStore({ redis, prefix: 'fw-test-cluster:' }), true);

  it('spreads sessions over the masters, each one key in one slot', async () => {
    const store = new RedisSessionStore({ redis, prefix: 'fw-test-cluster:' });
    for (let i = 0; i < 12; i++) await store.set(`s${i}`, { i }, 60_000);
    const held = await Promise.all(redis.nodes('master').map(async (node) => (await node.keys('fw-test-cluster:sess:s*')).length));
    expect(held.reduce((sum, n) => sum + n, 0)).to.equal(12);
    expect(held.filter((n) => n > 0).length).to.be.greaterThan(1);
    for (let i = 0; i < 12; i++) expect(await store.get(`s${i}`, 60_000)).to.deep.equal({ i });
  });
});

describe('new RedisSessionStore(options)', () => {
  it('warns when its ioredis client would hang sign-ons through a Redis outage (offline queue, no command timeout)', async () => {
    const { Redis } = await import('ioredis');
    const queuing = new Redis({ lazyConnect: true });
    const seen: string[] = [];
    const listener = (warning: Error & { code?: string }) => {
      if (warning.code === 'FW_REDIS_CLIENT') seen.push(warning.message);
    };
    process.on('warning', listener);
    try {
      new RedisSessionStore({ redis: queuing });
      await new Promise((resolve) => setImmediate(resolve));
    } finally {
      process.off('warning', listener);
      queuing.disconnect();
    }
    expect(seen).to.have.length(1);
    expect(seen[0]).to.match(/^RedisSessionStore: .*enableOfflineQueue/);
  });
});
