import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import Router from '@koa/router';
import Koa from 'koa';
import { fwAdmin, type FwAdminOptions } from '@fw/admin';
import type { FwConfig, ModelRegistry } from '@fw/core';
import type { FwDataMiddleware } from '@fw/data';
import type { FwStore } from '@fw/store';
import type { FwTokenService } from '@fw/token';
import { demoMenuIcons } from './menu-icons.js';
import { demoModels } from './models.js';
import { seedDemo, type SeedOptions, type SeedResult } from './seed.js';

/** Options of {@link createDemoApp}. */
export interface DemoOptions {
  /** Database URL. @default `sqlite:<cwd>/data/fw-demo.db` */
  dbUrl?: string;
  /** Password of the seeded `admin` account; generated when absent and the account is new. */
  adminPassword?: string;
  /** Configuration values (see `loadConfig`). */
  config?: Record<string, unknown>;
  /** Where the admin UI lives (`{ path: '/admin' }`), or `false` for none. @default at `/` */
  ui?: FwAdminOptions['ui'];
  /** OAuth sign-on (fwAdmin's `oauth`); off unless given. */
  oauth?: FwAdminOptions['oauth'];
  /** Folder of uploaded files (the Author photo and papers). @default `<cwd>/data/files` */
  filesDir?: string;
  /**
   * Sample data written into an empty demo (see `seedDemo`): `true` or how much. `npm start`
   * turns it on unless `FW_DEMO_SEED=0`; tests leave it off. @default false
   */
  seed?: boolean | SeedOptions;
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
  /** What the sample-data seed did, when `seed` was asked for. */
  seeded: SeedResult | undefined;
  /** The generated administrator password, when one was generated (printed once by main). */
  generatedAdminPassword: string | undefined;
  close(): Promise<void>;
}

/** The default database: a SQLite file under ./data of the directory npm was started from. */
export function defaultDbUrl(cwd = process.env.INIT_CWD ?? process.cwd()): string {
  return `sqlite:${resolve(cwd, 'data', 'fw-demo.db')}`;
}

/**
 * Builds the demo with `fwAdmin`: the database migrated, the demo model tables and every menu
 * created, the login routes, the data API over the demo and built-in models, the AI tools over
 * MCP and the admin web UI at `/` mounted, and the first administrator created (fwAdmin's `admin`). Returns a Koa app,
 * not yet listening.
 */
export async function createDemoApp(options: DemoOptions = {}): Promise<DemoApp> {
  const app = new Koa();
  // The sign-on's session cookie is signed; a key made per process is enough for the demo.
  if (options.oauth) app.keys = [process.env.FW_COOKIE_KEY ?? randomBytes(32).toString('base64url')];
  // The admin UI at `/` is fwAdmin's default; the demo only names itself. A password is generated
  // for the first administrator unless one is given; fwAdmin uses it only when it creates the account.
  const candidate = options.adminPassword ?? randomBytes(12).toString('base64url');
  const fw = await fwAdmin(app, {
    db: options.dbUrl ?? defaultDbUrl(),
    models: demoModels,
    menuIcons: demoMenuIcons,
    config: { 'fw-app.title': 'Fw demo', ...options.config },
    ...(options.ui !== undefined ? { ui: options.ui } : {}),
    ...(options.oauth ? { oauth: options.oauth } : {}),
    admin: { account: 'admin', name: 'Administrator', password: candidate },
    files: { dir: options.filesDir ?? resolve(process.env.INIT_CWD ?? process.cwd(), 'data', 'files') },
  });
  app.use(fw.middleware);
  const generatedAdminPassword = fw.firstAdmin && options.adminPassword === undefined ? candidate : undefined;
  const admin = options.seed ? await fw.store.users.findByAccount('admin') : undefined;
  const seeded = options.seed && admin ? await seedDemo(fw.store, admin.id, options.seed === true ? {} : options.seed) : undefined;

  const router = new Router();
  router.get('/health', (ctx) => {
    ctx.body = { status: 'ok', models: fw.registry.list().map((m) => m.name) };
  });
  app.use(router.routes()).use(router.allowedMethods());

  return { app, store: fw.store, registry: fw.registry, tokens: fw.tokens, config: fw.config, data: fw.data, seeded, generatedAdminPassword, close: () => fw.close() };
}
