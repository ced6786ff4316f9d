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
  describe('pending quota (issue 19 §5)', () => {
    const record = (createdBy: number, size: number) => ({ id: key(), model: 'Book', field: 'files', name: 'a.pdf', type: 'application/pdf', size, createdBy });
    const since = () => new Date(Date.now() - 60_000);

    it('sums a user’s pending files from `since` on; claimed and expired ones count for nothing', async () => {
      const user = 424242;
      const [a, b, c] = [record(user, 100), record(user, 250), record(user, 1000)];
      for (const r of [a, b, c]) await store.files.create(r);
      expect(await store.files.pendingUsage(user, since())).to.deep.equal({ files: 3, bytes: 1350 });
      await store.files.claim([c.id], { model: 'Book', field: 'files', rowId: '9' });
      expect(await store.files.pendingUsage(user, since())).to.deep.equal({ files: 2, bytes: 350 });
      expect(await store.files.pendingUsage(user, new Date(Date.now() + 60_000))).to.deep.equal({ files: 0, bytes: 0 });
      expect(await store.files.pendingUsage(user + 1, since())).to.deep.equal({ files: 0, bytes: 0 });
      await store.files.delete([a.id, b.id, c.id]);
    });

    it('records all or none, refusing the count first and then the bytes, with what the user held', async () => {
      const user = 434343;
      const quota = { maxFiles: 3, maxBytes: 1000, since: since() };
      const first = await store.files.reservePending(user, [record(user, 400), record(user, 400)], quota);
      expect(first.ok).to.equal(true);
      const ids = first.ok ? first.records.map((r) => r.id) : [];
      expect(await store.files.reservePending(user, [record(user, 1), record(user, 1)], quota)).to.deep.equal({ ok: false, reason: 'files', usage: { files: 2, bytes: 800 } });
      expect(await store.files.reservePending(user, [record(user, 201)], quota)).to.deep.equal({ ok: false, reason: 'bytes', usage: { files: 2, bytes: 800 } });
      expect(await store.files.pendingUsage(user, since())).to.deep.equal({ files: 2, bytes: 800 });
      const edge = await store.files.reservePending(user, [record(user, 200)], quota);
      expect(edge.ok).to.equal(true);
      if (edge.ok) ids.push(...edge.records.map((r) => r.id));
      await store.files.delete(ids);
    });

    it('lets exactly as many through as fit when uploads of one user race at the edge', async () => {
      const user = await store.users.create({ account: `quota-race-${Date.now().toString(36)}`, name: 'race', password: 'x-password-1' });
      const quota = { maxFiles: 3, maxBytes: 1_000_000, since: since() };
      const byBytes = { maxFiles: 100, maxBytes: 3000, since: since() };
      try {
        for (const [what, q, size] of [
          ['count', quota, 1],
          ['bytes', byBytes, 1000],
        ] as const) {
          const results = await Promise.all(Array.from({ length: 8 }, () => store.files.reservePending(user.id, [record(user.id, size)], q)));
          const passed = results.filter((r) => r.ok);
          expect(passed, what).to.have.length(3);
          expect((await store.files.pendingUsage(user.id, since())).files, what).to.equal(3);
          await store.files.delete(passed.flatMap((r) => (r.ok ? r.records.map((x) => x.id) : [])));
        }
      } finally {
        await store.users.delete(user.id);
      }
    });
  });
});
