import { expect } from 'chai';
import { describeEachSql } from '@fw/test-utils';
import { createStore } from '@fw/store';
import { matchesVersion, versionKeyOf } from './row-version.js';
import { setupData, type DataFixture } from '../test-setup.js';

const api = '/fw-api';

describe('matchesVersion(ifMatch, version)', () => {
  it('takes *, lists and weak tags, and nothing else', () => {
    expect(matchesVersion('*', '"abc"')).to.equal(true);
    expect(matchesVersion('"abc"', '"abc"')).to.equal(true);
    expect(matchesVersion('W/"abc"', '"abc"')).to.equal(true);
    expect(matchesVersion('"x", "abc"', '"abc"')).to.equal(true);
    expect(matchesVersion('"abd"', '"abc"')).to.equal(false);
    expect(matchesVersion('abc', '"abc"')).to.equal(false);
  });
});

// Issue 10 §6: the edit form sends the whole row, so a form opened before someone else's save
// would put back the values it was loaded with. With the version it read, it is refused instead.
describeEachSql('row versions: ETag on details, If-Match on update', (db) => {
  let f: DataFixture;
  let alice: string;
  let bob: string;

  before(async () => {
    f = await setupData(db().url);
    [alice, bob] = await Promise.all([f.token('alice'), f.token('admin')]);
  });
  after(() => f?.destroy());

  const addBook = async () => (await f.agent.post(`${api}/data/modify/Book`).set('token', alice).send({ title: 'Dune', price: 9.5, genre: 'novel' }).expect(200)).body as { id: number };

  it('a stale form save is a 409 with the current row, and writes nothing', async () => {
    const { id } = await addBook();
    const first = await f.agent.get(`${api}/data/Book/${id}`).set('token', alice).expect(200);
    const version = first.headers.etag as string;
    expect(version).to.match(/^"[A-Za-z0-9_-]{22}"$/);
    // Someone else changes the price.
    await f.agent.post(`${api}/data/modify/Book/update`).set('token', bob).send({ id, price: 12 }).expect(200);
    // The first form, still showing the old price, saves a new title with the whole row.
    const stale = await f.agent.post(`${api}/data/modify/Book/update`).set('token', alice).set('If-Match', version).send({ ...first.body, title: 'Dune Messiah' });
    expect(stale.status, JSON.stringify(stale.body)).to.equal(409);
    expect(stale.body.error.code).to.equal('STALE_ROW');
    expect(stale.body.error.current).to.include({ id, title: 'Dune', price: 12 });
    expect(stale.body.error.version).to.equal(stale.headers.etag);
    expect(stale.body.error.version).to.not.equal(version);
    const stored = await f.store.knex('t_book').where('id', id).first();
    expect(stored).to.include({ title: 'Dune' });
    expect(Number(stored.price)).to.equal(12);
    // With the fresh version the save goes through.
    const fresh = await f.agent.get(`${api}/data/Book/${id}`).set('token', alice).expect(200);
    expect(fresh.headers.etag).to.equal(stale.body.error.version);
    await f.agent.post(`${api}/data/modify/Book/update`).set('token', alice).set('If-Match', fresh.headers.etag as string).send({ ...fresh.body, title: 'Dune Messiah' }).expect(200);
    expect(await f.store.knex('t_book').where('id', id).first()).to.include({ title: 'Dune Messiah' });
  });

  it('the version changes with any field, collections included, and not otherwise', async () => {
    const { id } = await addBook();
    const tag = (await f.agent.post(`${api}/data/modify/Tag`).set('token', alice).send({ label: 'sf' }).expect(200)).body as { id: number };
    const etag = async () => (await f.agent.get(`${api}/data/Book/${id}`).set('token', alice).expect(200)).headers.etag as string;
    const v1 = await etag();
    expect(await etag()).to.equal(v1);
    await f.agent.post(`${api}/data/modify/Book/update`).set('token', alice).send({ id, tags: [tag.id] }).expect(200);
    const v2 = await etag();
    expect(v2).to.not.equal(v1);
    await f.agent.post(`${api}/data/modify/Book/update`).set('token', alice).set('If-Match', v1).send({ id, title: 'Lost' }).expect(409);
  });

  it('cell edits work without a version, and refuse a stale one when given', async () => {
    const { id } = await addBook();
    const v1 = (await f.agent.get(`${api}/data/Book/${id}`).set('token', alice).expect(200)).headers.etag as string;
    await f.agent.post(`${api}/data/modify/Book/update-cell`).set('token', alice).send({ id, field: 'title', value: 'Children of Dune' }).expect(200);
    const res = await f.agent.post(`${api}/data/modify/Book/update-cell`).set('token', alice).set('If-Match', v1).send({ id, field: 'price', value: 3 });
    expect(res.status).to.equal(409);
    expect(Number((await f.store.knex('t_book').where('id', id).first()).price)).to.equal(9.5);
  });

  it('If-Match: * matches any existing row; a stale save is logged as a failure', async () => {
    const { id } = await addBook();
    await f.agent.post(`${api}/data/modify/Book/update`).set('token', alice).set('If-Match', '*').send({ id, title: 'Any' }).expect(200);
    await f.agent.post(`${api}/data/modify/Book/update`).set('token', alice).set('If-Match', '"nope"').send({ id, title: 'Never' }).expect(409);
    const logs = await f.store.knex('fw_operate_log').where({ model: 'Book', action: 'update', target_id: String(id) }).orderBy('id');
    expect(logs.map((l: { status: string }) => l.status)).to.deep.equal(['success', 'failure']);
  });
});

// The version is keyed (versionKeyOf): every instance on one database must use the same key, or a
// tag one instance gave would be stale on the next; another database gets a key of its own.
describeEachSql('the row-version key', (db) => {
  it('is made once per database, the same for every store on it, even when they start together', async () => {
    const stores = [createStore(db().url), createStore(db().url), createStore(db().url)];
    try {
      await stores[0]!.migrate.latest();
      const keys = await Promise.all(stores.map((s) => versionKeyOf(s)));
      expect(keys[0]!.length).to.equal(32);
      for (const key of keys) expect(key.equals(keys[0]!)).to.equal(true);
      expect(keys[0]!.equals(Buffer.alloc(32))).to.equal(false);
      // Asked again: the same, without a second read.
      expect(versionKeyOf(stores[1]!)).to.equal(versionKeyOf(stores[1]!));
    } finally {
      for (const s of stores) await s.destroy();
    }
  });
});
