import { expect } from 'chai';
import ExcelJS from 'exceljs';
import Koa from 'koa';
import request from 'supertest';
import { BUILTIN_MODELS, createRegistry, defineModel, type Condition, type FwUser } from '@fw/core';
import { describeEachSql } from '@fw/test-utils';
import { offsetBatches, seekBatches } from './export-reads.js';
import { applyConditions } from './query.js';
import { fwData } from '../http/router.js';
import { readColumns } from '../write/secrets.js';
import { setupData, type DataFixture } from '../test-setup.js';
import { parseCsv } from '../transfer/csv.js';

const api = '/fw-api';

/** Called by KsRow's afterFetch on every export batch, so a test can write between two batches. */
let betweenBatches: ((batch: number) => Promise<void>) | undefined;
let batchNo = 0;

/** Rows with ties and NULLs in every sortable kind of column; non-administrators see their own rows. */
const KsRow = defineModel({
  name: 'KsRow',
  table: 'ks_row',
  power: { export: true },
  fields: {
    name: { views: { title: 'Name' } },
    grp: { views: { title: 'Group' } },
    score: { views: { title: 'Score' }, edit: { type: 'NUMBER' } },
    rank: { views: { title: 'Rank' }, edit: { type: 'NUMBER', integer: true } },
    day: { views: { title: 'Day' }, edit: { type: 'DATE' } },
    at: { views: { title: 'At' }, edit: { type: 'DATETIME' } },
    flag: { views: { title: 'Flag' }, edit: { type: 'BOOLEAN' } },
    ownerId: { column: 'owner_id', edit: { type: 'HIDDEN', integer: true } },
  },
  dataProxy: {
    beforeFetch: ({ user }) => (user.isAdmin ? [] : [{ field: 'ownerId', op: 'eq', value: user.id }]),
    afterFetch: async (rows, { action }) => {
      if (action === 'export' && betweenBatches) await betweenBatches(batchNo++);
      return rows;
    },
  },
});

/** A host table whose times carry microseconds (`timestamp(6)`), finer than a JavaScript Date. */
const KsMicro = defineModel({ name: 'KsMicro', table: 'ks_micro', fields: { at: { edit: { type: 'DATETIME' } } } });

const registry = createRegistry([...BUILTIN_MODELS, KsRow]);

type Sort = Array<{ field: string; order: 'asc' | 'desc' }>;

/** `n` rows whose values repeat (ties) and are often empty (NULLs), owned by two users. */
function seedRows(n: number, owners: number[]): Array<Record<string, unknown>> {
  return Array.from({ length: n }, (_, i) => ({
    name: i % 9 === 0 ? null : `n${i % 4}`,
    grp: i % 5 === 0 ? null : ['a', 'b', 'c'][i % 3],
    score: i % 6 === 0 ? null : (i % 7) * 1.25,
    rank: i % 8 === 0 ? null : i % 3,
    day: i % 4 === 0 ? null : `2024-0${(i % 3) + 1}-1${i % 2}`,
    at: i % 7 === 0 ? null : new Date(Date.UTC(2024, 0, 1, 10, i % 4, 0, (i % 3) * 125)),
    flag: i % 10 === 0 ? null : i % 2 === 0,
    owner_id: owners[i % owners.length],
  }));
}

describeEachSql('fwData export: keyset reads (issue 21 §4)', (db) => {
  let f: DataFixture;
  let admin: string;
  let alice: string;
  let aliceUser: FwUser;

  before(async () => {
    f = await setupData(db().url, { registry, exportBatchRows: 7 });
    await f.store.createModelTables([KsRow]);
    const { menu, functions } = await f.store.menus.createModelMenu(KsRow);
    // alice sees the model (and exports it, as `power.export` says) but only her own rows.
    await f.store.roles.setMenus(f.roles.editor, [...(await f.store.knex('fw_role_menu').where('role_id', f.roles.editor).pluck('menu_id')).map(Number), menu.id, ...functions.map((m) => m.id)]);
    await f.store.grants.bump();
    admin = await f.token('admin');
    alice = await f.token('alice');
    aliceUser = f.users.alice;
  });
  after(() => f?.destroy());
  beforeEach(async () => {
    betweenBatches = undefined;
    batchNo = 0;
    await f.store.knex('ks_row').delete();
  });

  const seed = async (n: number) => {
    for (const chunk of [seedRows(n, [f.users.admin.id, aliceUser.id])]) await f.store.knex('ks_row').insert(chunk);
  };
  const query = (sort: Sort, conditions: Condition[]) => `?format=csv&sort=${encodeURIComponent(JSON.stringify(sort))}&conditions=${encodeURIComponent(JSON.stringify(conditions))}`;
  /** The ids of an export, in the file's order. */
  const exported = async (token: string, sort: Sort, conditions: Condition[] = [], agent = f.agent) => {
    const res = await agent.get(`${api}/data/export/KsRow${query(sort, conditions)}`).set('token', token);
    expect(res.status, res.text).to.equal(200);
    const { header, rows } = parseCsv(res.text, { maxRows: 100_000, maxColumns: 50 });
    const at = header.findIndex((h) => h.toLowerCase() === 'id');
    expect(at, `id column in ${header.join(',')}`).to.be.at.least(0);
    return rows.map((r) => Number(r[at]));
  };
  /** The ids the old export read: the same query by OFFSET, batch after batch. */
  const byOffset = async (sort: Sort, conditions: Condition[], owner?: number) => {
    const all = [...conditions, ...(owner === undefined ? [] : [{ field: 'ownerId', op: 'eq' as const, value: owner }])];
    const ids: number[] = [];
    const batches = offsetBatches({
      knex: f.store.knex,
      dialect: f.store.dialect,
      model: KsRow,
      query: () => applyConditions(f.store.knex(KsRow.table).select(readColumns(KsRow)), KsRow, all),
      sort,
      batchRows: 7,
      maxRows: 100_000,
    });
    for await (const batch of batches) ids.push(...batch.map((r) => Number(r.id)));
    return ids;
  };

  const SORTS: Sort[] = [
    [],
    [{ field: 'score', order: 'asc' }],
    [{ field: 'score', order: 'desc' }],
    [{ field: 'grp', order: 'asc' }, { field: 'score', order: 'desc' }],
    [{ field: 'day', order: 'desc' }, { field: 'at', order: 'asc' }],
    [{ field: 'at', order: 'desc' }, { field: 'name', order: 'asc' }],
    [{ field: 'flag', order: 'asc' }, { field: 'rank', order: 'desc' }, { field: 'day', order: 'asc' }],
    [{ field: 'id', order: 'desc' }],
  ];

  it('gives exactly the rows of the old OFFSET export, in the same order, for sorts with ties and NULLs, over many batches', async () => {
    await seed(90);
    for (const sort of SORTS) {
      const ids = await exported(admin, sort);
      expect(ids, JSON.stringify(sort)).to.deep.equal(await byOffset(sort, []));
      expect(ids).to.have.length(90);
    }
  });

  it('keeps conditions and row visibility: a filtered export and a non-administrator see the rows the OFFSET read gives them', async () => {
    await seed(75);
    const conditions: Condition[] = [{ field: 'rank', op: 'ne', value: 1 }];
    for (const sort of SORTS.slice(1, 5)) {
      const mine = await exported(alice, sort, conditions);
      expect(mine, JSON.stringify(sort)).to.deep.equal(await byOffset(sort, conditions, aliceUser.id));
      expect(mine.length).to.be.above(7);
      const owners = await f.store.knex('ks_row').whereIn('id', mine).distinct('owner_id').pluck('owner_id');
      expect(owners.map(Number)).to.deep.equal([aliceUser.id]);
    }
  });

  it('writes the same rows to a workbook, and stops at exportMaxRows', async () => {
    await seed(40);
    const sort: Sort = [{ field: 'at', order: 'desc' }];
    const res = await f.agent
      .get(`${api}/data/export/KsRow${query(sort, []).replace('format=csv', 'format=xlsx')}`)
      .set('token', admin)
      .buffer(true)
      .parse((r, done) => {
        const chunks: Buffer[] = [];
        r.on('data', (c: Buffer) => chunks.push(c));
        r.on('end', () => done(null, Buffer.concat(chunks)));
      })
      .expect(200);
    const book = new ExcelJS.Workbook();
    await book.xlsx.load(res.body as ArrayBuffer);
    const sheet = book.worksheets[0]!;
    const header = (sheet.getRow(1).values as unknown[]).slice(1).map(String);
    const at = header.findIndex((h) => h.toLowerCase() === 'id') + 1;
    const ids: number[] = [];
    sheet.eachRow((row, n) => {
      if (n > 1) ids.push(Number(row.getCell(at).value));
    });
    expect(ids).to.deep.equal(await byOffset(sort, []));

    const capped = new Koa();
    capped.silent = true;
    capped.use(fwData({ store: f.store, tokens: f.tokens, registry, exportMaxRows: 20, exportBatchRows: 7 }));
    const first20 = await exported(admin, sort, [], request(capped.callback()));
    expect(first20).to.deep.equal((await byOffset(sort, [])).slice(0, 20));
  });

  it('never gives a row twice, nor misses one that stayed, while rows are added and deleted between batches', async () => {
    await seed(60);
    const sort: Sort = [{ field: 'score', order: 'asc' }];
    const before = await byOffset(sort, []);
    const deleted = new Set<number>();
    betweenBatches = async (batch) => {
      if (batch > 5) return;
      // New rows that sort first (an OFFSET read would see the window shift and give rows again)…
      await f.store.knex('ks_row').insert(seedRows(3, [f.users.admin.id]).map((r) => ({ ...r, score: -1 - batch })));
      // …and rows from the end, not read yet, deleted (an OFFSET read would then skip rows that stayed).
      const gone = before.slice(before.length - 2 * (batch + 1), before.length - 2 * batch);
      await f.store.knex('ks_row').whereIn('id', gone).delete();
      for (const id of gone) deleted.add(id);
    };
    const ids = await exported(admin, sort);
    expect(batchNo).to.be.above(5);
    expect(new Set(ids).size, 'no row twice').to.equal(ids.length);
    const stayed = before.filter((id) => !deleted.has(id));
    expect(ids.filter((id) => before.includes(id)), 'every row that stayed, in order').to.deep.equal(stayed);
    expect(ids.some((id) => deleted.has(id))).to.equal(false);
  });

  it('seeks exactly past times finer than a millisecond (a host timestamp(6) column), both ways', async () => {
    await f.store.knex.schema.dropTableIfExists('ks_micro');
    await f.store.knex.schema.createTable('ks_micro', (t) => {
      t.increments('id');
      t.datetime('at', { precision: 6 });
    });
    // Rows a microsecond apart inside one millisecond, ties, and NULLs.
    const times = Array.from({ length: 23 }, (_, i) => (i % 5 === 4 ? null : `2024-03-01 10:00:00.12${String(i % 7).padStart(4, '0')}`));
    await f.store.knex('ks_micro').insert(times.map((at) => ({ at })));
    for (const order of ['asc', 'desc'] as const) {
      const options = {
        knex: f.store.knex,
        dialect: f.store.dialect,
        model: KsMicro,
        query: () => f.store.knex('ks_micro').select('ks_micro.id', 'ks_micro.at'),
        sort: [{ field: 'at', order }],
        batchRows: 3,
        maxRows: 1000,
      };
      const read = async (batches: AsyncGenerator<Array<Record<string, unknown>>>) => {
        const ids: number[] = [];
        for await (const batch of batches) ids.push(...batch.map((r) => Number(r.id)));
        return ids;
      };
      const seek = await read(seekBatches(options));
      expect(seek, order).to.deep.equal(await read(offsetBatches(options)));
      expect(seek).to.have.length(23);
    }
  });
});
