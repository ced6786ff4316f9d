import { expect } from 'chai';
import { createRegistry, defineModel, FwError } from '@fw/core';
import { DataService } from '@fw/data';
import { createStore } from '@fw/store';
import { FwAiToolbox } from './toolbox.js';

// The AI query tool pages by cursor like the HTTP API: it takes `after` and answers with cursors.
describe('FwAiToolbox: fwDataQuery by cursor', () => {
  const Item = defineModel({ name: 'Item', table: 'tbc_item', fields: { title: {} } });
  const store = createStore('sqlite::memory:');
  const admin = { user: { id: 1, account: 'root', isAdmin: true }, ip: null };
  after(() => store.destroy());

  it('pages through every row by after, with next null at the end, and refuses a crafted cursor', async () => {
    await store.migrate.latest();
    await store.createModelTables([Item]);
    await store.knex.batchInsert(
      'tbc_item',
      Array.from({ length: 25 }, (_, i) => ({ title: `t${i}` })),
      25,
    );
    const toolbox = new FwAiToolbox(new DataService({ store, registry: createRegistry([Item]) }));
    type Page = { rows: Array<{ id: number }>; cursors: { prev: string | null; next: string | null } };
    const seen: number[] = [];
    let page = (await toolbox.call('fwDataQuery', { model: 'Item', filter: { size: 10 } }, admin)) as Page;
    for (;;) {
      seen.push(...page.rows.map((r) => r.id));
      if (!page.cursors.next) break;
      page = (await toolbox.call('fwDataQuery', { model: 'Item', filter: { size: 10, after: page.cursors.next } }, admin)) as Page;
    }
    expect(seen).to.deep.equal(Array.from({ length: 25 }, (_, i) => i + 1));
    const last = (await toolbox.call('fwDataQuery', { model: 'Item', filter: { size: 10, last: true } }, admin)) as Page;
    expect(last.rows.map((r) => r.id)).to.deep.equal(seen.slice(15));
    let caught: unknown;
    try {
      await toolbox.call('fwDataQuery', { model: 'Item', filter: { after: 'bm90LWEtY3Vyc29y' } }, admin);
    } catch (error) {
      caught = error;
    }
    expect(caught).to.be.instanceOf(FwError);
    expect((caught as FwError).code).to.equal('BAD_QUERY');
  });
});
