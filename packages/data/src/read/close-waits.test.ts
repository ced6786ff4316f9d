import { expect } from 'chai';
import { BUILTIN_MODELS, createRegistry, defineModel } from '@fw/core';
import { createStore, type FwStore } from '@fw/store';
import { describeEachSql } from '@fw/test-utils';
import { DataService } from '../service.js';

// A page whose total passes the exact-count limit leaves a full count running in the background
// (counts.ts). Closing the store under it made the count fail on closed connections (a bench that
// closed its store printed KnexTimeoutError and "Error: aborted"): the store's destroy() now waits
// for the data service's background work, then closes the connections.
const Item = defineModel({ name: 'Item', table: 'cw_item', fields: { kind: {} } });
const actor = { user: { id: 1, account: 'admin', name: 'admin', isAdmin: true }, ip: null, source: 'http' as const };

describeEachSql('Closing the store waits for the data API', (db) => {
  let store: FwStore | undefined;
  afterEach(() => store?.destroy());

  it('destroy() resolves only once the background count a page started has finished', async () => {
    store = createStore({ url: db().url });
    await store.migrate.latest();
    await store.createModelTables([Item]);
    await store.knex('cw_item').insert(Array.from({ length: 30 }, (_, n) => ({ kind: n % 2 === 0 ? 'a' : 'b' })));
    const service = new DataService({ store, registry: createRegistry([...BUILTIN_MODELS, Item]), limits: { exactCountLimit: 3 } });
    // Past the limit, unproven by the page: the answer is an estimate, counted again in the background.
    const page = await service.query('Item', actor, { size: 2 });
    expect(page.totalIsEstimate).to.equal(true);
    let finished = false;
    void service.settled().then(() => {
      finished = true;
    });
    await store.destroy();
    expect(finished, 'the background count had finished when destroy() resolved').to.equal(true);
  });
});
