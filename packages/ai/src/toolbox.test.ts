import { expect } from 'chai';
import { createRegistry, defineModel } from '@fw/core';
import { DataService } from '@fw/data';
import { createStore } from '@fw/store';
import { FwAiToolbox } from './toolbox.js';

describe('FwAiToolbox', () => {
  const Item = defineModel({ name: 'Item', table: 'tb_item', fields: { title: {} } });
  const store = createStore('sqlite::memory:');
  after(() => store.destroy());

  it('follows the data API page limits when they are below the AI cap', async () => {
    await store.migrate.latest();
    await store.createModelTables([Item]);
    await store.knex.batchInsert('tb_item', Array.from({ length: 30 }, (_, i) => ({ title: `t${i}` })), 30);
    const data = new DataService({ store, registry: createRegistry([Item]), limits: { defaultSize: 5, maxSize: 10 } });
    const toolbox = new FwAiToolbox(data);
    const admin = { user: { id: 1, account: 'root', isAdmin: true }, ip: null };
    const plain = (await toolbox.call('fwDataQuery', { model: 'Item' }, admin)) as { rows: unknown[]; size: number };
    expect(plain.rows).to.have.length(5);
    const asked = (await toolbox.call('fwDataQuery', { model: 'Item', filter: { size: 100 } }, admin)) as { rows: unknown[]; size: number };
    expect(asked.rows).to.have.length(10);
  });

  it('refuses an unknown tool', async () => {
    const toolbox = new FwAiToolbox(new DataService({ store, registry: createRegistry([Item]) }));
    let caught: unknown;
    try {
      await toolbox.call('dropEverything', {}, { user: { id: 1, account: 'root', isAdmin: true }, ip: null });
    } catch (error) {
      caught = error;
    }
    expect((caught as Error).message).to.equal('Unknown tool "dropEverything"');
  });
});
