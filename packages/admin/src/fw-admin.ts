import type Koa from 'koa';
import type { Middleware } from 'koa';
import type { Redis } from 'ioredis';
import { fwMcp } from '@fw/ai';
import { BUILTIN_MODELS, FwDefinitionError, createRegistry, loadConfig, type FwConfig, type ModelDefinition, type ModelRegistry } from '@fw/core';
import { fwData, type FwDataMiddleware, type FwDataOptions } from '@fw/data';
import { fwErrorHandler, fwLogin, type FwLoginOptions } from '@fw/login';
import { KnexSessionStore, RedisSessionStore, fwOAuth, type FwOAuthOptions } from '@fw/oauth';
import { createStore, type FwStore } from '@fw/store';
import { FwTokenService, KnexEphemeralStore, KnexTokenStore, RedisEphemeralStore, RedisTokenStore } from '@fw/token';
import { fwWeb, type FwWebOptions } from '@fw/web';

/** Options of {@link fwAdmin}. */
export interface FwAdminOptions {
  /** A database URL (`sqlite:…`, `postgres://…`, `mysql://…`, `mssql://…`) or an open store. */
  db: string | FwStore;
  /** The host's models; the built-in ones (users, roles, menus, …) are added. */
  models?: ModelDefinition[];
  /** Configuration: values in code (files and the environment are read too, see `loadConfig`). */
  config?: Record<string, unknown>;
  /** Migrate the built-in tables, create missing model tables and their menus. @default true */
  migrate?: boolean;
  /**
   * A Redis client shared by every instance: tokens, failed-login counters and browser sessions
   * go there. Without it they live in the database (also shared by instances on it).
   */
  redis?: Redis;
  /** Prefix of every Redis key Fw writes; instances of one app share it. @default 'fw:' */
  redisPrefix?: string;
  /** Options of `fwLogin` (the login hook `proxy`, `entry`, captcha lifetime, …). */
  login?: Omit<FwLoginOptions, 'store' | 'tokens' | 'ephemeral' | 'config'>;
  /** Options of `fwData` (limits, export and import sizes, …). */
  data?: Omit<FwDataOptions, 'store' | 'tokens' | 'registry' | 'config'>;
  /** OAuth sign-on; off unless given. The login hook of `login.proxy` hears about sign-ons too. */
  oauth?: Omit<FwOAuthOptions, 'store' | 'tokens' | 'config' | 'proxy' | 'sessionStore'>;
  /** The AI tools over MCP at `/fw-api/ai/mcp`. @default true */
  ai?: boolean;
  /** `/auth.html` (needed by the sign-on). @default true, with `oauth`; `false` otherwise */
  web?: boolean | FwWebOptions;
}

/** What {@link fwAdmin} built. */
export interface FwAdmin {
  /** Mount it: `app.use(fw.middleware)`. */
  middleware: Middleware;
  store: FwStore;
  tokens: FwTokenService;
  registry: ModelRegistry;
  config: FwConfig;
  /** The data API; `data.events` carries edit events, `data.service` the operations. */
  data: FwDataMiddleware;
  /** Closes the database if fwAdmin opened it. */
  close(): Promise<void>;
}

function compose(middleware: Middleware[]): Middleware {
  return async function fwAdmin(ctx, next) {
    const run = async (i: number): Promise<void> => {
      if (i === middleware.length) return next();
      await middleware[i]!(ctx, () => run(i + 1));
    };
    await run(0);
  };
}

/**
 * Every Fw package composed for one Koa app: the store (migrated), tokens, the login routes, the
 * data API over the built-in and the host's models, the AI tools, and — when configured — the
 * OAuth sign-on with `/auth.html`. Each package also works alone; this is the quick start.
 *
 * @throws {FwDefinitionError} for a bad option or model definition (before anything is opened).
 * @example
 * const app = new Koa();
 * const fw = await fwAdmin(app, { db: 'sqlite:./data/app.db', models: [Book] });
 * app.use(fw.middleware);
 */
export async function fwAdmin(app: Koa, options: FwAdminOptions): Promise<FwAdmin> {
  if (!app || typeof app.use !== 'function') throw new FwDefinitionError('fwAdmin.app', 'pass the Koa app: fwAdmin(app, options)');
  if (!options || (typeof options.db !== 'string' && !options.db?.knex)) throw new FwDefinitionError('fwAdmin.db', 'a database URL or an FwStore is required');
  const config = loadConfig(options.config ? { values: options.config } : {});
  const hostModels = options.models ?? [];
  const registry = createRegistry([...BUILTIN_MODELS, ...hostModels]);
  const owned = typeof options.db === 'string';
  const store = typeof options.db === 'string' ? createStore(options.db) : options.db;
  try {
    if (options.migrate !== false) {
      await store.migrate.latest();
      await store.createModelTables(hostModels);
      for (const [i, model] of registry.list().entries()) await store.menus.createModelMenu(model, { sort: i });
    }
    const { redis } = options;
    const prefix = options.redisPrefix ?? 'fw:';
    const tokens = new FwTokenService({ store: redis ? new RedisTokenStore({ redis, prefix }) : new KnexTokenStore({ knex: store.knex }), config });
    const ephemeral = redis ? new RedisEphemeralStore({ redis, prefix }) : new KnexEphemeralStore({ knex: store.knex });
    const data = fwData({ ...options.data, store, tokens, registry, config });
    const parts: Middleware[] = [fwErrorHandler()];
    const web = options.web ?? options.oauth !== undefined;
    if (web) parts.push(fwWeb(typeof web === 'object' ? web : {}));
    if (options.oauth) {
      const sessionStore = redis ? new RedisSessionStore({ redis, prefix }) : new KnexSessionStore({ knex: store.knex });
      parts.push(fwOAuth(app, { ...options.oauth, store, tokens, config, sessionStore, ...(options.login?.proxy ? { proxy: options.login.proxy } : {}) }));
    }
    parts.push(fwLogin({ ...options.login, store, tokens, ephemeral, config }));
    parts.push(data);
    if (options.ai !== false) parts.push(fwMcp({ data, tokens, store, config }));
    return {
      middleware: compose(parts),
      store,
      tokens,
      registry,
      config,
      data,
      close: async () => {
        if (owned) await store.destroy();
      },
    };
  } catch (error) {
    if (owned) await store.destroy();
    throw error;
  }
}
