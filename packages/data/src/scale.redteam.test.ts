// Red-team probes of issue 21's server surface (cursors, counts) through a real Koa app: bad input
// is a 400 with a path, never a 500; a total is never a wrong exact number; a cursor never shows
// a row (or a fact about one) the user cannot see.
import { expect } from 'chai';
import Koa from 'koa';
import request from 'supertest';
import { BUILTIN_MODELS, createRegistry, defineModel, type DataHookContext, type FwUser } from '@fw/core';
import { createStore, type FwStore } from '@fw/store';
import { describeEachSql } from '@fw/test-utils';
import { FwTokenService, MemoryTokenStore } from '@fw/token';
import { fwData } from './http/router.js';
import { setupData, type DataFixture } from './test-setup.js';

const api = '/fw-api';
const open = (cursor: string) => JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as [number, string, unknown[]];
const seal = (value: unknown) => Buffer.from(JSON.stringify(value), 'utf8').toString('base64url');

/** A model keyed by text, not by an auto-increment id. */
const Code = defineModel({
  name: 'RtCode',
  table: 'rt_code',
  primaryKey: 'code',
  fields: { code: { edit: { notNull: true, integer: false } }, label: {} },
});

/** Imported by multi-row INSERTs (no hooks, grants or collections). */
const Item = defineModel({ name: 'RtItem', table: 'rt_item', power: { importable: true }, fields: { name: { views: { title: 'Name' } } } });

/** Every kind of value a cursor carries. */
const Mixed = defineModel({
  name: 'RtMixed',
  table: 'rt_mixed',
  fields: { price: { edit: { type: 'NUMBER' } }, qty: { edit: { type: 'NUMBER', integer: true } }, at: { edit: { type: 'DATETIME' } }, day: { edit: { type: 'DATE' } }, flag: { edit: { type: 'BOOLEAN' } }, name: {} },
});

/** Whole numbers with declared ranges: one open above (an int column all the same), one closed. */
const Ranged = defineModel({
  name: 'RtRanged',
  table: 'rt_ranged',
  fields: { low: { edit: { type: 'NUMBER', integer: true }, rules: [{ type: 'range', min: 0 }] }, small: { edit: { type: 'NUMBER', integer: true }, rules: [{ type: 'range', min: 0, max: 10 }] } },
});

/** Rows visible to their owner only (user `owner`); administrators see all. */
const Memo = defineModel({
  name: 'RtMemo',
  table: 'rt_memo',
  fields: { subject: {}, owner: { edit: { type: 'NUMBER', integer: true } } },
  dataProxy: { beforeFetch: ({ user }: DataHookContext) => (user.isAdmin ? [] : [{ field: 'owner', op: 'eq', value: user.id }]) },
});

describeEachSql('issue 21 red team: cursors and counts over HTTP', (db) => {
  let store: FwStore;
  let tokens: FwTokenService;
  let admin: FwUser;
  const registry = createRegistry([...BUILTIN_MODELS, Code, Memo, Item, Mixed, Ranged]);

  before(async () => {
    store = createStore(db().url);
    await store.migrate.latest();
    await store.createModelTables(registry.list());
    const make = async (account: string, isAdmin: boolean): Promise<FwUser> => {
      const row = await store.users.create({ account: `${account}-${Date.now().toString(36)}`, name: account, password: 'x-password-1', isAdmin, mustChangePassword: false });
      return { id: row.id, account: row.account, name: row.name, isAdmin };
    };
    admin = await make('admin', true);
    tokens = new FwTokenService({ store: new MemoryTokenStore() });
  });
  after(() => store?.destroy());

  function setup(limits = { exactCountLimit: 3 }) {
    const app = new Koa();
    app.silent = true;
    app.use(fwData({ store, tokens, registry, limits, onBackgroundError: (e) => { throw e; } }));
    const agent = request(app.callback());
    const tokenOf = async (user: FwUser) => (await tokens.loginToken(user, tokens.generateToken())).token;
    return { agent, tokenOf };
  }

  it('never answers a text-keyed model with a wrong exact total (count: exact beyond the bounded count)', async () => {
    await store.knex('rt_code').insert(Array.from({ length: 8 }, (_, i) => ({ code: `c${i}`, label: `L${i}` })));
    const { agent, tokenOf } = setup();
    const token = await tokenOf(admin);
    for (const count of ['exact', 'auto', 'none']) {
      const res = await agent.post(`${api}/data/table/RtCode`).set('token', token).send({ size: 2, count });
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      if (!res.body.totalIsEstimate) expect(res.body.total, `count: ${count}`).to.equal(8);
    }
  });

  it('answers extreme and odd cursor values with 200 or a 400 at the cursor, never a 500', async () => {
    const { agent, tokenOf } = setup();
    const token = await tokenOf(admin);
    const { toDbValues } = await import('@fw/row-patch');
    for (let i = 0; i < 3; i++) await store.knex('rt_mixed').insert(toDbValues(Mixed, { price: i + 0.5, qty: i, at: `2024-01-0${i + 1}T00:00:00.000Z`, day: `2024-01-0${i + 1}`, flag: i % 2 === 0, name: `n${i}` }));
    const values: Record<string, unknown[]> = {
      price: ['NaN', 'Infinity', '-Infinity', '9'.repeat(40), `-${'9'.repeat(40)}.${'9'.repeat(40)}`, 1e308, -0, '1e5', ' 1', '0x10', [], {}, true],
      qty: [2147483647, -2147483648, 2147483648, 1e300, -0, 0.5, '1', null],
      at: ['0001-01-01T00:00:00.000Z', '9999-12-31T23:59:59.999Z', '2024-01-01T00:00:00+14:00', '2024-01-01T00:00:00-14:00', '+275760-09-13T00:00:00.000Z', '2024-13-01T00:00:00Z', '2024-01-01', '2024-01-01T24:00:00Z', 'Invalid Date', 0, null],
      day: ['0001-01-01', '9999-12-31', '10000-01-01', '2024-1-1', '2024-01-01T00:00:00Z', '0000-01-01', null],
      flag: [true, false, null, 'true', 0],
      name: ['', ' ', '\uffff', '😀', 'x'.repeat(1000), '\ud83d', null, '__proto__', 'constructor'],
    };
    for (const [field, list] of Object.entries(values)) {
      for (const order of ['asc', 'desc']) {
        const sort = [{ field, order }];
        const good = (await agent.post(`${api}/data/table/RtMixed`).set('token', token).send({ size: 1, sort }).expect(200)).body.cursors.next as string;
        const [format, hash] = open(good);
        for (const value of list) {
          for (const direction of ['after', 'before']) {
            const res = await agent.post(`${api}/data/table/RtMixed`).set('token', token).send({ size: 2, sort, [direction]: seal([format, hash, [value, 1]]) });
            expect([200, 400], `${field} ${order} ${direction} ${JSON.stringify(value)}: ${res.status} ${JSON.stringify(res.body)}`).to.include(res.status);
            if (res.status === 400) expect(res.body.error.details[0].path).to.equal(direction);
          }
        }
      }
    }
  });

  it('takes back every cursor it hands out, and bounds whole numbers by what the column holds', async () => {
    const { agent, tokenOf } = setup();
    const token = await tokenOf(admin);
    // Rows written by another program (or before the rule): values outside the declared range.
    await store.knex('rt_ranged').insert([5, 50, 500, 7].map((v) => ({ low: v, small: v })));
    const [format, hash] = open((await agent.post(`${api}/data/table/RtRanged`).set('token', token).send({ size: 1, sort: [{ field: 'low', order: 'asc' }] }).expect(200)).body.cursors.next);
    for (const low of [2 ** 31, 1e12, -(2 ** 31) - 1]) {
      const res = await agent.post(`${api}/data/table/RtRanged`).set('token', token).send({ size: 1, sort: [{ field: 'low', order: 'asc' }], after: seal([format, hash, [low, 1]]) });
      expect([200, 400], `low ${low}: ${res.status} ${JSON.stringify(res.body)}`).to.include(res.status);
    }
    const sort = [{ field: 'small', order: 'asc' }];
    const seen: number[] = [];
    let page = (await agent.post(`${api}/data/table/RtRanged`).set('token', token).send({ size: 1, sort }).expect(200)).body;
    for (let i = 0; i < 10; i++) {
      seen.push(...page.rows.map((r: { small: number }) => r.small));
      if (page.cursors.next === null) break;
      const res = await agent.post(`${api}/data/table/RtRanged`).set('token', token).send({ size: 1, sort, after: page.cursors.next });
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      page = res.body;
    }
    expect(seen).to.deep.equal([5, 7, 50, 500]);
  });

  it('answers a condition value past an int column with 400 at its path, a range open above notwithstanding', async () => {
    const { agent, tokenOf } = setup();
    const token = await tokenOf(admin);
    for (const value of [2 ** 31, 1e12]) {
      const res = await agent.post(`${api}/data/table/RtRanged`).set('token', token).send({ conditions: [{ field: 'low', op: 'gt', value }] });
      expect(res.status, `${value}: ${JSON.stringify(res.body)}`).to.equal(400);
      expect(res.body.error.details[0].path).to.equal('conditions[0].value');
    }
    const ok = await agent.post(`${api}/data/table/RtRanged`).set('token', token).send({ conditions: [{ field: 'low', op: 'lte', value: 2 ** 31 - 1 }] });
    expect(ok.status, JSON.stringify(ok.body)).to.equal(200);
  });

  it('binds condition values into the estimate and the timed count (EXPLAIN, SET STATEMENT), whatever they hold', async () => {
    const { agent, tokenOf } = setup();
    const token = await tokenOf(admin);
    await store.knex('rt_item').insert(Array.from({ length: 6 }, (_, i) => ({ name: i % 2 ? `q?${i}` : `x'); --${i}` })));
    for (const value of ['?', '??', "'; select 1; --", '$1', ':name', '\\', '%_']) {
      for (const count of ['none', 'exact', 'auto']) {
        const res = await agent.post(`${api}/data/table/RtItem`).set('token', token).send({ size: 1, count, conditions: [{ field: 'name', op: 'like', value }, { field: 'name', op: 'ne', value }] });
        expect(res.status, `${count} ${value}: ${JSON.stringify(res.body)}`).to.equal(200);
        if (!res.body.totalIsEstimate) {
          const all = (await store.knex('rt_item').select('name')).map((r: { name: string }) => r.name);
          expect(res.body.total, `${count} ${value}`).to.equal(all.filter((n) => n.toLowerCase().includes(value.toLowerCase()) && n !== value).length);
        }
      }
    }
    await store.knex('rt_item').delete();
  });

  it('keeps the estimated total in step with rows an import adds by multi-row INSERTs', async () => {
    await store.knex('rt_item').insert(Array.from({ length: 10 }, (_, i) => ({ name: `seed ${i}` })));
    const { agent, tokenOf } = setup();
    const token = await tokenOf(admin);
    const page = async () => (await agent.post(`${api}/data/table/RtItem`).set('token', token).send({ size: 2 }).expect(200)).body as { total: number; totalIsEstimate: boolean };
    await page();
    // The background count of `auto` lands in the cache.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(await page()).to.include({ total: 10, totalIsEstimate: true });
    const csv = ['Name', ...Array.from({ length: 5 }, (_, i) => `imported ${i}`)].join('\n');
    const imported = await agent.post(`${api}/data/import/RtItem`).set('token', token).set('Content-Type', 'text/csv').send(csv);
    expect(imported.status, imported.text).to.equal(200);
    expect(await page()).to.include({ total: 15, totalIsEstimate: true });
  });
});

describeEachSql('issue 21 red team: cursors and row visibility', (db) => {
  let f: DataFixture;
  let hidden: number;
  let mine: number;

  before(async () => {
    f = await setupData(db().url, { limits: { exactCountLimit: 2 } });
    // Alice's notes are out of Bob's sight (Note.beforeFetch: ownerId = user.id).
    for (let i = 0; i < 4; i++) await f.store.knex('t_note').insert({ subject: `alice ${i}`, ownerId: f.users.alice.id });
    for (let i = 0; i < 3; i++) await f.store.knex('t_note').insert({ subject: `bob ${i}`, ownerId: f.users.bob.id });
    hidden = Number((await f.store.knex('t_note').where('ownerId', f.users.alice.id).first('id')).id);
    mine = Number((await f.store.knex('t_note').where('ownerId', f.users.bob.id).first('id')).id);
  });
  after(() => f?.destroy());

  const table = async (user: 'bob' | 'admin', body: Record<string, unknown>) => f.agent.post(`${api}/data/table/Note`).set('token', await f.token(user)).send(body);

  it('answers a key-only cursor naming a hidden row exactly as one naming no row', async () => {
    const sort = [{ field: 'subject', order: 'asc' }];
    const [format, hash] = open((await table('bob', { size: 1, sort })).body.cursors.next);
    const probe = async (id: number) => table('bob', { size: 5, sort, after: seal([format, hash, null, id]) });
    const ofHidden = await probe(hidden);
    const ofMissing = await probe(987654);
    expect(ofHidden.status).to.equal(400);
    expect(ofHidden.body).to.deep.equal(ofMissing.body);
    const ofMine = await probe(mine);
    expect(ofMine.status).to.equal(200);
    expect(ofMine.body.rows.map((r: { subject: string }) => r.subject)).to.deep.equal(['bob 1', 'bob 2']);
    // A crafted full cursor that starts before everything still shows only Bob's rows.
    const everything = await table('bob', { size: 50, sort, after: seal([format, hash, ['', 0]]) });
    expect(everything.body.rows.map((r: { subject: string }) => r.subject)).to.deep.equal(['bob 0', 'bob 1', 'bob 2']);
  });

  it('never serves the count of one user to another with a different sight', async () => {
    for (const count of ['exact', 'auto', 'auto', 'none']) {
      const ofAdmin = (await table('admin', { size: 1, count })).body;
      const ofBob = (await table('bob', { size: 1, count })).body;
      expect(ofAdmin.total, `admin, ${count}`).to.equal(7);
      expect(ofBob.total, `bob, ${count}`).to.equal(3);
      // Background counts of `auto` land in the cache meanwhile.
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  });

  it('answers odd count and last values with 400 at their path', async () => {
    for (const count of ['EXACT', 'exact ', 1, true, {}, ['exact'], '']) {
      const res = await table('bob', { count });
      expect(res.status, JSON.stringify(count)).to.equal(400);
      expect(res.body.error.details[0].path).to.equal('count');
    }
    for (const last of [1, 0, 'TRUE', 'yes', {}, []]) {
      const res = await table('bob', { last });
      expect(res.status, JSON.stringify(last)).to.equal(400);
      expect(res.body.error.details[0].path).to.equal('last');
    }
  });
});
