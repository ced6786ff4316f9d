import { expect } from 'chai';
import { describeEachSql } from '@fw/test-utils';
import { setupData, type DataFixture } from './test-setup.js';

const api = '/fw-api';

// Issue 12: a client branches on fields of the error body, never on its message text.
describeEachSql('error bodies carry the fields a client branches on', (db) => {
  let f: DataFixture;
  before(async () => {
    f = await setupData(db().url);
  });
  after(() => f?.destroy());

  it('POWER_DENIED names the model and the flag; MODEL_NOT_FOUND the model; ROW_NOT_FOUND the model and the id', async () => {
    const bob = await f.token('bob');
    const denied = await f.agent.post(`${api}/data/modify/Book/delete`).set('token', bob).send({ ids: [1] }).expect(403);
    expect(denied.body.error).to.include({ code: 'POWER_DENIED', model: 'Book', flag: 'delete' });
    const admin = await f.token('admin');
    expect((await f.agent.post(`${api}/data/table/Nope`).set('token', admin).send({}).expect(404)).body.error).to.include({ code: 'MODEL_NOT_FOUND', model: 'Nope' });
    expect((await f.agent.get(`${api}/data/Book/424242`).set('token', admin).expect(404)).body.error).to.include({ code: 'ROW_NOT_FOUND', model: 'Book', id: 424242 });
  });

  it('a refused cell edit names the model and the field', async () => {
    const admin = await f.token('admin');
    const res = await f.agent.post(`${api}/data/modify/Book/update-cell`).set('token', admin).send({ id: 1, field: 'isbn', value: '0441172717' }).expect(403);
    expect(res.body.error).to.include({ code: 'FIELD_CELL_EDIT_DISABLED', model: 'Book', field: 'isbn' });
  });
});
