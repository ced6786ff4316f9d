import { expect } from 'chai';
import Koa from 'koa';
import { FwDefinitionError } from '@fw/core';
import { createStore } from '@fw/store';
import { hashToken, FwTokenService, MemoryTokenStore } from '@fw/token';
import { fwOAuth, OAUTH_FAILURES } from './fw-oauth.js';
import { Browser, mockRegistration, startHost, startProvider, type Host } from './test-setup.js';

describe('fwOAuth(app, options): the sign-on flow against a real OAuth 2.0 provider', () => {
  let provider: Awaited<ReturnType<typeof startProvider>>;
  let host: Host;
  before(async () => {
    provider = await startProvider();
  });
  after(() => provider?.stop());
  beforeEach(async () => {
    provider.profile.sub = 'alice';
    host = await startHost(provider.issuer);
  });
  afterEach(() => host?.close());

  async function loginLogs() {
    return host.store.loginLogs.list({ limit: 100 });
  }

  it('protected page → sign-in → provider → callback → /oauth-callback → /auth.html?token, and the token works', async () => {
    const browser = new Browser();
    const hops = await browser.walk(`${host.url}/`, (location) => location.startsWith(`${host.url}/auth.html`));
    expect(hops.map((h) => new URL(h.url).pathname)).to.deep.equal(['/', '/connect/mock', '/authorize', '/login/oauth2/code/mock', '/oauth-callback']);
    // PKCE and state went to the provider.
    const authorize = new URL(hops[2]!.url);
    expect(authorize.searchParams.get('code_challenge_method')).to.equal('S256');
    expect(authorize.searchParams.get('state')).to.have.length.greaterThan(10);
    expect(authorize.searchParams.get('redirect_uri')).to.equal(`${host.url}/login/oauth2/code/mock`);
    const final = new URL(hops.at(-1)!.location!, host.url);
    expect(final.pathname).to.equal('/auth.html');
    const token = final.searchParams.get('token')!;
    expect(token).to.match(/^[A-Za-z0-9]{16}$/);

    const me = await fetch(`${host.url}/fw-api/userinfo`, { headers: { token } });
    expect(me.status).to.equal(200);
    expect(await me.json()).to.include({ account: 'alice' });
    const [log] = await loginLogs();
    expect(log).to.include({ account: 'alice', method: 'oauth:mock', tokenHash: hashToken(token) });
    expect(host.loginSuccess).to.have.length(1);
    expect(host.loginSuccess[0]!.token).to.equal(token);
    expect(host.loginSuccess[0]!.user).to.include({ account: 'alice' });
    // The browser session is signed in now.
    const home = await browser.get(`${host.url}/`);
    expect(home.status).to.equal(200);
    expect(await home.text()).to.contain('<h1>admin home</h1>');
  });

  it('sends space-separated scopes and gives the signed-in browser a new session id', async () => {
    const browser = new Browser();
    const hops = await browser.walk(`${host.url}/connect/mock`, (location) => location.includes('/login/oauth2/code/'));
    expect(new URL(hops.at(-1)!.url).searchParams.get('scope')).to.equal('openid profile');
    const before = browser.cookies.get(host.url)?.get('fw.sid');
    expect(before).to.be.a('string');
    await browser.walk(hops.at(-1)!.location!, (location) => location.includes('/auth.html'));
    const after = browser.cookies.get(host.url)?.get('fw.sid');
    expect(after).to.be.a('string').and.not.equal(before);
    // A cookie captured before the sign-in opens nothing.
    const stale = await fetch(`${host.url}/`, {
      redirect: 'manual',
      headers: { cookie: `fw.sid=${before}; fw.sid.sig=${browser.cookies.get(host.url)?.get('fw.sid.sig') ?? ''}` },
    });
    expect(stale.status).to.equal(302);
  });

  it('ends the page session with the token: logout, a lock, an expiry', async () => {
    const signIn = async () => {
      const browser = new Browser();
      const hops = await browser.walk(`${host.url}/connect/mock`, (location) => location.includes('/auth.html'));
      const token = new URL(hops.at(-1)!.location!, host.url).searchParams.get('token')!;
      expect((await browser.get(`${host.url}/`)).status).to.equal(200);
      return { browser, token };
    };
    const first = await signIn();
    await fetch(`${host.url}/fw-api/logout`, { headers: { token: first.token } });
    expect((await first.browser.get(`${host.url}/`)).status).to.equal(302);
    const second = await signIn();
    const alice = (await host.store.users.findByAccount('alice'))!;
    await host.store.users.update(alice.id, { status: 'locked' });
    expect((await second.browser.get(`${host.url}/`)).status).to.equal(302);
    await host.store.users.update(alice.id, { status: 'normal' });
    const third = await signIn();
    await host.tokens.revokeUser(alice.id);
    expect((await third.browser.get(`${host.url}/`)).status).to.equal(302);
  });

  it('unknown account: "account not found", no token, nothing logged as a login', async () => {
    provider.profile.sub = 'mallory';
    const hops = await new Browser().walk(`${host.url}/connect/mock`);
    const last = hops.at(-1)!;
    expect(new URL(last.url).pathname).to.equal('/oauth-callback');
    expect(last.status).to.equal(403);
    expect(last.body).to.contain(OAUTH_FAILURES.ACCOUNT_NOT_FOUND);
    expect(hops.some((h) => h.location?.includes('token='))).to.equal(false);
    expect(await loginLogs()).to.have.length(0);
    expect(host.loginSuccess).to.have.length(0);
  });

  it('with a failed-login log: an unknown or refused account is a failed sign-in row, never a success (issue 19 §6)', async () => {
    await host.close();
    host = await startHost(provider.issuer, { logFailures: true });
    provider.profile.sub = 'mallory';
    expect((await new Browser().walk(`${host.url}/connect/mock`)).at(-1)!.status).to.equal(403);
    const alice = (await host.store.users.findByAccount('alice'))!;
    await host.store.users.update(alice.id, { status: 'locked' });
    provider.profile.sub = 'alice';
    expect((await new Browser().walk(`${host.url}/connect/mock`)).at(-1)!.status).to.equal(403);
    const rows = (await loginLogs()).reverse();
    expect(rows.map((r) => [r.success, r.reason, r.accountTyped, r.account, r.userId, r.method, r.tokenHash])).to.deep.equal([
      [false, 'not-stored', 'mallory', 'mallory', null, 'oauth:mock', null],
      [false, 'locked', 'alice', 'alice', alice.id, 'oauth:mock', null],
    ]);
    expect(host.loginSuccess).to.have.length(0);
  });

  it('refuses a tampered state', async () => {
    const browser = new Browser();
    const hops = await browser.walk(`${host.url}/connect/mock`, (location) => location.includes('/login/oauth2/code/'));
    const back = new URL(hops.at(-1)!.location!);
    back.searchParams.set('state', 'forged-state-value');
    const rest = await browser.walk(back.href);
    expect(rest.at(-1)!.status).to.equal(401);
    expect(rest.at(-1)!.body).to.contain(OAUTH_FAILURES.PROVIDER);
    expect(await loginLogs()).to.have.length(0);
  });

  it('refuses a replayed callback and a callback without the session that started it', async () => {
    const browser = new Browser();
    const hops = await browser.walk(`${host.url}/connect/mock`, (location) => location.includes('/login/oauth2/code/'));
    const back = hops.at(-1)!.location!;
    const stranger = await new Browser().walk(back);
    expect(stranger[0]!.status).to.equal(400);
    expect(stranger[0]!.body).to.contain(OAUTH_FAILURES.NOT_STARTED);
    const done = await browser.walk(back, (location) => location.includes('/auth.html'));
    expect(done.at(-1)!.location).to.contain('/auth.html?token=');
    const replay = await browser.walk(back);
    expect(replay[0]!.status).to.equal(400);
    const callbackAgain = await browser.get(`${host.url}/oauth-callback`);
    expect(callbackAgain.status).to.equal(400);
    expect(await loginLogs()).to.have.length(1);
  });

  it('refuses an id_token that the configured keys did not sign', async () => {
    const other = await startProvider();
    const strict = await startHost(provider.issuer, { providers: mockRegistration(provider.issuer, { 'jwk-set-uri': `${other.issuer}/jwks` }) });
    try {
      const hops = await new Browser().walk(`${strict.url}/connect/mock`);
      expect(hops.at(-1)!.status).to.equal(401);
      expect(hops.at(-1)!.body).to.contain(OAUTH_FAILURES.ID_TOKEN);
      expect(await strict.store.loginLogs.list()).to.have.length(0);
    } finally {
      await strict.close();
      await other.stop();
    }
  });

  it('refuses an id_token whose subject differs from the profile', async () => {
    provider.profile.sub = 'alice';
    const onSign = (token: { payload: Record<string, unknown> }) => {
      if (token.payload.nonce !== undefined) token.payload.sub = 'someone-else';
    };
    provider.provider.service.on('beforeTokenSigning', onSign);
    try {
      const hops = await new Browser().walk(`${host.url}/connect/mock`);
      expect(hops.at(-1)!.status).to.equal(401);
      expect(hops.at(-1)!.body).to.contain(OAUTH_FAILURES.ID_TOKEN);
    } finally {
      provider.provider.service.off('beforeTokenSigning', onSign);
    }
  });

  it('refuses a locked account', async () => {
    const alice = (await host.store.users.findByAccount('alice'))!;
    await host.store.users.update(alice.id, { status: 'locked' });
    const hops = await new Browser().walk(`${host.url}/connect/mock`);
    expect(hops.at(-1)!.status).to.equal(403);
    expect(await loginLogs()).to.have.length(0);
  });

  describe('the host guard', () => {
    const open = [
      '/fw-api/anything',
      '/fw-api',
      '/fw-cloud-api/x/y',
      '/app.css',
      '/js/app.js?v=3',
      '/img/a.PNG',
      '/f.woff2',
      '/data.json',
      '/robots.txt',
      '/auth.html',
      '/connect/mock',
    ];
    for (const path of open) {
      it(`lets ${path} through without a session`, async () => {
        const res = await fetch(`${host.url}${path}`, { redirect: 'manual' });
        // Open: answered by what is behind the guard (the bridge sends /connect/* on to the provider).
        expect(res.headers.get('location'), path).to.not.equal('/connect/mock');
        expect(res.status, path).to.not.equal(401);
      });
    }
    const closed = ['/', '/admin', '/secret.js.map', '/x.css/../admin', '/admin?x=.css', '/admin/.css/..', '/a%2e%2e/admin.css', '/x.css;/admin', '/admin.html'];
    for (const path of closed) {
      it(`sends ${path} to sign in`, async () => {
        const res = await fetch(`${host.url}${path}`, { redirect: 'manual' });
        expect(res.status, path).to.equal(302);
        expect(res.headers.get('location'), path).to.equal('/connect/mock');
        expect(res.headers.get('x-frame-options'), path).to.equal(null);
      });
    }
    it('answers 401 to other methods without a session', async () => {
      expect((await fetch(`${host.url}/admin`, { method: 'POST', redirect: 'manual' })).status).to.equal(401);
    });
  });
});

describe('fwOAuth(app, options) at start-up', () => {
  const store = createStore('sqlite::memory:');
  const tokens = new FwTokenService({ store: new MemoryTokenStore() });
  const providers = mockRegistration('http://127.0.0.1:9');
  after(() => store.destroy());

  it('refuses to start without app.keys', () => {
    expect(() => fwOAuth(new Koa(), { store, tokens, baseUrl: 'http://127.0.0.1:3000', providers })).to.throw(FwDefinitionError, /app\.keys/);
  });

  it('refuses a second mount on the same app', () => {
    const app = new Koa();
    app.keys = ['k'];
    fwOAuth(app, { store, tokens, baseUrl: 'http://127.0.0.1:3000', providers });
    expect(() => fwOAuth(app, { store, tokens, baseUrl: 'http://127.0.0.1:3000', providers })).to.throw(FwDefinitionError, /already mounted/);
  });

  it('refuses bad provider registrations, naming the key', () => {
    const app = () => Object.assign(new Koa(), { keys: ['k'] });
    const base = { store, tokens, baseUrl: 'http://127.0.0.1:3000' };
    expect(() => fwOAuth(app(), { ...base, providers: { mock: { 'client-id': 'x' } } })).to.throw(FwDefinitionError, /fwOAuth\.providers\.mock\.client-secret/);
    expect(() => fwOAuth(app(), { ...base, providers: { mock: { ...mockRegistration('http://h')!.mock, 'authorization-grant-type': 'implicit' } } })).to.throw(
      FwDefinitionError,
      /authorization_code/,
    );
    expect(() => fwOAuth(app(), { ...base, providers: { mock: { ...mockRegistration('http://h')!.mock, 'clent-id': 'typo' } } })).to.throw(
      FwDefinitionError,
      /clent-id: unknown key/,
    );
    expect(() => fwOAuth(app(), { ...base, providers: { nowhere: { 'client-id': 'a', 'client-secret': 'b' } } })).to.throw(FwDefinitionError, /grant does not know "nowhere"/);
    expect(() => fwOAuth(app(), { ...base, baseUrl: 'not a url', providers })).to.throw(FwDefinitionError, /baseUrl/);
  });

  it('accepts a provider grant knows by name with only its keys (and camelCase)', () => {
    const app = Object.assign(new Koa(), { keys: ['k'] });
    expect(() =>
      fwOAuth(app, {
        store,
        tokens,
        baseUrl: 'http://127.0.0.1:3000',
        providers: { github: { clientId: 'a', clientSecret: 'b', scope: ['read:user'], userNameAttribute: 'login' } },
      }),
    ).to.not.throw();
  });
});
