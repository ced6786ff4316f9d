import { expect } from 'chai';
import Koa from 'koa';
import request from 'supertest';
import { loadConfig } from '@fw/core';
import { createStore, type FwStore } from '@fw/store';
import { createTestDatabase, describeEachSql, describeRedis, type TestDatabase } from '@fw/test-utils';
import { FwTokenService, KnexTokenStore, MemoryEphemeralStore, MemoryTokenStore, RedisTokenStore, hashToken, type TokenStore } from '@fw/token';
import { fwErrorHandler } from '@fw/http';
import { fwAuth } from './auth.js';
import { encodePassword } from './client.js';
import { fwLogin } from './fw-login.js';

/** Two app instances (their own token service each) over one store and one token storage. */
interface Fixture {
  store: FwStore;
  agents: Array<ReturnType<typeof request>>;
  clock: { now: number };
  ids: { alice: number; bob: number; root: number };
}

const UA = { alice: 'Mozilla/5.0 (alice-laptop)', phone: 'Mozilla/5.0 (alice-phone)' };

async function build(store: FwStore, tokenStores: () => TokenStore): Promise<Fixture> {
  await store.migrate.latest();
  const config = loadConfig({ env: false, values: {} });
  const clock = { now: Date.now() };
  const ids = {
    alice: (await store.users.create({ account: 'alice', name: 'Alice', password: 'alice-pass', mustChangePassword: false })).id,
    bob: (await store.users.create({ account: 'bob', name: 'Bob', password: 'bob-pass', mustChangePassword: false })).id,
    root: (await store.users.create({ account: 'root', name: 'Root', password: 'root-pass', isAdmin: true, mustChangePassword: false })).id,
  };
  const agents = [0, 1].map(() => {
    const tokens = new FwTokenService({ store: tokenStores(), config, now: () => clock.now, seenIntervalMs: 0 });
    const app = new Koa();
    app.silent = true;
    app.use(fwErrorHandler());
    app.use(fwLogin({ store, tokens, config, ephemeral: new MemoryEphemeralStore() }));
    app.use(fwAuth({ tokens, store }));
    app.use((ctx) => {
      ctx.body = { account: ctx.state.fw?.user.account };
    });
    return request(app.callback());
  });
  return { store, agents, clock, ids };
}

async function signIn(f: Fixture, account: string, userAgent: string, i = 0): Promise<string> {
  const res = await f.agents[i]!.post('/fw-api/login')
    .set('User-Agent', userAgent)
    .send({ account, pwd: encodePassword(`${account}-pass`) })
    .expect(200);
  return res.body.token as string;
}

interface SessionBody {
  id: string;
  current: boolean;
  createdAt: string;
  lastSeenAt: string;
  expiresAt: string;
  ip: string | null;
  userAgent: string | null;
  method: string | null;
}

async function sessionsOf(f: Fixture, token: string, query = '', i = 0): Promise<SessionBody[]> {
  const res = await f.agents[i]!.get(`/fw-api/sessions${query}`).set('token', token).expect(200);
  return res.body.sessions as SessionBody[];
}

/** The attacker's-side tests of the session routes, on one storage. */
function sessionRouteTests(open: () => Promise<Fixture>, close: (f: Fixture) => Promise<void>): void {
  let f: Fixture;
  beforeEach(async () => {
    f = await open();
  });
  afterEach(() => close(f));

  it('lists the caller’s live sessions with sign-in IP, user agent and last seen, the current one marked, and no token or hash', async () => {
    const laptop = await signIn(f, 'alice', UA.alice);
    f.clock.now += 1000;
    const phone = await signIn(f, 'alice', UA.phone, 1);
    const bobs = await signIn(f, 'bob', 'bob-agent');
    f.clock.now += 90_000;
    await f.agents[1]!.get('/me').set('token', laptop).expect(200);
    // "Last seen" is written off the request's path: give the write a moment to land.
    await waitFor(async () => (await sessionsOf(f, phone)).find((s) => !s.current)?.lastSeenAt === new Date(f.clock.now).toISOString());
    const res = await f.agents[0]!.get('/fw-api/sessions').set('token', phone).expect(200);
    expect(res.headers['cache-control']).to.equal('no-store');
    const list = res.body.sessions as SessionBody[];
    expect(list.map((s) => [s.current, s.userAgent, s.method])).to.deep.equal([
      [true, UA.phone, 'password'],
      [false, UA.alice, 'password'],
    ]);
    expect(list[1]!.lastSeenAt).to.equal(new Date(f.clock.now).toISOString());
    expect(Date.parse(list[1]!.lastSeenAt) - Date.parse(list[1]!.createdAt)).to.equal(91_000);
    expect(list[0]!.ip).to.be.a('string').and.not.equal('');
    expect(Date.parse(list[0]!.expiresAt)).to.be.greaterThan(Date.parse(list[0]!.createdAt));
    const raw = JSON.stringify(res.body);
    for (const token of [laptop, phone, bobs]) {
      expect(raw).to.not.contain(token);
      expect(raw).to.not.contain(hashToken(token));
      expect(raw).to.not.contain(hashToken(token).slice(0, 16));
    }
    // An id is no token: presented as one, it opens nothing.
    for (const s of list) await f.agents[0]!.get('/me').set('token', s.id).expect(401);
  });

  it('ends one session on every instance; another user’s id, a malformed or huge id, and a replay are refused alike', async () => {
    const laptop = await signIn(f, 'alice', UA.alice);
    f.clock.now += 1000;
    const phone = await signIn(f, 'alice', UA.phone);
    const bobs = await signIn(f, 'bob', 'bob-agent');
    const [bobSession] = await sessionsOf(f, bobs);
    const target = (await sessionsOf(f, phone)).find((s) => !s.current)!;
    // Bob's session id used by Alice: 404 like an unknown id, and Bob stays signed in.
    const foreign = await f.agents[0]!.delete(`/fw-api/sessions/${bobSession!.id}`).set('token', laptop).expect(404);
    const unknown = await f.agents[0]!.delete(`/fw-api/sessions/${'0'.repeat(24)}`)
      .set('token', laptop)
      .expect(404);
    expect(foreign.body).to.deep.equal(unknown.body);
    expect(foreign.body.error.code).to.equal('SESSION_NOT_FOUND');
    await f.agents[1]!.get('/me').set('token', bobs).expect(200);
    for (const id of ['x', `${target.id}0`, target.id.toUpperCase(), 'f'.repeat(5000), encodeURIComponent('../../login'), '%E0%A4%A', '%00', hashToken(laptop), laptop]) {
      const res = await f.agents[0]!.delete(`/fw-api/sessions/${id}`).set('token', phone);
      expect(res.status, id.slice(0, 30)).to.equal(400);
      expect(res.body.error.code).to.equal('SESSION_ID_INVALID');
    }
    await f.agents[0]!.get('/me').set('token', laptop).expect(200);
    const ended = await f.agents[0]!.delete(`/fw-api/sessions/${target.id}`).set('token', phone).expect(200);
    expect(ended.body).to.deep.equal({ ok: true, current: false });
    await f.agents[1]!.get('/me').set('token', laptop).expect(401);
    await f.agents[0]!.delete(`/fw-api/sessions/${target.id}`).set('token', phone).expect(404);
    // The ended token cannot list or end anything.
    await f.agents[0]!.get('/fw-api/sessions').set('token', laptop).expect(401);
    const own = (await sessionsOf(f, phone))[0]!;
    await f.agents[0]!.delete(`/fw-api/sessions/${own.id}`).set('token', laptop).expect(401);
    // Ending the current session is a logout.
    expect((await f.agents[0]!.delete(`/fw-api/sessions/${own.id}`).set('token', phone).expect(200)).body.current).to.equal(true);
    await f.agents[1]!.get('/me').set('token', phone).expect(401);
  });

  it('ends every other session of the caller, keeping the current one and other users’ sessions', async () => {
    const keep = await signIn(f, 'alice', UA.alice);
    const others = [await signIn(f, 'alice', UA.phone), await signIn(f, 'alice', UA.phone, 1)];
    const bobs = await signIn(f, 'bob', 'bob-agent');
    const res = await f.agents[1]!.post('/fw-api/sessions/revoke-others').set('token', keep).expect(200);
    expect(res.body).to.deep.equal({ ok: true, ended: 2 });
    for (const token of others) await f.agents[0]!.get('/me').set('token', token).expect(401);
    await f.agents[0]!.get('/me').set('token', keep).expect(200);
    await f.agents[0]!.get('/me').set('token', bobs).expect(200);
    expect((await sessionsOf(f, keep)).map((s) => s.current)).to.deep.equal([true]);
  });

  it('refuses another user’s sessions to a non-administrator the same way whether the user exists or not', async () => {
    const alice = await signIn(f, 'alice', UA.alice);
    await signIn(f, 'bob', 'bob-agent');
    const answers = [];
    for (const user of [String(f.ids.bob), String(f.ids.root), '999999', 'abc', '-1', '9'.repeat(400)]) {
      const list = await f.agents[0]!.get(`/fw-api/sessions?user=${user}`).set('token', alice);
      const end = await f.agents[0]!.post(`/fw-api/sessions/revoke-others?user=${user}`).set('token', alice);
      const one = await f.agents[0]!.delete(`/fw-api/sessions/${'a'.repeat(24)}?user=${user}`).set('token', alice);
      for (const res of [list, end, one]) {
        expect(res.status).to.equal(403);
        answers.push(JSON.stringify(res.body));
      }
    }
    expect(new Set(answers).size).to.equal(1);
    await f.agents[0]!.get('/fw-api/sessions/online').set('token', alice).expect(403);
    // Their own id is theirs to name; Bob's sessions were untouched.
    expect(await sessionsOf(f, alice, `?user=${f.ids.alice}`)).to.have.length(1);
    const root = await signIn(f, 'root', 'root-agent');
    expect(await sessionsOf(f, root, `?user=${f.ids.bob}`)).to.have.length(1);
    // Expired and revoked tokens get 401, never a list.
    f.clock.now += 121 * 60_000;
    await f.agents[0]!.get('/fw-api/sessions').set('token', alice).expect(401);
    await f.agents[0]!.get('/fw-api/sessions').expect(401);
  });

  it('lets an administrator list online users, see and end any user’s sessions', async () => {
    const root = await signIn(f, 'root', 'root-agent');
    const alice = [await signIn(f, 'alice', UA.alice)];
    f.clock.now += 1000;
    alice.push(await signIn(f, 'alice', UA.phone));
    f.clock.now += 1000;
    const bob = await signIn(f, 'bob', 'bob-agent', 1);
    const online = await f.agents[1]!.get('/fw-api/sessions/online?page=1&size=10').set('token', root).expect(200);
    expect(online.body.total).to.equal(3);
    expect(online.body.rows[0]).to.include({ userId: f.ids.bob, account: 'bob', name: 'Bob', sessions: 1 });
    const byAccount = Object.fromEntries((online.body.rows as Array<{ account: string; sessions: number }>).map((r) => [r.account, r.sessions]));
    expect(byAccount).to.deep.equal({ alice: 2, bob: 1, root: 1 });
    const paged = await f.agents[0]!.get('/fw-api/sessions/online?page=2&size=2').set('token', root).expect(200);
    expect(paged.body).to.include({ total: 3, page: 2, size: 2 });
    expect(paged.body.rows).to.have.length(1);
    for (const bad of ['page=0', 'size=0', 'size=101', 'page=-1', 'page=1e3', 'size=abc', 'page=999999999999']) {
      expect((await f.agents[0]!.get(`/fw-api/sessions/online?${bad}`).set('token', root).expect(400)).body.error.code, bad).to.equal('BAD_REQUEST');
    }
    const aliceSessions = await sessionsOf(f, root, `?user=${f.ids.alice}`);
    expect(aliceSessions.map((s) => [s.current, s.userAgent])).to.deep.equal([
      [false, UA.phone],
      [false, UA.alice],
    ]);
    await f.agents[0]!.delete(`/fw-api/sessions/${aliceSessions[0]!.id}?user=${f.ids.alice}`).set('token', root).expect(200);
    await f.agents[1]!.get('/me').set('token', alice[1]!).expect(401);
    await f.agents[1]!.get('/me').set('token', alice[0]!).expect(200);
    // An id of Bob's named under Alice: not found, and Bob stays.
    const [bobSession] = await sessionsOf(f, bob);
    await f.agents[0]!.delete(`/fw-api/sessions/${bobSession!.id}?user=${f.ids.alice}`).set('token', root).expect(404);
    expect((await f.agents[0]!.post(`/fw-api/sessions/revoke-others?user=${f.ids.alice}`).set('token', root).expect(200)).body.ended).to.equal(1);
    await f.agents[1]!.get('/me').set('token', alice[0]!).expect(401);
    await f.agents[1]!.get('/me').set('token', bob).expect(200);
    await f.agents[0]!.get(`/fw-api/sessions?user=999999`).set('token', root).expect(404);
    await f.agents[0]!.get(`/fw-api/sessions?user=abc`).set('token', root).expect(400);
    const after = await f.agents[0]!.get('/fw-api/sessions/online').set('token', root).expect(200);
    expect((after.body.rows as Array<{ account: string }>).map((r) => r.account).sort()).to.deep.equal(['bob', 'root']);
  });
}

async function waitFor(check: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 100; i++) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error('the condition did not become true within 2 s');
}

describeEachSql('session routes with tokens in SQL (KnexTokenStore)', (db: () => TestDatabase) => {
  sessionRouteTests(
    async () => {
      const store = await createStore(db().url);
      await store.migrate.latest();
      // One database per dialect: what the last test left is deleted.
      for (const table of ['fw_token', 'fw_login_log', 'fw_user']) await store.knex(table).del();
      return build(store, () => new KnexTokenStore({ knex: store.knex }));
    },
    (f) => f.store.destroy(),
  );
});

describe('session routes with tokens in memory', () => {
  sessionRouteTests(
    async () => {
      const db = await createTestDatabase({ dialect: 'sqlite', label: 'SQLite' });
      const store = await createStore(db.url);
      const tokens = new MemoryTokenStore();
      const f = await build(store, () => tokens);
      dbs.set(f, db);
      return f;
    },
    async (f) => {
      await f.store.destroy();
      await dbs.get(f)?.drop();
    },
  );
});

const dbs = new WeakMap<Fixture, TestDatabase>();

describeRedis('session routes with tokens in Redis (RedisTokenStore)', (ns) => {
  let n = 0;
  sessionRouteTests(
    async () => {
      const db = await createTestDatabase({ dialect: 'sqlite', label: 'SQLite' });
      const store = await createStore(db.url);
      const prefix = `${ns().prefix}${n++}:`;
      let i = 0;
      // Each instance its own connection, as two app processes would have.
      const f = await build(store, () => new RedisTokenStore({ redis: i++ === 0 ? ns().redis : ns().peer, prefix }));
      dbs.set(f, db);
      return f;
    },
    async (f) => {
      await f.store.destroy();
      await dbs.get(f)?.drop();
    },
  );
});
