import { expect } from 'chai';
import knexFactory, { type Knex } from 'knex';
import { defineModel, type Condition } from '@fw/core';
import { dialectOfKnex } from '@fw/store';
import { describeEachSql, knexConfigFor } from '@fw/test-utils';
import { boundedCountQuery } from './count-sources.js';
import { Counts, type PageCount } from './counts.js';
import { DEFAULT_QUERY_LIMITS } from './query.js';

// The cached counts behind `count: 'auto'` estimates (counts.ts), driven directly with a clock
// the test moves: they age, are counted again, and follow what Fw reports of its own writes.
const Item = defineModel({ name: 'Item', table: 'cc_item', fields: { kind: {}, n: { edit: { type: 'NUMBER', integer: true } } } });
const kindA: Condition[] = [{ field: 'kind', op: 'eq', value: 'a' }];

describeEachSql('Counts: cached counts behind the estimates', (db) => {
  let knex: Knex;
  let dialect: string;
  before(async () => {
    knex = knexFactory(knexConfigFor(db().url));
    dialect = dialectOfKnex(knex);
    await knex.schema.createTable('cc_item', (t) => {
      t.increments('id');
      t.string('kind', 10);
      t.integer('n');
    });
  });
  after(() => knex?.destroy());
  beforeEach(() => knex('cc_item').delete());

  const insert = async (count: number, kind = 'a') => knex('cc_item').insert(Array.from({ length: count }, (_, n) => ({ kind, n })));

  /** Counts over the suite's table with an exact-count limit of 5 and a clock at `clock.now`. */
  function setup() {
    const clock = { now: 1_000_000 };
    const counts = new Counts({ knex, dialect, sqlite: undefined }, { ...DEFAULT_QUERY_LIMITS, exactCountLimit: 5 }, () => clock.now);
    // A first page of 2 rows whose bounded count saw more than the limit.
    const ask = (extra: Partial<PageCount> = {}) => counts.total({ model: Item, mode: 'auto', conditions: [], bounded: 6, offset: 0, rows: 2, size: 2, ...extra });
    /** Asks, lets the background count it starts finish, and asks again. */
    const until = async (extra: Partial<PageCount> = {}) => {
      await ask(extra);
      await counts.settled();
      return ask(extra);
    };
    return { clock, counts, ask, until };
  }

  it('serves a background count as the estimate, ages it out and counts again', async () => {
    const { clock, ask, until } = setup();
    await insert(20);
    expect((await ask()).totalIsEstimate).to.equal(true);
    expect(await until()).to.deep.equal({ total: 20, totalIsEstimate: true });
    // Written past Fw: the cached count does not know, and is still an estimate.
    await insert(10);
    expect(await ask()).to.deep.equal({ total: 20, totalIsEstimate: true });
    // A minute on, the old count is served while a new one runs.
    clock.now += 61_000;
    expect(await until()).to.deep.equal({ total: 30, totalIsEstimate: true });
    // Far older than it may be served, a count is no source at all: the database's statistics
    // answer (on SQLite the span of the keys, 30 here, not the cached 20).
    clock.now += 16 * 60_000;
    const stale = await ask({ mode: 'none', bounded: undefined });
    expect(stale.totalIsEstimate).to.equal(true);
    if (dialect === 'sqlite') expect(stale.total).to.equal(30);
  });

  it('estimates a whole SQLite table by the span of its keys (never below the rows), or by ANALYZE for a text key', async function () {
    if (dialect !== 'sqlite') this.skip();
    const { counts } = setup();
    await insert(12);
    // Gaps from deletes make the span an upper bound.
    const ids: Array<{ id: number }> = await knex('cc_item').select('id').orderBy('id');
    await knex('cc_item').whereIn('id', [ids[3]!.id, ids[4]!.id]).del();
    expect(await counts.total({ model: Item, mode: 'none', conditions: [], bounded: undefined, offset: undefined, rows: 2, size: 2 })).to.deep.equal({ total: 12, totalIsEstimate: true });
    const Code = defineModel({ name: 'CcCode', table: 'cc_code', primaryKey: 'code', fields: { code: { edit: { notNull: true, integer: false } } } });
    await knex.schema.createTable('cc_code', (t) => t.string('code', 20).primary());
    try {
      await knex('cc_code').insert(Array.from({ length: 7 }, (_, i) => ({ code: `k${i}` })));
      const none = () => counts.total({ model: Code, mode: 'none', conditions: [], bounded: undefined, offset: undefined, rows: 1, size: 1 });
      // No statistics yet: only the row seen.
      expect(await none()).to.deep.equal({ total: 1, totalIsEstimate: true });
      await knex.raw('analyze');
      expect(await none()).to.deep.equal({ total: 7, totalIsEstimate: true });
    } finally {
      await knex.schema.dropTable('cc_code');
    }
  });

  it('counts a table whose count takes long less often: fresh for 300 times what the count took', async () => {
    const { clock, counts, until } = setup();
    await insert(20);
    // Every count statement takes two seconds by the test's clock.
    const slow = (q: { sql: string }) => {
      if (/count\(\*\)/i.test(q.sql)) clock.now += 2000;
    };
    knex.on('query', slow);
    try {
      expect(await until()).to.deep.equal({ total: 20, totalIsEstimate: true });
      await insert(10);
      // A minute on (the count of a quick table would be redone): still the count of ten minutes' standing.
      clock.now += 61_000;
      expect(await until()).to.deep.equal({ total: 20, totalIsEstimate: true });
      expect(counts.needsBounded(Item, 'auto', []), 'still fresh').to.equal(false);
      clock.now += 540_000;
      expect(await until()).to.deep.equal({ total: 30, totalIsEstimate: true });
    } finally {
      knex.off('query', slow);
    }
  });

  it('skips the bounded count while a fresh cached count stands well above the limit, never for exact', async () => {
    const { clock, counts, until } = setup();
    expect(counts.needsBounded(Item, 'auto', []), 'nothing cached yet').to.equal(true);
    expect(counts.needsBounded(Item, 'none', [])).to.equal(false);
    await insert(6);
    await until();
    // 6 is within a tenth (at least one row) of the limit of 5: the bounded count still decides.
    expect(counts.needsBounded(Item, 'auto', [])).to.equal(true);
    await insert(1);
    clock.now += 61_000;
    await until();
    expect(counts.needsBounded(Item, 'auto', []), '7 cached, limit 5').to.equal(false);
    await insert(20);
    clock.now += 61_000;
    await until();
    expect(counts.needsBounded(Item, 'auto', []), '27 cached, limit 5').to.equal(false);
    expect(counts.needsBounded(Item, 'exact', [])).to.equal(true);
    expect(counts.needsBounded(Item, 'auto', kindA), 'other conditions').to.equal(true);
    // A count gone stale, or one a write may have moved, is no reason to skip.
    counts.updated(Item);
    expect(counts.needsBounded(Item, 'auto', []), 'an update leaves a whole-table count standing').to.equal(false);
    clock.now += 61_000;
    expect(counts.needsBounded(Item, 'auto', [])).to.equal(true);
  });

  it("moves the whole-table count with Fw's inserts and deletes, and counts a filtered one again after a write", async () => {
    const { clock, counts, ask, until } = setup();
    await insert(20, 'a');
    await insert(12, 'b');
    expect(await until()).to.deep.equal({ total: 32, totalIsEstimate: true });
    expect(await until({ conditions: kindA })).to.deep.equal({ total: 20, totalIsEstimate: true });
    const three = (await knex('cc_item').select('id').where('kind', 'a').orderBy('id').limit(3)).map((r: { id: unknown }) => Number(r.id));
    await knex('cc_item').whereIn('id', three).delete();
    counts.changed(Item, -3);
    expect(await ask()).to.deep.equal({ total: 29, totalIsEstimate: true });
    // A filtered count cannot tell which rows an insert, delete or update touched: counted again.
    clock.now += 5000;
    expect(await until({ conditions: kindA })).to.deep.equal({ total: 17, totalIsEstimate: true });
    await knex('cc_item').where('kind', 'b').update({ kind: 'a' });
    counts.updated(Item);
    // Still the old count until the next re-count is due (one every 5 s at most).
    expect(await until({ conditions: kindA })).to.deep.equal({ total: 17, totalIsEstimate: true });
    clock.now += 5000;
    expect(await until({ conditions: kindA })).to.deep.equal({ total: 29, totalIsEstimate: true });
  });

  it('proves a total from a short page only when its offset is known', async () => {
    const { ask } = setup();
    expect(await ask({ mode: 'none', bounded: undefined, offset: 40, rows: 1, size: 2 })).to.deep.equal({ total: 41, totalIsEstimate: false });
    // Read by cursor: the rows before the page are unknown, so nothing is proven.
    const cursor = await ask({ mode: 'none', bounded: undefined, offset: undefined, rows: 1, size: 2 });
    expect(cursor.totalIsEstimate).to.equal(true);
    expect(cursor.total).to.be.at.least(1);
    // An empty page past the end proves nothing either, and claims no rows.
    const past = await ask({ mode: 'none', bounded: undefined, offset: 40, rows: 0, size: 2 });
    expect(past.totalIsEstimate).to.equal(true);
  });

  it("answers count: 'exact' from a real count, never from the cache", async () => {
    const { ask, until } = setup();
    await insert(20);
    await until();
    await insert(5);
    expect(await ask({ mode: 'exact' })).to.deep.equal({ total: 25, totalIsEstimate: false });
  });

  it('runs at most two exact counts at once: a third waits on the same one or gets the estimate', async () => {
    const { counts } = setup();
    await insert(20);
    await insert(5, 'b');
    const kindB: Condition[] = [{ field: 'kind', op: 'eq', value: 'b' }];
    let statements = 0;
    const seen = (q: { sql: string }) => {
      if (/count\(\*\)/i.test(q.sql)) statements++;
    };
    knex.on('query', seen);
    try {
      const exact = (conditions: Condition[]) => counts.total({ model: Item, mode: 'exact', conditions, bounded: 6, offset: undefined, rows: 2, size: 2 });
      const answers = await Promise.all([exact([]), exact([]), exact(kindA), exact(kindB)]);
      expect(answers.slice(0, 3)).to.deep.equal([
        { total: 25, totalIsEstimate: false },
        { total: 25, totalIsEstimate: false },
        { total: 20, totalIsEstimate: false },
      ]);
      // Two counts run (the whole table, kind a); the same conditions shared one, the third was refused.
      expect(answers[3]!.totalIsEstimate).to.equal(true);
      expect(statements).to.equal(2);
      // Once they are done, the next exact count runs.
      expect(await exact(kindB)).to.deep.equal({ total: 5, totalIsEstimate: false });
    } finally {
      knex.off('query', seen);
    }
  });
});

describe('boundedCountQuery (compiled)', () => {
  it('reads at most the limit of matching rows on every dialect, SQL Server with TOP', () => {
    for (const client of ['better-sqlite3', 'pg', 'mysql2', 'mssql']) {
      const knex = knexFactory({ client, useNullAsDefault: true });
      const { sql, bindings } = boundedCountQuery(knex, Item, kindA, 10_001).toSQL();
      expect(bindings, client).to.deep.equal(client === 'mssql' ? [10_001, 'a'] : ['a', 10_001]);
      if (client === 'mssql') expect(sql).to.equal('select count(*) as [n] from (select top (?) 1 as fw_one from [cc_item] where [cc_item].[kind] = ?) as [fw_bounded]');
      else expect(sql, client).to.match(/^select count\(\*\) as .n. from \(select 1 as fw_one from .cc_item. where .cc_item.\..kind. = \? limit \?\) as .fw_bounded.$/);
    }
  });
});
