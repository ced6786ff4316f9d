import { expect } from 'chai';
import { describeEachSql } from '@fw/test-utils';
import { setupData, type DataFixture } from '../test-setup.js';

const api = '/fw-api';

// A refused write must still leave its failure row in the operate log, whatever the request held:
// otherwise an attacker hides probes from the audit trail by adding a NUL to a field name
// (PostgreSQL refused the row's error text) or by nesting a value deeply (masking it overflowed the
// stack). The answer itself was a clean 4xx either way; only the record was lost.
describeEachSql('operate log: failures are recorded whatever the request held', (db) => {
  let f: DataFixture;
  let token: string;
  const failures = async () => (await f.store.knex('fw_operate_log').where('status', 'failure').orderBy('id')) as Array<Record<string, unknown>>;

  before(async () => {
    f = await setupData(db().url);
    token = await f.token('alice');
  });
  after(() => f?.destroy());

  it('a NUL character in a field name', async () => {
    const before = (await failures()).length;
    const res = await f.agent.post(`${api}/data/modify/Book`).set('token', token).send({ title: 'x', 'is\u0000Admin': true });
    expect(res.status, JSON.stringify(res.body)).to.equal(400);
    const rows = await failures();
    expect(rows.length).to.equal(before + 1);
    expect(rows.at(-1)!.error).to.be.a('string').that.includes('UNKNOWN_FIELD').and.not.include('\u0000');
  });

  it('a NUL character in a CSV header', async () => {
    const before = (await failures()).length;
    const res = await f.agent.post(`${api}/data/import/Book`).set('token', token).set('content-type', 'text/csv').send('ti\u0000tle\nx\n');
    expect(res.status, JSON.stringify(res.body)).to.equal(400);
    expect((await failures()).length).to.equal(before + 1);
  });

  it('a value nested ten thousand levels deep', async () => {
    const before = (await failures()).length;
    const deep = `{"title":"x","extra":${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}}`;
    const res = await f.agent.post(`${api}/data/modify/Book`).set('token', token).set('content-type', 'application/json').send(deep);
    expect(res.status, JSON.stringify(res.body).slice(0, 300)).to.equal(400);
    const rows = await failures();
    expect(rows.length).to.equal(before + 1);
    expect(String(rows.at(-1)!.request)).to.include('"title":"x"');
  });
});
