// Red-team probes of the page anchors (page-anchors.ts): a deep page by number placed by an
// anchor must hold the rows OFFSET gives, whatever the value types in the sort (text under a
// case-insensitive collation, times with milliseconds, decimals, NULLs), the key, the page's
// place (one step deep, one row either side, the last page, past the end), and whatever Fw
// wrote since the anchors were read (its own logs included).
import { expect } from 'chai';
import { BUILTIN_MODELS, createRegistry, defineModel, type ModelDefinition } from '@fw/core';
import { createStore, type FwStore } from '@fw/store';
import { describeEachSql } from '@fw/test-utils';
import { MIN_ANCHOR_STEP, PageAnchors } from './read/page-anchors.js';
import { conditionsKey } from './read/counts.js';
import { DataService } from './service.js';
import type { TablePage } from './service-types.js';
import { setupData, type DataFixture } from './test-setup.js';

/** Every kind of value a sort key may hold, with many ties and NULLs; sorted by amount by default. */
const Probe = defineModel({
  name: 'ArProbe',
  table: 'ar_probe',
  orderBy: [{ field: 'amount', order: 'desc' }],
  fields: { title: {}, at: { edit: { type: 'DATETIME' } }, amount: { edit: { type: 'NUMBER' } }, day: { edit: { type: 'DATE' } } },
});

/** A model keyed by text. */
const Coded = defineModel({
  name: 'ArCoded',
  table: 'ar_coded',
  primaryKey: 'code',
  fields: { code: { edit: { notNull: true, integer: false } }, label: {} },
});

describe('page anchors red team: keys of long conditions', () => {
  it('keeps a short key for conditions as long as a request body allows, one per distinct set of values', () => {
    const long = 'x'.repeat(1_000_000);
    const key = conditionsKey([{ field: 'title', op: 'ne', value: long }]);
    // Hundreds are kept (cached counts, anchor sets, reads asked): never the conditions themselves.
    expect(key.length).to.be.below(100);
    expect(conditionsKey([{ field: 'title', op: 'ne', value: `${long}y` }])).to.not.equal(key);
    expect(conditionsKey([{ field: 'title', op: 'ne', value: long }])).to.equal(key);
  });
});

describe('page anchors red team: reads asked under ever new conditions', () => {
  it('keeps the database reading anchors a tenth of the time at most, whatever the keys', async () => {
    const clock = { now: 1_000_000 };
    const start = clock.now;
    const anchors = new PageAnchors(() => clock.now);
    let reading = 0;
    // Each read takes a second of the database's time.
    const read = async () => {
      reading += 1000;
      clock.now += 1000;
      return [[1]];
    };
    // A new condition on every request, ten a second for ten minutes: each its own key.
    for (let i = 0; i < 6000; i++) {
      anchors.want(`k${i}`, MIN_ANCHOR_STEP, 1_000_000, 0, () => 0, read);
      await anchors.settled();
      clock.now += 100;
    }
    const elapsed = clock.now - start;
    // A tenth of the time, a first burst of a few seconds and the read under way.
    expect(reading).to.be.at.most(elapsed / 10 + 6000);
    expect(reading, 'reads still happen').to.be.at.least(elapsed / 20);
  });
});

const ROWS = 2300;
// Ties under a case- and accent-insensitive collation (MariaDB), trailing spaces (PAD SPACE), an
// empty text and NULLs.
const TITLES = ['a', 'A', 'á', 'Á', 'a ', 'b', 'B', '', null, 'ß', 'ss', 'z\u0301', 'ź'];

type Order = 'asc' | 'desc';

describeEachSql('page anchors red team: deep pages by number hold the rows OFFSET gives', (db) => {
  let store: FwStore;
  let service: DataService;
  const registry = createRegistry([...BUILTIN_MODELS, Probe, Coded]);
  const admin = { user: { id: 1, account: 'admin', isAdmin: true }, ip: null, source: 'http' as const };

  const serviceOn = (s: FwStore) => {
    const made = new DataService({ store: s, registry });
    (made as unknown as { power: () => Promise<Record<string, boolean>> }).power = async () => ({ query: true, add: true, edit: true, cellEdit: true, delete: true, viewDetails: true });
    return made;
  };

  before(async function () {
    this.timeout(120_000);
    store = createStore(db().url);
    await store.migrate.latest();
    await store.createModelTables(registry.list());
    service = serviceOn(store);
    const base = Date.UTC(2024, 0, 1, 12, 0, 0, 0);
    const rows = Array.from({ length: ROWS }, (_, i) => ({
      title: TITLES[(i * 7) % TITLES.length],
      // Milliseconds apart, many ties, some NULLs.
      at: i % 19 === 0 ? null : new Date(base + ((i * 31) % 97)),
      amount: i % 23 === 0 ? null : ((i * 13) % 41) / 8 - 2,
      day: i % 29 === 0 ? null : `2024-02-${String(1 + (i % 27)).padStart(2, '0')}`,
    }));
    for (let i = 0; i < rows.length; i += 200) await store.knex('ar_probe').insert(rows.slice(i, i + 200));
    const coded = Array.from({ length: 1500 }, (_, i) => ({ code: `k${((i * 7919) % 1500).toString(36)}`, label: i % 5 === 0 ? null : `L${i % 37}` }));
    for (let i = 0; i < coded.length; i += 250) await store.knex('ar_coded').insert(coded.slice(i, i + 250));
  });
  after(() => store?.destroy());

  /** The primary keys OFFSET gives for `order` (columns), then the key the way the last column runs. */
  const byOffset = async (model: ModelDefinition, order: Array<[string, Order]>, offset: number, limit: number): Promise<string[]> => {
    const pk = model.fields[model.primaryKey]!.column;
    const qb = store.knex(model.table).select(pk);
    for (const [column, direction] of order) qb.orderBy(column, direction);
    qb.orderBy(pk, order.at(-1)?.[1] ?? 'asc');
    const rows: Array<Record<string, unknown>> = await qb.offset(offset).limit(limit);
    return rows.map((r) => String(r[pk]));
  };
  const keys = (model: ModelDefinition, page: TablePage) => page.rows.map((r) => String(r[model.primaryKey]));

  /** Asks for a page twice (by OFFSET, then once the anchors are read); both must be what OFFSET gives. */
  const deep = async (model: ModelDefinition, order: Array<[string, Order]>, body: { page: number; size: number; sort?: unknown }) => {
    const want = await byOffset(model, order, (body.page - 1) * body.size, body.size);
    expect(keys(model, await service.query(model.name, admin, body)), `by offset: ${JSON.stringify(body)}`).to.deep.equal(want);
    await service.settled();
    const placed = service.anchoredPages;
    const again = await service.query(model.name, admin, body);
    expect(keys(model, again), `by anchor: ${JSON.stringify(body)}`).to.deep.equal(want);
    return { placed: service.anchoredPages - placed, page: again };
  };

  it('places pages one step deep and one row either side, at size 1 and the largest size, for each kind of sort value', async function () {
    this.timeout(120_000);
    const sorts: Array<{ field: string; column: string }> = [
      { field: 'title', column: 'title' },
      { field: 'at', column: 'at' },
      { field: 'amount', column: 'amount' },
      { field: 'day', column: 'day' },
    ];
    let placed = 0;
    for (const { field, column } of sorts) {
      for (const order of ['asc', 'desc'] as const) {
        const sort = [{ field, order }];
        const by: Array<[string, Order]> = [[column, order]];
        // Size 1: offsets 999, 1000 and 1001 (pages 1000-1002).
        for (const page of [MIN_ANCHOR_STEP, MIN_ANCHOR_STEP + 1, MIN_ANCHOR_STEP + 2]) placed += (await deep(Probe, by, { page, size: 1, sort })).placed;
        // Size 200: one step deep, the last page (2200-2299), past the end.
        for (const page of [6, 12, 13]) placed += (await deep(Probe, by, { page, size: 200, sort })).placed;
      }
    }
    expect(placed, 'pages placed by an anchor').to.be.greaterThan(0);
  });

  it('places pages of a model sorted by default (orderBy) and of a text-keyed model', async function () {
    this.timeout(60_000);
    const byDefault = await deep(Probe, [['amount', 'desc']], { page: 11, size: 100 });
    expect(byDefault.placed).to.equal(1);
    // Two fields, mixed directions; one field twice; the key first.
    const mixed: Array<[string, Order]> = [
      ['amount', 'desc'],
      ['title', 'asc'],
    ];
    expect((await deep(Probe, mixed, { page: 1201, size: 1, sort: mixed.map(([field, order]) => ({ field, order })) })).placed).to.equal(1);
    const twice: Array<[string, Order]> = [
      ['title', 'asc'],
      ['title', 'desc'],
    ];
    expect((await deep(Probe, twice, { page: 1501, size: 1, sort: twice.map(([field, order]) => ({ field, order })) })).placed).to.equal(1);
    expect((await deep(Probe, [['id', 'desc'], ['at', 'asc']], { page: 1301, size: 1, sort: [{ field: 'id', order: 'desc' }, { field: 'at', order: 'asc' }] })).placed).to.equal(1);
    for (const order of ['asc', 'desc'] as const) {
      expect((await deep(Coded, [['label', order]], { page: 1101, size: 1, sort: [{ field: 'label', order }] })).placed).to.equal(1);
      expect((await deep(Coded, [['code', order]], { page: 51, size: 20, sort: [{ field: 'code', order }] })).placed, 'by the text key itself').to.equal(1);
    }
  });

  it('answers the deepest page an empty page and one past it a 400, never a 500', async () => {
    const page = await service.query('ArProbe', admin, { page: 1_000_000, size: 200 });
    expect(page.rows).to.deep.equal([]);
    let status: unknown;
    await service.query('ArProbe', admin, { page: 1_000_001, size: 200 }).catch((error: { status?: unknown }) => (status = error.status));
    expect(status).to.equal(400);
  });

  it("moves the operation log's deep pages at once when Fw itself logs an operation", async function () {
    this.timeout(60_000);
    // Older entries than any Fw writes now, so that each new one sorts first (newest first).
    const old = Date.UTC(2020, 0, 1);
    const entries = Array.from({ length: 1300 }, (_, i) => ({ user_id: 1, account: 'admin', model: 'ArProbe', action: 'add', source: 'http', status: 'success', created_at: new Date(old + i * 1000), duration_ms: 1 }));
    for (let i = 0; i < entries.length; i += 200) await store.knex('fw_operate_log').insert(entries.slice(i, i + 200));
    const order: Array<[string, Order]> = [
      ['created_at', 'desc'],
      ['id', 'desc'],
    ];
    const body = { page: 51, size: 20 };
    expect((await deep(registry.get('FwOperateLog')!, order, body)).placed).to.equal(1);
    // A write through Fw logs one operation: the newest row, first in the order.
    await service.add('ArProbe', admin, { title: 'logged', amount: 1 });
    const want = await byOffset(registry.get('FwOperateLog')!, order, 1000, 20);
    expect(keys(registry.get('FwOperateLog')!, await service.query('FwOperateLog', admin, body)), 'after Fw logged an operation').to.deep.equal(want);
  });

  it("moves the login log's deep pages at once when Fw records a sign-in", async function () {
    this.timeout(60_000);
    const old = Date.UTC(2020, 0, 1);
    const entries = Array.from({ length: 1300 }, (_, i) => ({ user_id: 1, account: 'admin', login_time: new Date(old + i * 1000), success: true, method: 'password' }));
    for (let i = 0; i < entries.length; i += 200) await store.knex('fw_login_log').insert(entries.slice(i, i + 200));
    const model = registry.get('FwLoginLog')!;
    const order: Array<[string, Order]> = [
      ['login_time', 'desc'],
      ['id', 'desc'],
    ];
    const body = { page: 51, size: 20 };
    await deep(model, order, body);
    // A sign-in, recorded the way @fw/login records it.
    await store.loginLogs.insert({ userId: 1, account: 'admin', ip: '127.0.0.1', userAgent: 'test', method: 'password' });
    const want = await byOffset(model, order, 1000, 20);
    expect(keys(model, await service.query('FwLoginLog', admin, body)), 'after a sign-in').to.deep.equal(want);
  });

  it('moves deep pages at once when Fw writes through another data service on the same store (an MCP server given its own DataService)', async function () {
    this.timeout(60_000);
    const other = serviceOn(store);
    const by: Array<[string, Order]> = [['day', 'asc']];
    const body = { page: 13, size: 100, sort: [{ field: 'day', order: 'asc' }] };
    // The anchors of this order were read in an earlier test: read again a second on at the soonest.
    await new Promise((resolve) => setTimeout(resolve, 1050));
    expect((await deep(Probe, by, body)).placed).to.equal(1);
    // A row that sorts first, added through the other service: every row of the page moves down one.
    await other.add('ArProbe', admin, { title: 'elsewhere', day: '2000-01-01' });
    expect(keys(Probe, await service.query('ArProbe', admin, body)), 'after a write through the other service').to.deep.equal(await byOffset(Probe, by, 1200, 100));
  });

  it('survives its store closing while anchors are being read', async function () {
    this.timeout(60_000);
    if (db().url.includes(':memory:')) return this.skip();
    const second = createStore(db().url);
    const closing = serviceOn(second);
    await closing.query('ArProbe', admin, { page: 7, size: 200, sort: [{ field: 'title', order: 'desc' }] });
    // The read starts on the next turn of the event loop: the store is gone by then.
    await second.destroy();
    await closing.settled();
    expect(closing.anchoredPages).to.equal(0);
  });
});

describeEachSql('page anchors red team over HTTP: row visibility and the operation log', (db) => {
  let f: DataFixture;
  const api = '/fw-api/data/table';
  const table = async (user: 'admin' | 'alice' | 'bob', model: string, body: Record<string, unknown>) => f.agent.post(`${api}/${model}`).set('token', await f.token(user)).send(body);

  before(async function () {
    this.timeout(60_000);
    f = await setupData(db().url);
    // Alice's notes are out of Bob's sight (Note.beforeFetch: ownerId = user.id); many ties in subject.
    const notes = Array.from({ length: 2600 }, (_, i) => ({ subject: `s${i % 50}`, ownerId: i % 3 === 0 ? f.users.bob.id : f.users.alice.id }));
    for (let i = 0; i < notes.length; i += 200) await f.store.knex('t_note').insert(notes.slice(i, i + 200));
  });
  after(() => f?.destroy());

  const subjects = async (owner: number | undefined, offset: number, limit: number) => {
    const qb = f.store.knex('t_note').select('id');
    if (owner !== undefined) qb.where('ownerId', owner);
    const rows: Array<{ id: unknown }> = await qb.orderBy('subject', 'desc').orderBy('id', 'desc').offset(offset).limit(limit);
    return rows.map((r) => Number(r.id));
  };

  it("never places one user's page by another's anchors: each sees what OFFSET over their own rows gives", async function () {
    this.timeout(60_000);
    const sort = [{ field: 'subject', order: 'desc' }];
    const ids = (res: { body: { rows: Array<{ id: unknown }> } }) => res.body.rows.map((r) => Number(r.id));
    for (const page of [11, 12, 9]) {
      const body = { size: 100, sort, page, count: 'auto' };
      // The administrator's anchors (every row) are read first.
      await table('admin', 'Note', body);
      await f.data.service.settled();
      const ofAdmin = await table('admin', 'Note', body);
      expect(ids(ofAdmin), `admin, page ${page}`).to.deep.equal(await subjects(undefined, (page - 1) * 100, 100));
      const ofBob = await table('bob', 'Note', body);
      expect(ofBob.status).to.equal(200);
      expect(ids(ofBob), `bob, page ${page}`).to.deep.equal(await subjects(f.users.bob.id, (page - 1) * 100, 100));
      // Bob's total is a count of his own rows (about 867), never the administrator's 2600.
      expect(ofBob.body.total).to.be.below(1000);
      await f.data.service.settled();
      expect(ids(await table('bob', 'Note', body)), `bob by his own anchors, page ${page}`).to.deep.equal(await subjects(f.users.bob.id, (page - 1) * 100, 100));
    }
  });

  it('answers page numbers past the limit with 400 at path page', async () => {
    for (const page of [1_000_001, 2 ** 31, 2 ** 53, '99999999999999999999', 1e21, -1, 0, 1.5]) {
      const res = await table('admin', 'Note', { page, size: 200 });
      expect(res.status, String(page)).to.equal(400);
      expect(res.body.error.details[0].path).to.equal('page');
    }
    const deepest = await table('admin', 'Note', { page: 1_000_000, size: 200, sort: [{ field: 'subject', order: 'desc' }] });
    expect(deepest.status).to.equal(200);
    expect(deepest.body.rows).to.deep.equal([]);
  });

  it("moves the operation log's deep pages when another user's write is logged, refused ones included", async function () {
    this.timeout(60_000);
    const old = Date.UTC(2020, 0, 1);
    const entries = Array.from({ length: 1300 }, (_, i) => ({ user_id: 1, account: 'x', model: 'Note', action: 'add', source: 'http', status: 'success', created_at: new Date(old + i * 1000), duration_ms: 1 }));
    for (let i = 0; i < entries.length; i += 200) await f.store.knex('fw_operate_log').insert(entries.slice(i, i + 200));
    const logIds = async () => {
      const rows: Array<{ id: unknown }> = await f.store.knex('fw_operate_log').select('id').orderBy('created_at', 'desc').orderBy('id', 'desc').offset(1000).limit(20);
      return rows.map((r) => Number(r.id));
    };
    const body = { page: 51, size: 20 };
    const ids = (res: { body: { rows: Array<{ id: unknown }> } }) => res.body.rows.map((r) => Number(r.id));
    await table('admin', 'FwOperateLog', body);
    await f.data.service.settled();
    expect(ids(await table('admin', 'FwOperateLog', body))).to.deep.equal(await logIds());
    // Alice's add refused by validation (no subject) is logged as a failure.
    const refused = await f.agent.post('/fw-api/data/modify/Note').set('token', await f.token('alice')).send({ subject: '' });
    expect(refused.status).to.be.within(400, 499);
    expect(ids(await table('admin', 'FwOperateLog', body)), 'after a logged failure').to.deep.equal(await logIds());
  });

  it("keeps the users' pages by number exact when @fw/login changes a password (outside the data service)", async function () {
    this.timeout(60_000);
    const [template] = (await f.store.knex('fw_user').where('id', f.users.carol.id).select('*')) as Array<Record<string, unknown>>;
    const old = Date.UTC(2020, 0, 1);
    const users = Array.from({ length: 1200 }, (_, i) => {
      const { id: _id, ...rest } = template!;
      return { ...rest, account: `bulk-${i}`, name: `bulk ${i}`, reset_pwd_time: new Date(old + i * 1000) };
    });
    for (let i = 0; i < users.length; i += 100) await f.store.knex('fw_user').insert(users.slice(i, i + 100));
    const sort = [{ field: 'resetPwdTime', order: 'desc' }];
    const body = { page: 51, size: 20, sort };
    const want = async () => {
      const rows: Array<{ id: unknown }> = await f.store.knex('fw_user').select('id').orderBy('reset_pwd_time', 'desc').orderBy('id', 'desc').offset(1000).limit(20);
      return rows.map((r) => Number(r.id));
    };
    const ids = (res: { body: { rows: Array<{ id: unknown }> } }) => res.body.rows.map((r) => Number(r.id));
    await table('admin', 'FwUser', body);
    await f.data.service.settled();
    const primed = await table('admin', 'FwUser', body);
    expect(primed.status, JSON.stringify(primed.body).slice(0, 300)).to.equal(200);
    expect(ids(primed)).to.deep.equal(await want());
    // What @fw/login's password change does: the user's resetPwdTime becomes now, first in this order.
    // The oldest bulk user (last in this order) moves to the front: every row between moves one place.
    const oldest = Number((await f.store.knex('fw_user').where('account', 'bulk-0').first('id')).id);
    await f.store.users.setPassword(oldest, 'another-password-2');
    expect(ids(await table('admin', 'FwUser', body)), 'after a password change').to.deep.equal(await want());
  });
});

// Row visibility whose values print the same in JSON but bind differently: a Date and its ISO text
// on a text field (each driver writes a Date its own way: a local time, or milliseconds on SQLite).
const STAMP = new Date(Date.UTC(2024, 0, 1));
const Typed = defineModel({
  name: 'ArTyped',
  table: 'ar_typed',
  fields: { title: {} },
  dataProxy: { beforeFetch: ({ user }) => [{ field: 'title', op: 'gte', value: user.id === 1 ? STAMP : STAMP.toISOString() }] },
});

describeEachSql('page anchors red team: visibility values that print alike in JSON', (db) => {
  let store: FwStore;
  let service: DataService;
  const actor = (id: number) => ({ user: { id, account: `u${id}`, isAdmin: false }, ip: null, source: 'http' as const });

  before(async function () {
    this.timeout(60_000);
    store = createStore(db().url);
    await store.migrate.latest();
    await store.createModelTables([Typed]);
    service = new DataService({ store, registry: createRegistry([Typed]), limits: { exactCountLimit: 100 } });
    (service as unknown as { power: () => Promise<Record<string, boolean>> }).power = async () => ({ query: true });
    // Past the Date as each driver writes it, before the ISO text (user 1 only); and past both.
    const rows = Array.from({ length: 3000 }, (_, i) => ({ title: i % 2 === 0 ? '2024-01-01T00:00:00.000A' : '3000' }));
    for (let i = 0; i < rows.length; i += 250) await store.knex('ar_typed').insert(rows.slice(i, i + 250));
  });
  after(() => store?.destroy());

  const ofUser2 = async (offset: number, limit: number) => {
    const rows: Array<{ id: unknown }> = await store.knex('ar_typed').select('id').where('title', '3000').orderBy('id').offset(offset).limit(limit);
    return rows.map((r) => Number(r.id));
  };
  const ids = (p: TablePage) => p.rows.map((r) => Number(r.id));

  it("places user 2's pages by user 2's rows, not by anchors read over user 1's", async function () {
    this.timeout(60_000);
    const body = { page: 12, size: 100, count: 'none' };
    expect((await service.query('ArTyped', actor(1), body)).rows.length, 'user 1 sees more').to.equal(100);
    await service.settled();
    expect(ids(await service.query('ArTyped', actor(2), body))).to.deep.equal(await ofUser2(1100, 100));
  });

  it("never answers user 2 with user 1's count, exact or cached", async function () {
    this.timeout(60_000);
    const [one, two] = await Promise.all([service.query('ArTyped', actor(1), { size: 1, count: 'exact' }), service.query('ArTyped', actor(2), { size: 1, count: 'exact' })]);
    expect(one.total).to.equal(3000);
    expect(two.total).to.equal(1500);
    await service.settled();
    const cached = await service.query('ArTyped', actor(2), { size: 1 });
    expect(cached.total, 'an estimate of its own rows').to.equal(1500);
  });
});

describeEachSql('page anchors red team: a flood of count: exact', (db) => {
  let store: FwStore;
  let service: DataService;
  const Flood = defineModel({ name: 'ArFlood', table: 'ar_flood', fields: { n: { edit: { type: 'NUMBER', integer: true } } } });
  const admin = { user: { id: 1, account: 'admin', isAdmin: true }, ip: null, source: 'http' as const };

  before(async function () {
    this.timeout(60_000);
    store = createStore(db().url);
    await store.migrate.latest();
    await store.createModelTables([Flood]);
    service = new DataService({ store, registry: createRegistry([Flood]), limits: { exactCountLimit: 20 } });
    (service as unknown as { power: () => Promise<Record<string, boolean>> }).power = async () => ({ query: true });
    const rows = Array.from({ length: 3000 }, (_, i) => ({ n: i }));
    for (let i = 0; i < rows.length; i += 250) await store.knex('ar_flood').insert(rows.slice(i, i + 250));
  });
  after(() => store?.destroy());

  it('runs few full counts at once and never answers a wrong exact total', async function () {
    this.timeout(60_000);
    // Full counts through knex (PostgreSQL, MariaDB; SQLite counts on its worker thread).
    let running = 0;
    let most = 0;
    const full = new Set<unknown>();
    const started = (q: { sql?: string; __knexQueryUid?: unknown }) => {
      if (!/count\(\*\)/i.test(q.sql ?? '') || /fw_bounded/.test(q.sql ?? '')) return;
      full.add(q.__knexQueryUid);
      most = Math.max(most, ++running);
    };
    const ended = (_: unknown, q: { __knexQueryUid?: unknown }) => {
      if (full.delete(q.__knexQueryUid)) running--;
    };
    store.knex.on('query', started).on('query-response', ended).on('query-error', ended);
    try {
      const asked = Array.from({ length: 24 }, (_, i) => ({ size: 5, count: 'exact', conditions: [{ field: 'n', op: 'gte', value: i % 12 }] }));
      const pages = await Promise.all(asked.map((body) => service.query('ArFlood', admin, body)));
      pages.forEach((page, i) => {
        const truth = 3000 - (i % 12);
        if (!page.totalIsEstimate) expect(page.total, `request ${i}`).to.equal(truth);
        else expect(page.total, `request ${i}, an estimate`).to.be.at.least(21);
      });
      await service.settled();
      // Two exact counts and two background counts at most.
      expect(most).to.be.at.most(4);
      if (!db().url.startsWith('sqlite')) expect(most, 'full counts seen').to.be.greaterThan(0);
    } finally {
      store.knex.off('query', started).off('query-response', ended).off('query-error', ended);
    }
  });
});

describe('page anchors red team: an in-memory SQLite database (no count worker)', () => {
  let store: FwStore;
  let service: DataService;
  const admin = { user: { id: 1, account: 'admin', isAdmin: true }, ip: null, source: 'http' as const };

  before(async function () {
    this.timeout(60_000);
    store = createStore('sqlite::memory:');
    await store.migrate.latest();
    await store.createModelTables([Probe]);
    service = new DataService({ store, registry: createRegistry([Probe]) });
    (service as unknown as { power: () => Promise<Record<string, boolean>> }).power = async () => ({ query: true, add: true });
    const rows = Array.from({ length: 2300 }, (_, i) => ({ title: TITLES[(i * 7) % TITLES.length], amount: i % 23 === 0 ? null : ((i * 13) % 41) / 8 - 2 }));
    for (let i = 0; i < rows.length; i += 200) await store.knex('ar_probe').insert(rows.slice(i, i + 200));
  });
  after(() => store?.destroy());

  it('keeps OFFSET for deep pages (no worker thread to read anchors on), with the right rows', async function () {
    this.timeout(60_000);
    const want = async (offset: number) => {
      const rows: Array<{ id: unknown }> = await store.knex('ar_probe').select('id').orderBy('title', 'desc').orderBy('id', 'desc').offset(offset).limit(50);
      return rows.map((r) => Number(r.id));
    };
    const ids = (p: TablePage) => p.rows.map((r) => Number(r.id));
    const body = { page: 31, size: 50, sort: [{ field: 'title', order: 'desc' }] };
    expect(ids(await service.query('ArProbe', admin, body))).to.deep.equal(await want(1500));
    await service.settled();
    const placed = service.anchoredPages;
    expect(ids(await service.query('ArProbe', admin, body))).to.deep.equal(await want(1500));
    expect(service.anchoredPages, 'no anchors read on the main thread').to.equal(placed);
    await service.add('ArProbe', admin, { title: 'zzz' });
    expect(ids(await service.query('ArProbe', admin, body)), 'after a write').to.deep.equal(await want(1500));
  });
});
