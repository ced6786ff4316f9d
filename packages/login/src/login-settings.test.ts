import { expect } from 'chai';
import Koa from 'koa';
import request from 'supertest';
import { FwDefinitionError, loadConfig } from '@fw/core';
import { createStore, type FwStore } from '@fw/store';
import { describeEachSql } from '@fw/test-utils';
import { FwTokenService, KnexEphemeralStore, KnexTokenStore } from '@fw/token';
import { fwLogin, type FwLoginOptions } from './fw-login.js';
import { fwErrorHandler } from '@fw/http';

const POLICY = { minLength: 10, maxLength: 200, rules: ['minLength', 'maxLength', 'notAccount', 'notCommon'] };

describeEachSql('GET /fw-api/login-settings', (db) => {
  let store: FwStore;
  before(async () => {
    store = await createStore(db().url);
    await store.migrate.latest();
  });
  after(() => store?.destroy());

  function app(values: Record<string, unknown> = {}, extra: Partial<FwLoginOptions> = {}) {
    const config = loadConfig({ env: false, values });
    const tokens = new FwTokenService({ store: new KnexTokenStore({ knex: store.knex }), config });
    const koa = new Koa();
    koa.silent = true;
    koa.use(fwErrorHandler());
    koa.use(fwLogin({ store, tokens, config, ephemeral: new KnexEphemeralStore({ knex: store.knex }), ...extra }));
    return request(koa.callback());
  }

  it('answers without a token: title, transfer encoding, captcha threshold and no providers by default', async () => {
    const res = await app().get('/fw-api/login-settings').expect(200);
    expect(res.body).to.deep.equal({ title: 'Fw admin', pwdTransferEncrypt: true, verifyCodeCount: 2, providers: [], passwordPolicy: POLICY });
    expect(res.headers['cache-control']).to.equal('no-store');
  });

  it('follows the configuration', async () => {
    const res = await app({ 'fw-app.title': 'Library', 'fw-app.pwdTransferEncrypt': false, 'fw-app.verifyCodeCount': 0, 'fw-app.apiPrefix': '/api' })
      .get('/api/login-settings')
      .expect(200);
    expect(res.body).to.deep.equal({ title: 'Library', pwdTransferEncrypt: false, verifyCodeCount: 0, providers: [], passwordPolicy: POLICY });
  });

  it('lists the providers it was given, field by field (nothing else an object holds is sent)', async () => {
    const withSecret = { id: 'github', name: 'GitHub', url: '/connect/github', clientSecret: 'do-not-send' };
    const res = await app({}, { providers: [withSecret, { id: 'corp', name: 'Corporate SSO', url: 'https://sso.example.com/start' }] })
      .get('/fw-api/login-settings')
      .expect(200);
    expect(res.body.providers).to.deep.equal([
      { id: 'github', name: 'GitHub', url: '/connect/github' },
      { id: 'corp', name: 'Corporate SSO', url: 'https://sso.example.com/start' },
    ]);
    expect(res.text).not.to.contain('do-not-send');
  });

  it('reads a providers function on each request', async () => {
    const list = [{ id: 'a', name: 'A', url: '/connect/a' }];
    const agent = app({}, { providers: () => list });
    expect((await agent.get('/fw-api/login-settings').expect(200)).body.providers).to.have.length(1);
    list.push({ id: 'b', name: 'B', url: '/connect/b' });
    expect((await agent.get('/fw-api/login-settings').expect(200)).body.providers.map((p: { id: string }) => p.id)).to.deep.equal(['a', 'b']);
  });

  it('is a GET route: another method is a 405 naming GET', async () => {
    const res = await app().post('/fw-api/login-settings').send({}).expect(405);
    expect(res.headers.allow).to.contain('GET');
  });

  it('refuses providers without a usable id, name or url at start-up', () => {
    const config = loadConfig({ env: false });
    const tokens = new FwTokenService({ store: new KnexTokenStore({ knex: store.knex }), config });
    const base = { store, tokens, config, ephemeral: new KnexEphemeralStore({ knex: store.knex }) };
    for (const [providers, key] of [
      [[{ id: '', name: 'x', url: '/connect/x' }], 'fwLogin.providers[0].id'],
      [[{ id: 'x', name: '', url: '/connect/x' }], 'fwLogin.providers[0].name'],
      [[{ id: 'x', name: 'X', url: 'javascript:alert(1)' }], 'fwLogin.providers[0].url'],
      [[{ id: 'x', name: 'X', url: '//evil.example.com/' }], 'fwLogin.providers[0].url'],
      [
        [
          { id: 'x', name: 'X', url: '/a' },
          { id: 'x', name: 'Y', url: '/b' },
        ],
        'fwLogin.providers',
      ],
      ['github', 'fwLogin.providers'],
    ] as Array<[FwLoginOptions['providers'], string]>) {
      expect(() => fwLogin({ ...base, providers }), JSON.stringify(providers))
        .to.throw(FwDefinitionError)
        .with.property('key', key);
    }
  });
});
