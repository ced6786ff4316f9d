import { expect } from 'chai';
import { describeEachSql } from '@fw/test-utils';
import { setupData, type DataFixture } from '../test-setup.js';

const api = '/fw-api';

// Issue 10 §7 bounded the dates and times a write may store (0001–9999). A condition's time is
// read the same way, and a zone offset carries `9999-12-31T23:59:59-05:00` into the year 10000:
// PostgreSQL compared it, MariaDB answered `createdAt > <year 10000>` with every row. Every
// dialect now refuses such a condition alike.
describeEachSql('table query: times outside what any database stores are refused in conditions', (db) => {
  let f: DataFixture;
  let token: string;

  before(async () => {
    f = await setupData(db().url);
    token = await f.token('admin');
  });
  after(() => f?.destroy());

  const query = (field: string, op: string, value: unknown) => f.agent.post(`${api}/data/table/FwUser`).set('token', token).send({ conditions: [{ field, op, value }] });

  it('answers 400 naming the value, on every dialect, for a time past 9999 or before 0001 in UTC', async () => {
    for (const [op, value] of [
      ['gt', '9999-12-31T23:59:59.999-05:00'],
      ['lt', '9999-12-31T20:00:00-23:59'],
      ['lt', '0001-01-01T00:00:00+05:00'],
      ['eq', '0001-01-01T01:00:00+02:00'],
    ] as const) {
      const res = await query('createdAt', op, value);
      expect(res.status, `${op} ${value}: ${JSON.stringify(res.body)}`).to.equal(400);
      expect(res.body.error.code).to.equal('BAD_QUERY');
      expect(res.body.error.details[0].path).to.equal('conditions[0].value');
    }
    const between = await query('createdAt', 'between', ['2000-01-01T00:00:00Z', '9999-12-31T23:59:59.999-00:01']);
    expect(between.status).to.equal(400);
    expect(between.body.error.details[0].path).to.equal('conditions[0].value[1]');
    const exported = await f.agent
      .get(`${api}/data/export/FwLoginLog`)
      .query({ conditions: JSON.stringify([{ field: 'loginTime', op: 'gt', value: '9999-12-31T23:59:59.999-05:00' }]) })
      .set('token', token);
    expect(exported.status, exported.text).to.equal(400);
  });

  it('still answers for the bounds themselves', async () => {
    const last = await query('createdAt', 'gt', '9999-12-31T23:59:59.999Z');
    expect(last.status, JSON.stringify(last.body)).to.equal(200);
    expect(last.body.total).to.equal(0);
    const first = await query('createdAt', 'gte', '0001-01-01T00:00:00Z');
    expect(first.status, JSON.stringify(first.body)).to.equal(200);
    expect(first.body.total).to.equal(Object.keys(f.users).length);
  });
});
