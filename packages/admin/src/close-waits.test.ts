import { expect } from 'chai';
import Koa from 'koa';
import { defineModel } from '@fw/core';
import { createStore } from '@fw/store';
import { createTestDatabase, sqlBackends, type TestDatabase } from '@fw/test-utils';
import { fwAdmin } from './fw-admin.js';

// fw.close() waits for the counts the data API reads in the background, also when the host owns
// the store and closes it itself right after (without the wait it would close it under them).
const Item = defineModel({ name: 'Item', table: 'adm_cw_item', fields: { kind: {} } });
const actor = { user: { id: 1, account: 'admin', name: 'admin', isAdmin: true }, ip: null, source: 'http' as const };

describe('fwAdmin close() with a store the host owns', () => {
  let database: TestDatabase;
  before(async () => {
    database = await createTestDatabase(sqlBackends()[0]!);
  });
  after(() => database?.drop());

  it('resolves only once the background count of a page has finished', async () => {
    const store = createStore({ url: database.url });
    const app = new Koa();
    app.silent = true;
    const fw = await fwAdmin(app, { db: store, models: [Item], ui: false, purgeIntervalMs: false, data: { limits: { exactCountLimit: 3 } } });
    try {
      await store.knex('adm_cw_item').insert(Array.from({ length: 30 }, () => ({ kind: 'a' })));
      const page = await fw.data.service.query('Item', actor, { size: 2 });
      expect(page.totalIsEstimate).to.equal(true);
      let finished = false;
      void fw.data.service.settled().then(() => {
        finished = true;
      });
      await fw.close();
      expect(finished, 'the background count had finished when close() resolved').to.equal(true);
    } finally {
      await store.destroy();
    }
  });
});
