import { expect } from 'chai';
import Koa from 'koa';
import request from 'supertest';
import { FwDefinitionError, loadConfig } from '@fw/core';
import { fwErrorHandler } from '@fw/http';
import { fwLogin } from '@fw/login';
import { createStore, type FwStore } from '@fw/store';
import { describeEachSql } from '@fw/test-utils';
import { FwTokenService, KnexEphemeralStore, KnexTokenStore } from '@fw/token';
import { fwOAuth, type FwOAuthOptions } from './fw-oauth.js';

const urls = { 'authorization-uri': 'http://127.0.0.1:9/authorize', 'token-uri': 'http://127.0.0.1:9/token', 'user-info-uri': 'http://127.0.0.1:9/userinfo' };

describeEachSql('fwOAuth(...).providers in GET /fw-api/login-settings', (db) => {
  let store: FwStore;
  before(async () => {
    store = await createStore(db().url);
    await store.migrate.latest();
  });
  after(() => store?.destroy());

  function host(providers: FwOAuthOptions['providers']) {
    const config = loadConfig({ env: false });
    const tokens = new FwTokenService({ store: new KnexTokenStore({ knex: store.knex }), config });
    const app = new Koa();
    app.keys = ['login-settings-key'];
    app.silent = true;
    app.use(fwErrorHandler());
    const oauth = fwOAuth(app, { store, tokens, config, baseUrl: 'http://127.0.0.1:3000', providers });
    app.use(oauth);
    app.use(fwLogin({ store, tokens, config, ephemeral: new KnexEphemeralStore({ knex: store.knex }), providers: oauth.providers }));
    return { oauth, agent: request(app.callback()) };
  }

  it('lists each registration with its display name and start URL, and nothing secret', async () => {
    const { oauth, agent } = host({
      corp: { 'client-id': 'corp-client-id', 'client-secret': 'corp-secret-value', 'client-name': 'Corporate SSO', ...urls },
      lab: { clientId: 'lab-client-id', clientSecret: 'lab-secret-value', name: 'Lab login', ...urls },
      plain: { 'client-id': 'plain-client-id', 'client-secret': 'plain-secret-value', ...urls },
    });
    const res = await agent.get('/fw-api/login-settings').expect(200);
    expect(res.body.providers).to.deep.equal([
      { id: 'corp', name: 'Corporate SSO', url: '/connect/corp' },
      { id: 'lab', name: 'Lab login', url: '/connect/lab' },
      // No display name configured: the registration id.
      { id: 'plain', name: 'plain', url: '/connect/plain' },
    ]);
    expect(oauth.providers).to.deep.equal(res.body.providers);
    for (const secret of ['client-id', 'secret-value', 'authorize', 'token-uri', '127.0.0.1:9']) expect(res.text).not.to.contain(secret);
    // The start URL is the bridge's: it answers with the provider's authorization page.
    const start = await agent.get('/connect/corp').expect(302);
    expect(start.headers.location).to.match(/^http:\/\/127\.0\.0\.1:9\/authorize\?/);
  });

  it('refuses an unusable display name at start-up', () => {
    for (const name of ['', ' ', 'a\u0000b', 'x'.repeat(101), 42]) {
      expect(() => host({ bad: { 'client-id': 'c', 'client-secret': 's', 'client-name': name as string, ...urls } }), JSON.stringify(name))
        .to.throw(FwDefinitionError)
        .with.property('key', 'fwOAuth.providers.bad.client-name');
    }
  });
});
