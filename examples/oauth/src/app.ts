import Koa from 'koa';
import { loadConfig } from '@fw/core';
import { fwErrorHandler, fwLogin } from '@fw/login';
import { KnexSessionStore, fwOAuth } from '@fw/oauth';
import { createStore, type FwStore } from '@fw/store';
import { FwTokenService, KnexEphemeralStore, KnexTokenStore } from '@fw/token';
import { fwWeb } from '@fw/web';

/** Options of {@link createOAuthExample}. */
export interface OAuthExampleOptions {
  /** Database URL (users, tokens, sessions). */
  dbUrl: string;
  /** The public origin the provider redirects back to, e.g. `http://127.0.0.1:3002`. */
  baseUrl: string;
  /** The provider registrations file (see oauth-providers.example.json). */
  providersFile: string;
  /** Keys signing the session cookie. */
  cookieKeys: string[];
}

/**
 * A host with one protected page (`/`), Fw's sign-on bridge in front of it, the token page
 * `/auth.html`, and the login API the page's scripts would call with the token.
 */
export async function createOAuthExample(options: OAuthExampleOptions): Promise<{ app: Koa; store: FwStore; close(): Promise<void> }> {
  const config = loadConfig();
  const store = createStore(options.dbUrl);
  await store.migrate.latest();
  const tokens = new FwTokenService({ store: new KnexTokenStore({ knex: store.knex }), config });
  const app = new Koa();
  app.keys = options.cookieKeys;
  app.use(fwErrorHandler());
  app.use(fwWeb());
  // Sessions in the database: several instances of this host share sign-ins in progress.
  app.use(fwOAuth(app, { store, tokens, baseUrl: options.baseUrl, providersFile: options.providersFile, sessionStore: new KnexSessionStore({ knex: store.knex }) }));
  app.use(fwLogin({ store, tokens, config, ephemeral: new KnexEphemeralStore({ knex: store.knex }) }));
  app.use((ctx) => {
    if (ctx.path !== '/') return;
    const user = (ctx as typeof ctx & { session?: { fwUser?: { account: string } } }).session?.fwUser;
    ctx.type = 'html';
    ctx.body = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Protected</title></head>
<body><h1>Protected page</h1><p id="who">Signed in as ${escape(user?.account ?? '')}</p>
<p>The Fw token is in <code>localStorage._token</code>; the admin UI sends it as the <code>token</code> header.</p></body></html>`;
  });
  return { app, store, close: () => store.destroy() };
}

function escape(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
