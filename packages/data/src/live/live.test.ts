import { request as httpRequest, type IncomingMessage, type Server } from 'node:http';
import { expect } from 'chai';
import Koa from 'koa';
import { BUILTIN_MODELS, FwDefinitionError, createRegistry, defineModel, type FwUser } from '@fw/core';
import { createStore, type FwStore } from '@fw/store';
import { describeEachSql } from '@fw/test-utils';
import { FwTokenService, MemoryTokenStore } from '@fw/token';
import fc from 'fast-check';
import { fwData, type FwDataMiddleware } from '../http/router.js';
import { memoryBus, type LiveBus } from './bus.js';
import { subscribeSse, type Sse } from './test-setup.js';

/** Rows of a team, seen by that team only (administrators see all); `note` is masked for non-admins by afterFetch. */
const Item = defineModel({
  name: 'Item',
  table: 'lv_item',
  power: { importable: true },
  fields: {
    name: { edit: { notNull: true } },
    team: { edit: { notNull: true } },
    note: {},
    price: { edit: { type: 'NUMBER', integer: true } },
    pin: { edit: { type: 'PASSWORD' } },
  },
  dataProxy: {
    beforeFetch: ({ user }) => (user.isAdmin ? [] : [{ field: 'team', op: 'eq', value: user.account.split('-')[0] === 'bob' ? 'blue' : 'red' }]),
    afterFetch: (rows, { user }) => (user.isAdmin ? rows : rows.map((r) => ({ ...r, note: r.note === null || r.note === undefined ? null : `masked:${String(r.note).length}` }))),
  },
});

type Who = 'admin' | 'alice' | 'bob' | 'carol';

describeEachSql('live tables: the SSE route', (db) => {
  let store: FwStore;
  let data: FwDataMiddleware;
  let server: Server;
  let tokens: FwTokenService;
  let readerRole: number;
  let itemMenus: number[];
  const users = {} as Record<Who, FwUser>;
  const background: unknown[] = [];
  const open: Sse[] = [];

  before(async () => {
    store = createStore(db().url);
    await store.migrate.latest();
    const registry = createRegistry([...BUILTIN_MODELS, Item]);
    await store.createModelTables(registry.list());
    const stamp = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
    const editor = await store.roles.create({ code: `lv-editor-${stamp}`, name: 'Editor' });
    const reader = await store.roles.create({ code: `lv-reader-${stamp}`, name: 'Reader' });
    readerRole = reader.id;
    const { menu, functions } = await store.menus.createModelMenu(Item);
    itemMenus = [menu.id, ...functions.map((f) => f.id)];
    await store.roles.setMenus(editor.id, itemMenus);
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
    data = fwData({ store, tokens, registry, onBackgroundError: (e) => background.push(e), live: { maxStreamsPerUser: 4, resumeMessages: 5, heartbeatMs: 100, tokenCheckMs: 200 } });
    const app = new Koa();
    app.silent = true;
    app.use(data);
    server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
  });

  afterEach(() => {
    for (const s of open.splice(0)) s.close();
  });

  after(async () => {
    await store?.destroy();
    server?.close();
    expect(data?.live.size ?? 0, 'streams left open').to.equal(0);
    expect(background, 'background work failed').to.deep.equal([]);
  });

  const token = async (who: Who) => (await tokens.loginToken(users[who], tokens.generateToken())).token;

  function call(method: string, path: string, headers: Record<string, string>, body?: unknown, raw?: string): Promise<{ status: number; body: Record<string, unknown> }> {
    const { port } = server.address() as { port: number };
    return new Promise((resolve, reject) => {
      const req = httpRequest({ host: '127.0.0.1', port, method, path: `/fw-api${path}`, headers: { 'content-type': 'application/json', ...headers } }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} }));
      });
      req.on('error', reject);
      req.end(raw ?? (body === undefined ? undefined : JSON.stringify(body)));
    });
  }
  const post = async (who: Who, path: string, body: unknown) => call('POST', path, { token: await token(who) }, body);

  const subscribe = (path: string, headers: Record<string, string>) => subscribeSse(server, path, headers, open);
  const stream = async (who: Who, extra: Record<string, string> = {}) => subscribe('/data/events/Item', { token: await token(who), ...extra });
  const add = async (who: Who, values: Record<string, unknown>) => {
    const res = await post(who, '/data/modify/Item', values);
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    return res.body.id as number;
  };
  const quiet = () => new Promise((r) => setTimeout(r, 150));

  it('sends another user’s insert, update (new display value) and delete, with the actor and time', async () => {
    const bob = await stream('bob');
    const own = await stream('admin');
    expect(bob.status).to.equal(200);
    expect(bob.headers['content-type']).to.match(/^text\/event-stream/);
    const id = await add('admin', { name: 'first', team: 'blue', note: 'abc', price: 1, pin: 'pin-secret-1' });
    const inserted = await bob.waitFor((e) => e.event === 'insert' && e.data.id === id);
    expect(inserted.id).to.match(/^\d{13}-\d{6}-/);
    expect(inserted.data.actor).to.equal('Admin');
    // Only the author's own streams mark the change as theirs (by user id, not by name).
    expect(inserted.data).to.not.have.property('mine');
    expect((await own.waitFor((e) => e.event === 'insert' && e.data.id === id)).data.mine).to.equal(true);
    expect(inserted.data.row).to.include({ name: 'first', team: 'blue', note: 'masked:3' });
    expect(inserted.data.row).to.not.have.property('pin');
    const cell = await post('admin', '/data/modify/Item/update-cell', { id, field: 'note', value: 'abcdef' });
    expect(cell.status, JSON.stringify(cell.body)).to.equal(200);
    const form = await post('admin', '/data/modify/Item/update', { id, name: 'first', team: 'blue', note: 'abcdef', price: 3 });
    expect(cell.status, JSON.stringify(cell.body)).to.equal(200);
    const updated = await bob.waitFor((e) => e.event === 'update' && e.data.id === id);
    expect(updated.data.values).to.deep.equal({ note: 'masked:6' });
    expect(form.status, JSON.stringify(form.body)).to.equal(200);
    const formUpdate = await bob.waitFor((e) => e.event === 'update' && e.data.id === id && 'price' in (e.data.values as object));
    expect(Number((formUpdate.data.values as { price: unknown }).price)).to.equal(3);
    expect(Date.parse(updated.data.at as string)).to.be.greaterThan(Date.now() - 60_000);
    const removed = await post('admin', '/data/modify/Item/delete', { ids: [id] });
    expect(removed.status).to.equal(200);
    const deleted = await bob.waitFor((e) => e.event === 'delete');
    expect(deleted.data.ids).to.deep.equal([id]);
    expect(bob.text()).to.not.include('pin-secret');
  });

  it('never tells a viewer about rows their beforeFetch hides, nor secrets or unmasked values', async () => {
    const bob = await stream('bob');
    const admin = await stream('admin');
    const red = await add('alice', { name: 'hidden', team: 'red', note: 'zzz', pin: 'pin-secret-2' });
    await post('alice', '/data/modify/Item/update-cell', { id: red, field: 'price', value: 7 });
    await admin.waitFor((e) => e.event === 'update' && e.data.id === red);
    await post('alice', '/data/modify/Item/delete', { ids: [red] });
    await admin.waitFor((e) => e.event === 'delete' && (e.data.ids as number[]).includes(red));
    await quiet();
    expect(bob.events.filter((e) => JSON.stringify(e.data).includes(`"id":${red}`) || (e.data.ids as number[] | undefined)?.includes(red))).to.deep.equal([]);
    expect(admin.text()).to.include('zzz');
    expect(admin.text() + bob.text()).to.not.include('pin-secret');
  });

  it('turns a row moving into a viewer’s filter into an insert, and out of it into a delete', async () => {
    const bob = await stream('bob');
    const id = await add('alice', { name: 'mover', team: 'red' });
    await post('alice', '/data/modify/Item/update-cell', { id, field: 'team', value: 'blue' });
    const entered = await bob.waitFor((e) => e.event === 'insert' && e.data.id === id);
    expect((entered.data.row as Record<string, unknown>).team).to.equal('blue');
    expect(entered.data.actor).to.equal('Alice');
    // Alice sees red rows only: the administrator moves it back.
    const back = await post('admin', '/data/modify/Item/update-cell', { id, field: 'team', value: 'red' });
    expect(back.status, JSON.stringify(back.body)).to.equal(200);
    const left = await bob.waitFor((e) => e.event === 'delete' && (e.data.ids as number[]).includes(id));
    expect(left.data.reason).to.equal('filter');
  });

  it('refuses a model without query (403), no token (401), a token in the URL (401)', async () => {
    expect((await stream('carol')).status).to.equal(403);
    expect((await subscribe('/data/events/Item', {})).status).to.equal(401);
    const t = await token('bob');
    expect((await subscribe(`/data/events/Item?token=${t}`, {})).status).to.equal(401);
    expect((await subscribe(`/data/events/Item?_token=${t}`, {})).status).to.equal(401);
    expect((await subscribe('/data/events/Nope', { token: t })).status).to.equal(404);
    expect((await subscribe('/data/events/Item', { authorization: `Bearer ${t}` })).status).to.equal(200);
  });

  it('closes the stream with reason power when the viewer loses query', async () => {
    const bob = await stream('bob');
    await store.roles.setMenus(readerRole, []);
    try {
      await add('alice', { name: 'after-revoke', team: 'blue' });
      const closed = await bob.waitFor((e) => e.event === 'closed');
      expect(closed.data).to.deep.equal({ type: 'closed', reason: 'power' });
      await bob.ended;
      expect(bob.events.filter((e) => e.event === 'insert')).to.deep.equal([]);
    } finally {
      await store.roles.setMenus(readerRole, [itemMenus[0]!]);
    }
  });

  it('resumes after Last-Event-ID, and asks for a reload when the id is too old', async () => {
    const first = await stream('bob');
    const a = await add('alice', { name: 'r1', team: 'blue' });
    const seen = await first.waitFor((e) => e.event === 'insert' && e.data.id === a);
    first.close();
    await first.ended;
    const b = await add('alice', { name: 'r2', team: 'blue' });
    await quiet();
    const again = await stream('bob', { 'last-event-id': seen.id! });
    const missed = await again.waitFor((e) => e.event === 'insert' && e.data.id === b);
    expect(missed.data.row).to.include({ name: 'r2' });
    expect(again.events.filter((e) => e.data.id === a)).to.deep.equal([]);
    // A stream cut before any change reached it resumes from its opening `ready` id.
    const quietOne = await stream('bob');
    const opened = await quietOne.waitFor((e) => e.event === 'ready');
    expect(opened.id).to.match(/^\d{13}-\d{6}-open$/);
    quietOne.close();
    await quietOne.ended;
    const c = await add('alice', { name: 'r3', team: 'blue' });
    await quiet();
    const resumed = await stream('bob', { 'last-event-id': opened.id! });
    expect((await resumed.waitFor((e) => e.event === 'insert' && e.data.id === c)).data.row).to.include({ name: 'r3' });
    expect(resumed.events.filter((e) => e.event === 'ready')).to.deep.equal([]);
    const old = await stream('bob', { 'last-event-id': '0000000000001-000001-x' });
    await old.waitFor((e) => e.event === 'reload');
    await old.ended;
  });

  it('caps the streams of one user (429 TOO_MANY_STREAMS) and frees the slot on disconnect', async () => {
    const streams = [];
    for (let i = 0; i < 4; i += 1) streams.push(await stream('bob'));
    expect(streams.map((s) => s.status)).to.deep.equal([200, 200, 200, 200]);
    const refused = await stream('bob');
    expect(refused.status).to.equal(429);
    await refused.ended;
    expect(JSON.parse(refused.text()).error.code).to.equal('TOO_MANY_STREAMS');
    streams[0]!.close();
    await streams[0]!.ended;
    await quiet();
    expect((await stream('bob')).status).to.equal(200);
  });

  it('caps the streams of the instance (429 TOO_MANY_STREAMS)', async () => {
    const small = fwData({ store, tokens, registry: createRegistry([...BUILTIN_MODELS, Item]), live: { maxStreams: 1 } });
    const app = new Koa();
    app.silent = true;
    app.use(small);
    const other = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => other.once('listening', resolve));
    try {
      const port = (other.address() as { port: number }).port;
      const get = (who: Who) =>
        token(who).then(
          (t) =>
            new Promise<IncomingMessage>((resolve, reject) => {
              const req = httpRequest({ host: '127.0.0.1', port, path: '/fw-api/data/events/Item', headers: { token: t } }, resolve);
              req.on('error', reject);
              req.end();
            }),
        );
      const first = await get('bob');
      expect(first.statusCode).to.equal(200);
      const second = await get('admin');
      expect(second.statusCode).to.equal(429);
      first.destroy();
      second.resume();
      await new Promise((r) => setTimeout(r, 50));
      expect(small.live.size).to.equal(0);
    } finally {
      other.closeAllConnections();
      other.close();
    }
  });

  it('refuses a live option out of its range at start-up, naming it', async () => {
    const make = (live: Record<string, unknown>) => () => fwData({ store, tokens, registry: createRegistry([...BUILTIN_MODELS, Item]), live });
    for (const key of ['maxStreams', 'queueSize', 'resumeMs', 'heartbeatMs', 'tokenCheckMs', 'subscribeRetryMs']) {
      expect(make({ [key]: 0 }), key).to.throw(FwDefinitionError, `fwData.live.${key}`);
    }
    for (const batchMs of [-1, 0.5, 1001, Number.NaN]) expect(make({ batchMs }), String(batchMs)).to.throw(FwDefinitionError, 'fwData.live.batchMs');
    for (const batchMs of [0, 1000]) await make({ batchMs })().live.close();
  });

  it('a bus that refuses the first subscribes is asked again: 503 UNAVAILABLE meanwhile, then streams open and receive', async function () {
    this.timeout(30_000);
    // The bus refuses until the test has seen the 503 and lets it through (a count of refusals
    // raced the retries on a loaded machine: they were spent before the first request arrived).
    let refusing = true;
    let subscribed = false;
    const inner = memoryBus();
    const flaky: LiveBus = {
      kind: 'flaky',
      publish: (m) => inner.publish(m),
      subscribe: async (receive) => {
        if (refusing) throw new Error('bus not ready');
        const sub = await inner.subscribe(receive);
        subscribed = true;
        return sub;
      },
      close: () => inner.close(),
    };
    const reported: unknown[] = [];
    const later = fwData({ store, tokens, registry: createRegistry([...BUILTIN_MODELS, Item]), onBackgroundError: (e) => reported.push(e), live: { bus: flaky, subscribeRetryMs: 20 } });
    const app = new Koa();
    app.silent = true;
    app.use(later);
    const other = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => other.once('listening', resolve));
    try {
      const port = (other.address() as { port: number }).port;
      const get = async () => {
        const t = await token('bob');
        return new Promise<IncomingMessage>((resolve, reject) => {
          const req = httpRequest({ host: '127.0.0.1', port, path: '/fw-api/data/events/Item', headers: { token: t } }, resolve);
          req.on('error', reject);
          req.end();
        });
      };
      const refused = await get();
      expect(refused.statusCode).to.equal(503);
      const body = await new Promise<string>((resolve) => {
        let text = '';
        refused.on('data', (c: Buffer) => (text += c.toString()));
        refused.on('end', () => resolve(text));
      });
      expect(JSON.parse(body).error.code).to.equal('UNAVAILABLE');
      // Each refusal was reported; the retries go on until the bus answers.
      expect(reported.filter((e) => (e as Error).message === 'bus not ready')).to.have.length.at.least(1);
      refusing = false;
      // The next retry (the wait doubles from 20 ms) subscribes.
      for (let i = 0; i < 2000 && !subscribed; i++) await new Promise((r) => setTimeout(r, 10));
      expect(subscribed, 'a retry subscribed once the bus was ready').to.equal(true);
      const open = await get();
      expect(open.statusCode).to.equal(200);
      open.destroy();
    } finally {
      other.closeAllConnections();
      other.close();
      await later.live.close();
    }
  });

  it('ends every stream (closed: shutdown) and its timer when the store closes', async () => {
    const own = createStore(db().url);
    const closing = fwData({ store: own, tokens, registry: createRegistry([...BUILTIN_MODELS, Item]) });
    const app = new Koa();
    app.silent = true;
    app.use(closing);
    const other = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => other.once('listening', resolve));
    try {
      const port = (other.address() as { port: number }).port;
      const t = await token('bob');
      const res = await new Promise<IncomingMessage>((resolve, reject) => {
        const req = httpRequest({ host: '127.0.0.1', port, path: '/fw-api/data/events/Item', headers: { token: t } }, resolve);
        req.on('error', reject);
        req.end();
      });
      expect(res.statusCode).to.equal(200);
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      const ended = new Promise((r) => res.on('end', r));
      expect(closing.live.size).to.equal(1);
      await own.destroy();
      await ended;
      expect(text).to.include('event: closed\ndata: {"type":"closed","reason":"shutdown"}');
      expect(closing.live.size).to.equal(0);
    } finally {
      other.close();
    }
  });

  it('closes the stream when its token is revoked (checked again periodically), with heartbeats meanwhile', async () => {
    const t = await token('bob');
    const s = await subscribe('/data/events/Item', { token: t });
    expect(s.status).to.equal(200);
    // Heartbeats come every 100 ms here; a loaded CI machine can hold a timer back, so wait for one
    // (up to 5 s) instead of assuming it within a fixed time.
    for (let i = 0; i < 500 && !s.text().includes(': heartbeat'); i++) await new Promise((r) => setTimeout(r, 10));
    expect(s.text()).to.include(': heartbeat');
    await tokens.revoke(t);
    const closed = await s.waitFor((e) => e.event === 'closed');
    expect(closed.data.reason).to.equal('token');
    await s.ended;
  });

  it('closes the stream (reason token) when its user is locked or expires, the token still unrevoked', async () => {
    for (const [change, undo] of [
      [{ status: 'locked' }, { status: 'normal' }],
      [{ expireDate: new Date(Date.now() - 1000) }, { expireDate: null }],
    ] as const) {
      const s = await stream('bob');
      expect(s.status).to.equal(200);
      await store.users.update(users.bob.id, change);
      try {
        const closed = await s.waitFor((e) => e.event === 'closed');
        expect(closed.data.reason).to.equal('token');
        await s.ended;
      } finally {
        await store.users.update(users.bob.id, undo);
      }
      // Unlocked again, the same user streams as before.
      expect((await stream('bob')).status).to.equal(200);
    }
  });

  it('publishes every write path: bulk edit, undo, undelete, import, copy', async () => {
    const admin = await stream('admin');
    const ids = [await add('admin', { name: 'b1', team: 'red' }), await add('admin', { name: 'b2', team: 'red' })];
    const bulk = await post('admin', '/data/modify/Item/update-many', { ids, values: { price: 9 } });
    expect(bulk.status, JSON.stringify(bulk.body)).to.equal(200);
    for (const id of ids) await admin.waitFor((e) => e.event === 'update' && e.data.id === id && (e.data.values as { price?: unknown }).price !== undefined);
    const undone = await post('admin', '/data/undo', { batch: bulk.body.batch });
    expect(undone.status, JSON.stringify(undone.body)).to.equal(200);
    await admin.waitFor((e) => e.event === 'update' && e.data.id === ids[1] && (e.data.values as { price?: unknown }).price === null);
    expect((await post('admin', '/data/modify/Item/delete', { ids })).status).to.equal(200);
    const gone = await admin.waitFor((e) => e.event === 'delete' && (e.data.ids as number[]).length === 2);
    const back = await post('admin', '/data/modify/Item/undelete', { ids });
    expect(back.status, JSON.stringify(back.body)).to.equal(200);
    await admin.waitFor((e) => e.event === 'insert' && e.data.id === ids[0] && admin.events.indexOf(e) > admin.events.indexOf(gone));
    const copied = await post('admin', '/data/modify/Item/copy', { id: ids[0] });
    expect(copied.status, JSON.stringify(copied.body)).to.equal(200);
    await admin.waitFor((e) => e.event === 'insert' && e.data.id === copied.body.id);
    // An import's added rows (multi-row INSERTs), one message for the batch.
    const imported = await call('POST', '/data/import/Item', { token: await token('admin'), 'content-type': 'text/csv' }, undefined, 'name,team\r\nimp-1,red\r\nimp-2,red\r\n');
    expect(imported.status, JSON.stringify(imported.body)).to.equal(200);
    const one = await admin.waitFor((e) => e.event === 'insert' && (e.data.row as { name?: string }).name === 'imp-1');
    const two = await admin.waitFor((e) => e.event === 'insert' && (e.data.row as { name?: string }).name === 'imp-2');
    expect(one.id).to.equal(two.id);
  });

  it('property: no viewer ever receives a value their table query would not show them', async () => {
    const viewers = ['alice', 'bob'] as const;
    const streams = { alice: await stream('alice'), bob: await stream('bob') };
    // Opened last, so when it has an event the viewers' events of that message are already sent.
    const admin = await stream('admin');
    // Each stream's opening `ready` is in before counting starts.
    for (const s of [streams.alice, streams.bob, admin]) await s.waitFor((e) => e.event === 'ready');
    const tableOf = async (who: Who) => {
      const res = await post(who, '/data/table/Item', { size: 200 });
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      return new Map((res.body.rows as Array<Record<string, unknown>>).map((r) => [r.id as number, r]));
    };
    const ids: number[] = [];
    const op = fc.oneof(
      fc.record({ kind: fc.constant('add' as const), team: fc.constantFrom('red', 'blue'), note: fc.string({ maxLength: 6 }) }),
      fc.record({ kind: fc.constant('edit' as const), pick: fc.nat(), field: fc.constantFrom('team', 'note', 'name'), value: fc.string({ minLength: 1, maxLength: 6 }) }),
      fc.record({ kind: fc.constant('delete' as const), pick: fc.nat() }),
    );
    let secretNo = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 5 }), async (ops) => {
        for (const step of ops) {
          const before = { alice: await tableOf('alice'), bob: await tableOf('bob') };
          const seen = { alice: streams.alice.events.length, bob: streams.bob.events.length };
          const adminSeen = admin.events.length;
          if (step.kind === 'add') {
            secretNo += 1;
            ids.push(await add('admin', { name: `p${secretNo}`, team: step.team, note: step.note, pin: `pin-secret-${secretNo}` }));
          } else if (ids.length === 0) continue;
          else if (step.kind === 'edit') {
            const id = ids[step.pick % ids.length]!;
            const value = step.field === 'team' ? (before.bob.has(id) ? 'red' : 'blue') : `${step.value}-${Date.now() % 100000}`;
            expect((await post('admin', '/data/modify/Item/update-cell', { id, field: step.field, value })).status).to.equal(200);
          } else {
            const [id] = ids.splice(step.pick % ids.length, 1);
            expect((await post('admin', '/data/modify/Item/delete', { ids: [id] })).status).to.equal(200);
          }
          await admin.waitFor((e) => admin.events.indexOf(e) >= adminSeen);
          await quiet();
          for (const who of viewers) {
            const now = await tableOf(who);
            for (const event of streams[who].events.slice(seen[who])) {
              if (event.event === 'ready') continue;
              if (event.event === 'delete') {
                for (const id of event.data.ids as number[]) expect(before[who].has(id), `${who} told of a delete of ${id} they could not see`).to.equal(true);
                continue;
              }
              const id = event.data.id as number;
              const row = now.get(id);
              expect(row, `${who} got ${event.event} of row ${id} their table does not show`).to.not.equal(undefined);
              const values = (event.event === 'insert' ? event.data.row : event.data.values) as Record<string, unknown>;
              for (const [field, value] of Object.entries(values)) expect(value, `${who}: ${field} of ${id}`).to.deep.equal(row![field]);
            }
            expect(streams[who].text()).to.not.include('pin-secret');
          }
        }
      }),
      { numRuns: 6 },
    );
  });
});
