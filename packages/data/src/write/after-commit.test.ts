import { expect } from 'chai';
import type { Knex } from 'knex';
import { FwError, createRegistry, defineModel, type DataHookContext } from '@fw/core';
import { createStore, type FwStore } from '@fw/store';
import { describeEachSql } from '@fw/test-utils';
import { DataService } from '../service.js';

/** What the after-commit work saw: the label it was given and the titles committed when it ran. */
interface Seen {
  label: string;
  titles: string[];
}

describeEachSql('DataService.afterCommit(transaction, fn)', (db) => {
  let store: FwStore;
  let service: DataService;
  const seen: Seen[] = [];
  const background: unknown[] = [];
  let lastTransaction: unknown;
  const actor = { user: { id: 1, account: 'root', isAdmin: true }, ip: null, source: 'http' as const };

  /** Registers work that records the titles committed when it runs, read on the store's own connections (not the transaction). */
  const later = (context: DataHookContext, label: string) => {
    lastTransaction = context.transaction;
    service.afterCommit(context.transaction, async () => {
      const rows: Array<{ title: string }> = await store.knex('ac_item').orderBy('id').select('title');
      seen.push({ label, titles: rows.map((r) => r.title) });
    });
  };

  const Item = defineModel({
    name: 'Item',
    table: 'ac_item',
    power: { importable: true },
    fields: { title: { edit: { notNull: true } } },
    dataProxy: {
      afterAdd: (row, context) => {
        later(context, `add ${String(row.title)}`);
        if (row.title === 'refuse') throw new FwError('CONFLICT', 'refused after registering work');
        if (row.title === 'failing work') {
          service.afterCommit(context.transaction, () => {
            throw new Error('the work failed');
          });
          later(context, 'after the failing one');
        }
      },
      afterUpdate: (row, context) => later(context, `update ${String(row.title)}`),
      beforeDelete: (rows, context) => later(context, `delete ${rows.length}`),
      afterDelete: (rows) => {
        if (rows.some((r) => r.title === 'undeletable')) throw new FwError('CONFLICT', 'this row stays');
      },
    },
  });

  before(async () => {
    store = createStore(db().url);
    await store.migrate.latest();
    await store.createModelTables([Item]);
    service = new DataService({ store, registry: createRegistry([Item]), onBackgroundError: (error) => background.push(error) });
  });
  after(() => store?.destroy());
  beforeEach(async () => {
    await store.knex('ac_item').delete();
    seen.length = 0;
    background.length = 0;
  });

  it('runs registered work once the add, update and delete committed, seeing the committed rows', async () => {
    const row = await service.add('Item', actor, { title: 'one' });
    expect(seen).to.deep.equal([{ label: 'add one', titles: ['one'] }]);
    await service.update('Item', actor, { id: row.id, title: 'two' });
    expect(seen[1]).to.deep.equal({ label: 'update two', titles: ['two'] });
    await service.delete('Item', actor, { ids: [row.id] });
    // Registered before the row was deleted, run after the delete committed: the row is gone.
    expect(seen[2]).to.deep.equal({ label: 'delete 1', titles: [] });
    expect(background).to.deep.equal([]);
  });

  it('never runs the work of a write that rolled back', async () => {
    const error = await service.add('Item', actor, { title: 'refuse' }).catch((e: unknown) => e);
    expect((error as FwError).code).to.equal('CONFLICT');
    const kept = await service.add('Item', actor, { title: 'undeletable' });
    seen.length = 0;
    const refused = await service.delete('Item', actor, { ids: [kept.id] }).catch((e: unknown) => e);
    expect((refused as FwError).code).to.equal('CONFLICT');
    expect(seen).to.deep.equal([]);
    expect((await store.knex('ac_item').select('title')).map((r) => r.title)).to.deep.equal(['undeletable']);
  });

  it('runs the work of an import once, after the whole import committed', async () => {
    await service.importCsv('Item', actor, 'title\na\nb\n');
    expect(seen).to.deep.equal([
      { label: 'add a', titles: ['a', 'b'] },
      { label: 'add b', titles: ['a', 'b'] },
    ]);
  });

  it('reports a failing piece of work to onBackgroundError, keeps the write and runs the rest in order', async () => {
    const row = await service.add('Item', actor, { title: 'failing work' });
    expect(row.title).to.equal('failing work');
    expect(background).to.have.length(1);
    expect((background[0] as Error).message).to.equal('the work failed');
    expect(seen.map((s) => s.label)).to.deep.equal(['add failing work', 'after the failing one']);
  });

  it('refuses a transaction that is not a running data write, and a non-function', async () => {
    expect(() => service.afterCommit({}, () => undefined)).to.throw(/transaction of a running Fw data write/);
    expect(() => service.afterCommit(undefined, () => undefined)).to.throw(/transaction of a running Fw data write/);
    await service.add('Item', actor, { title: 'done' });
    // The write's own transaction, once it committed, takes no more work.
    expect(() => service.afterCommit(lastTransaction, () => undefined)).to.throw(/transaction of a running Fw data write/);
    expect(() => service.afterCommit(lastTransaction as Knex.Transaction, 'no' as unknown as () => void)).to.throw(TypeError);
  });
});
