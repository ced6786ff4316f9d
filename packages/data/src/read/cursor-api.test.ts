// Keyset pages over HTTP (issue 21 §2): the table route hands out cursors on every page, pages
// through them to both ends, and answers any cursor it did not make for this model and sort with
// a 400 BAD_QUERY naming `after` / `before`, never a 500. Book declares no index: cursor pages
// must work on a table without one (only slower).
import { expect } from 'chai';
import { toDbValues } from '@fw/row-patch';
import { describeEachSql } from '@fw/test-utils';
import { Book } from '../test-setup.js';
import { setupData, type DataFixture } from '../test-setup.js';

const api = '/fw-api';

/** A cursor's JSON, as the server wrote it (the tests craft their own from it). */
const open = (cursor: string) => JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as [number, string, unknown[]];
const seal = (value: unknown) => Buffer.from(JSON.stringify(value), 'utf8').toString('base64url');

describeEachSql('POST /fw-api/data/table/:fw: keyset pages by cursor', (db) => {
  // The last test rewrites and deletes rows: it runs last.
  let f: DataFixture;
  let admin: string;
  let ids: number[];

  before(async () => {
    f = await setupData(db().url);
    admin = await f.token('admin');
    // Seven books; ties on price and NULL prices, so the primary key decides within them.
    const prices = [5, null, 2.5, 5, 12.75, null, 2.5];
    for (const [i, price] of prices.entries()) {
      await f.store.knex('t_book').insert(toDbValues(Book, { title: `Book ${i} — ${'é日😀'.repeat(i)}`, price, published: `2024-01-0${i + 1}`, inPrint: i % 2 === 0 }));
    }
    const sorted: Array<{ id: unknown }> = await f.store.knex('t_book').select('id').orderBy([{ column: 'price', order: 'desc' }, { column: 'id', order: 'desc' }]);
    ids = sorted.map((r) => Number(r.id));
  });
  after(() => f?.destroy());

  const table = (body: Record<string, unknown>) => f.agent.post(`${api}/data/table/Book`).set('token', admin).send(body);
  const sort = [{ field: 'price', order: 'desc' }];
  const idsOf = (body: { rows: Array<{ id: unknown }> }) => body.rows.map((r) => Number(r.id));

  it('hands out cursors on pages by number, null at the ends', async () => {
    const first = (await table({ size: 3, sort }).expect(200)).body;
    expect(idsOf(first)).to.deep.equal(ids.slice(0, 3));
    expect(first.cursors.prev).to.equal(null);
    expect(first.cursors.next).to.be.a('string').with.length.at.most(2048).and.match(/^[A-Za-z0-9_-]+$/);
    const third = (await table({ size: 3, sort, page: 3 }).expect(200)).body;
    expect(idsOf(third)).to.deep.equal(ids.slice(6));
    expect(third.cursors.next).to.equal(null);
    expect(third.cursors.prev).to.be.a('string');
  });

  it('pages forward by after and back by before, the same rows as the page numbers', async () => {
    const one = (await table({ size: 3, sort }).expect(200)).body;
    const two = (await table({ size: 3, sort, after: one.cursors.next, page: 2 }).expect(200)).body;
    expect(idsOf(two)).to.deep.equal(ids.slice(3, 6));
    expect(two.page, 'page is echoed back').to.equal(2);
    expect(two.total).to.equal(7);
    const three = (await table({ size: 3, sort, after: two.cursors.next }).expect(200)).body;
    expect(idsOf(three)).to.deep.equal(ids.slice(6));
    expect(three.cursors.next).to.equal(null);
    const back = (await table({ size: 3, sort, before: three.cursors.prev }).expect(200)).body;
    expect(idsOf(back)).to.deep.equal(ids.slice(3, 6));
    const start = (await table({ size: 3, sort, before: back.cursors.prev }).expect(200)).body;
    expect(idsOf(start)).to.deep.equal(ids.slice(0, 3));
    expect(start.cursors.prev, 'nothing before the first row').to.equal(null);
    expect(start.cursors.next).to.be.a('string');
  });

  it('reads the last page with last: true', async () => {
    const last = (await table({ size: 3, sort, last: true }).expect(200)).body;
    expect(idsOf(last)).to.deep.equal(ids.slice(4));
    expect(last.cursors.next).to.equal(null);
    expect(idsOf((await table({ size: 3, sort, before: last.cursors.prev }).expect(200)).body)).to.deep.equal(ids.slice(1, 4));
  });

  it('answers a cursor that is not one of this model and sort with 400 BAD_QUERY at its path, never a 500', async () => {
    const good: string = (await table({ size: 2, sort }).expect(200)).body.cursors.next;
    const [format, hash, values] = open(good);
    const tagCursor: string | null = (await f.agent.post(`${api}/data/table/Tag`).set('token', admin).send({ size: 1 }).expect(200)).body.cursors.next;
    await f.store.knex('t_tag').insert([{ label: 'a' }, { label: 'b' }]);
    const otherModel: string = (await f.agent.post(`${api}/data/table/Tag`).set('token', admin).send({ size: 1 }).expect(200)).body.cursors.next;
    expect(tagCursor, 'an empty table has no next page').to.equal(null);
    const otherSort: string = (await table({ size: 2, sort: [{ field: 'title', order: 'asc' }] }).expect(200)).body.cursors.next;
    const withValues = (vs: unknown[]) => seal([format, hash, vs]);
    const pk = values[values.length - 1];
    const crafted: Array<[string, unknown]> = [
      ['tampered hash', seal([format, `${hash.slice(1)}x`, values])],
      ['a changed character', `${good.slice(0, 4)}${good[4] === 'A' ? 'B' : 'A'}${good.slice(5)}`],
      ['truncated', good.slice(0, good.length - 5)],
      ['3 KB', 'A'.repeat(3072)],
      ['another sort', otherSort],
      ['another model', otherModel],
      ['a newer format', seal([2, hash, values])],
      ['too few values', withValues([pk])],
      ['too many values', withValues([...values, 1])],
      ['a price as text', withValues(['cheap', pk])],
      ['a price as exponent text', withValues(['1e999', pk])],
      ['a price as an object', withValues([{ $gt: 0 }, pk])],
      ['an empty primary key', withValues([5, null])],
      ['a primary key as text', withValues([5, '1 OR 1=1'])],
      ['a primary key out of range', withValues([5, 1e20])],
      ['a fractional primary key', withValues([5, 1.5])],
      ['not base64url', '{"after":1}'],
      ['JSON that is not a cursor', seal({ v: 1, k: [] })],
      ['a JSON string', seal('x')],
      ['not UTF-8', Buffer.from([0xff, 0xfe, 0x5b]).toString('base64url')],
      ['an empty string', ''],
      ['a number', 42],
      ['an object', { $ne: null }],
      ['an array', [good]],
      ['true', true],
    ];
    for (const [label, cursor] of crafted) {
      for (const path of ['after', 'before']) {
        const res = await table({ size: 2, sort, [path]: cursor });
        expect(res.status, `${label} as ${path}: ${JSON.stringify(res.body)}`).to.equal(400);
        expect(res.body.error.code, label).to.equal('BAD_QUERY');
        expect(res.body.error.details[0].path, label).to.equal(path);
      }
    }
  });

  it('checks date, boolean and text values of a cursor against their fields', async () => {
    const cursorOf = async (field: string) => open((await table({ size: 1, sort: [{ field, order: 'asc' }] }).expect(200)).body.cursors.next as string);
    const bad: Array<[string, unknown]> = [
      ['published', 'not a date'],
      ['published', '2024-02-30'],
      ['published', 20240101],
      ['inPrint', 'yes'],
      ['inPrint', 1],
      ['title', 'a\u0000b'],
      ['title', '\ud800'],
      ['title', 12],
    ];
    for (const [field, value] of bad) {
      const [format, hash, values] = await cursorOf(field);
      const res = await table({ size: 1, sort: [{ field, order: 'asc' }], after: seal([format, hash, [value, values[1]]]) });
      expect(res.status, `${field} = ${JSON.stringify(value)}: ${JSON.stringify(res.body)}`).to.equal(400);
      expect(res.body.error.details[0].path).to.equal('after');
    }
  });

  it('takes extreme but valid values without a database error', async () => {
    const [format, hash, values] = open((await table({ size: 1, sort }).expect(200)).body.cursors.next as string);
    for (const price of [1.7976931348623157e308, -1.7976931348623157e308, 5e-324, 0, '123456789012345678901234567890.5', null]) {
      for (const pk of [1, 2147483647]) {
        const res = await table({ size: 2, sort, after: seal([format, hash, [price, pk]]) });
        expect(res.status, `price ${price}, id ${pk}: ${JSON.stringify(res.body)}`).to.equal(200);
      }
    }
    expect(values).to.have.length(2);
    const dates = open((await table({ size: 1, sort: [{ field: 'published', order: 'desc' }] }).expect(200)).body.cursors.next as string);
    for (const day of ['0001-01-01', '9999-12-31']) {
      const res = await table({ size: 2, sort: [{ field: 'published', order: 'desc' }], before: seal([dates[0], dates[1], [day, 1]]) });
      expect(res.status, `${day}: ${JSON.stringify(res.body)}`).to.equal(200);
    }
  });

  it('pages the operate log newest first by cursor, as its page numbers do', async () => {
    for (let i = 0; i < 5; i++) await f.agent.post(`${api}/data/modify/Tag`).set('token', admin).send({ label: `log ${i}` }).expect(200);
    const log = (body: Record<string, unknown>) => f.agent.post(`${api}/data/table/FwOperateLog`).set('token', admin).send({ size: 2, ...body }).expect(200);
    const byNumber: number[] = [];
    for (let page = 1; ; page++) {
      const { body } = await log({ page });
      if (body.rows.length === 0) break;
      byNumber.push(...idsOf(body));
    }
    const byCursor: number[] = [];
    let page = (await log({})).body;
    for (;;) {
      byCursor.push(...idsOf(page));
      if (!page.cursors.next) break;
      page = (await log({ after: page.cursors.next })).body;
    }
    expect(byNumber.length).to.be.at.least(5);
    expect(byCursor).to.deep.equal(byNumber);
  });

  it('refuses more than one of after, before and last, and a last that is not a boolean', async () => {
    const next: string = (await table({ size: 2, sort }).expect(200)).body.cursors.next;
    const both = await table({ sort, after: next, before: next }).expect(400);
    expect(both.body.error.details[0].path).to.equal('before');
    const withLast = await table({ sort, after: next, last: true }).expect(400);
    expect(withLast.body.error.details[0].path).to.equal('last');
    const odd = await table({ sort, last: 'yes' }).expect(400);
    expect(odd.body.error.details[0].path).to.equal('last');
    // No cursor at all is a page by number, as before.
    expect(idsOf((await table({ sort, size: 2, after: null, last: false }).expect(200)).body)).to.deep.equal(ids.slice(0, 2));
  });

  it('names the row by its key when its sort values do not fit in 2 KB, and refuses it once the row is gone', async () => {
    // Two long texts in the sort: 200 + 255 emoji are well over 2 KB as base64url.
    const long = await f.store.knex('t_book').whereIn('id', ids).select('id');
    for (const [i, r] of long.entries()) await f.store.knex('t_book').where('id', r.id).update({ title: `${i % 3}${'😀'.repeat(199)}`, code: `${'日'.repeat(254)}${i}` });
    const longSort = [{ field: 'title', order: 'desc' }, { field: 'code', order: 'asc' }];
    const all: number[] = (await f.store.knex('t_book').select('id').orderBy([{ column: 'title', order: 'desc' }, { column: 'code', order: 'asc' }, { column: 'id', order: 'asc' }])).map((r: { id: unknown }) => Number(r.id));
    const seen: number[] = [];
    let page = (await table({ size: 2, sort: longSort }).expect(200)).body;
    for (;;) {
      seen.push(...idsOf(page));
      if (page.cursors.next === null) break;
      expect(page.cursors.next).to.have.length.at.most(2048);
      expect(open(page.cursors.next)[2], 'the values did not fit').to.equal(null);
      page = (await table({ size: 2, sort: longSort, after: page.cursors.next }).expect(200)).body;
    }
    expect(seen).to.deep.equal(all);
    expect(idsOf((await table({ size: 2, sort: longSort, before: page.cursors.prev }).expect(200)).body)).to.deep.equal(all.slice(4, 6));
    // The row a key-only cursor names is gone: a 400, never a jump to somewhere else.
    const first = (await table({ size: 2, sort: longSort }).expect(200)).body;
    await f.store.knex('t_book').where('id', first.rows[1].id).del();
    const gone = await table({ size: 2, sort: longSort, after: first.cursors.next }).expect(400);
    expect(gone.body.error.details[0].path).to.equal('after');
  });
});
