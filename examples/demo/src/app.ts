import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import Router from '@koa/router';
import Koa from 'koa';
import { BUILTIN_MODELS, createRegistry, loadConfig, type FwConfig, type ModelRegistry } from '@fw/core';
import { createStore, type FwStore } from '@fw/store';
import { fwMcp } from '@fw/ai';
import { fwData, type FwDataMiddleware } from '@fw/data';
import { fwErrorHandler, fwLogin } from '@fw/login';
import { FwTokenService, KnexEphemeralStore, KnexTokenStore } from '@fw/token';
import { demoModels } from './models.js';

/** Options of {@link createDemoApp}. */
export interface DemoOptions {
  /** Database URL. @default `sqlite:<cwd>/data/fw-demo.db` */
  dbUrl?: string;
  /** Password of the seeded `admin` account; generated when absent and the account is new. */
  adminPassword?: string;
  /** Configuration values (see `loadConfig`). */
  config?: Record<string, unknown>;
}

/** A running demo: the Koa app and what it is built from. */
export interface DemoApp {
  app: Koa;
  store: FwStore;
  registry: ModelRegistry;
  tokens: FwTokenService;
  config: FwConfig;
  /** The data API; `data.events` carries edit events. */
  data: FwDataMiddleware;
  /** The generated administrator password, when one was generated (printed once by main). */
  generatedAdminPassword: string | undefined;
  close(): Promise<void>;
}

/** The default database: a SQLite file under ./data of the directory npm was started from. */
export function defaultDbUrl(cwd = process.env.INIT_CWD ?? process.cwd()): string {
  return `sqlite:${resolve(cwd, 'data', 'fw-demo.db')}`;
}

function ensureSqliteDir(url: string): void {
  if (!url.startsWith('sqlite:') || url === 'sqlite::memory:') return;
  const path = url.replace(/^sqlite:(\/\/)?/, '');
  if (isAbsolute(path) || path.length > 0) mkdirSync(dirname(resolve(path)), { recursive: true });
}

/**
 * Builds the demo: migrates the database, creates the demo model tables and their menus, seeds
 * the administrator, and returns a Koa app (not yet listening).
 */
export async function createDemoApp(options: DemoOptions = {}): Promise<DemoApp> {
  const config = loadConfig(options.config ? { values: options.config } : {});
  // The framework's own models (users, roles, menus, …) next to the demo ones.
  const registry = createRegistry([...BUILTIN_MODELS, ...demoModels]);
  const dbUrl = options.dbUrl ?? defaultDbUrl();
  ensureSqliteDir(dbUrl);
  const store = await createStore(dbUrl);
  try {
    await store.migrate.latest();
    await store.createModelTables(demoModels);
    for (const [i, model] of registry.list().entries()) await store.menus.createModelMenu(model, { sort: i });
  } catch (error) {
    await store.destroy();
    throw error;
  }

  let generatedAdminPassword: string | undefined;
  if (!(await store.users.findByAccount('admin'))) {
    const password = options.adminPassword ?? (generatedAdminPassword = randomBytes(12).toString('base64url'));
    await store.users.create({ account: 'admin', name: 'Administrator', password, isAdmin: true });
  }

  const tokens = new FwTokenService({ store: new KnexTokenStore({ knex: store.knex }), config });
  const app = new Koa();
  app.use(fwErrorHandler());
  // Counters and captcha answers in the same database, so several demo instances share them.
  app.use(fwLogin({ store, tokens, config, ephemeral: new KnexEphemeralStore({ knex: store.knex }) }));
  const data = fwData({ store, tokens, registry, config });
  app.use(data);
  // AI clients: POST /fw-api/ai/mcp with the same token (or an open-API key exchanged for one).
  app.use(fwMcp({ data, tokens, store, config }));
  const router = new Router();
  router.get('/', (ctx) => {
    ctx.type = 'html';
    ctx.body = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Fw demo</title></head>
<body><h1>Fw demo</h1><p>Models: ${demoModels.map((m) => m.title).join(', ')}</p></body></html>`;
  });
  router.get('/health', (ctx) => {
    ctx.body = { status: 'ok', models: registry.list().map((m) => m.name) };
  });
  app.use(router.routes()).use(router.allowedMethods());

  return {
    app,
    store,
    registry,
    tokens,
    config,
    data,
    generatedAdminPassword,
    close: () => store.destroy(),
  };
}
