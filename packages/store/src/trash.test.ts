import { expect } from 'chai';
import { describeEachSql } from '@fw/test-utils';
import { createStore, type FwStore } from './store.js';

describeEachSql('store.trash (fw_trash)', (db) => {
  let store: FwStore;
  before(async () => {
    store = createStore(db().url);
    await store.migrate.latest();
  });
  after(() => store?.destroy());

  it('keeps entries per model (names compared case-sensitively), newest first, and removes them', async () => {
    const model = `Tr${Date.now().toString(36)}`;
    const early = new Date(Date.now() - 60_000);
    await store.trash.add([{ model, rowId: '1', data: { values: { id: 1, title: 'ü 漢' }, secrets: {} }, deletedBy: 5 }], undefined, early);
    await store.trash.add([
      { model, rowId: '2', data: { values: { id: 2 } }, deletedBy: 6, batch: '7b0c6a4e-8f0e-4a53-9a57-3f0e5d0f1c2a' },
      { model: model.toLowerCase(), rowId: '3', data: {}, deletedBy: 5 },
    ]);
    const listed = await store.trash.list(model, { limit: 10 });
    expect(listed.map((r) => r.rowId)).to.deep.equal(['2', '1']);
    expect(listed[1]!.data).to.deep.equal({ values: { id: 1, title: 'ü 漢' }, secrets: {} });
    expect(listed[0]!.batch).to.equal('7b0c6a4e-8f0e-4a53-9a57-3f0e5d0f1c2a');
    expect(listed[1]!.deletedAt.getTime()).to.equal(early.getTime());
    expect(await store.trash.count(model)).to.equal(2);
    expect(await store.trash.count(model, 5)).to.equal(1);
    expect((await store.trash.list(model, { limit: 10, after: { deletedAt: listed[0]!.deletedAt, id: listed[0]!.id } })).map((r) => r.rowId)).to.deep.equal(['1']);
    expect((await store.trash.findRows(model, ['1', '3'])).map((r) => r.rowId)).to.deep.equal(['1']);
    expect((await store.trash.listOlderThan(model, new Date(Date.now() - 30_000), 10)).map((r) => r.rowId)).to.deep.equal(['1']);
    expect(await store.trash.delete(listed.map((r) => r.id))).to.equal(2);
    expect(await store.trash.count(model)).to.equal(0);
    expect(await store.trash.count(model.toLowerCase())).to.equal(1);
  });
});
