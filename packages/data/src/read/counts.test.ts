import { expect } from 'chai';
import fc from 'fast-check';
import Koa from 'koa';
import request from 'supertest';
import { BUILTIN_MODELS, createRegistry, defineModel, type Condition, type FwUser } from '@fw/core';
import { createStore, type FwStore } from '@fw/store';
import { describeEachSql } from '@fw/test-utils';
import { FwTokenService, MemoryTokenStore } from '@fw/token';
import { applyConditions, type QueryLimits } from './query.js';
import { fwData } from '../http/router.js';

// Issue 21 §1: totals that are exact when cheap and otherwise labelled estimates, never a wrong
// exact number. The tables stay small by making the exact-count limit small.
const Entry = defineModel({
  name: 'Entry',
  table: 'cn_entry',
  fields: {
    kind: { edit: { type: 'CHOICE', choices: [{ value: 'a', label: 'A' }, { value: 'b', label: 'B' }] } },
    n: { edit: { type: 'NUMBER', integer: true } },
  },
});

const api = '/fw-api';
const ofKind = (kind: string): Condition[] => [{ field: 'kind', op: 'eq', value: kind }];

describeEachSql('table totals (count: auto, exact, none)', (db) => {
  let store: FwStore;
  let admin: FwUser;
  let tokens: FwTokenService;
  const registry = createRegistry([...BUILTIN_MODELS, Entry]);

  before(async () => {
    // The 200,000-row fixture (`bulk`) is one statement that outlasts the default 5 s query limit
    // on a loaded MariaDB; the limits the tests are about are fwData's own (countTimeLimitMs).
    store = createStore({ url: db().url, queryTimeoutMs: 120_000 });
    await store.migrate.latest();
    await store.createModelTables(registry.list());
    const row = await store.users.create({ account: `admin-${Date.now().toString(36)}`, name: 'admin', password: 'x-password-1', isAdmin: true, mustChangePassword: false });
    admin = { id: row.id, account: row.account, name: row.name, isAdmin: true };
    tokens = new FwTokenService({ store: new MemoryTokenStore() });
  });
  after(() => store?.destroy());
  beforeEach(() => store.knex('cn_entry').delete());

  /** A fresh data API (and so fresh cached counts) over the suite's database. */
  async function setup(limits: Partial<QueryLimits> = { exactCountLimit: 50 }) {
    const app = new Koa();
    app.silent = true;
    app.use(fwData({ store, tokens, registry, limits, onBackgroundError: (e) => { throw e; } }));
    const token = (await tokens.loginToken(admin, tokens.generateToken())).token;
    const agent = request(app.callback());
    const page = async (body: Record<string, unknown>) => (await agent.post(`${api}/data/table/Entry`).set('token', token).send(body).expect(200)).body as { rows: Array<{ id: number }>; total: number; totalIsEstimate: boolean };
    const add = async (kind: string) => (await agent.post(`${api}/data/modify/Entry`).set('token', token).send({ kind, n: 1 }).expect(200)).body as { id: number };
    const remove = async (ids: number[]) => agent.post(`${api}/data/modify/Entry/delete`).set('token', token).send({ ids }).expect(200);
    return { agent, token, page, add, remove };
  }

  /** `count` rows written straight into the table (not through Fw), kinds alternating a, b. */
  async function seed(count: number, start = 0) {
    const rows = Array.from({ length: count }, (_, i) => ({ kind: (start + i) % 2 === 0 ? 'a' : 'b', n: start + i }));
    for (let i = 0; i < rows.length; i += 500) await store.knex('cn_entry').insert(rows.slice(i, i + 500));
  }

  async function truth(conditions: Condition[] = []): Promise<number> {
    const [row] = (await applyConditions(store.knex('cn_entry').count({ n: '*' }), Entry, conditions)) as Array<{ n: unknown }>;
    return Number(row?.n);
  }

  it('answers an exact total at or below exactCountLimit, filtered or not, on any page', async () => {
    const { page } = await setup();
    await seed(50);
    expect(await page({})).to.include({ total: 50, totalIsEstimate: false });
    expect(await page({ page: 3, size: 20 })).to.include({ total: 50, totalIsEstimate: false });
    expect(await page({ conditions: ofKind('b') })).to.include({ total: 25, totalIsEstimate: false });
    await seed(30, 50);
    // 80 rows in all, but only 40 of kind a: the filtered count is still cheap and exact.
    expect(await page({ conditions: ofKind('a') })).to.include({ total: 40, totalIsEstimate: false });
  });

  it('labels a total above exactCountLimit as an estimate, never below the rows already seen', async () => {
    const { page } = await setup();
    await seed(130);
    const first = await page({ size: 20 });
    expect(first.totalIsEstimate).to.equal(true);
    expect(first.total).to.be.at.least(51);
    const deep = await page({ page: 6, size: 20 });
    expect(deep.rows).to.have.length(20);
    expect(deep).to.have.property('totalIsEstimate', true);
    expect(deep.total).to.be.at.least(120);
    const filtered = await page({ conditions: ofKind('a'), size: 10 });
    expect(filtered.totalIsEstimate).to.equal(true);
    expect(filtered.total).to.be.at.least(51);
    // The last page has room to spare: its rows prove the total.
    expect(await page({ page: 7, size: 20 })).to.include({ total: 130, totalIsEstimate: false });
    expect(await page({ page: 2, size: 100 })).to.include({ total: 130, totalIsEstimate: false });
  });

  it("counts exactly on count: 'exact' and labels it exact", async () => {
    const { page } = await setup();
    await seed(131);
    expect(await page({ count: 'exact' })).to.include({ total: 131, totalIsEstimate: false });
    expect(await page({ count: 'exact', conditions: ofKind('a') })).to.include({ total: 66, totalIsEstimate: false });
    expect(await page({ count: 'exact', conditions: [{ field: 'n', op: 'lt', value: 10 }] })).to.include({ total: 10, totalIsEstimate: false });
  });

  it("runs no count on count: 'none' and labels what it guesses", async () => {
    const { page } = await setup();
    await seed(130);
    const none = await page({ count: 'none', size: 20 });
    expect(none.totalIsEstimate).to.equal(true);
    expect(none.total).to.be.at.least(20);
    // A short first page is its own proof, no count needed.
    expect(await page({ count: 'none', conditions: [{ field: 'n', op: 'lt', value: 7 }] })).to.include({ total: 7, totalIsEstimate: false });
  });

  it('refuses a count that is not auto, exact or none with 400 BAD_QUERY at count', async () => {
    const { agent, token } = await setup();
    for (const count of ['fast', 'EXACT', 1, true, {}, ['auto']]) {
      const res = await agent.post(`${api}/data/table/Entry`).set('token', token).send({ count }).expect(400);
      expect(res.body.error.code, JSON.stringify(count)).to.equal('BAD_QUERY');
      expect(res.body.error.details[0].path).to.equal('count');
    }
  });

  it("keeps the cached count in step with Fw's own inserts and deletes", async () => {
    const { page, add, remove } = await setup();
    await seed(120);
    // An exact count is kept as the cached count; the pages after it estimate from it.
    expect(await page({ count: 'exact' })).to.include({ total: 120, totalIsEstimate: false });
    const answer = await page({});
    expect(answer).to.include({ total: 120, totalIsEstimate: true });
    const ids = answer.rows.slice(0, 3).map((r) => r.id);
    await remove(ids);
    expect(await page({})).to.include({ total: 117, totalIsEstimate: true });
    await add('a');
    await add('b');
    expect(await page({})).to.include({ total: 119, totalIsEstimate: true });
  });

  it('never answers a wrong exact total, whatever mix of Fw writes, raw writes and reads (property)', async function () {
    this.timeout(300_000);
    const { page, add, remove } = await setup({ exactCountLimit: 5 });
    const op = fc.oneof(
      fc.record({ kind: fc.constant('add' as const), value: fc.constantFrom('a', 'b') }),
      fc.record({ kind: fc.constant('remove' as const), count: fc.integer({ min: 1, max: 3 }) }),
      fc.record({ kind: fc.constant('rawInsert' as const), count: fc.integer({ min: 1, max: 8 }) }),
      fc.record({ kind: fc.constant('rawDelete' as const), count: fc.integer({ min: 1, max: 8 }) }),
      fc.record({
        kind: fc.constant('read' as const),
        count: fc.constantFrom('auto', 'exact', 'none', undefined),
        page: fc.integer({ min: 1, max: 4 }),
        size: fc.integer({ min: 1, max: 6 }),
        filter: fc.constantFrom(undefined, 'a', 'b'),
      }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 14 }), async (ops) => {
        let raw = 0;
        for (const o of ops) {
          if (o.kind === 'add') await add(o.value);
          else if (o.kind === 'remove') {
            const ids = (await store.knex('cn_entry').select('id').orderBy('id').limit(o.count)).map((r: { id: unknown }) => Number(r.id));
            if (ids.length > 0) await remove(ids);
          } else if (o.kind === 'rawInsert') {
            await seed(o.count, (raw += o.count));
          } else if (o.kind === 'rawDelete') {
            const ids = (await store.knex('cn_entry').select('id').orderBy('id', 'desc').limit(o.count)).map((r: { id: unknown }) => Number(r.id));
            await store.knex('cn_entry').whereIn('id', ids).delete();
          } else {
            const conditions = o.filter ? ofKind(o.filter) : [];
            const answer = await page({ count: o.count, page: o.page, size: o.size, conditions });
            const real = await truth(conditions);
            if (!answer.totalIsEstimate) expect(answer.total, JSON.stringify(o)).to.equal(real);
            else if (answer.rows.length > 0) expect(answer.total, JSON.stringify(o)).to.be.at.least((o.page - 1) * o.size + answer.rows.length);
          }
        }
      }),
      { numRuns: 25 },
    );
  });

  /** 200,000 rows in one statement, kinds alternating a, b (n from 1). */
  async function bulk(): Promise<number> {
    const knex = store.knex;
    const kind = "case when g % 2 = 1 then 'a' else 'b' end";
    if (db().dialect === 'postgres') await knex.raw(`insert into cn_entry (kind, n) select ${kind}, g from generate_series(1, 200000) g`);
    else {
      // 1,000 numbers from a recursive query (MariaDB's default recursion limit), crossed with the
      // first 200 of themselves.
      await knex.raw(`insert into cn_entry (kind, n) with recursive s(i) as (select 0 union all select i + 1 from s where i < 999), t(g) as (select x.i * 1000 + y.i + 1 from s x cross join s y where x.i < 200) select ${kind}, g from t`);
    }
    return 200_000;
  }

  it("falls back to a labelled estimate when count: 'exact' runs out of time", async function () {
    this.timeout(120_000);
    const rows = await bulk();
    const { page } = await setup({ exactCountLimit: 50, countTimeLimitMs: 1 });
    const answer = await page({ count: 'exact', size: 20 });
    expect(answer.totalIsEstimate).to.equal(true);
    expect(answer.total).to.be.at.least(51);
    // With time enough, the same request is counted.
    const patient = await setup({ exactCountLimit: 50, countTimeLimitMs: 60_000 });
    expect(await patient.page({ count: 'exact' })).to.include({ total: rows, totalIsEstimate: false });
  });

  it("never answers a torn exact count while rows change under it (count: 'exact' beside concurrent writes)", async function () {
    this.timeout(180_000);
    await bulk();
    // Each swap turns the first b into an a and the last a into a b (or back) in one statement:
    // 100,000 rows of kind a at every instant, but a count that read the table in pieces could
    // see both rows as a, or neither.
    const low = Number((await store.knex('cn_entry').where('kind', 'b').min({ id: 'id' }).first())?.id);
    const high = Number((await store.knex('cn_entry').where('kind', 'a').max({ id: 'id' }).first())?.id);
    let swapped = false;
    const swap = async () => {
      const [lowKind, highKind] = swapped ? ['b', 'a'] : ['a', 'b'];
      await store.knex('cn_entry').whereIn('id', [low, high]).update({ kind: store.knex.raw('case when id = ? then ? else ? end', [low, lowKind, highKind]) });
      swapped = !swapped;
    };
    const { page } = await setup({ exactCountLimit: 50, countTimeLimitMs: 60_000 });
    for (let round = 0; round < 6; round++) {
      const counting = page({ count: 'exact', conditions: ofKind('a') });
      for (let i = 0; i <= round; i++) {
        await new Promise((resolve) => setImmediate(resolve));
      }
      await swap();
      expect(await counting).to.include({ total: 100_000, totalIsEstimate: false });
    }
    expect(await truth(ofKind('a'))).to.equal(100_000);
  });
});
