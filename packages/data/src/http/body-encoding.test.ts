import { expect } from 'chai';
import { describeEachSql } from '@fw/test-utils';
import { setupData, type DataFixture } from '../test-setup.js';

const api = '/fw-api';

// Issue 10 §4 refused text holding half a surrogate pair, because every driver stored U+FFFD
// instead of the text sent. Bytes that are not UTF-8 at all did the same one step earlier: the
// body reader turned them into U+FFFD and the row was written with text nobody sent. A body that
// is not UTF-8 is malformed (JSON must be UTF-8, and so is the CSV import) and writes nothing.
describeEachSql('request bodies that are not UTF-8', (db) => {
  let f: DataFixture;
  let token: string;

  before(async () => {
    f = await setupData(db().url);
    token = await f.token('alice');
  });
  after(() => f?.destroy());

  const bytes = (...parts: Array<string | number[]>) => Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p) : Buffer.from(p))));
  // The bytes as they are: supertest would otherwise serialise a Buffer sent as JSON.
  const postJson = (path: string, body: Buffer) => f.agent.post(`${api}${path}`).set('token', token).set('content-type', 'application/json').serialize((b: unknown) => b as string).send(body);

  it('a JSON body with bytes that are not UTF-8 is 400 and writes nothing', async () => {
    for (const bad of [[0xff], [0xc3], [0xed, 0xa0, 0x80], [0xc0, 0xaf]]) {
      const res = await postJson('/data/modify/Book', bytes('{"title":"caf', bad, '"}'));
      expect(res.status, `${JSON.stringify(bad)}: ${JSON.stringify(res.body)}`).to.equal(400);
      expect(res.body.error.code).to.equal('INVALID_JSON');
    }
    expect(await f.rows('t_book')).to.have.length(0);
  });

  it('a CSV import with bytes that are not UTF-8 is 400 and writes nothing', async () => {
    const res = await f.agent.post(`${api}/data/import/Book`).set('token', token).set('content-type', 'text/csv').send(bytes('title\ncaf', [0xe9], '\n'));
    expect(res.status, JSON.stringify(res.body)).to.equal(400);
    expect(res.body.error.code).to.equal('BAD_REQUEST');
    expect(await f.rows('t_book')).to.have.length(0);
  });

  it('UTF-8 text, a byte-order mark before the CSV header included, still reads as before', async () => {
    const json = await postJson('/data/modify/Book', bytes('{"title":"caf\u00e9 \ud83d\ude00"}'));
    expect(json.status, JSON.stringify(json.body)).to.equal(200);
    expect(json.body.title).to.equal('caf\u00e9 \ud83d\ude00');
    const csv = await f.agent.post(`${api}/data/import/Book`).set('token', token).set('content-type', 'text/csv').send(bytes('\ufefftitle\nna\u00efve\n'));
    expect(csv.status, JSON.stringify(csv.body)).to.equal(200);
    expect((await f.rows('t_book')).map((r) => r.title)).to.deep.equal(['caf\u00e9 \ud83d\ude00', 'na\u00efve']);
  });
});
