// Crafted input from the attacker's side (issue 10 §4, §6, §7): every answer is a 4xx with the Fw
// error body, and nothing is written; never a 500 from the database or a silently altered value.
import { expect } from 'chai';
import { describeEachSql } from '@fw/test-utils';
import { setupData, type DataFixture } from './test-setup.js';

const api = '/fw-api';

/** Names that reach `Object.prototype` members when looked up with `obj[name]`. */
export const PROTOTYPE_KEYS = ['toString', '__proto__', 'constructor', 'hasOwnProperty', 'valueOf', 'isPrototypeOf', '__defineGetter__', 'propertyIsEnumerable', 'toLocaleString'];

describeEachSql('fwData(options): bad input is a 4xx, never a 500', (db, spec) => {
  let f: DataFixture;
  let admin: string;
  let alice: string;

  before(async () => {
    f = await setupData(db().url);
    [admin, alice] = await Promise.all([f.token('admin'), f.token('alice')]);
  });
  after(() => f?.destroy());
  beforeEach(async () => {
    for (const table of ['t_book_tag', 't_book', 't_tag', 't_note', 't_plan', 'fw_operate_log']) await f.store.knex(table).delete();
  });

  const addBook = async (values: Record<string, unknown> = {}) =>
    (await f.agent.post(`${api}/data/modify/Book`).set('token', admin).send({ title: 'Dune', isbn: '0441172717', genre: 'novel', price: 9.5, ...values }).expect(200)).body as Record<string, unknown>;
  /** A JSON body with one extra own key, sent as text so `__proto__` stays an own key. */
  const withKey = (body: Record<string, unknown>, key: string, value: unknown) => JSON.stringify(body).replace(/^\{/, `{${JSON.stringify(key)}:${JSON.stringify(value)},`);
  const post = (path: string, token: string, text: string) => f.agent.post(`${api}${path}`).set('token', token).set('Content-Type', 'application/json').send(text);

  describe('field names that are Object.prototype members', () => {
    for (const key of PROTOTYPE_KEYS) {
      it(`answers 400 UNKNOWN_FIELD for ${key} on add, update, update-cell, query and import, writing nothing`, async () => {
        const book = await addBook();
        const before = await f.rows('t_book');
        const answers = [
          await post('/data/modify/Book', alice, withKey({ title: 'x' }, key, 'v')),
          await post('/data/modify/Book/update', alice, withKey({ id: book.id, title: 'changed' }, key, 'v')),
          await post('/data/modify/Book/update', alice, withKey({ id: book.id, title: 'changed' }, key, { edit: { readonly: true } })),
          await post('/data/modify/Book/update-cell', alice, JSON.stringify({ id: book.id, field: key, value: 'v' })),
          await post('/data/table/Book', alice, JSON.stringify({ conditions: [{ field: key, op: 'eq', value: 'v' }] })),
          await post('/data/table/Book', alice, JSON.stringify({ sort: [{ field: key }] })),
          await f.agent.post(`${api}/data/import/Book`).set('token', alice).set('Content-Type', 'text/csv').send(`title,${key}\r\nx,1\r\n`),
        ];
        for (const [i, res] of answers.entries()) {
          expect(res.status, `request ${i}: ${JSON.stringify(res.body)}`).to.equal(400);
          expect(res.body.error.code, `request ${i}`).to.equal('UNKNOWN_FIELD');
        }
        expect(await f.rows('t_book')).to.deep.equal(before);
      });
    }
  });

  describe('the NUL character in text', () => {
    const nul = 'a\u0000b';

    it('is a 422 naming the field on add, update, update-cell and import, writing nothing', async () => {
      const book = await addBook();
      const before = await f.rows('t_book');
      const add = await f.agent.post(`${api}/data/modify/Book`).set('token', alice).send({ title: nul }).expect(422);
      expect(add.body.error.code).to.equal('VALIDATION_FAILED');
      expect(add.body.error.details, JSON.stringify(add.body)).to.deep.include({ path: 'title', type: 'invalidCharacter', message: 'title must not contain the NUL character' });
      const form = await f.agent.post(`${api}/data/modify/Book/update`).set('token', alice).send({ id: book.id, title: nul }).expect(422);
      expect(form.body.error.details.map((d: { path: string }) => d.path)).to.deep.equal(['title']);
      const cell = await f.agent.post(`${api}/data/modify/Book/update-cell`).set('token', alice).send({ id: book.id, field: 'title', value: nul }).expect(422);
      expect(cell.body.error.details.map((d: { path: string }) => d.path)).to.deep.equal(['title']);
      const csv = await f.agent.post(`${api}/data/import/Book`).set('token', alice).set('Content-Type', 'text/csv').send(`title\r\nfine\r\n${nul}\r\n`).expect(422);
      expect(csv.body.error.code).to.equal('IMPORT_FAILED');
      expect(csv.body.error.details.map((d: { path: string }) => d.path)).to.deep.equal(['rows[2].title']);
      expect(await f.rows('t_book')).to.deep.equal(before);
    });

    it('is a 400 naming the condition in queries and exports', async () => {
      await addBook();
      for (const condition of [
        { field: 'title', op: 'eq', value: nul },
        { field: 'title', op: 'like', value: nul },
        { field: 'title', op: 'in', value: ['x', nul] },
        { field: 'isbn', op: 'between', value: ['1', nul] },
      ]) {
        const res = await f.agent.post(`${api}/data/table/Book`).set('token', alice).send({ conditions: [condition] }).expect(400);
        expect(res.body.error.code).to.equal('BAD_QUERY');
        expect(res.body.error.details[0].path).to.match(/^conditions\[0\]\.value/);
      }
      const exported = await f.agent.get(`${api}/data/export/Book`).query({ conditions: JSON.stringify([{ field: 'title', op: 'eq', value: nul }]) }).set('token', alice).expect(400);
      expect(exported.body.error.code).to.equal('BAD_QUERY');
    });
  });

  describe('integers beyond the column', () => {
    const huge = 99_999_999_999;

    it('is a 404 for a row id that cannot exist, on every route that names one', async () => {
      const book = await addBook();
      const before = await f.rows('t_book');
      const answers = [
        await f.agent.get(`${api}/data/Book/${huge}`).set('token', alice),
        await f.agent.get(`${api}/data/print/Book/${huge}`).set('token', alice),
        await f.agent.post(`${api}/data/modify/Book/update`).set('token', alice).send({ id: huge, title: 'x' }),
        await f.agent.post(`${api}/data/modify/Book/update-cell`).set('token', alice).send({ id: String(huge), field: 'title', value: 'x' }),
        await f.agent.post(`${api}/data/modify/Book/delete`).set('token', alice).send({ ids: [book.id, huge] }),
        await f.agent.post(`${api}/data/modify/Book/copy`).set('token', alice).send({ id: huge }),
      ];
      for (const [i, res] of answers.entries()) {
        expect(res.status, `request ${i}: ${JSON.stringify(res.body)}`).to.equal(404);
        expect(res.body.error.code, `request ${i}`).to.equal('ROW_NOT_FOUND');
      }
      expect(await f.rows('t_book')).to.deep.equal(before);
    });

    it('still finds a row of a 64-bit key past 2^31 (the log tables)', async () => {
      await f.store.knex('fw_operate_log').insert({ id: 3_000_000_000, model: 'Book', action: 'add', status: 'success' });
      const res = await f.agent.get(`${api}/data/FwOperateLog/3000000000`).set('token', admin).expect(200);
      expect(res.body).to.include({ id: 3_000_000_000, model: 'Book' });
      await f.agent.get(`${api}/data/FwOperateLog/${huge * 1000}`).set('token', admin).expect(404);
    });

    it('is a 400 naming the condition for a value beyond an integer column', async () => {
      for (const [model, condition, path] of [
        ['Book', { field: 'id', op: 'eq', value: huge }, 'conditions[0].value'],
        ['Book', { field: 'id', op: 'in', value: [1, huge] }, 'conditions[0].value[1]'],
        ['FwOrg', { field: 'sort', op: 'gt', value: -3_000_000_000 }, 'conditions[0].value'],
        ['FwOrg', { field: 'parentId', op: 'between', value: [1, String(huge)] }, 'conditions[0].value[1]'],
      ] as const) {
        const res = await f.agent.post(`${api}/data/table/${model}`).set('token', admin).send({ conditions: [condition] });
        expect(res.status, JSON.stringify(res.body)).to.equal(400);
        expect(res.body.error.code).to.equal('BAD_QUERY');
        expect(res.body.error.details[0].path).to.equal(path);
      }
    });

    it('is a 422 naming the field for a value: numbers, references and collection ids', async () => {
      const before = await f.rows('fw_org');
      for (const [body, path] of [
        [{ name: 'Org', sort: 3_000_000_000 }, 'sort'],
        [{ name: 'Org', parentId: huge }, 'parentId'],
      ] as const) {
        const res = await f.agent.post(`${api}/data/modify/FwOrg`).set('token', admin).send(body).expect(422);
        expect(res.body.error.details.map((d: { path: string }) => d.path)).to.deep.equal([path]);
      }
      expect(await f.rows('fw_org')).to.deep.equal(before);
      const tags = await f.agent.post(`${api}/data/modify/Book`).set('token', alice).send({ title: 'x', tags: [huge] }).expect(422);
      expect(tags.body.error.details.map((d: { path: string }) => d.path)).to.deep.equal(['tags']);
      expect(await f.rows('t_book')).to.deep.equal([]);
    });
  });
});
