import { expect } from 'chai';
import { describeEachSql } from '@fw/test-utils';
import { setupData, type DataFixture } from './test-setup.js';

const api = '/fw-api';

// Issue 10 §6: look-alike accounts (`admin` + a zero-width space, a right-to-left override, …)
// cannot be stored through the data API, whichever write route is used.
describeEachSql('FwUser account names through the data API', (db) => {
  let f: DataFixture;
  let admin: string;
  before(async () => {
    f = await setupData(db().url);
    admin = await f.token('admin');
  });
  after(() => f?.destroy());

  const accounts = async () => (await f.store.knex('fw_user').select('account')).map((r: { account: string }) => r.account);
  const BAD = ['admin\u200b', '\u202eadmin', 'ad\u2066min', 'admin\ufeff', 'ad\u0000min', 'admin\n', 'adm\u00a0in', ' admin', 'Zoe\u0308'];

  it('refuses them on add with 422 naming the account field, writing nothing', async () => {
    const before = await accounts();
    for (const account of BAD) {
      const res = await f.agent.post(`${api}/data/modify/FwUser`).set('token', admin).send({ account, password: 'x-password-1' });
      expect(res.status, JSON.stringify(account)).to.equal(422);
      expect(res.body.error.code).to.equal('VALIDATION_FAILED');
      expect(res.body.error.details.map((d: { path: string }) => d.path)).to.include('account');
    }
    expect(await accounts()).to.deep.equal(before);
    // An ordinary account in any script still goes through.
    await f.agent.post(`${api}/data/modify/FwUser`).set('token', admin).send({ account: `Zoë-王-${Date.now()}`, password: 'x-password-1' }).expect(200);
  });

  it('refuses the other characters that show nothing: joiners, soft hyphen, tags, variation selectors, fillers', async () => {
    const before = await accounts();
    // U+16FE4 (Khitan small script filler) is a filler like the Hangul ones, but no Unicode
    // property marks it ignorable, so it passed.
    for (const hidden of ['\u2060', '\u00ad', '\u{e0041}', '\ufe0f', '\u{e0101}', '\u3164', '\u115f', '\u034f', '\u180e', '\u{16fe4}']) {
      const account = `ad${hidden}min`;
      const res = await f.agent.post(`${api}/data/modify/FwUser`).set('token', admin).send({ account, password: 'x-password-1' });
      expect(res.status, `U+${hidden.codePointAt(0)!.toString(16)}: ${JSON.stringify(res.body)}`).to.equal(422);
    }
    expect(await accounts()).to.deep.equal(before);
  });

  it('refuses them on the edit form', async () => {
    const details = (await f.agent.get(`${api}/data/FwUser/${f.users.bob.id}`).set('token', admin).expect(200)).body;
    const res = await f.agent.post(`${api}/data/modify/FwUser/update`).set('token', admin).send({ ...details, account: 'admin\u200b' }).expect(422);
    expect(res.body.error.details.map((d: { path: string }) => d.path)).to.include('account');
    expect((await f.store.users.findById(f.users.bob.id))?.account).to.equal(f.users.bob.account);
  });
});
