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
    // A host table may hold unique keys of its own: Book's ISBN is one here.
    await f.store.knex.schema.alterTable('t_book', (t) => {
      t.unique(['isbn']);
    });
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

    it('refuses half a surrogate pair too, which the drivers would store as another character', async () => {
      const res = await f.agent.post(`${api}/data/modify/Book`).set('token', alice).set('Content-Type', 'application/json').send('{"title":"a\\ud800b"}').expect(422);
      expect(res.body.error.details).to.deep.equal([{ path: 'title', type: 'invalidCharacter', message: 'title must be valid Unicode text (it holds half of a surrogate pair)' }]);
      await f.agent.post(`${api}/data/modify/Book`).set('token', alice).send({ title: 'emoji \u{1F600}' }).expect(200);
      expect((await f.rows('t_book')).map((r) => r.title)).to.deep.equal(['emoji \u{1F600}']);
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

  describe('constraints of the database', () => {
    const count = async (table: string) => (await f.rows(table)).length;

    it('answers 409 CONFLICT naming the field and the value for a taken unique key, on add, update, update-cell and import', async () => {
      const stamp = Date.now().toString(36);
      const taken = (await f.agent.post(`${api}/data/modify/FwRole`).set('token', admin).send({ code: `taken-${stamp}`, name: 'Taken' }).expect(200)).body;
      const other = (await f.agent.post(`${api}/data/modify/FwRole`).set('token', admin).send({ code: `other-${stamp}`, name: 'Other' }).expect(200)).body;
      const menu = (await f.agent.post(`${api}/data/modify/FwMenu`).set('token', admin).send({ code: `menu-${stamp}`, name: 'M', type: 'page' }).expect(200)).body;
      const menu2 = (await f.agent.post(`${api}/data/modify/FwMenu`).set('token', admin).send({ code: `menu2-${stamp}`, name: 'M2', type: 'page' }).expect(200)).body;
      const book = await addBook();
      const before = { roles: await f.rows('fw_role'), menus: await f.rows('fw_menu'), users: await f.rows('fw_user'), books: await f.rows('t_book') };
      const conflicts: Array<[string, Awaited<ReturnType<typeof f.agent.get>>, string]> = [
        ['add', await f.agent.post(`${api}/data/modify/FwRole`).set('token', admin).send({ code: taken.code, name: 'Again' }), 'code'],
        ['update', await f.agent.post(`${api}/data/modify/FwRole/update`).set('token', admin).send({ id: other.id, code: taken.code }), 'code'],
        ['update user', await f.agent.post(`${api}/data/modify/FwUser/update`).set('token', admin).send({ id: f.users.carol.id, account: f.users.bob.account }), 'account'],
        ['update-cell', await f.agent.post(`${api}/data/modify/FwMenu/update-cell`).set('token', admin).send({ id: menu2.id, field: 'code', value: menu.code }), 'code'],
        ['import', await f.agent.post(`${api}/data/import/Book`).set('token', alice).set('Content-Type', 'text/csv').send(`title,isbn\r\nFresh,1234567890\r\nDup,${book.isbn}\r\n`), 'rows[2].isbn'],
      ];
      for (const [what, res, path] of conflicts) {
        expect(res.status, `${what}: ${JSON.stringify(res.body)}`).to.equal(409);
        expect(res.body.error.code, what).to.equal('CONFLICT');
        expect(res.body.error.details, what).to.have.length(1);
        expect(res.body.error.details[0], what).to.include({ path, type: 'unique' });
        const value = { add: taken.code, update: taken.code, 'update user': f.users.bob.account, 'update-cell': menu.code, import: book.isbn }[what];
        expect(res.body.error.details[0].message, what).to.contain(`"${String(value)}"`);
      }
      expect({ roles: await f.rows('fw_role'), menus: await f.rows('fw_menu'), users: await f.rows('fw_user'), books: await f.rows('t_book') }).to.deep.equal(before);
    });

    it('answers 422 naming the field for null in a NOT NULL column the model leaves optional', async () => {
      const users = await count('fw_user');
      const res = await f.agent.post(`${api}/data/modify/FwUser`).set('token', admin).send({ account: `nul-${Date.now()}`, isAdmin: null }).expect(422);
      expect(res.body.error.code).to.equal('VALIDATION_FAILED');
      expect(res.body.error.details).to.deep.equal([{ path: 'isAdmin', type: 'required', message: 'isAdmin is a required field' }]);
      const llm = await f.agent.post(`${api}/data/modify/FwLlm`).set('token', admin).send({ name: 'L', apiDomain: 'https://x', enabled: null }).expect(422);
      expect(llm.body.error.details.map((d: { path: string }) => d.path)).to.deep.equal(['enabled']);
      expect(await count('fw_user')).to.equal(users);
      expect(await count('fw_llm')).to.equal(0);
    });

    it('answers 422 naming the field for a reference to a row that does not exist', async () => {
      const users = await count('fw_user');
      const roles = await f.agent.post(`${api}/data/modify/FwUser`).set('token', admin).send({ account: `ref-${Date.now()}`, roles: [f.roles.editor, 999_999] }).expect(422);
      expect(roles.body.error.details.map((d: { path: string }) => d.path)).to.deep.equal(['roles']);
      const key = await f.agent.post(`${api}/data/modify/FwOpenApi`).set('token', admin).send({ name: 'K', secret: 'a-secret-of-16-chars', userId: 999_999 }).expect(422);
      expect(key.body.error.details.map((d: { path: string }) => d.path)).to.deep.equal(['userId']);
      expect(await count('fw_user')).to.equal(users);
      expect(await count('fw_open_api')).to.equal(0);
    });
  });

  describe('copy of a model with unique fields', () => {
    it('answers 409 naming the field to change, and copies with overrides in values', async () => {
      const stamp = Date.now().toString(36);
      const role = (await f.agent.post(`${api}/data/modify/FwRole`).set('token', admin).send({ code: `src-${stamp}`, name: 'Source' }).expect(200)).body;
      const menus = await f.store.roles.menuIds(f.roles.editor);
      await f.store.roles.setMenus(role.id, menus.slice(0, 2));
      const refused = await f.agent.post(`${api}/data/modify/FwRole/copy`).set('token', admin).send({ id: role.id }).expect(409);
      expect(refused.body.error.code).to.equal('CONFLICT');
      expect(refused.body.error.details).to.have.length(1);
      expect(refused.body.error.details[0]).to.include({ path: 'code', type: 'unique' });
      expect(refused.body.error.message).to.contain('values.code');
      const copied = (await f.agent.post(`${api}/data/modify/FwRole/copy`).set('token', admin).send({ id: role.id, values: { code: `copy-${stamp}` } }).expect(200)).body;
      expect(copied).to.include({ code: `copy-${stamp}`, name: 'Source' });
      expect(copied.menus).to.deep.equal([...menus.slice(0, 2)].sort((a, b) => a - b));

      const user = await f.agent.post(`${api}/data/modify/FwUser/copy`).set('token', admin).send({ id: f.users.bob.id }).expect(409);
      expect(user.body.error.details[0]).to.include({ path: 'account', type: 'unique' });
      const userCopy = (await f.agent.post(`${api}/data/modify/FwUser/copy`).set('token', admin).send({ id: f.users.bob.id, values: { account: `bob2-${stamp}` } }).expect(200)).body;
      expect(userCopy).to.include({ account: `bob2-${stamp}`, name: 'bob' });
      expect(userCopy.roles).to.deep.equal([f.roles.reader]);

      const menu = (await f.agent.post(`${api}/data/modify/FwMenu`).set('token', admin).send({ code: `m-${stamp}`, name: 'M', type: 'page' }).expect(200)).body;
      const menuRefused = await f.agent.post(`${api}/data/modify/FwMenu/copy`).set('token', admin).send({ id: menu.id }).expect(409);
      expect(menuRefused.body.error.details[0]).to.include({ path: 'code', type: 'unique' });
      await f.agent.post(`${api}/data/modify/FwMenu/copy`).set('token', admin).send({ id: menu.id, values: { code: `m2-${stamp}` } }).expect(200);
    });

    it('checks the overrides like an add', async () => {
      const book = await addBook();
      const before = await f.rows('t_book');
      expect((await f.agent.post(`${api}/data/modify/Book/copy`).set('token', alice).send({ id: book.id, values: { nope: 1 } }).expect(400)).body.error.code).to.equal('UNKNOWN_FIELD');
      expect((await f.agent.post(`${api}/data/modify/Book/copy`).set('token', alice).send({ id: book.id, values: JSON.parse('{"__proto__":1}') }).expect(400)).body.error.code).to.equal('UNKNOWN_FIELD');
      expect((await f.agent.post(`${api}/data/modify/Book/copy`).set('token', alice).send({ id: book.id, values: { code: 'X' } }).expect(400)).body.error.code).to.equal('READONLY_FIELD');
      expect((await f.agent.post(`${api}/data/modify/Book/copy`).set('token', alice).send({ id: book.id, values: { price: 'cheap' } }).expect(422)).body.error.details[0].path).to.equal('price');
      expect((await f.agent.post(`${api}/data/modify/Book/copy`).set('token', alice).send({ id: book.id, values: { price: -1 } }).expect(422)).body.error.details[0].path).to.equal('price');
      expect((await f.agent.post(`${api}/data/modify/Book/copy`).set('token', alice).send({ id: book.id, values: [1] }).expect(400)).body.error.code).to.equal('BAD_REQUEST');
      expect(await f.rows('t_book')).to.deep.equal(before);
      const taken = await f.agent.post(`${api}/data/modify/Book/copy`).set('token', alice).send({ id: book.id, values: { title: 'Dune II' } }).expect(409);
      expect(taken.body.error.details[0]).to.include({ path: 'isbn', type: 'unique' });
      const copy = (await f.agent.post(`${api}/data/modify/Book/copy`).set('token', alice).send({ id: book.id, values: { title: 'Dune II', price: null, isbn: '9780441172719' } }).expect(200)).body;
      expect(copy).to.include({ title: 'Dune II', price: null, isbn: '9780441172719', genre: 'novel' });
    });
  });

  describe('like on a field that is not text', () => {
    it('is a 400 on every dialect, for numbers, dates, booleans and integer keys', async () => {
      await addBook({ published: '1965-08-01' });
      for (const [model, field] of [['Book', 'id'], ['Book', 'price'], ['Book', 'published'], ['Book', 'inPrint'], ['Note', 'ownerId'], ['FwOrg', 'parentId'], ['FwUser', 'expireDate']] as const) {
        const res = await f.agent.post(`${api}/data/table/${model}`).set('token', admin).send({ conditions: [{ field, op: 'like', value: '1' }] });
        expect(res.status, `${model}.${field}: ${JSON.stringify(res.body)}`).to.equal(400);
        expect(res.body.error.code).to.equal('BAD_QUERY');
        expect(res.body.error.details[0].path).to.equal('conditions[0].op');
      }
      const exported = await f.agent.get(`${api}/data/export/Book`).query({ conditions: JSON.stringify([{ field: 'id', op: 'like', value: '1' }]) }).set('token', alice).expect(400);
      expect(exported.body.error.code).to.equal('BAD_QUERY');
      // Text stays searchable.
      const found = await f.agent.post(`${api}/data/table/Book`).set('token', admin).send({ conditions: [{ field: 'isbn', op: 'like', value: '0441' }] }).expect(200);
      expect(found.body.total).to.equal(1);
    });
  });

  describe('an export whose first query fails', () => {
    it('answers an error status, not a 200 cut off after the header line', async () => {
      const allowed = await f.agent.get(`${api}/data/export/Book`).set('token', admin).expect(200);
      expect(allowed.text).to.match(/title,isbn/i);
      await f.store.knex.schema.renameTable('t_book', 't_book_away');
      try {
        const res = await f.agent.get(`${api}/data/export/Book`).set('token', admin);
        expect(res.status).to.equal(500);
        expect(res.headers['content-type']).to.match(/json/);
        expect(res.body).to.deep.equal({ error: { code: 'INTERNAL', message: 'Internal server error' } });
      } finally {
        await f.store.knex.schema.renameTable('t_book_away', 't_book');
      }
    });
  });

  describe('a route asked with another method', () => {
    it('answers 405 METHOD_NOT_ALLOWED with an Allow header, not MODEL_NOT_FOUND "table"', async () => {
      for (const [method, path, allow] of [
        ['get', '/data/table/Book', 'POST'],
        ['get', '/data/modify/Book', 'POST'],
        ['get', '/data/modify/Book/update', 'POST'],
        ['get', '/data/modify/Book/update-cell', 'POST'],
        ['get', '/data/import/Book', 'POST'],
        ['post', '/data/export/Book', 'HEAD, GET'],
        ['put', '/data/Book/1', 'HEAD, GET'],
        ['delete', '/data/modify/Book/delete', 'POST'],
        ['post', '/build/Book', 'HEAD, GET'],
      ] as const) {
        for (const token of [alice, undefined]) {
          const req = f.agent[method](`${api}${path}`);
          const res = await (token ? req.set('token', token) : req).send({});
          expect(res.status, `${method} ${path}: ${JSON.stringify(res.body)}`).to.equal(405);
          expect(res.body.error.code).to.equal('METHOD_NOT_ALLOWED');
          expect(res.headers.allow?.split(', ').sort(), `${method} ${path}`).to.deep.equal(allow.split(', ').sort());
        }
      }
      // A path no route serves stays a 404.
      expect((await f.agent.get(`${api}/data/print/Book`).set('token', alice)).status).to.equal(404);
      expect((await f.agent.get(`${api}/data/a/b/c/d`).set('token', alice)).status).to.equal(404);
    });
  });

  describe('stamps, integer columns and tree parents', () => {
    it('moves updatedAt of a built-in row on each update that changes it', async () => {
      const [created] = await f.store.knex('fw_role').insert({ code: `stamp-${Date.now()}`, name: 'Old', created_at: new Date('2001-02-03T04:05:06.007Z'), updated_at: new Date('2001-02-03T04:05:06.007Z') }, ['id']);
      const id = Number(typeof created === 'object' ? (created as { id: number }).id : created);
      const unchanged = (await f.agent.post(`${api}/data/modify/FwRole/update`).set('token', admin).send({ id, name: 'Old' }).expect(200)).body;
      expect(unchanged.updatedAt).to.equal('2001-02-03T04:05:06.007Z');
      const form = (await f.agent.post(`${api}/data/modify/FwRole/update`).set('token', admin).send({ id, name: 'New' }).expect(200)).body;
      expect(form.updatedAt > '2001-02-03T04:05:06.007Z').to.equal(true);
      expect(form.createdAt).to.equal('2001-02-03T04:05:06.007Z');
      const read = (await f.agent.get(`${api}/data/FwRole/${id}`).set('token', admin).expect(200)).body;
      expect(read.updatedAt).to.equal(form.updatedAt);
      await f.store.knex('fw_role').where('id', id).update({ updated_at: new Date('2001-02-03T04:05:06.007Z') });
      const cell = (await f.agent.post(`${api}/data/modify/FwRole/update-cell`).set('token', admin).send({ id, field: 'remark', value: 'by cell' }).expect(200)).body;
      expect(cell.updatedAt > '2001-02-03T04:05:06.007Z').to.equal(true);
    });

    it('stores integer fields in integer columns (a HIDDEN integer sorts as a number)', async () => {
      const info = await f.store.knex('t_note').columnInfo();
      expect(info.ownerId?.type ?? (info as Record<string, { type: string }>).owner_id?.type).to.match(/int/i);
      await f.store.knex('t_note').insert([{ subject: 'nine', ownerId: 9 }, { subject: 'ten', ownerId: 10 }]);
      const sorted = await f.agent.post(`${api}/data/table/Note`).set('token', admin).send({ sort: [{ field: 'ownerId', order: 'asc' }] }).expect(200);
      expect(sorted.body.rows.map((r: { ownerId: number }) => r.ownerId)).to.deep.equal([9, 10]);
    });

    it('refuses a tree parent that does not exist, the row itself, or one of its descendants (422 on parentId)', async () => {
      const add = async (name: string, parentId: number | null) => (await f.agent.post(`${api}/data/modify/FwMenu`).set('token', admin).send({ name, type: 'dir', parentId }).expect(200)).body as { id: number };
      const root = await add('root', null);
      const child = await add('child', root.id);
      const grandchild = await add('grandchild', child.id);
      const before = await f.rows('fw_menu');
      const refusals = [
        await f.agent.post(`${api}/data/modify/FwMenu`).set('token', admin).send({ name: 'orphan', type: 'dir', parentId: 999_999 }),
        await f.agent.post(`${api}/data/modify/FwOrg`).set('token', admin).send({ name: 'orphan', parentId: 999_999 }),
        await f.agent.post(`${api}/data/modify/FwMenu/update`).set('token', admin).send({ id: root.id, parentId: root.id }),
        await f.agent.post(`${api}/data/modify/FwMenu/update`).set('token', admin).send({ id: root.id, parentId: grandchild.id }),
        await f.agent.post(`${api}/data/modify/FwMenu/update-cell`).set('token', admin).send({ id: child.id, field: 'parentId', value: grandchild.id }),
      ];
      for (const [i, res] of refusals.entries()) {
        expect(res.status, `request ${i}: ${JSON.stringify(res.body)}`).to.equal(422);
        expect(res.body.error.details.map((d: { path: string }) => d.path), `request ${i}`).to.deep.equal(['parentId']);
      }
      expect(refusals[2]!.body.error.details[0].type).to.equal('cycle');
      expect(await f.rows('fw_menu')).to.deep.equal(before);
      // Moving a branch elsewhere in the tree is fine.
      await f.agent.post(`${api}/data/modify/FwMenu/update`).set('token', admin).send({ id: grandchild.id, parentId: root.id }).expect(200);
    });
  });

  describe('dates the database cannot store', () => {
    const mysql = spec.dialect === 'mysql';

    it('stores a date exactly as sent, or refuses it with a 422 naming the field; never another date', async () => {
      for (const day of ['0001-01-01', '0099-12-31', '0999-12-31', '1000-01-01', '1969-12-31', '9999-12-31']) {
        const res = await f.agent.post(`${api}/data/modify/Book`).set('token', alice).send({ title: day, published: day });
        if (mysql && day < '1000-01-01') {
          expect(res.status, `${day}: ${JSON.stringify(res.body)}`).to.equal(422);
          expect(res.body.error.details).to.deep.equal([{ path: 'published', type: 'min', message: 'published must be 1000-01-01 or later (the database stores no earlier date)' }]);
          continue;
        }
        expect(res.status, `${day}: ${JSON.stringify(res.body)}`).to.equal(200);
        expect(res.body.published, day).to.equal(day);
        expect((await f.agent.get(`${api}/data/Book/${res.body.id}`).set('token', alice).expect(200)).body.published, day).to.equal(day);
      }
      expect((await f.rows('t_book')).map((r) => r.title)).to.have.length(mysql ? 3 : 6);
    });

    it('does the same for date-times, on add, the edit form and the cell editor', async () => {
      const account = `when-${Date.now()}`;
      const user = (await f.agent.post(`${api}/data/modify/FwUser`).set('token', admin).send({ account }).expect(200)).body as { id: number };
      for (const at of ['0001-01-01T00:00:00.000Z', '0999-12-31T23:59:59.999Z', '1000-01-01T00:00:00.000Z', '9999-12-31T23:59:59.999Z']) {
        const res = await f.agent.post(`${api}/data/modify/FwUser/update`).set('token', admin).send({ id: user.id, expireDate: at });
        if (mysql && at < '1000') {
          expect(res.status, `${at}: ${JSON.stringify(res.body)}`).to.equal(422);
          expect(res.body.error.details.map((d: { path: string; type: string }) => [d.path, d.type])).to.deep.equal([['expireDate', 'min']]);
          continue;
        }
        expect(res.status, `${at}: ${JSON.stringify(res.body)}`).to.equal(200);
        expect((await f.agent.get(`${api}/data/FwUser/${user.id}`).set('token', admin).expect(200)).body.expireDate, at).to.equal(at);
      }
      // An offset that moves the instant out of the years 0001 to 9999 is refused everywhere.
      for (const at of ['0001-01-01T00:30:00+01:00', '9999-12-31T23:30:00-01:00']) {
        const res = await f.agent.post(`${api}/data/modify/FwUser`).set('token', admin).send({ account: `${account}-x`, expireDate: at });
        expect(res.status, at).to.equal(422);
        expect(res.body.error.details.map((d: { path: string }) => d.path)).to.deep.equal(['expireDate']);
      }
      const plan = (await f.agent.post(`${api}/data/modify/Plan`).set('token', alice).send({ name: 'P', startDate: mysql ? '1000-01-01' : '0400-01-01' }).expect(200)).body as { id: number };
      const cell = await f.agent.post(`${api}/data/modify/Plan/update-cell`).set('token', alice).send({ id: plan.id, field: 'endDate', value: '0500-01-01' });
      if (mysql) {
        expect(cell.status).to.equal(422);
        expect(cell.body.error.details.map((d: { path: string }) => d.path)).to.deep.equal(['endDate']);
      } else expect(cell.body.endDate).to.equal('0500-01-01');
    });
  });
});
