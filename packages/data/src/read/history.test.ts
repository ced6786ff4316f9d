import { expect } from 'chai';
import { describeEachSql } from '@fw/test-utils';
import { setupData, type DataFixture } from '../test-setup.js';

const api = '/fw-api';

describeEachSql('GET /data/{fw}/{id}/history', (db) => {
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
  const history = (token: string, model: string, id: unknown, query = '') => f.agent.get(`${api}/data/${model}/${String(id)}/history${query}`).set('token', token);

  it('lists the row’s operations newest first: who, when, source, action, batch and each change before → after', async () => {
    const book = await addBook();
    await f.agent.post(`${api}/data/modify/Book/update-cell`).set('token', alice).send({ id: book.id, field: 'price', value: 12 }).expect(200);
    await f.agent.post(`${api}/data/modify/Book/update`).set('token', admin).send({ ...book, price: 12, title: 'Dune II' }).expect(200);
    const bulk = (await f.agent.post(`${api}/data/modify/Book/update-many`).set('token', alice).send({ ids: [book.id], values: { genre: 'novel' } }).expect(200)).body;
    // Another row's entries are not this row's.
    const other = await addBook({ title: 'Emma' });
    await f.agent.post(`${api}/data/modify/Book/update-cell`).set('token', alice).send({ id: other.id, field: 'price', value: 1 }).expect(200);

    const res = await history(alice, 'Book', book.id).expect(200);
    expect(res.body).to.include({ total: 4, page: 1, size: 20 });
    const rows = res.body.rows as Array<Record<string, unknown>>;
    expect(rows.map((r) => [r.action, r.source])).to.deep.equal([
      ['update', 'bulk'],
      ['update', 'http'],
      ['update', 'http'],
      ['add', 'http'],
    ]);
    expect(rows[0]).to.include({ batch: bulk.batch });
    expect(rows[0]!.changes).to.deep.equal([{ field: 'genre', before: null, after: 'novel' }]);
    // The account the log holds, and the user's name now (what the live notes call the same person).
    expect(rows[1]!.user).to.deep.equal({ id: f.users.admin.id, account: f.users.admin.account, name: 'admin' });
    expect(rows[0]!.user).to.deep.equal({ id: f.users.alice.id, account: f.users.alice.account, name: 'alice' });
    expect(rows[1]!.changes).to.deep.equal([{ field: 'title', before: 'Dune', after: 'Dune II' }]);
    expect(rows[2]!.changes).to.deep.equal([{ field: 'price', before: 9.5, after: 12 }]);
    expect(rows[2]).to.include({ batch: null });
    expect((rows[3]!.changes as Array<{ field: string }>).map((c) => c.field)).to.include.members(['title', 'price']);
    expect(Number.isNaN(Date.parse(String(rows[0]!.at)))).to.equal(false);
    // Ids grow with time: newest first.
    expect(rows.map((r) => r.id as number)).to.deep.equal([...rows.map((r) => r.id as number)].sort((a, b) => b - a));

    const second = await history(alice, 'Book', book.id, '?page=2&size=3').expect(200);
    expect(second.body).to.include({ total: 4, page: 2, size: 3 });
    expect(second.body.rows.map((r: { id: number }) => r.id)).to.deep.equal([rows[3]!.id]);
    expect((await history(alice, 'Book', book.id, '?size=101').expect(400)).body.error.code).to.equal('BAD_REQUEST');
  });

  it('shows secrets masked, never their value', async () => {
    const book = await addBook({ secret: 'first-secret-1' });
    await f.agent.post(`${api}/data/modify/Book/update`).set('token', alice).send({ id: book.id, title: 'Dune', secret: 'second-secret-2' }).expect(200);
    const res = await history(alice, 'Book', book.id).expect(200);
    const text = JSON.stringify(res.body);
    expect(text).not.to.contain('first-secret');
    expect(text).not.to.contain('second-secret');
    expect(res.body.rows[0].changes).to.deep.include({ field: 'secret', before: null, after: '******' });
  });

  it("from the attacker's side: needs viewDetails (or edit), and a row the caller cannot see is a 404", async () => {
    const book = await addBook();
    // bob may query Book, nothing more.
    expect((await history(bob, 'Book', book.id).expect(403)).body.error.code).to.equal('POWER_DENIED');
    await f.agent.get(`${api}/data/Book/${book.id}/history`).expect(401);
    const theirs = (await f.agent.post(`${api}/data/modify/Note`).set('token', admin).send({ subject: 'admin only' }).expect(200)).body as { id: number };
    const mine = (await f.agent.post(`${api}/data/modify/Note`).set('token', alice).send({ subject: 'mine' }).expect(200)).body as { id: number };
    const hidden = await history(alice, 'Note', theirs.id).expect(404);
    expect(hidden.body.error.code).to.equal('ROW_NOT_FOUND');
    // The same answer as for a row that does not exist at all.
    expect((await history(alice, 'Note', 999_999).expect(404)).body.error.code).to.equal('ROW_NOT_FOUND');
    expect((await history(alice, 'Note', mine.id).expect(200)).body.total).to.equal(1);
    expect((await history(alice, 'Book', 'x').expect(400)).body.error.code).to.equal('BAD_ID');
    expect((await history(alice, 'Nope', 1).expect(404)).body.error.code).to.equal('MODEL_NOT_FOUND');
  });

  it('reads the (model, target_id, id) index, not the whole log', async function () {
    // Enough rows over many targets that a planner prefers the index to a scan.
    const rows = Array.from({ length: 2000 }, (_, i) => ({ model: i % 2 ? 'Book' : 'Note', action: 'update', source: 'http', target_id: String(i % 400), status: 'success' }));
    for (let i = 0; i < rows.length; i += 100) await f.store.knex('fw_operate_log').insert(rows.slice(i, i + 100));
    if (f.store.dialect === 'mysql') await f.store.knex.raw('analyze table fw_operate_log');
    const query = f.store
      .knex('fw_operate_log')
      .where('model', 'Book')
      .where('target_id', '1')
      .where('status', 'success')
      .orderBy('id', 'desc')
      .limit(20)
      .toQuery();
    let plan: string;
    if (f.store.dialect === 'postgres') {
      plan = await f.store.knex.transaction(async (trx) => {
        await trx.raw('set local enable_seqscan = off');
        return ((await trx.raw(`explain ${query}`)).rows as Array<{ 'QUERY PLAN': string }>).map((r) => r['QUERY PLAN']).join('\n');
      });
    } else if (f.store.dialect === 'mysql') {
      const [rows] = (await f.store.knex.raw(`explain ${query}`)) as [Array<{ key: string | null; Extra: string | null }>];
      plan = rows.map((r) => `${r.key ?? 'no index'} ${r.Extra ?? ''}`).join('\n');
    } else {
      plan = ((await f.store.knex.raw(`explain query plan ${query}`)) as Array<{ detail: string }>).map((r) => r.detail).join('\n');
    }
    expect(plan).to.contain('fw_ix_fw_operate_log_model_target_id_id');
    expect(plan).not.to.match(/TEMP B-TREE|Sort|filesort/);
  });
});
