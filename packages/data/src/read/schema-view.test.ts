import { expect } from 'chai';
import { describeEachSql } from '@fw/test-utils';
import { setupData, type DataFixture } from '../test-setup.js';

const api = '/fw-api';

// Issue 10 §6: what /build says is what the routes do, so a UI built from it offers no button
// and no cell editor that the server then refuses.
describeEachSql('GET /build/{fw} tells the truth', (db) => {
  let f: DataFixture;
  before(async () => {
    f = await setupData(db().url);
  });
  after(() => f?.destroy());

  it('cellEdit is false on the key, read-only, password and collection fields, and on fields closed to it', async () => {
    const admin = await f.token('admin');
    const { body } = await f.agent.get(`${api}/build/Plan`).set('token', admin).expect(200);
    const cell = Object.fromEntries((body.model.fields as Array<{ name: string; cellEdit: boolean }>).map((x) => [x.name, x.cellEdit]));
    expect(cell).to.deep.equal({ name: true, note: true, startDate: true, endDate: true, budget: true, secretCode: false, ref: false, tags: false, id: false });
    // Each false is one the update-cell route refuses.
    const { id } = (await f.agent.post(`${api}/data/modify/Plan`).set('token', admin).send({ name: 'p', startDate: '2026-01-01' }).expect(200)).body as { id: number };
    for (const field of Object.keys(cell).filter((k) => !cell[k])) {
      const res = await f.agent.post(`${api}/data/modify/Plan/update-cell`).set('token', admin).send({ id, field, value: null });
      expect(res.status, field).to.be.within(400, 403);
    }
    const book = await f.agent.get(`${api}/build/Book`).set('token', admin).expect(200);
    expect(book.body.model.fields.find((x: { name: string }) => x.name === 'secret').cellEdit).to.equal(false);
  });

  it('power.copy only with add, power.cellEdit only with edit', async () => {
    // bob's role gives the Book menu only: query, but neither add nor edit.
    const bob = await f.token('bob');
    const { body } = await f.agent.get(`${api}/build/Book`).set('token', bob).expect(200);
    expect(body.power).to.include({ query: true, add: false, edit: false, copy: false, cellEdit: false });
    const res = await f.agent.post(`${api}/data/modify/Book/copy`).set('token', bob).send({ id: 1 });
    expect(res.status).to.equal(403);
    const alice = await f.token('alice');
    expect((await f.agent.get(`${api}/build/Book`).set('token', alice).expect(200)).body.power).to.include({ add: true, copy: true, edit: true, cellEdit: true });
  });
});
