import { expect } from 'chai';
import { describeEachSql } from '@fw/test-utils';
import type { EditEvent } from './events.js';
import { setupData, type DataFixture } from './test-setup.js';

const api = '/fw-api';

describeEachSql('fwData(options): the data API', (db) => {
  let f: DataFixture;
  let admin: string;
  let alice: string;
  let bob: string;
  let carol: string;

  before(async () => {
    f = await setupData(db().url);
    [admin, alice, bob, carol] = await Promise.all([f.token('admin'), f.token('alice'), f.token('bob'), f.token('carol')]);
  });
  after(() => f?.destroy());
  beforeEach(async () => {
    for (const table of ['t_book_tag', 't_book', 't_tag', 't_note', 't_ledger', 'fw_operate_log']) await f.store.knex(table).delete();
  });

  const addBook = async (values: Record<string, unknown> = {}) =>
    (await f.agent.post(`${api}/data/modify/Book`).set('token', admin).send({ title: 'Dune', isbn: '0441172717', genre: 'novel', price: 9.5, ...values }).expect(200)).body;
  const addNote = async (token: string, subject: string) => (await f.agent.post(`${api}/data/modify/Note`).set('token', token).send({ subject }).expect(200)).body;

  describe('authentication', () => {
    it('answers 401 without a token and 404 for an unknown model', async () => {
      expect((await f.agent.post(`${api}/data/table/Book`).send({}).expect(401)).body.error.code).to.equal('UNAUTHENTICATED');
      expect((await f.agent.post(`${api}/data/table/Nope`).set('token', admin).send({}).expect(404)).body.error.code).to.equal('MODEL_NOT_FOUND');
      expect((await f.agent.get(`${api}/build/__proto__`).set('token', admin).expect(404)).body.error.code).to.equal('MODEL_NOT_FOUND');
      // Model names are case-sensitive, in the registry and in the routes.
      expect((await f.agent.post(`${api}/data/table/book`).set('token', admin).send({}).expect(404)).body.error.code).to.equal('MODEL_NOT_FOUND');
    });
  });

  describe('GET /build/{fw}', () => {
    it('describes the model and the caller’s effective power', async () => {
      const res = await f.agent.get(`${api}/build/Book`).set('token', bob).expect(200);
      expect(res.body.model.name).to.equal('Book');
      const isbn = res.body.model.fields.find((x: { name: string }) => x.name === 'isbn');
      expect(isbn).to.include({ type: 'INPUT', cellEdit: false });
      expect(isbn.rules[0]).to.deep.equal({ type: 'pattern', pattern: '^\\d{10}(\\d{3})?$', message: 'ISBN must be 10 or 13 digits' });
      expect(res.body.power).to.include({ query: true, add: false, edit: false, delete: false, export: false, print: true });
      const full = await f.agent.get(`${api}/build/Book`).set('token', alice).expect(200);
      expect(full.body.power).to.include({ query: true, add: true, edit: true, delete: true, export: true, importable: true });
      await f.agent.get(`${api}/build/Book`).set('token', carol).expect(403);
    });
  });

  describe('POST /data/table/{fw}', () => {
    beforeEach(async () => {
      for (let i = 1; i <= 25; i += 1) {
        await f.store.knex('t_book').insert({ title: `Book ${String(i).padStart(2, '0')}`, genre: i % 2 ? 'novel' : 'essay', price: i, inPrint: i % 3 === 0, code: `C${i}` });
      }
      await f.store.knex('t_book').insert({ title: '100% pure_fun', genre: 'essay', price: 0 });
    });

    it('pages, sorts and filters on declared fields', async () => {
      const page = await f.agent.post(`${api}/data/table/Book`).set('token', bob).send({ page: 2, size: 10, sort: [{ field: 'price', order: 'desc' }] }).expect(200);
      expect(page.body).to.include({ total: 26, page: 2, size: 10 });
      expect(page.body.rows.map((r: { price: number }) => r.price)).to.deep.equal([15, 14, 13, 12, 11, 10, 9, 8, 7, 6]);
      expect(page.body.rows[0]).to.not.have.property('secret');
      const filtered = await f.agent
        .post(`${api}/data/table/Book`)
        .set('token', bob)
        .send({ conditions: [{ field: 'genre', op: 'eq', value: 'novel' }, { field: 'price', op: 'between', value: [3, 9] }, { field: 'inPrint', op: 'eq', value: true }] })
        .expect(200);
      expect(filtered.body.rows.map((r: { price: number }) => r.price)).to.deep.equal([3, 9]);
      const inList = await f.agent.post(`${api}/data/table/Book`).set('token', bob).send({ conditions: [{ field: 'price', op: 'in', value: [1, '2', 25] }] }).expect(200);
      expect(inList.body.total).to.equal(3);
    });

    it('answers the same pages with and without a condition every row meets (two compiled plan shapes)', async () => {
      // page-plans.test.ts checks conditioned pages against the query builder itself.
      const everyRow = [{ field: 'price', op: 'gte', value: 0 }];
      for (const sort of [[], [{ field: 'price', order: 'desc' }], [{ field: 'title', order: 'asc' }]]) {
        for (const page of [1, 2, 3, 1]) {
          const plain = await f.agent.post(`${api}/data/table/Book`).set('token', bob).send({ page, size: 7, sort }).expect(200);
          const built = await f.agent.post(`${api}/data/table/Book`).set('token', bob).send({ page, size: 7, sort, conditions: everyRow }).expect(200);
          expect(plain.body, `page ${page} ${JSON.stringify(sort)}`).to.deep.equal(built.body);
        }
      }
      const last = await f.agent.post(`${api}/data/table/Book`).set('token', bob).send({ page: 4, size: 7 }).expect(200);
      expect(last.body.rows).to.have.length(26 - 21);
      expect(last.body.total).to.equal(26);
    });

    it('treats like patterns literally and case-insensitively', async () => {
      const res = await f.agent.post(`${api}/data/table/Book`).set('token', bob).send({ conditions: [{ field: 'title', op: 'like', value: '0% PURE_' }] }).expect(200);
      expect(res.body.rows.map((r: { title: string }) => r.title)).to.deep.equal(['100% pure_fun']);
      const none = await f.agent.post(`${api}/data/table/Book`).set('token', bob).send({ conditions: [{ field: 'title', op: 'like', value: '%_' }] }).expect(200);
      expect(none.body.total).to.equal(0);
    });

    const crafted: Array<[string, Record<string, unknown>, string]> = [
      ['an undeclared sort field', { sort: [{ field: 'title; drop table t_book', order: 'asc' }] }, 'UNKNOWN_FIELD'],
      ['a column name that is not a field', { sort: [{ field: 'in_print' }] }, 'UNKNOWN_FIELD'],
      ['a field name in another case', { sort: [{ field: 'TITLE' }] }, 'UNKNOWN_FIELD'],
      ['a prototype key as field', { conditions: [{ field: '__proto__', op: 'eq', value: 1 }] }, 'UNKNOWN_FIELD'],
      ['a filter on a password field', { conditions: [{ field: 'secret', op: 'eq', value: 'x' }] }, 'BAD_QUERY'],
      ['a sort order that is SQL', { sort: [{ field: 'title', order: 'asc, (select 1)' }] }, 'BAD_QUERY'],
      ['an unknown operator', { conditions: [{ field: 'title', op: 'regexp', value: '.*' }] }, 'BAD_QUERY'],
      ['a raw SQL operator', { conditions: [{ field: 'title', op: '= 1 or 1=1 --', value: 'x' }] }, 'BAD_QUERY'],
      ['a value of the wrong type', { conditions: [{ field: 'price', op: 'eq', value: 'cheap' }] }, 'BAD_QUERY'],
      ['an object as value', { conditions: [{ field: 'title', op: 'eq', value: { $gt: '' } }] }, 'BAD_QUERY'],
      ['a choice that is not one', { conditions: [{ field: 'genre', op: 'eq', value: 'poetry' }] }, 'BAD_QUERY'],
      ['conditions that are not an array', { conditions: 'title = 1' }, 'BAD_QUERY'],
      ['an oversized page', { size: 201 }, 'BAD_QUERY'],
      ['a page of a wrong type', { page: 'two' }, 'BAD_QUERY'],
      ['a negative page', { page: -1 }, 'BAD_QUERY'],
      ['a huge in list', { conditions: [{ field: 'price', op: 'in', value: Array.from({ length: 1001 }, (_, i) => i) }] }, 'BAD_QUERY'],
    ];
    for (const [what, body, code] of crafted) {
      it(`refuses ${what} with 400 ${code}`, async () => {
        const res = await f.agent.post(`${api}/data/table/Book`).set('token', bob).send(body).expect(400);
        expect(res.body.error.code).to.equal(code);
        expect(res.body.error.details).to.be.an('array').that.is.not.empty;
      });
    }

    it('refuses a body that is not JSON, or not an object', async () => {
      await f.agent.post(`${api}/data/table/Book`).set('token', bob).set('Content-Type', 'application/json').send('{"page":').expect(400);
      await f.agent.post(`${api}/data/table/Book`).set('token', bob).send([1]).expect(400);
      expect((await f.agent.post(`${api}/data/table/Book`).set('token', bob).set('Content-Type', 'application/json').send(`{"pad":"${'x'.repeat(1_100_000)}"}`).expect(413)).body.error.code).to.equal('PAYLOAD_TOO_LARGE');
    });
  });

  describe('every route checks its flag on the server', () => {
    it('refuses each operation to a user without the grant, changing nothing', async () => {
      const book = await addBook();
      const before = await f.rows('t_book');
      const attempts: Array<[string, () => Promise<{ status: number; body: { error?: { code: string } } }>]> = [
        ['query', () => f.agent.post(`${api}/data/table/Book`).set('token', carol).send({})],
        ['details', () => f.agent.get(`${api}/data/Book/${book.id}`).set('token', carol)],
        ['add', () => f.agent.post(`${api}/data/modify/Book`).set('token', bob).send({ title: 'x' })],
        ['update', () => f.agent.post(`${api}/data/modify/Book/update`).set('token', bob).send({ id: book.id, title: 'hacked' })],
        ['update-cell', () => f.agent.post(`${api}/data/modify/Book/update-cell`).set('token', bob).send({ id: book.id, field: 'title', value: 'hacked' })],
        ['delete', () => f.agent.post(`${api}/data/modify/Book/delete`).set('token', bob).send({ ids: [book.id] })],
        ['copy', () => f.agent.post(`${api}/data/modify/Book/copy`).set('token', bob).send({ id: book.id })],
        ['export', () => f.agent.get(`${api}/data/export/Book`).set('token', bob)],
        ['import', () => f.agent.post(`${api}/data/import/Book`).set('token', bob).set('Content-Type', 'text/csv').send('title\r\nx\r\n')],
        ['print', () => f.agent.get(`${api}/data/print/Book/${book.id}`).set('token', carol)],
        ['delete by handler', () => f.agent.post(`${api}/data/modify/Ledger/delete`).set('token', alice).send({ ids: [1] })],
      ];
      for (const [what, attempt] of attempts) {
        const res = await attempt();
        expect(res.status, what).to.equal(403);
        expect(res.body.error?.code, what).to.equal('POWER_DENIED');
      }
      expect(await f.rows('t_book')).to.deep.equal(before);
    });

    it('takes a revoked menu away from a live token on its next request', async () => {
      const book = await addBook();
      const token = await f.token('alice');
      await f.agent.post(`${api}/data/modify/Book/update`).set('token', token).send({ id: book.id, title: 'Allowed' }).expect(200);
      const editMenu = (await f.store.menus.findByCode('Book@EDIT'))!;
      const menus = await f.store.roles.menuIds(f.roles.editor);
      await f.store.roles.setMenus(f.roles.editor, menus.filter((id) => id !== editMenu.id));
      try {
        await f.agent.post(`${api}/data/modify/Book/update`).set('token', token).send({ id: book.id, title: 'Refused' }).expect(403);
      } finally {
        await f.store.roles.setMenus(f.roles.editor, menus);
      }
      await f.agent.post(`${api}/data/modify/Book/update`).set('token', token).send({ id: book.id, title: 'Allowed again' }).expect(200);
    });
  });

  describe('row visibility (beforeFetch)', () => {
    it('hides other users’ rows from the table, and makes them 404 for details, update, cell edit and delete', async () => {
      const mine = await addNote(alice, 'alice note');
      const other = await addNote(admin, 'admin note');
      expect(mine.ownerId).to.equal(f.users.alice.id);
      const table = await f.agent.post(`${api}/data/table/Note`).set('token', alice).send({}).expect(200);
      expect(table.body.rows.map((r: { subject: string }) => r.subject)).to.deep.equal(['alice note']);
      await f.agent.get(`${api}/data/Note/${other.id}`).set('token', alice).expect(404);
      await f.agent.post(`${api}/data/modify/Note/update`).set('token', alice).send({ id: other.id, subject: 'mine now' }).expect(404);
      await f.agent.post(`${api}/data/modify/Note/update-cell`).set('token', alice).send({ id: other.id, field: 'subject', value: 'mine now' }).expect(404);
      const del = await f.agent.post(`${api}/data/modify/Note/delete`).set('token', alice).send({ ids: [mine.id, other.id] }).expect(404);
      expect(del.body.error.code).to.equal('ROW_NOT_FOUND');
      const rows = await f.rows('t_note');
      expect(rows.map((r) => r.subject)).to.deep.equal(['alice note', 'admin note']);
    });
  });

  describe('add, edit and delete', () => {
    it('adds with defaults, collections and a hashed password, and logs it masked', async () => {
      const tag = (await f.agent.post(`${api}/data/modify/Tag`).set('token', alice).send({ label: 'sf' }).expect(200)).body;
      const book = (await f.agent.post(`${api}/data/modify/Book`).set('token', alice).send({ title: 'Dune', secret: 'hunter2', tags: [tag.id], published: '1965-08-01' }).expect(200)).body;
      expect(book).to.include({ title: 'Dune', inPrint: true, published: '1965-08-01' });
      expect(book.tags).to.deep.equal([tag.id]);
      expect(book).to.not.have.property('secret');
      const [stored] = await f.rows('t_book');
      expect(String(stored!.secret)).to.match(/^scrypt:/);
      const [log] = await f.store.operateLogs.list({ model: 'Book', limit: 1 });
      expect(log).to.include({ model: 'Book', action: 'add', status: 'success', account: f.users.alice.account, targetId: String(book.id) });
      expect(log!.request).to.contain('******').and.not.contain('hunter2');
    });

    it('answers 422 with every failure, 400 for unknown fields, and writes nothing', async () => {
      const bad = await f.agent.post(`${api}/data/modify/Book`).set('token', alice).send({ title: '', isbn: '12', price: -1, genre: 'poetry' }).expect(422);
      expect(bad.body.error.code).to.equal('VALIDATION_FAILED');
      expect(bad.body.error.details.map((d: { path: string }) => d.path).sort()).to.deep.equal(['genre']);
      const rules = await f.agent.post(`${api}/data/modify/Book`).set('token', alice).send({ title: '', isbn: '12', price: -1 }).expect(422);
      expect(rules.body.error.details.map((d: { path: string }) => d.path).sort()).to.deep.equal(['isbn', 'price', 'title']);
      const unknown = await f.agent.post(`${api}/data/modify/Book`).set('token', alice).send({ title: 'x', is_admin: true }).expect(400);
      expect(unknown.body.error.code).to.equal('UNKNOWN_FIELD');
      const readonly = await f.agent.post(`${api}/data/modify/Book`).set('token', alice).send({ title: 'x', code: 'FORGED' }).expect(400);
      expect(readonly.body.error.code).to.equal('READONLY_FIELD');
      expect(await f.rows('t_book')).to.have.length(0);
      const [log] = await f.store.operateLogs.list({ model: 'Book', limit: 1 });
      expect(log).to.include({ action: 'add', status: 'failure' });
    });

    it('keeps absent fields, refuses read-only changes, and fires the edit event', async () => {
      await f.store.knex('t_book').insert({ title: 'Old', isbn: '0441172717', price: 5, code: 'K1' });
      const [row] = await f.rows('t_book');
      const events: EditEvent[] = [];
      const listener = (e: EditEvent) => events.push(e);
      f.data.events.on('update', listener);
      try {
        const res = await f.agent.post(`${api}/data/modify/Book/update`).set('token', alice).send({ id: row!.id, title: 'New', code: 'K1' }).expect(200);
        expect(res.body).to.include({ title: 'New', isbn: '0441172717', price: 5, code: 'K1' });
        await f.agent.post(`${api}/data/modify/Book/update`).set('token', alice).send({ id: row!.id, code: 'K2' }).expect(400);
        // Saving the form unchanged is an update with nothing to tell listeners.
        await f.agent.post(`${api}/data/modify/Book/update`).set('token', alice).send({ id: row!.id, title: 'New' }).expect(200);
        await f.agent.post(`${api}/data/modify/Book/update`).set('token', alice).send({ id: 'abc', title: 'x' }).expect(400);
        await f.agent.post(`${api}/data/modify/Book/update`).set('token', alice).send({ id: 999999, title: 'x' }).expect(404);
      } finally {
        f.data.events.off('update', listener);
      }
      expect(events).to.have.length(1);
      expect(events[0]).to.deep.include({ model: 'Book', id: row!.id, source: 'http', changed: ['title'] });
      expect(events[0]!.before.title).to.equal('Old');
      expect(events[0]!.after.title).to.equal('New');
      const [stored] = await f.rows('t_book');
      expect(stored).to.include({ title: 'New', code: 'K1' });
    });

    it('calls a once listener once', async () => {
      const book = await addBook();
      let calls = 0;
      f.data.events.once('update', () => {
        calls += 1;
      });
      await f.agent.post(`${api}/data/modify/Book/update`).set('token', alice).send({ id: book.id, title: 'One' }).expect(200);
      await f.agent.post(`${api}/data/modify/Book/update`).set('token', alice).send({ id: book.id, title: 'Two' }).expect(200);
      expect(calls).to.equal(1);
      expect(f.data.events.listenerCount('update')).to.equal(0);
    });

    it('answers 422, not a database error, for values beyond their column', async () => {
      const long = await f.agent.post(`${api}/data/modify/Tag`).set('token', alice).send({ label: 'x'.repeat(300) }).expect(422);
      expect(long.body.error.details[0]).to.include({ path: 'label', type: 'max' });
      await f.agent.post(`${api}/data/modify/Tag`).set('token', alice).send({ label: 'x'.repeat(255) }).expect(200);
      const big = await f.agent.post(`${api}/data/modify/FwOrg`).set('token', admin).send({ name: 'Org', sort: 3_000_000_000 }).expect(422);
      expect(big.body.error.details[0]).to.include({ path: 'sort', type: 'max' });
      expect(await f.rows('t_tag')).to.have.length(1);
    });

    it('deletes several rows at once', async () => {
      const a = await addBook();
      const b = await addBook({ title: 'Emma' });
      const c = await addBook({ title: 'Ulysses' });
      const res = await f.agent.post(`${api}/data/modify/Book/delete`).set('token', alice).send({ ids: [a.id, c.id] }).expect(200);
      expect(res.body.deleted).to.equal(2);
      expect(res.body.batch).to.match(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
      expect((await f.rows('t_book')).map((r) => r.id)).to.deep.equal([b.id]);
      await f.agent.post(`${api}/data/modify/Book/delete`).set('token', alice).send({ ids: 'all' }).expect(400);
      await f.agent.post(`${api}/data/modify/Book/delete`).set('token', alice).send({ ids: [] }).expect(400);
    });

    it('copies a row into a new one', async () => {
      const source = await addBook({ code: undefined });
      const copy = (await f.agent.post(`${api}/data/modify/Book/copy`).set('token', alice).send({ id: source.id }).expect(200)).body;
      expect(copy.id).to.not.equal(source.id);
      expect(copy).to.include({ title: 'Dune', isbn: '0441172717', price: 9.5 });
      expect(await f.rows('t_book')).to.have.length(2);
    });
  });

  describe('export, import and print', () => {
    it('exports CSV (download token in the query), neutralising spreadsheet formulas', async () => {
      await addBook({ title: '=HYPERLINK("http://evil")' });
      await addBook({ title: 'Plain, with comma' });
      const res = await f.agent.get(`${api}/data/export/Book?_token=${alice}`).expect(200).expect('Content-Type', /text\/csv/);
      const lines = res.text.replace(/^\ufeff/, '').trim().split('\r\n');
      expect(lines[0]).to.equal('Title,isbn,genre,price,published,inPrint,code,tags,id');
      expect(lines[1]).to.contain(`"'=HYPERLINK(""http://evil"")"`);
      expect(lines[2]).to.contain('"Plain, with comma"');
      expect(res.text).to.not.contain('scrypt');
      await f.agent.post(`${api}/data/table/Book?_token=${alice}`).send({}).expect(401);
    });

    it('imports CSV all or nothing, with the failing rows named', async () => {
      const bad = await f.agent.post(`${api}/data/import/Book`).set('token', alice).set('Content-Type', 'text/csv').send('title,price\r\nGood,1\r\nBad,-5\r\n,3\r\n').expect(422);
      expect(bad.body.error.code).to.equal('IMPORT_FAILED');
      expect(bad.body.error.details.map((d: { path: string }) => d.path)).to.include.members(['rows[2].price', 'rows[3].title']);
      expect(await f.rows('t_book')).to.have.length(0);
      const ok = await f.agent.post(`${api}/data/import/Book`).set('token', alice).set('Content-Type', 'text/csv').send("title,price,genre\r\nOne,1,novel\r\n\"Two, too\",2,\r\n'=SUM(A1),3,essay\r\n").expect(200);
      expect(ok.body).to.deep.include({ imported: 3, added: 3, updated: 0 });
      expect((await f.rows('t_book')).map((r) => r.title)).to.deep.equal(['One', 'Two, too', '=SUM(A1)']);
      await f.agent.post(`${api}/data/import/Book`).set('token', alice).set('Content-Type', 'text/csv').send('title,is_admin\r\nx,1\r\n').expect(400);
      await f.agent.post(`${api}/data/import/Book`).set('token', alice).send({ title: 'json' }).expect(415);
    });

    it('imports an export back, apostrophes and read-only columns included', async () => {
      await addBook({ title: "'=quoted on purpose", code: undefined });
      await f.store.knex('t_book').update({ code: 'RO-1' });
      await addBook({ title: '-5 degrees', genre: 'essay' });
      const exported = (await f.agent.get(`${api}/data/export/Book?_token=${alice}`).expect(200)).text;
      expect(exported).to.contain("''=quoted on purpose").and.contain("'-5 degrees");
      await f.store.knex('t_book').delete();
      const res = await f.agent.post(`${api}/data/import/Book`).set('token', alice).set('Content-Type', 'text/csv').send(exported.replace(/^\ufeff/, '')).expect(200);
      expect(res.body).to.deep.include({ imported: 2, added: 2, updated: 0 });
      expect((await f.rows('t_book')).map((r) => r.title)).to.deep.equal(["'=quoted on purpose", '-5 degrees']);
      expect((await f.rows('t_book')).map((r) => r.code)).to.deep.equal([null, null]);
    });

    it('prints one visible row as escaped HTML', async () => {
      const book = await addBook({ title: '<script>alert(1)</script>' });
      const res = await f.agent.get(`${api}/data/print/Book/${book.id}?_token=${alice}`).expect(200).expect('Content-Type', /html/);
      expect(res.text).to.contain('&#60;script&#62;alert(1)&#60;/script&#62;').and.not.contain('<script>alert');
      expect(res.text).to.contain('Novel');
      const note = await addNote(admin, 'private');
      await f.agent.get(`${api}/data/print/Note/${note.id}`).set('token', alice).expect(404);
    });
  });
});
