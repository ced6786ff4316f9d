// Issue 23's server features probed from an attacker's side, through a real Koa app: condition
// groups, saved views, bulk edit (ids, conditions, rows, dry run), row history and restore, and
// the trash. Every probe wants a 4xx (never a 500), nothing written, and no secret in any answer
// or operate-log row.
import { expect } from 'chai';
import { describeEachSql } from '@fw/test-utils';
import { applyConditions } from './read/query.js';
import { meets } from './read/trash-filter.js';
import { Book, Note, setupData, type DataFixture } from './test-setup.js';

const api = '/fw-api';

/** The JSON text of `{ or: [{ or: [ … { field: 'title', op: 'eq', value: 'x' } … ] }] }`, `depth` groups deep (sent as text: the test client's own JSON writer recurses). */
function nested(depth: number): string {
  return `${'{"or":['.repeat(depth)}{"field":"title","op":"eq","value":"x"}${']}'.repeat(depth)}`;
}

describeEachSql('issue 23 from the attacker’s side', (db) => {
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
    for (const table of ['t_book_tag', 't_book', 't_note', 'fw_operate_log', 'fw_trash']) await f.store.knex(table).delete();
  });

  const addBook = async (values: Record<string, unknown> = {}) =>
    (await f.agent.post(`${api}/data/modify/Book`).set('token', alice).send({ title: 'Dune', price: 9.5, ...values }).expect(200)).body as Record<string, unknown> & { id: number };
  const addNote = async (token: string, subject: string) => (await f.agent.post(`${api}/data/modify/Note`).set('token', token).send({ subject }).expect(200)).body as { id: number };
  const updateMany = (token: string, model: string, body: unknown) => f.agent.post(`${api}/data/modify/${model}/update-many`).set('token', token).send(body as object);
  const logCount = async () => Number(((await f.store.knex('fw_operate_log').count({ n: '*' })) as Array<{ n: number | string }>)[0]!.n);
  const code = (res: { body: { error?: { code?: string } } }) => res.body.error?.code;

  it('refuses condition groups nested 10,000 deep on every route that takes conditions (400, never 500)', async () => {
    const deep = `[${nested(10_000)}]`;
    const post = (path: string, body: string) => f.agent.post(`${api}${path}`).set('token', alice).set('content-type', 'application/json').send(body);
    for (const [path, body] of [
      ['/data/table/Book', `{"conditions":${deep}}`],
      ['/data/modify/Book/update-many', `{"conditions":${deep},"values":{"title":"x"}}`],
      ['/data/modify/Book/update-many', `{"conditions":${deep},"values":{"title":"x"},"dryRun":true}`],
      ['/views/Book', `{"name":"deep","conditions":${deep}}`],
      ['/data/trash/Book', `{"conditions":${deep}}`],
    ] as const) {
      const res = await post(path, body);
      // A view's body is held to 64 KiB: this one is refused for its size (413) before it is read.
      expect(res.status, path).to.equal(path === '/views/Book' ? 413 : 400);
    }
    expect((await post('/views/Book', `{"name":"deep","conditions":[${nested(1000)}]}`)).status).to.equal(400);
    // The export takes its conditions in the URL, whose length Node bounds: deep enough to matter.
    const exported = await f.agent.get(`${api}/data/export/Book?conditions=${encodeURIComponent(`[${nested(300)}]`)}`).set('token', alice);
    expect(exported.status).to.equal(400);
    // One group with more members than maxConditions allows in the whole tree.
    const wide = [{ or: Array.from({ length: 60 }, () => ({ field: 'title', op: 'eq', value: 'x' })) }];
    expect(code(await f.agent.post(`${api}/data/table/Book`).set('token', alice).send({ conditions: wide }).expect(400))).to.equal('BAD_QUERY');
    expect(code(await updateMany(alice, 'Book', { conditions: wide, values: { title: 'x' } }).expect(400))).to.equal('BAD_QUERY');
    expect(await logCount()).to.equal(0);
  });

  it('refuses huge id lists and notIn lists with a 4xx', async () => {
    const many = Array.from({ length: 1_000_000 }, (_, i) => i + 1);
    const bulk = await updateMany(alice, 'Book', { ids: many, values: { title: 'x' } });
    expect(bulk.status).to.be.within(400, 499);
    const undelete = await f.agent.post(`${api}/data/modify/Book/undelete`).set('token', alice).send({ ids: many });
    expect(undelete.status).to.be.within(400, 499);
    const notIn = await f.agent.post(`${api}/data/table/Book`).set('token', alice).send({ conditions: [{ field: 'title', op: 'notIn', value: many.slice(0, 5000).map(String) }] });
    expect(notIn.status).to.be.within(400, 499);
  });

  it('takes __proto__ and constructor keys as unknown fields, in values, rows and conditions', async () => {
    const book = await addBook();
    const raw = (body: string) => f.agent.post(`${api}/data/modify/Book/update-many`).set('token', alice).set('content-type', 'application/json').send(body);
    for (const body of [
      `{"ids":[${book.id}],"values":{"__proto__":{"title":"polluted"}}}`,
      `{"ids":[${book.id}],"values":{"constructor":{"prototype":{"polluted":true}}}}`,
      `{"rows":[{"id":${book.id},"values":{"__proto__":{"isAdmin":true}}}]}`,
      `{"rows":[{"id":${book.id},"values":{"title":"ok","__proto__":{"title":"polluted"}}}]}`,
      `{"conditions":[{"field":"__proto__","op":"eq","value":"x"}],"values":{"title":"x"}}`,
      `{"conditions":[{"or":[{"field":"constructor","op":"eq","value":"x"}]}],"values":{"title":"x"}}`,
    ]) {
      const res = await raw(body);
      expect(res.status, body).to.be.within(400, 499);
    }
    expect(({} as Record<string, unknown>).polluted).to.equal(undefined);
    expect(({} as Record<string, unknown>).isAdmin).to.equal(undefined);
    expect((await f.rows('t_book'))[0]).to.include({ title: 'Dune' });
  });

  it('writes no field that a cell edit may not write, in rows mode too', async () => {
    const book = await addBook({ isbn: '1234567890' });
    for (const values of [{ isbn: '0987654321' }, { code: 'X' }, { secret: 'new-secret-1' }, { id: book.id + 1000 }, { title: 'ok', isbn: '0987654321' }]) {
      const rows = await updateMany(alice, 'Book', { rows: [{ id: book.id, values }] });
      expect(rows.status, JSON.stringify(values)).to.be.within(400, 499);
      const ids = await updateMany(alice, 'Book', { ids: [book.id], values });
      expect(ids.status, JSON.stringify(values)).to.be.within(400, 499);
    }
    const [stored] = await f.rows('t_book');
    expect(stored).to.include({ id: book.id, title: 'Dune', isbn: '1234567890', code: null });
    // A model closed to cell edits as a whole.
    expect((await updateMany(alice, 'Frozen', { rows: [{ id: 1, values: { label: 'x' } }] })).status).to.equal(403);
  });

  it('edits no row of another owner: by ids, by rows, by conditions with an or group', async () => {
    const theirs = await addNote(admin, 'admin only');
    const mine = await addNote(alice, 'mine');
    expect(code(await updateMany(alice, 'Note', { ids: [theirs.id], values: { subject: 'taken' } }).expect(404))).to.equal('ROW_NOT_FOUND');
    expect(code(await updateMany(alice, 'Note', { ids: [mine.id, theirs.id], values: { subject: 'taken' } }).expect(404))).to.equal('ROW_NOT_FOUND');
    expect(code(await updateMany(alice, 'Note', { rows: [{ id: theirs.id, values: { subject: 'taken' } }] }).expect(404))).to.equal('ROW_NOT_FOUND');
    // An or group that would match every row stays inside alice's rows.
    const widen = [{ or: [{ field: 'subject', op: 'notNull' }, { field: 'subject', op: 'isNull' }, { field: 'ownerId', op: 'ne', value: f.users.alice.id }] }];
    const res = await updateMany(alice, 'Note', { conditions: widen, values: { subject: 'taken' } }).expect(200);
    expect(res.body).to.include({ updated: 1 });
    const table = await f.agent.post(`${api}/data/table/Note`).set('token', alice).send({ conditions: widen }).expect(200);
    expect(table.body.rows.map((r: { id: number }) => r.id)).to.deep.equal([mine.id]);
    const rows = await f.rows('t_note');
    expect(rows.find((r) => r.id === theirs.id)).to.include({ subject: 'admin only' });
    expect(rows.find((r) => r.id === mine.id)).to.include({ subject: 'taken' });
  });

  it('a dry run writes nothing and logs nothing, passing or failing', async () => {
    const book = await addBook();
    const before = await logCount();
    const ok = await updateMany(alice, 'Book', { ids: [book.id], values: { price: 20 }, dryRun: true }).expect(200);
    expect(ok.body).to.include({ updated: 1, changed: 1, batch: null, dryRun: true });
    const paste = await updateMany(alice, 'Book', { rows: [{ id: book.id, values: { title: 'Paste' } }], dryRun: true }).expect(200);
    expect(paste.body).to.include({ dryRun: true });
    await updateMany(alice, 'Book', { ids: [book.id], values: { price: -5 }, dryRun: true }).expect(422);
    await updateMany(alice, 'Book', { ids: [book.id, 999_999], values: { price: 1 }, dryRun: true }).expect(404);
    await updateMany(alice, 'Book', { conditions: [{ field: 'title', op: 'startsWith', value: 'Du' }], values: { price: 30 }, dryRun: 'yes' }).expect(400);
    expect(await logCount()).to.equal(before);
    expect((await f.rows('t_book'))[0]).to.include({ title: 'Dune', price: 9.5 });
  });

  it('never answers or logs a PASSWORD value or hash: history, restore, bulk, trash, undelete', async () => {
    const book = await addBook({ secret: 'first-secret-1' });
    await f.agent.post(`${api}/data/modify/Book/update`).set('token', alice).send({ id: book.id, title: 'Dune', secret: 'second-secret-2' }).expect(200);
    const [stored] = await f.rows('t_book');
    const hash = String(stored!.secret);
    expect(hash).not.to.equal('null');
    const answers: unknown[] = [];
    answers.push((await updateMany(alice, 'Book', { ids: [book.id], values: { title: 'Dune II' } }).expect(200)).body);
    const history = (await f.agent.get(`${api}/data/Book/${book.id}/history`).set('token', alice).expect(200)).body;
    answers.push(history);
    const entry = (history.rows as Array<{ id: number; source: string }>).find((r) => r.source === 'bulk')!;
    answers.push((await f.agent.post(`${api}/data/Book/${book.id}/restore`).set('token', alice).send({ entry: entry.id }).expect(200)).body);
    await f.agent.post(`${api}/data/modify/Book/delete`).set('token', alice).send({ ids: [book.id] }).expect(200);
    answers.push((await f.agent.post(`${api}/data/trash/Book`).set('token', alice).send({}).expect(200)).body);
    answers.push((await f.agent.post(`${api}/data/modify/Book/undelete`).set('token', alice).send({ ids: [book.id] }).expect(200)).body);
    answers.push((await f.agent.get(`${api}/data/Book/${book.id}/history`).set('token', alice).expect(200)).body);
    answers.push(await f.store.knex('fw_operate_log').select('*'));
    const text = JSON.stringify(answers);
    for (const secret of ['first-secret-1', 'second-secret-2', hash]) expect(text).not.to.contain(secret);
  });

  it('restores only an entry of the same row and model', async () => {
    const book = await addBook();
    const other = await addBook({ title: 'Emma' });
    await f.agent.post(`${api}/data/modify/Book/update-cell`).set('token', alice).send({ id: other.id, field: 'price', value: 1 }).expect(200);
    const [entry] = (await f.agent.get(`${api}/data/Book/${other.id}/history`).set('token', alice).expect(200)).body.rows as Array<{ id: number }>;
    // Another row's entry.
    expect((await f.agent.post(`${api}/data/Book/${book.id}/restore`).set('token', alice).send({ entry: entry!.id })).status).to.equal(404);
    // A Note with the same id as the Book, and a Book entry named on it.
    const note = await addNote(alice, 'n');
    await f.store.knex('t_note').where('id', note.id).update({ id: other.id });
    expect((await f.agent.post(`${api}/data/Note/${other.id}/restore`).set('token', alice).send({ entry: entry!.id })).status).to.equal(404);
    for (const body of [{ entry: Number.MAX_SAFE_INTEGER }, { entry: '1' }, { entry: -1 }, { entry: 1.5 }, {}, [], { entry: { __proto__: 1 } }]) {
      const res = await f.agent.post(`${api}/data/Book/${book.id}/restore`).set('token', alice).send(body);
      expect(res.status, JSON.stringify(body)).to.be.within(400, 499);
    }
    for (const id of ['0', '-1', '1e3', '99999999999999999999', 'abc']) {
      expect((await f.agent.get(`${api}/data/Book/${id}/history`).set('token', alice)).status, id).to.be.within(400, 499);
      expect((await f.agent.post(`${api}/data/Book/${id}/restore`).set('token', alice).send({ entry: 1 })).status, id).to.be.within(400, 499);
    }
    expect((await f.agent.get(`${api}/data/Book/${book.id}/history?page=0`).set('token', alice)).status).to.equal(400);
    expect((await f.agent.get(`${api}/data/Book/${book.id}/history?page=1&page=2`).set('token', alice)).status).to.equal(400);
  });

  it('restores no row of another owner and puts back no read-only field', async () => {
    const theirs = await addNote(admin, 'admin only');
    await f.agent.post(`${api}/data/modify/Note/update-cell`).set('token', admin).send({ id: theirs.id, field: 'subject', value: 'changed' }).expect(200);
    const [entry] = (await f.agent.get(`${api}/data/Note/${theirs.id}/history`).set('token', admin).expect(200)).body.rows as Array<{ id: number }>;
    expect(code(await f.agent.post(`${api}/data/Note/${theirs.id}/restore`).set('token', alice).send({ entry: entry!.id }).expect(404))).to.equal('ROW_NOT_FOUND');
    expect((await f.rows('t_note'))[0]).to.include({ subject: 'changed' });
    // bob may query Notes, not edit them.
    expect((await f.agent.post(`${api}/data/Note/${theirs.id}/restore`).set('token', bob).send({ entry: entry!.id })).status).to.equal(403);

    const book = await addBook();
    await f.store.knex('t_book').where('id', book.id).update({ code: 'LATER' });
    // An update entry that says it changed the read-only code (as a hook might have).
    await f.store.knex('fw_operate_log').insert({ model: 'Book', action: 'update', source: 'http', target_id: String(book.id), status: 'success', before_data: JSON.stringify({ code: 'EARLY', title: 'Dune' }), request: JSON.stringify({ changes: { code: 'LATER' } }) });
    const [forged] = (await f.agent.get(`${api}/data/Book/${book.id}/history`).set('token', alice).expect(200)).body.rows as Array<{ id: number }>;
    const res = await f.agent.post(`${api}/data/Book/${book.id}/restore`).set('token', alice).send({ entry: forged!.id }).expect(409);
    expect(res.body.error.details).to.deep.include({ path: 'code', type: 'readonly', message: 'the field is read-only' });
    expect((await f.rows('t_book'))[0]).to.include({ code: 'LATER' });
  });

  it('restores over more later entries than one read takes (the log is read a page at a time)', async () => {
    const book = await addBook({ genre: 'novel' });
    await f.store.knex('fw_operate_log').delete();
    const entry = (model: string, changes: Record<string, unknown>, before: Record<string, unknown>) => ({ model, action: 'update', source: 'http', target_id: String(book.id), status: 'success', before_data: JSON.stringify(before), request: JSON.stringify({ changes }) });
    await f.store.knex('fw_operate_log').insert(entry('Book', { price: 12 }, { price: 9.5 }));
    const [first] = (await f.store.knex('fw_operate_log').select('id')) as Array<{ id: number | string }>;
    const later = Array.from({ length: 1100 }, (_, i) => entry(i % 2 ? 'Book' : 'Note', { title: `t${i + 1}` }, { title: i === 1 ? 'Dune' : `t${i}` }));
    for (let i = 0; i < later.length; i += 100) await f.store.knex('fw_operate_log').insert(later.slice(i, i + 100));
    // The only change of genre, far past the first page of entries.
    await f.store.knex('fw_operate_log').insert(entry('Book', { genre: 'novel' }, { genre: 'essay' }));
    await f.store.knex('t_book').where('id', book.id).update({ price: 12, title: 't1100' });
    const res = await f.agent.post(`${api}/data/Book/${book.id}/restore`).set('token', alice).send({ entry: Number(first!.id) }).expect(200);
    expect([...res.body.restored].sort()).to.deep.equal(['genre', 'price', 'title']);
    expect((await f.rows('t_book'))[0]).to.include({ price: 9.5, title: 'Dune', genre: 'essay' });
  });

  it('the trash: another owner’s rows stay hidden, a taken id is a 409, purge is for administrators', async () => {
    const theirs = await addNote(admin, 'admin only');
    const mine = await addNote(alice, 'mine');
    await f.agent.post(`${api}/data/modify/Note/delete`).set('token', admin).send({ ids: [theirs.id, mine.id] }).expect(200);
    const page = await f.agent.post(`${api}/data/trash/Note`).set('token', alice).send({ conditions: [{ field: 'subject', op: 'notNull' }] }).expect(200);
    expect(page.body.rows.map((r: { id: number }) => r.id)).to.deep.equal([mine.id]);
    // The trash judges groups too (trash-filter.ts); an or that holds for every row stays inside the rows the caller may see.
    const group = await f.agent.post(`${api}/data/trash/Note`).set('token', alice).send({ conditions: [{ or: [{ field: 'subject', op: 'notNull' }, { field: 'subject', op: 'isNull' }] }] }).expect(200);
    expect(group.body.rows.map((r: { id: number }) => r.id)).to.deep.equal([mine.id]);
    expect(code(await f.agent.post(`${api}/data/modify/Note/undelete`).set('token', alice).send({ ids: [theirs.id] }).expect(404))).to.equal('ROW_NOT_FOUND');
    expect(code(await f.agent.post(`${api}/data/modify/Note/undelete`).set('token', alice).send({ ids: [mine.id, theirs.id] }).expect(404))).to.equal('ROW_NOT_FOUND');
    expect(await f.rows('t_note')).to.deep.equal([]);
    // The id taken meanwhile by another row.
    await f.store.knex('t_note').insert({ id: mine.id, subject: 'squatter', ownerId: f.users.alice.id });
    expect(code(await f.agent.post(`${api}/data/modify/Note/undelete`).set('token', alice).send({ ids: [mine.id] }).expect(409))).to.equal('CONFLICT');
    expect((await f.rows('t_note'))[0]).to.include({ subject: 'squatter' });
    // Purge: administrators only, whatever the body.
    for (const body of [{}, { ids: [mine.id] }, { ids: 'all' }]) {
      expect((await f.agent.post(`${api}/data/trash/Note/purge`).set('token', alice).send(body)).status, JSON.stringify(body)).to.equal(403);
    }
    expect(Number(((await f.store.knex('fw_trash').count({ n: '*' })) as Array<{ n: number | string }>)[0]!.n)).to.equal(2);
    // bob (query only) and carol (nothing) see no trash.
    expect((await f.agent.post(`${api}/data/trash/Note`).set('token', bob).send({})).status).to.equal(403);
    expect((await f.agent.post(`${api}/data/trash/Note`).set('token', carol).send({})).status).to.equal(403);
  });

  it('the trash converts an in list once per query, not once per trashed row, and answers as value by value', () => {
    // Seen through a proxy: every read of a list entry is counted.
    let reads = 0;
    const plain = Array.from({ length: 1000 }, (_, i) => i + 1);
    const counted = new Proxy(plain, {
      get(target, key, receiver) {
        if (typeof key === 'string' && /^\d+$/.test(key)) reads += 1;
        return Reflect.get(target, key, receiver) as unknown;
      },
    });
    const condition = { field: 'price', op: 'in', value: counted };
    for (let price = 0; price < 200; price++) expect(meets(Book, { price }, condition)).to.equal(price >= 1);
    expect(reads).to.be.at.most(plain.length);
    // The same verdicts as eq on each value: an empty cell, a value no entry converts, an open entry.
    const eachEq = (row: Record<string, unknown>, values: unknown[]) => {
      const hits = values.map((value) => meets(Book, row, { field: 'price', op: 'eq', value }));
      return hits.includes(true) ? true : hits.includes(undefined) ? undefined : false;
    };
    for (const row of [{ price: 3 }, { price: null }, {}, { price: 'x' }]) {
      for (const values of [[3], [4], ['3'], ['abc'], ['abc', 3], [null], [4, 'abc']]) {
        expect(meets(Book, row, { field: 'price', op: 'in', value: values }), `${JSON.stringify(row)} in ${JSON.stringify(values)}`).to.equal(eachEq(row, values));
      }
    }
  });

  it('saved views: no one else’s view is changed, deleted or listed; sharing only with held roles; query needed', async () => {
    const own = (await f.agent.post(`${api}/views/Book`).set('token', admin).send({ name: 'admin view', conditions: [{ field: 'title', op: 'startsWith', value: 'D' }] }).expect(200)).body as { id: number };
    expect(code(await f.agent.post(`${api}/views/Book`).set('token', alice).send({ id: own.id, name: 'hijack' }).expect(404))).to.equal('NOT_FOUND');
    expect((await f.agent.delete(`${api}/views/Book/${own.id}`).set('token', alice)).status).to.equal(404);
    // Another model's route with the view's id.
    expect((await f.agent.delete(`${api}/views/Note/${own.id}`).set('token', admin)).status).to.equal(404);
    expect((await f.agent.get(`${api}/views/Book`).set('token', alice).expect(200)).body.views).to.deep.equal([]);
    // alice holds editor, not reader.
    expect(code(await f.agent.post(`${api}/views/Book`).set('token', alice).send({ name: 'share', roles: [f.roles.reader] }).expect(403))).to.equal('GRANT_DENIED');
    expect(code(await f.agent.post(`${api}/views/Book`).set('token', alice).send({ name: 'share', roles: [f.roles.editor, f.roles.reader] }).expect(403))).to.equal('GRANT_DENIED');
    // carol may not query Book: she neither lists nor saves.
    expect((await f.agent.get(`${api}/views/Book`).set('token', carol)).status).to.equal(403);
    expect((await f.agent.post(`${api}/views/Book`).set('token', carol).send({ name: 'x' })).status).to.equal(403);
    for (const body of [
      '{"name":"x","conditions":[{"field":"secret","op":"eq","value":"a"}]}',
      '{"name":"x","__proto__":{"roles":[1]}}',
      '{"name":"x","roles":[1e300]}',
      '{"name":"x","columns":["__proto__"]}',
    ]) {
      expect((await f.agent.post(`${api}/views/Book`).set('token', alice).set('content-type', 'application/json').send(body)).status, body).to.be.within(400, 499);
    }
    expect(await f.store.knex('fw_saved_view').where('user_id', f.users.alice.id).select('id')).to.deep.equal([]);
    // A key beside a condition's own is dropped, not stored (a later reader must not meet it as a group).
    const extra = '{"name":"x","conditions":[{"field":"title","op":"startsWith","value":"a","__proto__":{"or":[]},"or":null}]}';
    expect((await f.agent.post(`${api}/views/Book`).set('token', alice).set('content-type', 'application/json').send(extra)).status).to.equal(400);
    const kept = '{"name":"x","conditions":[{"field":"title","op":"startsWith","value":"a","__proto__":{"or":[]}}]}';
    const saved = await f.agent.post(`${api}/views/Book`).set('token', alice).set('content-type', 'application/json').send(kept).expect(200);
    expect(saved.body.conditions).to.deep.equal([{ field: 'title', op: 'startsWith', value: 'a' }]);
  });

  it('answers a query of the most in / notIn values the bounds allow without a server error', async () => {
    await addBook();
    const values = Array.from({ length: 1000 }, (_, i) => i + 1);
    for (const op of ['in', 'notIn']) {
      const conditions = Array.from({ length: 50 }, () => ({ field: 'price', op, value: values }));
      // Fifty thousand bound values: SQLite refused the statement (a 500) before the tree's total was bounded.
      const table = await f.agent.post(`${api}/data/table/Book`).set('token', alice).send({ conditions, count: 'exact' });
      expect(table.status, op).to.equal(400);
      expect(table.body.error).to.include({ code: 'BAD_QUERY' });
      expect(table.body.error.details[0].path).to.equal('conditions[10].value');
      const grouped = [{ or: Array.from({ length: 49 }, () => ({ field: 'price', op, value: values })) }];
      const bulk = await updateMany(alice, 'Book', { conditions: grouped, values: { genre: 'novel' }, dryRun: true });
      expect(bulk.status, op).to.equal(400);
      // Ten lists of the most values one takes are still a query.
      await f.agent.post(`${api}/data/table/Book`).set('token', alice).send({ conditions: conditions.slice(0, 10), count: 'exact' }).expect(200);
    }
  });

  it('an empty or group from a visibility filter matches no row (it must never open the table)', async () => {
    await addBook();
    const rows = await applyConditions(f.store.knex(Book.table).select('id'), Book, [{ or: [] }]);
    expect(rows).to.deep.equal([]);
    const inside = await applyConditions(f.store.knex(Note.table).select('id'), Note, [{ and: [{ or: [] }] }]);
    expect(inside).to.deep.equal([]);
  });
});
