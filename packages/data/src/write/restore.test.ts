import { expect } from 'chai';
import { describeEachSql } from '@fw/test-utils';
import type { EditEvent } from '../events.js';
import { setupData, type DataFixture } from '../test-setup.js';

const api = '/fw-api';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describeEachSql('POST /data/{fw}/{id}/restore', (db) => {
  let f: DataFixture;
  let admin: string;
  let alice: string;
  let bob: string;

  before(async () => {
    f = await setupData(db().url);
    [admin, alice, bob] = await Promise.all([f.token('admin'), f.token('alice'), f.token('bob')]);
  });
  after(() => f?.destroy());
  beforeEach(async () => {
    for (const table of ['t_book_tag', 't_book', 't_note', 'fw_operate_log']) await f.store.knex(table).delete();
  });

  const addBook = async (values: Record<string, unknown> = {}) =>
    (await f.agent.post(`${api}/data/modify/Book`).set('token', alice).send({ title: 'Dune', price: 9.5, ...values }).expect(200)).body as Record<string, unknown> & { id: number };
  const cell = (token: string, id: number, field: string, value: unknown) => f.agent.post(`${api}/data/modify/Book/update-cell`).set('token', token).send({ id, field, value }).expect(200);
  const restore = (token: string, model: string, id: unknown, entry: unknown) => f.agent.post(`${api}/data/${model}/${String(id)}/restore`).set('token', token).send({ entry });
  /** The id of the newest log row of the row (the entry just made). */
  const lastEntry = async (id: number) => Number((await f.store.knex('fw_operate_log').where('target_id', String(id)).max({ id: 'id' }))[0]!.id);
  const stored = async (id: number) => (await f.store.knex('t_book').where('id', id).first()) as Record<string, unknown>;

  it('puts the row back to how it was just before the entry, through the update path, logged as restore with a batch id', async () => {
    const book = await addBook();
    await cell(alice, book.id, 'title', 'Dune II');
    const entry = await lastEntry(book.id);
    await cell(alice, book.id, 'price', 20);
    const events: EditEvent[] = [];
    const listener = (e: EditEvent) => events.push(e);
    f.data.events.on('update', listener);
    let res;
    try {
      res = await restore(alice, 'Book', book.id, entry).expect(200);
    } finally {
      f.data.events.off('update', listener);
    }
    // The entry changed the title; the later one the price: both go back to their values before the entry.
    expect(res.body.restored.sort()).to.deep.equal(['price', 'title']);
    expect(res.body.skipped).to.deep.equal([]);
    expect(res.body.batch).to.match(UUID);
    expect(res.body.row).to.include({ title: 'Dune', price: 9.5 });
    expect(await stored(book.id)).to.include({ title: 'Dune' });
    expect(Number((await stored(book.id)).price)).to.equal(9.5);
    expect(events.map((e) => [e.source, e.changed.sort()])).to.deep.equal([['restore', ['price', 'title']]]);
    const [log] = await f.store.operateLogs.list({ model: 'Book', limit: 1 });
    expect(log).to.include({ action: 'update', source: 'restore', status: 'success', batch: res.body.batch, targetId: String(book.id) });
    // And it is in the row's history like any other edit.
    const history = (await f.agent.get(`${api}/data/Book/${book.id}/history`).set('token', alice).expect(200)).body;
    expect(history.rows[0]).to.include({ source: 'restore', batch: res.body.batch });
  });

  it('reports a field someone else changed since and leaves it; the caller’s own later change goes back', async () => {
    const book = await addBook();
    await cell(alice, book.id, 'price', 12);
    const entry = await lastEntry(book.id);
    await cell(admin, book.id, 'price', 15);
    // Someone else's change since: reported, not overwritten.
    const refused = await restore(alice, 'Book', book.id, entry).expect(409);
    expect(refused.body.error.details).to.deep.equal([{ path: 'price', type: 'changed', message: `price was changed since by ${f.users.admin.name}` }]);
    expect(Number((await stored(book.id)).price)).to.equal(15);
    // With another field changed by the entry, that one goes back and price is listed.
    await cell(alice, book.id, 'title', 'Dune II');
    const second = await lastEntry(book.id);
    await cell(alice, book.id, 'title', 'Dune III');
    const res = await restore(alice, 'Book', book.id, second).expect(200);
    expect(res.body.restored).to.deep.equal(['title']);
    expect(await stored(book.id)).to.include({ title: 'Dune' });
    // The restorer's own later change (Dune III) was put back with the rest.
    const own = await restore(alice, 'Book', book.id, entry);
    expect(own.status).to.equal(409);
  });

  it('reports what cannot be put back (removed, read-only, now invalid, unchanged) and restores the rest', async () => {
    const book = await addBook({ genre: 'essay' });
    // An entry as the log could hold it: a field since removed from the model, a read-only one,
    // an old value today's rules refuse (price max 10000), one the row already holds again.
    await f.store.knex('fw_operate_log').insert(
      {
        model: 'Book',
        action: 'update',
        source: 'http',
        target_id: String(book.id),
        status: 'success',
        before_data: JSON.stringify({ id: book.id, title: 'Old title', gone: 1, code: 'OLD', price: 20000, genre: 'essay' }),
        request: JSON.stringify({ id: book.id, changes: { title: 'Dune', gone: 2, code: 'NEW', price: 9.5, genre: 'essay' } }),
      },
    );
    const entry = await lastEntry(book.id);
    const res = await restore(alice, 'Book', book.id, entry).expect(200);
    expect(res.body.restored).to.deep.equal(['title']);
    const reasons = Object.fromEntries((res.body.skipped as Array<{ field: string; reason: string }>).map((s) => [s.field, s.reason]));
    expect(reasons).to.deep.equal({ gone: 'removed', code: 'readonly', price: 'invalid', genre: 'unchanged' });
    expect(await stored(book.id)).to.include({ title: 'Old title', code: null });
  });

  it("never restores a secret (the log holds ******), and says so when nothing else is left: 409", async () => {
    const book = await addBook({ secret: 'first-secret-1' });
    await f.agent.post(`${api}/data/modify/Book/update`).set('token', alice).send({ id: book.id, title: 'Dune', secret: 'second-secret-2' }).expect(200);
    const entry = await lastEntry(book.id);
    const before = await f.store.knex('t_book').where('id', book.id).first();
    const res = await restore(alice, 'Book', book.id, entry).expect(409);
    expect(res.body.error.code).to.equal('CONFLICT');
    expect(res.body.error.details).to.deep.equal([{ path: 'secret', type: 'secret', message: 'a secret is never kept in the log, so it cannot be restored' }]);
    // The stored secret is untouched (not set to the mask).
    expect(await f.store.knex('t_book').where('id', book.id).first()).to.deep.equal(before);
  });

  it("from the attacker's side: needs edit, a hidden row is a 404, and an entry of another row is not found", async () => {
    const book = await addBook();
    await cell(alice, book.id, 'title', 'Changed');
    const entry = await lastEntry(book.id);
    expect((await restore(bob, 'Book', book.id, entry).expect(403)).body.error.code).to.equal('POWER_DENIED');
    await f.agent.post(`${api}/data/Book/${book.id}/restore`).send({ entry }).expect(401);
    // Another row's entry, named against this row.
    const other = await addBook({ title: 'Emma' });
    expect((await restore(alice, 'Book', other.id, entry).expect(404)).body.error.code).to.equal('NOT_FOUND');
    // An add entry has no earlier version.
    expect((await restore(alice, 'Book', other.id, await lastEntry(other.id)).expect(409)).body.error.code).to.equal('CONFLICT');
    // A row the caller cannot see: 404 before its log is read.
    const theirs = (await f.agent.post(`${api}/data/modify/Note`).set('token', admin).send({ subject: 'admin only' }).expect(200)).body as { id: number };
    await f.agent.post(`${api}/data/modify/Note/update`).set('token', admin).send({ id: theirs.id, subject: 'changed' }).expect(200);
    expect((await restore(alice, 'Note', theirs.id, await lastEntry(theirs.id)).expect(404)).body.error.code).to.equal('ROW_NOT_FOUND');
    expect((await f.store.knex('t_note').where('id', theirs.id).first()).subject).to.equal('changed');
    expect((await restore(alice, 'Book', book.id, 'x').expect(400)).body.error.code).to.equal('BAD_REQUEST');
    expect(await stored(book.id)).to.include({ title: 'Changed' });
  });
});
