// Shared fixture of the sign-on tests: a real OAuth 2.0 provider (oauth2-mock-server) and a Koa
// host on loopback ports, with a tiny cookie jar to walk the browser's redirects.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import { OAuth2Server } from 'oauth2-mock-server';
import { loadConfig, type FwUser } from '@fw/core';
import { fwErrorHandler } from '@fw/http';
import { FailedLoginLog, fwLogin } from '@fw/login';
import { createStore, type FwStore } from '@fw/store';
import { createTestDatabase, type TestDatabase } from '@fw/test-utils';
import { FwTokenService, KnexTokenStore, MemoryEphemeralStore } from '@fw/token';
import { fwWeb } from '@fw/web';
import { fwOAuth, type FwOAuthOptions } from './fw-oauth.js';
import type { FwSessionStore } from './session-store.js';

/** A provider on a loopback port whose user-info `sub` is whatever the test sets. */
export async function startProvider(): Promise<{ provider: OAuth2Server; issuer: string; profile: { sub: string; name?: string }; stop(): Promise<void> }> {
  const provider = new OAuth2Server();
  await provider.issuer.keys.generate('RS256');
  await provider.start(0, '127.0.0.1');
  const issuer = provider.issuer.url!;
  const profile = { sub: 'alice', name: 'Alice' };
  provider.service.on('beforeUserinfo', (response: { body: unknown }) => {
    response.body = { ...profile };
  });
  // A real provider's id_token and user-info describe the same subject.
  provider.service.on('beforeTokenSigning', (token: { payload: Record<string, unknown> }) => {
    token.payload.sub = profile.sub;
  });
  return { provider, issuer, profile, stop: () => provider.stop() };
}

/** The registration of the mock provider, with the spec's keys. */
export function mockRegistration(issuer: string, extra: Record<string, unknown> = {}): FwOAuthOptions['providers'] {
  return {
    mock: {
      'client-id': 'fw-client',
      'client-secret': 'fw-secret',
      scope: 'openid profile',
      'authorization-grant-type': 'authorization_code',
      'authorization-uri': `${issuer}/authorize`,
      'token-uri': `${issuer}/token`,
      'user-info-uri': `${issuer}/userinfo`,
      'jwk-set-uri': `${issuer}/jwks`,
      'issuer-uri': issuer,
      'user-name-attribute': 'sub',
      ...extra,
    },
  };
}

/** A cookie jar per origin, enough for signed koa-session cookies. */
export class Browser {
  readonly cookies = new Map<string, Map<string, string>>();

  async get(url: string, init: RequestInit = {}): Promise<Response> {
    const u = new URL(url);
    const jar = this.cookies.get(u.origin) ?? new Map<string, string>();
    const cookie = [...jar].map(([k, v]) => `${k}=${v}`).join('; ');
    const res = await fetch(url, { ...init, redirect: 'manual', headers: { ...(cookie ? { cookie } : {}), ...(init.headers as Record<string, string> | undefined) } });
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const eq = pair!.indexOf('=');
      const name = pair!.slice(0, eq).trim();
      const value = pair!.slice(eq + 1).trim();
      if (/expires=Thu, 01 Jan 1970/i.test(line) || value === '') jar.delete(name);
      else jar.set(name, value);
    }
    this.cookies.set(u.origin, jar);
    return res;
  }

  /** Follows redirects from `url` until `stop(location)` says so or a non-redirect answers; returns every hop. */
  async walk(url: string, stop: (location: string) => boolean = () => false): Promise<Array<{ url: string; status: number; location: string | null; body: string }>> {
    const hops: Array<{ url: string; status: number; location: string | null; body: string }> = [];
    let next: string | null = url;
    for (let i = 0; next && i < 12; i += 1) {
      const res = await this.get(next);
      const location = res.headers.get('location');
      hops.push({ url: next, status: res.status, location, body: await res.text() });
      if (!location || res.status < 300 || res.status >= 400) break;
      const target: string = new URL(location, next).href;
      if (stop(target)) break;
      next = target;
    }
    return hops;
  }
}

/** What {@link startHost} builds. */
export interface Host {
  url: string;
  app: Koa;
  store: FwStore;
  tokens: FwTokenService;
  loginSuccess: Array<{ user: FwUser; token: string }>;
  close(): Promise<void>;
}

/**
 * A Koa host on a loopback port: fwOAuth (the bridge and the guard), fwLogin (for
 * /fw-api/userinfo) and a protected home page at `/`.
 */
export async function startHost(
  issuer: string,
  options: { db?: TestDatabase; store?: FwStore; sessionStore?: FwSessionStore; providers?: FwOAuthOptions['providers']; migrate?: boolean; logFailures?: boolean } = {},
): Promise<Host> {
  const db = options.store ? undefined : (options.db ?? (await createTestDatabase({ dialect: 'sqlite', label: 'SQLite' })));
  const store = options.store ?? createStore(db!.url);
  if (options.migrate !== false) await store.migrate.latest();
  if (!(await store.users.findByAccount('alice'))) await store.users.create({ account: 'alice', name: 'Alice', password: 'alice-password', mustChangePassword: false });
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const config = loadConfig({ env: false });
  const tokens = new FwTokenService({ store: new KnexTokenStore({ knex: store.knex }), config });
  const loginSuccess: Host['loginSuccess'] = [];
  const ephemeral = new MemoryEphemeralStore();
  // Shared by the bridge and the login routes, as fwAdmin does (issue 19 §6).
  const failedLogins = options.logFailures ? new FailedLoginLog({ store, ephemeral, config }) : undefined;
  const proxy = { loginSuccess: (user: FwUser, token: string) => void loginSuccess.push({ user, token }) };
  const app = new Koa();
  app.keys = ['test-cookie-key-1'];
  app.silent = true;
  app.use(fwErrorHandler());
  // The built-in /auth.html, before the guard (it is open anyway).
  app.use(fwWeb());
  app.use(
    fwOAuth(app, {
      store,
      tokens,
      baseUrl: url,
      providers: options.providers ?? mockRegistration(issuer),
      proxy,
      ...(options.sessionStore ? { sessionStore: options.sessionStore } : {}),
      ...(failedLogins ? { failedLogins } : {}),
    }),
  );
  app.use(fwLogin({ store, tokens, config, ephemeral, proxy, ...(failedLogins ? { failedLogins } : {}) }));
  app.use((ctx) => {
    if (ctx.path === '/') {
      ctx.type = 'html';
      ctx.body = '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Admin home</title></head><body><h1>admin home</h1></body></html>';
    } else ctx.body = `page ${ctx.path}`;
  });
  server.on('request', app.callback());
  return {
    url,
    app,
    store,
    tokens,
    loginSuccess,
    async close() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      if (!options.store) {
        await store.destroy();
        await db?.drop();
      }
    },
  };
}
