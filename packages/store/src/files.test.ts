import { describeEachSql } from '@fw/test-utils';
import { expect } from 'chai';
import { createStore, type FwStore } from './store.js';

describeEachSql('store.files (fw_file)', (db) => {
  let store: FwStore;
  let seq = 0;
  const key = (): string => `k${String(++seq).padStart(3, '0')}-abcdefghijklmnopqrst`;

  before(async () => {
    store = createStore(db().url);
    await store.migrate.latest();
  });
  after(async () => {
    await store.destroy();
  });

  it('records a pending upload and finds it by id', async () => {
    const id = key();
    const created = await store.files.create({ id, model: 'Book', field: 'cover', name: '../../etc/passwd.png', type: 'image/png', size: 3_000_000_000, createdBy: 7 });
    expect(created.rowId).to.equal(null);
    const [found] = await store.files.findMany([id, key()]);
    expect(found).to.include({ id, model: 'Book', field: 'cover', rowId: null, name: '../../etc/passwd.png', type: 'image/png', size: 3_000_000_000, createdBy: 7 });
    expect(found!.createdAt).to.be.instanceOf(Date);
  });

  it('claims files for a row inside a transaction, and a rollback leaves them pending', async () => {
    const [a, b] = [key(), key()];
    for (const id of [a, b]) await store.files.create({ id, model: 'Book', field: 'files', name: `${id}.pdf`, type: 'application/pdf', size: 10, createdBy: 1 });
    await store.knex
      .transaction(async (trx) => {
        expect(await store.files.claim([a, b], { model: 'Book', field: 'files', rowId: '41' }, trx)).to.equal(2);
        throw new Error('roll back');
      })
      .catch(() => undefined);
    expect((await store.files.findMany([a, b])).map((f) => f.rowId)).to.deep.equal([null, null]);
    await store.knex.transaction((trx) => store.files.claim([a, b], { model: 'Book', field: 'files', rowId: '41' }, trx));
    const held = await store.files.listForRows('Book', ['41', '42']);
    expect(held.map((f) => f.id).sort()).to.deep.equal([a, b].sort());
    expect(await store.files.listForRows('Other', ['41'])).to.deep.equal([]);
  });

  it('lists stale pending uploads oldest first, never claimed ones, and deletes records', async () => {
    const [old, claimed] = [key(), key()];
    await store.files.create({ id: old, model: 'Book', field: 'cover', name: 'a.png', type: 'image/png', size: 1, createdBy: 1 });
    await store.files.create({ id: claimed, model: 'Book', field: 'cover', name: 'b.png', type: 'image/png', size: 1, createdBy: 1 });
    await store.files.claim([claimed], { model: 'Book', field: 'cover', rowId: '1' });
    expect(await store.files.countPending(1)).to.be.greaterThan(0);
    expect(await store.files.countPending(987654)).to.equal(0);
    const stale = await store.files.listStalePending(new Date(Date.now() + 60_000), 1000);
    expect(stale.map((f) => f.id))
      .to.include(old)
      .and.not.include(claimed);
    expect(await store.files.listStalePending(new Date(Date.now() - 60_000), 1000)).to.deep.equal([]);
    expect(await store.files.claim([claimed], { model: 'Book', field: 'cover', rowId: '2' })).to.equal(0);
    expect(await store.files.deletePending(claimed)).to.equal(false);
    expect(await store.files.delete([old, claimed, key()])).to.equal(2);
    expect(await store.files.findMany([old, claimed])).to.deep.equal([]);
  });
});
