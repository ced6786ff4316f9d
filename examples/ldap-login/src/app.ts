import Koa from 'koa';
import { loadConfig, type FwConfig } from '@fw/core';
import { fwAuth, fwErrorHandler, fwLogin } from '@fw/login';
import { createStore, type FwStore } from '@fw/store';
import { FwTokenService, KnexEphemeralStore, KnexTokenStore } from '@fw/token';
import { ldapLogin, type LdapLoginOptions } from './ldap-proxy.js';

/** A Koa host whose logins are checked by an LDAP directory. */
export async function createLdapApp(options: { dbUrl: string; ldap: LdapLoginOptions; config?: Record<string, unknown> }): Promise<{
  app: Koa;
  store: FwStore;
  config: FwConfig;
  close(): Promise<void>;
}> {
  const config = loadConfig({ values: options.config ?? {} });
  const store = await createStore(options.dbUrl);
  await store.migrate.latest();
  const tokens = new FwTokenService({ store: new KnexTokenStore({ knex: store.knex }), config });
  const app = new Koa();
  app.use(fwErrorHandler());
  app.use(fwLogin({ store, tokens, config, ephemeral: new KnexEphemeralStore({ knex: store.knex }), proxy: ldapLogin(options.ldap) }));
  app.use(fwAuth({ tokens, store }));
  app.use((ctx) => {
    ctx.body = { hello: ctx.state.fw?.user.account };
  });
  return { app, store, config, close: () => store.destroy() };
}
