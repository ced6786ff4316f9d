import { expect } from 'chai';
import Koa from 'koa';
import request from 'supertest';
import { loadConfig } from '@fw/core';
import { createStore, type FwStore } from '@fw/store';
import { describeEachSql } from '@fw/test-utils';
import { FwTokenService, KnexTokenStore, MemoryEphemeralStore } from '@fw/token';
import { encodePassword } from './client.js';
import { fwLogin } from './fw-login.js';

const api = '/fw-api';

// Issue 10 §2 counted failures per account so that many addresses cannot share out guesses at one
// account. On MariaDB/MySQL (and SQL Server) the default collations also match `àdmin`, `ädmin`,
// `admín` … and `admin ` to `admin`, and each spelling had its own counter: an attacker behind many
// addresses tried each spelling twice, captcha-free, against the same password. A spelling that
// differs from the stored account by more than letter case (which the counters fold) is another,
// unknown account on every database.
describeEachSql('fwLogin: spellings a collation folds are other accounts', (db) => {
  let store: FwStore;
  let agent: ReturnType<typeof request>;
  let appId: string;
  let secret: string;
  const account = `admin${Date.now().toString(36)}`;
  const password = 'the-right-password-1';

  before(async () => {
    store = createStore(db().url);
    await store.migrate.latest();
    const user = await store.users.create({ account, password });
    ({
      record: { appId },
      secret,
    } = await store.openApis.create({ name: 'k', userId: user.id }));
    const app = new Koa();
    app.silent = true;
    // Behind a reverse proxy that sets X-Forwarded-For, as an attacker with many addresses looks.
    app.proxy = true;
    const tokens = new FwTokenService({ store: new KnexTokenStore({ knex: store.knex }) });
    app.use(fwLogin({ store, tokens, ephemeral: new MemoryEphemeralStore(), config: loadConfig({ values: { 'fw-app.verifyCodeCount': 2 } }) }));
    agent = request(app.callback());
  });
  after(() => store?.destroy());

  let address = 0;
  const from = () => `198.51.100.${(address += 1)}`;
  const login = (name: string, pwd: string) =>
    agent
      .post(`${api}/login`)
      .set('X-Forwarded-For', from())
      .send({ account: name, pwd: encodePassword(pwd) });

  it('the right password does not sign in under an accented or padded spelling of the account', async () => {
    for (const spelling of [account.replace('a', 'à'), account.replace('a', 'ä'), account.replace('i', 'í'), account.replace('n', 'ñ')]) {
      const res = await login(spelling, password);
      expect(res.status, `${spelling}: ${JSON.stringify(res.body)}`).to.equal(401);
      expect(res.body.reason).to.equal('Incorrect account or password');
    }
    // The account itself still signs in.
    expect((await login(account, password)).status).to.equal(200);
  });

  it('guesses at the account under any spelling that reaches its password share one counter', async () => {
    // Two wrong guesses from two addresses: the account now asks for a captcha, whoever asks next.
    expect((await login(account, 'wrong-guess-1')).body.useVerifyCode).to.equal(false);
    expect((await login(account.toUpperCase(), 'wrong-guess-2')).body.useVerifyCode).to.equal(true);
    const next = await login(account, password);
    expect(next.status).to.equal(401);
    expect(next.body.reason).to.equal('A verification code is required');
  });

  it('an open-API app id matches only as stored', async () => {
    for (const spelling of [`${appId} `, `${appId}   `, appId.replace(/[a-z]/, (c) => `${c}\u0301`.normalize('NFC'))]) {
      if (spelling === appId) continue;
      const res = await agent.post(`${api}/open-api/token`).set('X-Forwarded-For', from()).send({ appId: spelling, secret });
      expect(res.status, `${JSON.stringify(spelling)}: ${JSON.stringify(res.body)}`).to.equal(401);
    }
    expect((await agent.post(`${api}/open-api/token`).set('X-Forwarded-For', from()).send({ appId, secret })).status).to.equal(200);
  });
});
