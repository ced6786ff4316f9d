// Presence (issue 24 §4) through a real Koa app: posts with supertest, streams read as they arrive.
import type { Server } from 'node:http';
import { expect } from 'chai';
import Koa from 'koa';
import request from 'supertest';
import { BUILTIN_MODELS, createRegistry, defineModel, type FwUser } from '@fw/core';
import { createStore, type FwStore } from '@fw/store';
import { describeEachSql, openEventStream, type SseEvent, type SseStream } from '@fw/test-utils';
import { FwTokenService, MemoryTokenStore } from '@fw/token';
import { fwData, type FwDataMiddleware, type FwDataOptions } from '../http/router.js';

/**
 * Rows of a team, seen by that team only (administrators see all); `salary` is taken out of every
 * row a non-administrator is shown (afterFetch), and `pin` is a secret nobody is shown.
 */
const Task = defineModel({
  name: 'Task',
  table: 'pr_task',
  fields: {
    name: { edit: { notNull: true } },
    team: { edit: { notNull: true } },
    salary: { edit: { type: 'NUMBER' } },
    pin: { edit: { type: 'PASSWORD' } },
  },
  dataProxy: {
    beforeFetch: ({ user }) => (user.isAdmin ? [] : [{ field: 'team', op: 'eq', value: user.account.startsWith('bob') ? 'blue' : 'red' }]),
    afterFetch: (rows, { user }) => (user.isAdmin ? rows : rows.map(({ salary: _salary, ...rest }) => rest)),
  },
});

type Who = 'admin' | 'alice' | 'bob' | 'carol';

interface Instance {
  data: FwDataMiddleware;
  server: Server;
  port: number;
  agent: ReturnType<typeof request>;
}

const isPresence = (id: number, state = 'editing') => (e: SseEvent) => e.event === 'presence' && e.data.id === id && e.data.state === state;
const quiet = () => new Promise((r) => setTimeout(r, 200));

describeEachSql('presence: POST /data/presence/{fw} and the presence events', (db) => {
  let store: FwStore;
  let tokens: FwTokenService;
  let main: Instance;
  const users = {} as Record<Who, FwUser>;
  const background: unknown[] = [];
  const streams: SseStream[] = [];
  const extra: Instance[] = [];

  async function instance(live: FwDataOptions['live'] = {}): Promise<Instance> {
    const data = fwData({ store, tokens, registry: createRegistry([...BUILTIN_MODELS, Task]), onBackgroundError: (e) => background.push(e), live });
    const app = new Koa();
    app.silent = true;
    app.use(data);
    const server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    return { data, server, port: (server.address() as { port: number }).port, agent: request(server) };
  }

  async function stop(i: Instance): Promise<void> {
    i.server.closeAllConnections();
    await new Promise((resolve) => i.server.close(resolve));
    await i.data.presence.close();
    await i.data.live.close();
  }

  before(async () => {
    store = createStore(db().url);
    await store.migrate.latest();
    const registry = createRegistry([...BUILTIN_MODELS, Task]);
    await store.createModelTables(registry.list());
    const stamp = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
    const editor = await store.roles.create({ code: `pr-editor-${stamp}`, name: 'Editor' });
    const reader = await store.roles.create({ code: `pr-reader-${stamp}`, name: 'Reader' });
    const { menu, functions } = await store.menus.createModelMenu(Task);
    await store.roles.setMenus(editor.id, [menu.id, ...functions.map((f) => f.id)]);
    await store.roles.setMenus(reader.id, [menu.id]);
    for (const [name, isAdmin, role] of [
      ['admin', true, undefined],
      ['alice', false, editor.id],
      ['bob', false, reader.id],
      ['carol', false, undefined],
    ] as const) {
      const row = await store.users.create({ account: `${name}-${stamp}`, name: `${name[0]!.toUpperCase()}${name.slice(1)}`, password: 'x-password-1', isAdmin, mustChangePassword: false });
      if (role !== undefined) await store.users.setRoles(row.id, [role]);
      users[name] = { id: row.id, account: row.account, name: row.name, isAdmin };
    }
    tokens = new FwTokenService({ store: new MemoryTokenStore() });
    main = await instance({ heartbeatMs: 1000 });
  });

  afterEach(async () => {
    for (const s of streams.splice(0)) s.close();
    for (const i of extra.splice(0)) await stop(i);
  });

  after(async () => {
    if (main) await stop(main);
    await store?.destroy();
    expect(background, 'background work failed').to.deep.equal([]);
  });

  const token = async (who: Who) => (await tokens.loginToken(users[who], tokens.generateToken())).token;

  async function stream(who: Who, client?: string, on: Instance = main): Promise<SseStream> {
    const s = await openEventStream(on.port, '/fw-api/data/events/Task', { token: await token(who), ...(client ? { 'x-fw-live-client': client } : {}) });
    streams.push(s);
    expect(s.status, s.text()).to.equal(200);
    return s;
  }

  async function post(who: Who, body: unknown, on: Instance = main) {
    return on.agent
      .post('/fw-api/data/presence/Task')
      .set('token', await token(who))
      .set('content-type', 'application/json')
      .send(JSON.stringify(body));
  }

  async function add(values: Record<string, unknown>): Promise<number> {
    const res = await main.agent
      .post('/fw-api/data/modify/Task')
      .set('token', await token('admin'))
      .send({ name: 'task', ...values });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    return res.body.id as number;
  }

  /** Waits until the table of `on` holds `size` entries (a post reaches it through the bus). */
  async function entries(size: number, on: Instance = main): Promise<void> {
    const end = Date.now() + 5000;
    while (on.data.presence.size !== size) {
      if (Date.now() > end) throw new Error(`the presence table holds ${on.data.presence.size} entries, not ${size}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  it('sets and clears a presence through HTTP: viewers who may see the row hear it, the poster’s other tabs too', async () => {
    const id = await add({ team: 'red', salary: 5 });
    const admin = await stream('admin');
    const otherTab = await stream('alice', 'alice-tab-2');
    const set = await post('alice', { client: 'alice-tab-1', id, field: 'name' });
    expect([set.status, set.text]).to.deep.equal([204, '']);
    const seen = await admin.waitFor(isPresence(id));
    expect(seen.id, 'a presence has no id: line').to.equal(undefined);
    expect(seen.data).to.deep.include({ model: 'Task', client: 'alice-tab-1', user: 'Alice', id, field: 'name', state: 'editing' });
    expect(Math.abs(Date.parse(seen.data.at as string) - Date.now())).to.be.below(60_000);
    expect((await otherTab.waitFor(isPresence(id))).data.client).to.equal('alice-tab-1');
    // Posted again unchanged (the UI's refresh): it lives on and nobody is told twice.
    expect((await post('alice', { client: 'alice-tab-1', id, field: 'name' })).status).to.equal(204);
    // Another field of the same row: told.
    expect((await post('alice', { client: 'alice-tab-1', id, field: 'team' })).status).to.equal(204);
    await admin.waitFor((e) => isPresence(id)(e) && e.data.field === 'team');
    expect(admin.events.filter((e) => e.event === 'presence').map((e) => e.data.field)).to.deep.equal(['name', 'team']);
    const cleared = await post('alice', { client: 'alice-tab-1', id: null });
    expect(cleared.status).to.equal(204);
    const left = await admin.waitFor(isPresence(id, 'left'));
    expect(left.data).to.deep.include({ model: 'Task', client: 'alice-tab-1', user: 'Alice', id, state: 'left' });
    await otherTab.waitFor(isPresence(id, 'left'));
    await entries(0);
  });

  it('filters per viewer: no presence on a row the viewer cannot see, no field they cannot see; a new stream gets the current entries alike', async () => {
    const red = await add({ team: 'red', salary: 1 });
    const blue = await add({ team: 'blue', salary: 2 });
    const bob = await stream('bob');
    const alice = await stream('alice');
    const admin = await stream('admin');
    expect((await post('admin', { client: 'admin-tab-1', id: red, field: 'salary' })).status).to.equal(204);
    expect((await post('admin', { client: 'admin-tab-2', id: blue, field: 'salary' })).status).to.equal(204);
    expect((await admin.waitFor(isPresence(red))).data.field).to.equal('salary');
    expect((await admin.waitFor(isPresence(blue))).data.field).to.equal('salary');
    // salary is not in the rows Alice and Bob are shown: they learn of the row, not the field.
    expect((await alice.waitFor(isPresence(red))).data).to.not.have.property('field');
    expect((await bob.waitFor(isPresence(blue))).data).to.not.have.property('field');
    await quiet();
    expect(bob.events.filter((e) => e.data.id === red), 'Bob never sees red rows').to.deep.equal([]);
    expect(alice.events.filter((e) => e.data.id === blue), 'Alice never sees blue rows').to.deep.equal([]);
    // A stream opened now is told the current entries at once, filtered the same way.
    const late = await stream('bob');
    expect((await late.waitFor(isPresence(blue))).data).to.deep.include({ client: 'admin-tab-2', user: 'Admin', state: 'editing' });
    await quiet();
    expect(late.events.filter((e) => e.data.id === red)).to.deep.equal([]);
    // The entry moves to a row Bob cannot see: Bob hears it left (and nothing of where it went); Alice hears it arrive.
    expect((await post('admin', { client: 'admin-tab-2', id: red })).status).to.equal(204);
    await bob.waitFor(isPresence(blue, 'left'));
    await alice.waitFor((e) => isPresence(red)(e) && e.data.client === 'admin-tab-2');
    await quiet();
    expect(bob.events.filter((e) => e.data.id === red)).to.deep.equal([]);
    await post('admin', { client: 'admin-tab-1', id: null });
    await post('admin', { client: 'admin-tab-2', id: null });
    await entries(0);
  });

  it('refuses from the attacker’s side: no token, no query, unknown model, rows and fields out of sight, malformed keys and bodies, a huge body', async () => {
    const red = await add({ team: 'red' });
    const blue = await add({ team: 'blue' });
    const watcher = await stream('admin');
    const code = (res: { status: number; body: { error?: { code?: string } } }) => [res.status, res.body.error?.code];
    expect(code(await main.agent.post('/fw-api/data/presence/Task').send({ client: 'nobody-tab', id: red }))).to.deep.equal([401, 'UNAUTHENTICATED']);
    expect(code(await post('carol', { client: 'carol-tab-1', id: red }))).to.deep.equal([403, 'POWER_DENIED']);
    expect(code(await post('carol', { client: 'carol-tab-1', id: null }))).to.deep.equal([403, 'POWER_DENIED']);
    const unknown = await main.agent
      .post('/fw-api/data/presence/Nope')
      .set('token', await token('admin'))
      .send({ client: 'admin-tab-1', id: 1 });
    expect(code(unknown)).to.deep.equal([404, 'MODEL_NOT_FOUND']);
    // A row out of Bob's sight, and one that does not exist, answer alike: the id is no oracle.
    const hidden = await post('bob', { client: 'bob-tab-1', id: red });
    const missing = await post('bob', { client: 'bob-tab-1', id: 2_000_000_000 });
    expect(code(hidden)).to.deep.equal([404, 'ROW_NOT_FOUND']);
    expect(code(missing)).to.deep.equal([404, 'ROW_NOT_FOUND']);
    expect(code(await post('bob', { client: 'bob-tab-1', id: 'x' }))).to.deep.equal([400, 'BAD_ID']);
    expect(code(await post('bob', { client: 'bob-tab-1', id: -1 }))).to.deep.equal([400, 'BAD_ID']);
    // Fields: one the caller is not shown, a secret (nobody is shown it), one the model lacks, an inherited name.
    for (const [who, field] of [
      ['bob', 'salary'],
      ['admin', 'pin'],
      ['admin', 'nope'],
      ['admin', 'constructor'],
      ['admin', '__proto__'],
    ] as const) {
      const res = await post(who, { client: 'field-tab-1', id: blue, field });
      expect(code(res), `${who} ${field}`).to.deep.equal([422, 'VALIDATION_FAILED']);
      expect(res.body.error.details[0]).to.include({ path: 'field' });
    }
    // Malformed keys and bodies.
    for (const client of ['short', 'x'.repeat(65), 'has space-in-it', 'tab/../../x', 'ünïcode-key', 12345678, null]) {
      const res = await post('bob', { client, id: blue });
      expect(code(res), String(client)).to.deep.equal([400, 'BAD_REQUEST']);
    }
    for (const body of [[], 'text', { client: 'bob-tab-1' }, { client: 'bob-tab-1', id: blue, extra: 1 }, { client: 'bob-tab-1', id: blue, field: 7 }]) {
      expect(code(await post('bob', body)), JSON.stringify(body)).to.deep.equal([400, 'BAD_REQUEST']);
    }
    const huge = await main.agent
      .post('/fw-api/data/presence/Task')
      .set('token', await token('bob'))
      .set('content-type', 'application/json')
      .send(JSON.stringify({ client: 'bob-tab-1', id: blue, field: 'x'.repeat(100_000) }));
    expect(code(huge)).to.deep.equal([413, 'PAYLOAD_TOO_LARGE']);
    // A malformed tab key on the stream is a 400 before the stream takes a slot.
    const before = main.data.live.size;
    const bad = await openEventStream(main.port, '/fw-api/data/events/Task', { token: await token('bob'), 'x-fw-live-client': 'bad key!' });
    streams.push(bad);
    expect(bad.status).to.equal(400);
    await bad.ended;
    expect(JSON.parse(bad.text()).error.code).to.equal('BAD_REQUEST');
    expect(main.data.live.size).to.equal(before);
    await quiet();
    expect(watcher.events.filter((e) => e.event === 'presence'), 'nothing refused was published').to.deep.equal([]);
    expect(main.data.presence.size).to.equal(0);
  });

  it('keys presence by (user, client): another user’s post with my client key neither clears nor replaces mine', async () => {
    const red = await add({ team: 'red' });
    const blue = await add({ team: 'blue' });
    const admin = await stream('admin');
    expect((await post('alice', { client: 'shared-key-1', id: red })).status).to.equal(204);
    await admin.waitFor(isPresence(red));
    // Bob clears "shared-key-1": his own (absent) entry, not Alice's.
    expect((await post('bob', { client: 'shared-key-1', id: null })).status).to.equal(204);
    // Bob's own entry under the same key sits beside Alice's.
    expect((await post('bob', { client: 'shared-key-1', id: blue })).status).to.equal(204);
    await admin.waitFor(isPresence(blue));
    await quiet();
    expect(admin.events.filter((e) => e.event === 'presence' && e.data.state === 'left')).to.deep.equal([]);
    const late = await stream('admin');
    const [a, b] = [await late.waitFor(isPresence(red)), await late.waitFor(isPresence(blue))];
    expect([a.data.user, b.data.user]).to.deep.equal(['Alice', 'Bob']);
    await post('alice', { client: 'shared-key-1', id: null });
    await post('bob', { client: 'shared-key-1', id: null });
    await entries(0);
  });

  it('clears a tab’s presence for everyone when the stream that carried its key drops (not while another stream of the tab stays open)', async () => {
    const red = await add({ team: 'red' });
    const admin = await stream('admin');
    const first = await stream('alice', 'alice-drop-1');
    const second = await stream('alice', 'alice-drop-1');
    const unrelated = await stream('alice', 'alice-drop-2');
    expect((await post('alice', { client: 'alice-drop-1', id: red, field: 'name' })).status).to.equal(204);
    await admin.waitFor(isPresence(red));
    // A reconnect's old stream going away, and another tab's stream: the entry stays.
    first.close();
    unrelated.close();
    await Promise.all([first.ended, unrelated.ended]);
    await quiet();
    expect(admin.events.filter((e) => e.data.state === 'left')).to.deep.equal([]);
    expect(main.data.presence.size).to.equal(1);
    // The last stream of the tab drops: everyone hears it left.
    second.close();
    const left = await admin.waitFor(isPresence(red, 'left'));
    expect(left.data).to.deep.include({ client: 'alice-drop-1', user: 'Alice', field: 'name' });
    await entries(0);
  });

  it('expires an entry not posted again within ttlMs (told as left), and keeps one that is', async function () {
    this.timeout(20_000);
    const quick = await instance({ presence: { ttlMs: 1000 } });
    extra.push(quick);
    const red = await add({ team: 'red' });
    const blue = await add({ team: 'blue' });
    const admin = await stream('admin', undefined, quick);
    const start = Date.now();
    expect((await post('alice', { client: 'alice-ttl-1', id: red }, quick)).status).to.equal(204);
    expect((await post('bob', { client: 'bob-ttl-1', id: blue }, quick)).status).to.equal(204);
    await admin.waitFor(isPresence(red));
    await admin.waitFor(isPresence(blue));
    // Bob's tab posts again every 200 ms; Alice's does not.
    const refresh = setInterval(() => void post('bob', { client: 'bob-ttl-1', id: blue }, quick).catch(() => undefined), 200);
    try {
      const left = await admin.waitFor(isPresence(red, 'left'), 5000);
      expect(Date.now() - start).to.be.at.least(1000);
      expect(left.data).to.include({ client: 'alice-ttl-1', user: 'Alice' });
      await new Promise((r) => setTimeout(r, 1200));
      expect(admin.events.filter(isPresence(blue, 'left')), 'a refreshed entry lives on').to.deep.equal([]);
      expect(admin.events.filter(isPresence(blue)), 'refreshes are not told again').to.have.length(1);
    } finally {
      clearInterval(refresh);
    }
    await admin.waitFor(isPresence(blue, 'left'), 5000);
    await entries(0, quick);
  });

  it('bounds what one user can create: entries held at once and posts per minute (429 TOO_MANY_PRESENCE)', async () => {
    const tight = await instance({ presence: { maxPerUser: 2, postBurst: 4, postsPerMinute: 60 } });
    extra.push(tight);
    const red = await add({ team: 'red' });
    expect((await post('alice', { client: 'alice-cap-1', id: red }, tight)).status).to.equal(204);
    expect((await post('alice', { client: 'alice-cap-2', id: red }, tight)).status).to.equal(204);
    await entries(2, tight);
    const third = await post('alice', { client: 'alice-cap-3', id: red }, tight);
    expect([third.status, third.body.error.code, third.body.error.limit]).to.deep.equal([429, 'TOO_MANY_PRESENCE', 2]);
    // Others are not held back by Alice's entries; her own existing ones may be posted again.
    expect((await post('admin', { client: 'admin-cap-1', id: red }, tight)).status).to.equal(204);
    expect((await post('alice', { client: 'alice-cap-2', id: red, field: 'name' }, tight)).status).to.equal(204);
    // Four posts at once were allowed (the burst, the refused one counted too); the fifth waits.
    const fifth = await post('alice', { client: 'alice-cap-1', id: null }, tight);
    expect([fifth.status, fifth.body.error.code]).to.deep.equal([429, 'TOO_MANY_PRESENCE']);
    expect(Number(fifth.headers['retry-after'])).to.be.within(1, 60);
    expect((await post('bob', { client: 'bob-cap-1', id: null }, tight)).status, 'another user has a bucket of their own').to.equal(204);
  });
});
