import { expect } from 'chai';
import fc from 'fast-check';
import knexFactory, { type Knex } from 'knex';
import { describeEachSql, knexConfigFor } from '@fw/test-utils';
import { dialectOfKnex } from '@fw/store';
import { applySeek, type SeekKey } from './keyset.js';

// The seek condition must select exactly the rows the database's own ORDER BY puts after (or
// before) a given row, NULLs and ties included, for every mix of directions. The database's
// order is the truth here: each row in turn is the pivot, and the seek's answer is compared with
// the slice of the ordered table that follows (or precedes) it.
describeEachSql('keyset seek conditions', (db) => {
  let knex: Knex;
  before(async () => {
    knex = knexFactory(knexConfigFor(db().url));
    await knex.schema.dropTableIfExists('ks_row');
    await knex.schema.createTable('ks_row', (t) => {
      t.increments('id');
      t.integer('a').nullable();
      t.string('b', 20).nullable();
      t.integer('c').notNullable();
    });
  });
  // The test database goes with its tables once the suite ends.
  after(() => knex?.destroy());

  it('selects exactly the rows after or before each row, in every order, NULLs and ties included', async function () {
    this.timeout(120_000);
    const row = fc.record({ a: fc.option(fc.integer({ min: 0, max: 3 }), { nil: null }), b: fc.option(fc.constantFrom('x', 'y', 'z'), { nil: null }), c: fc.integer({ min: 0, max: 2 }) });
    const orderArb = fc.record({
      keys: fc.subarray(['a', 'b', 'c'], { minLength: 1 }),
      orders: fc.array(fc.constantFrom('asc' as const, 'desc' as const), { minLength: 4, maxLength: 4 }),
      direction: fc.constantFrom('after' as const, 'before' as const),
    });
    const dialect = dialectOfKnex(knex);
    await fc.assert(
      fc.asyncProperty(fc.array(row, { minLength: 1, maxLength: 14 }), orderArb, async (rows, { keys, orders, direction }) => {
        await knex('ks_row').del();
        await knex('ks_row').insert(rows);
        const seekKeys: SeekKey[] = [...keys.map((k, i) => ({ column: `ks_row.${k}`, order: orders[i]!, nullable: k !== 'c' })), { column: 'ks_row.id', order: orders[3]!, nullable: false }];
        const ordered = (q: Knex.QueryBuilder) => {
          for (const k of seekKeys) q.orderBy(k.column, k.order);
          return q;
        };
        const all: Array<Record<string, unknown>> = await ordered(knex('ks_row').select('*'));
        for (let i = 0; i < all.length; i++) {
          const pivot = all[i]!;
          const values = seekKeys.map((k) => pivot[k.column.slice('ks_row.'.length)]);
          const got: Array<{ id: number }> = await ordered(applySeek(knex('ks_row').select('id'), seekKeys, values, direction, dialect));
          const want = direction === 'after' ? all.slice(i + 1) : all.slice(0, i);
          expect(got.map((r) => Number(r.id)), `pivot ${i} of ${JSON.stringify(all)}`).to.deep.equal(want.map((r) => Number(r.id)));
        }
      }),
      { numRuns: 25 },
    );
  });
});
