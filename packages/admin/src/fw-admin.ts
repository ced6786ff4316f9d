import type Koa from 'koa';
import type { Middleware } from 'koa';
import type { FwRedisClient } from '@fw/token';
import { fwMcp } from '@fw/ai';
import {
  BUILTIN_MODELS,
  FwDefinitionError,
  FwError,
  checkFrameAncestors,
  connectionReason,
  createRegistry,
  loadConfig,
  resolvePasswordPolicy,
  type FwConfig,
  type ModelDefinition,
  type ModelRegistry,
  type PasswordPolicy,
  type PasswordPolicyOptions,
} from '@fw/core';
import { fwData, liveBusFor, type FwDataMiddleware, type FwDataOptions, type LiveBus } from '@fw/data';
import { localFileStorage, type FileStorage } from '@fw/files';
import { composeMiddleware, fwErrorHandler, fwLoadShed, type FwLoadShedMiddleware, type FwLoadShedOptions } from '@fw/http';
import { FailedLoginLog, fwLogin, type FwLoginOptions } from '@fw/login';
import { KnexSessionStore, RedisSessionStore, fwOAuth, type FwOAuthOptions } from '@fw/oauth';
import { ModelTablesError, createStore, redactUrl, type FwStore, type FwUserRecord } from '@fw/store';
import {
  FwTokenService,
  KnexEphemeralStore,
  KnexTokenStore,
  RedisEphemeralStore,
  RedisTokenStore,
  createRedis,
  createRedisCluster,
  parseRedisClusterNodes,
  redisReady,
  schedulePurge,
  type PurgeSchedule,
} from '@fw/token';
import { fwUi, type FwUiOptions } from '@fw/ui';
import { fwWeb, type FwWebOptions } from '@fw/web';
import { checkMenuIcons, createDefaultMenus } from './default-menus.js';
import { checkFirstAdmin, ensureFirstAdmin, type FwFirstAdmin } from './first-admin.js';
import { openApiDocument } from './openapi.js';
import { fwOpenApi } from './openapi-route.js';

/** Options of {@link fwAdmin}. */
export interface FwAdminOptions {
  /** A database URL (`sqlite:…`, `postgres://…`, `mysql://…`, `mssql://…`) or an open store. */
  db: string | FwStore;
  /**
   * Longest time one database query may take, in milliseconds, when `db` is a URL (see
   * `queryTimeoutMs` of `createStore` in docs/store.md): past it the request answers 503
   * `UNAVAILABLE`, so a frozen database never holds requests for the length of the freeze.
   * Migrations at start-up run without it. An `FwStore` passed as `db` keeps its own setting.
   * @default 5000
   */
  queryTimeoutMs?: number;
  /** The host's models; the built-in ones (users, roles, menus, …) are added. */
  models?: ModelDefinition[];
  /** Configuration: values in code (files and the environment are read too, see `loadConfig`). */
  config?: Record<string, unknown>;
  /** Migrate the built-in tables, create missing model tables and their menus. @default true */
  migrate?: boolean;
  /**
   * Icon names of the menus created for the host's models (`{ Book: 'book' }`; antd names such as
   * `'BookOutlined'` work too); built-in models have their own and sit in folders. Applies only
   * to menus not created yet. @default {}
   */
  menuIcons?: Record<string, string>;
  /**
   * Redis shared by every instance: tokens, failed-login counters and browser sessions go there.
   * Without it they live in the database (also shared by instances on it).
   *
   * A URL (`redis://…`, `rediss://…`) is opened with `createRedis` from `@fw/token` (no offline
   * queue, one-second command timeout, reconnecting forever), waited for at start-up and closed
   * by `close()`. A client you pass stays yours; create it with `createRedis` too, or a Redis
   * outage makes requests wait instead of answering 503.
   *
   * `{ cluster: [url, …] }` opens a Redis Cluster with `createRedisCluster` from `@fw/token` (the
   * URLs name one or more of its nodes; the rest are discovered), waited for and closed the same
   * way. An ioredis `Cluster` you create yourself may be passed as the client.
   * @example redis: process.env.REDIS_URL
   * @example redis: { cluster: ['redis://10.0.0.1:6379', 'redis://10.0.0.2:6379', 'redis://10.0.0.3:6379'] }
   */
  redis?: FwRedisClient | string | { cluster: readonly string[] };
  /** Prefix of every Redis key Fw writes; instances of one app share it. @default 'fw:' */
  redisPrefix?: string;
  /** Options of `fwLogin` (the login hook `proxy`, `entry`, captcha lifetime, …). */
  login?: Omit<FwLoginOptions, 'store' | 'tokens' | 'ephemeral' | 'config' | 'passwordPolicy' | 'registry'>;
  /** Options of `fwData` (limits, export and import sizes, …). */
  data?: Omit<FwDataOptions, 'store' | 'tokens' | 'registry' | 'config' | 'files' | 'passwordPolicy'>;
  /**
   * Where the files of ATTACHMENT fields are kept: a `FileStorage` of `@fw/files` (such as
   * `s3FileStorage({ … })`), or `{ dir }` for a local folder (created on the first upload).
   * Several instances need one shared storage (S3, or a shared folder).
   * @default { dir: 'data/files' } (relative to the working directory)
   */
  files?: FileStorage | { dir: string };
  /** OAuth sign-on; off unless given. The login hook of `login.proxy` hears about sign-ons too. */
  oauth?: Omit<FwOAuthOptions, 'store' | 'tokens' | 'config' | 'proxy' | 'sessionStore'>;
  /** The AI tools over MCP at `/fw-api/ai/mcp`. @default true */
  ai?: boolean;
  /**
   * The OpenAPI 3.1 description of every Fw route at `GET /fw-api/openapi.json` (see docs/openapi.md):
   * `'token'` serves it to signed-in callers only, `'open'` to anyone, `false` not at all. Behind a
   * token by default because it names every model, field and choice of the app, which a visitor
   * who cannot sign in has no use for.
   * @default 'token'
   */
  openapi?: 'open' | 'token' | false;
  /**
   * The admin web UI (`@fw/ui`, see docs/ui.md), served by `fwUi` at `/` or at `ui.path`, with the
   * sign-on page `{path}/auth.html` under it (the OAuth sign-on is sent there unless
   * `oauth.authPage` says otherwise). `false` turns the UI and its `/auth.html` off. The UI's
   * `apiPrefix` and `title` default to the configuration's.
   * @default {} (the UI at `/`)
   * @example ui: { path: '/admin' }
   * @throws {FwDefinitionError} at start-up when the UI is not built (`npm run build:app -w @fw/ui`).
   */
  ui?: false | FwUiOptions;
  /**
   * `/auth.html` at the root from `@fw/web` (the UI serves its own under its path). Give the
   * options to check a host static folder for shadowing files.
   * @default false; with `ui: false` and `oauth`, true (the sign-on needs it)
   */
  web?: boolean | FwWebOptions;
  /**
   * Who may show Fw's pages (the UI, the print page, `/auth.html`) in a frame: the
   * `frame-ancestors` sources of their `Content-Security-Policy`. Only pages of the same origin by
   * default; a portal that frames the admin from another origin is named here. `ui`, `data` and
   * `web` options of their own win over it.
   * @default ["'self'"]
   * @example frameAncestors: ["'self'", 'https://portal.example.com']
   * @throws {FwDefinitionError} at start-up for anything but a non-empty list of frame-ancestors sources.
   */
  frameAncestors?: string[];
  /**
   * How often expired failed-login counters, captcha answers and tokens are deleted from the
   * database, in milliseconds (Redis drops its own); `false` leaves it to you (`tokens.purgeExpired()`
   * and the ephemeral store's `purgeExpired()`). Errors of a purge go to `app.on('error')`.
   * @default 600_000 (10 minutes)
   */
  purgeIntervalMs?: number | false;
  /**
   * The first administrator, created at start-up when `fw_user` has no administrator yet (see
   * docs/admin.md). Once one exists nothing is changed, so a restart never resets a password.
   * The password is required: an empty or missing one stops the start.
   * @example admin: { account: 'admin', password: process.env.ADMIN_PASSWORD! }
   * @throws {FwDefinitionError} at start-up for an empty or missing account or password, or an
   *   account that exists without being an administrator.
   */
  admin?: FwFirstAdmin;
  /**
   * Load shedding (`fwLoadShed` of `@fw/http`, see docs/admin.md): at most `maxInFlight` requests
   * to the API prefix (and the OAuth sign-on paths) are worked on at once in this process, of which
   * at most `maxPublicInFlight` are the public, costly ones: `POST {prefix}/login`,
   * `GET {prefix}/code-img`, `POST {prefix}/open-api/token` and the OAuth sign-on. The excess is
   * answered 503 `OVERLOADED` with `Retry-After` before any work starts, so a sign-in flood is
   * refused cheaply and signed-in users keep being served. `false` turns it off (a proxy in front
   * bounds the load instead).
   * @default { maxInFlight: 256, maxPublicInFlight: 32, retryAfterSeconds: 2 }
   * @example overload: { maxInFlight: 128, maxPublicInFlight: 16 }
   */
  overload?: false | Pick<FwLoadShedOptions, 'maxInFlight' | 'maxPublicInFlight' | 'retryAfterSeconds'>;
  /**
   * The one password policy of every path that sets a password (the FwUser forms and import, AI
   * writes, change-pwd and the forced change, the first administrator): a policy from
   * `passwordPolicy()` of `@fw/core`, or its options over the configuration's minimum
   * (`fw-app.passwordMinLength`, env `FW_APP_PASSWORD_MIN_LENGTH`). See docs/login.md.
   * @default the configuration's policy: at least 10 characters, at most 200, not the account, not a common password
   * @example passwordPolicy: { minLength: 12 }
   */
  passwordPolicy?: PasswordPolicy | PasswordPolicyOptions;
}

/**
 * `fwAdmin` could not start because its database or Redis cannot be opened, or because the
 * database differs from the models in a way start-up cannot apply safely. The message is one
 * line a person can act on: what, where (the URL without its password) and the driver's reason;
 * the driver's error is the `cause`. For model differences the line is followed by one line per
 * difference and the SQL a person could run; the `cause` is a `ModelTablesError` from `@fw/store`
 * whose `differences` list them as data.
 * @example fwAdmin: cannot open database postgres://app:***@db:5432/app: database "app" does not exist
 */
export class FwStartError extends Error {
  override readonly name = 'FwStartError';
  /** The database or Redis URL, its password replaced by `***`; undefined for an `FwStore` passed in. */
  readonly url: string | undefined;
  constructor(message: string, url: string | undefined, cause: unknown) {
    super(message, { cause });
    this.url = url;
  }
}

/** The file storage of the `files` option: the one given, a local folder for `{ dir }`, else `data/files`. */
function fileStorageOf(option: FwAdminOptions['files']): FileStorage {
  if (option === undefined) return localFileStorage({ dir: 'data/files' });
  if (typeof option === 'object' && option !== null) {
    const candidate = option as Partial<FileStorage> & { dir?: unknown };
    if (typeof candidate.put === 'function' && typeof candidate.get === 'function' && typeof candidate.delete === 'function') return option as FileStorage;
    if (typeof candidate.dir === 'string' && candidate.dir !== '') return localFileStorage({ dir: candidate.dir });
  }
  throw new FwDefinitionError('fwAdmin.files', 'must be a FileStorage (put, get, delete) or { dir } naming a folder');
}

/** How long start-up waits for a Redis given as a URL before giving up with a clear message. */
const REDIS_READY_MS = 5000;

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
  /** The timer purging expired entries, while it runs (undefined with `purgeIntervalMs: false`). */
  purge: PurgeSchedule | undefined;
  /** The load shedder and its counters (`loadShed.stats()`); undefined with `overload: false`. */
  loadShed: FwLoadShedMiddleware | undefined;
  /** The administrator this start created from the `admin` option; undefined when there already was one. */
  firstAdmin: FwUserRecord | undefined;
  /**
   * Stops the purge timer, waits for the data API's background work (`data.service.settled()`),
   * closes the live-table bus fwAdmin chose, and the database and Redis if fwAdmin opened them.
   */
  close(): Promise<void>;
}

/**
 * A path under the API prefix that neither Fw nor the host's routes below answered is a 404 in the
 * Fw error body, so API clients get one shape whatever they send (the host's own routes under the
 * prefix still answer first).
 */
function apiNotFound(prefix: string): Middleware {
  return async function fwApiNotFound(ctx, next) {
    await next();
    if (ctx.status === 404 && ctx.body == null && (ctx.path === prefix || ctx.path.startsWith(`${prefix}/`))) {
      throw new FwError('NOT_FOUND', `No route ${ctx.method} ${ctx.path}`);
    }
  };
}

/**
 * Which requests the load shedder counts (the API and the OAuth sign-on; static UI files are cheap
 * and pass) and which of them are public and costly: sign-in, captcha and open-API token, which
 * anyone can call and which hash passwords or draw images, and the OAuth sign-on round trips.
 */
function shedRoutes(prefix: string, oauth: FwAdminOptions['oauth']): Pick<FwLoadShedOptions, 'applies' | 'isPublic'> {
  const callbackPath = oauth?.callbackPath ?? '/oauth-callback';
  const signOn = (path: string) => oauth !== undefined && (path === callbackPath || path.startsWith('/connect/') || path.startsWith('/login/oauth2/code/'));
  const base = prefix.toLowerCase();
  const publicRoutes = new Set([`POST ${base}/login`, `GET ${base}/code-img`, `POST ${base}/open-api/token`]);
  return {
    applies: (ctx) => {
      const path = ctx.path.toLowerCase();
      return path === base || path.startsWith(`${base}/`) || signOn(ctx.path);
    },
    isPublic: (ctx) => {
      // The router matches case-insensitively and with a trailing slash, so the budget must too, or
      // a flood would escape it by asking for /fw-api/LOGIN/.
      const path = ctx.path.toLowerCase().replace(/\/+$/, '');
      return publicRoutes.has(`${ctx.method === 'HEAD' ? 'GET' : ctx.method} ${path}`) || signOn(ctx.path);
    },
  };
}

/**
 * Every Fw package composed for one Koa app: the store (migrated), tokens, the login routes, the
 * data API over the built-in and the host's models, the AI tools, the admin web UI (at `/`, or
 * `ui.path`) and — when configured — the OAuth sign-on with its `/auth.html`. Each package also
 * works alone; this is the quick start.
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
  const menuIcons = checkMenuIcons(options.menuIcons);
  const purgeIntervalMs = options.purgeIntervalMs ?? 600_000;
  if (purgeIntervalMs !== false && (!Number.isInteger(purgeIntervalMs) || purgeIntervalMs < 10 || purgeIntervalMs > 86_400_000)) {
    throw new FwDefinitionError('fwAdmin.purgeIntervalMs', `must be false or a whole number of milliseconds from 10 to 86400000, got ${String(purgeIntervalMs)}`);
  }
  if (options.queryTimeoutMs !== undefined && typeof options.db !== 'string') {
    // Silently ignoring it would leave the operator believing the limit is on.
    throw new FwDefinitionError('fwAdmin.queryTimeoutMs', 'applies only when db is a URL; pass queryTimeoutMs to createStore for a store of your own');
  }
  const firstAdmin = options.admin === undefined ? undefined : checkFirstAdmin(options.admin);
  const files = fileStorageOf(options.files);
  const config = loadConfig(options.config ? { values: options.config } : {});
  // One policy, resolved once, handed to every path that sets a password.
  const passwordPolicy = resolvePasswordPolicy(config, options.passwordPolicy);
  if (options.ui !== undefined && options.ui !== false && (typeof options.ui !== 'object' || options.ui === null)) {
    throw new FwDefinitionError('fwAdmin.ui', 'must be false or the options of fwUi ({ path?, title?, … })');
  }
  if (options.openapi !== undefined && options.openapi !== false && options.openapi !== 'open' && options.openapi !== 'token') {
    throw new FwDefinitionError('fwAdmin.openapi', `must be 'token', 'open' or false, got ${JSON.stringify(options.openapi)}`);
  }
  if (options.overload !== undefined && options.overload !== false && (typeof options.overload !== 'object' || options.overload === null)) {
    throw new FwDefinitionError('fwAdmin.overload', 'must be false or { maxInFlight?, maxPublicInFlight?, retryAfterSeconds? }');
  }
  const loadShed = options.overload === false ? undefined : fwLoadShed({ ...options.overload, ...shedRoutes(config['fw-app.apiPrefix'], options.oauth) });
  const frameAncestors = options.frameAncestors === undefined ? undefined : [...checkFrameAncestors('fwAdmin.frameAncestors', options.frameAncestors)];
  const framing = frameAncestors ? { frameAncestors } : {};
  // Built before anything is opened: a missing UI build stops start-up with nothing to close.
  const ui = options.ui === false ? undefined : fwUi({ config, ...framing, ...options.ui });
  const uiBase = options.ui === false || options.ui?.path === undefined || options.ui.path === '/' ? '' : options.ui.path;
  const hostModels = options.models ?? [];
  const registry = createRegistry([...BUILTIN_MODELS, ...hostModels]);
  const owned = typeof options.db === 'string';
  const redisOption = options.redis;
  // An ioredis client has a `cluster` method (the CLUSTER command): only a plain object names nodes.
  const clusterNodes =
    typeof redisOption === 'object' && redisOption !== null && typeof (redisOption as Partial<FwRedisClient>).evalsha !== 'function' && 'cluster' in redisOption
      ? redisOption.cluster
      : undefined;
  if (clusterNodes !== undefined) {
    // Checked now, with the URLs' shapes, rather than when the database is already open.
    parseRedisClusterNodes(clusterNodes);
  } else if (redisOption !== undefined && typeof redisOption !== 'string' && typeof (redisOption as FwRedisClient | null)?.evalsha !== 'function') {
    throw new FwDefinitionError('fwAdmin.redis', 'must be a redis:// URL, { cluster: [redis:// URLs] } or an ioredis client (createRedis(url) from @fw/token)');
  }
  const store =
    typeof options.db === 'string' ? createStore({ url: options.db, ...(options.queryTimeoutMs === undefined ? {} : { queryTimeoutMs: options.queryTimeoutMs }) }) : options.db;
  let ownedRedis: FwRedisClient | undefined;
  let ownedBus: LiveBus | undefined;
  try {
    if (options.migrate !== false) {
      // One plain query first, so an unreachable server or a missing database is reported as such,
      // naming the URL, rather than as a stack trace from inside the migrator.
      try {
        await store.knex.raw('select 1');
      } catch (error) {
        const shown = typeof options.db === 'string' ? redactUrl(options.db) : undefined;
        throw new FwStartError(`fwAdmin: cannot open ${shown ? `database ${shown}` : 'the database'}: ${connectionReason(error)}`, shown, error);
      }
      await store.migrate.latest();
      try {
        await store.createModelTables(hostModels);
      } catch (error) {
        // Stopping here, with every difference and its SQL, beats a 500 on each route of the model later.
        if (!(error instanceof ModelTablesError)) throw error;
        const shown = typeof options.db === 'string' ? redactUrl(options.db) : undefined;
        throw new FwStartError(`fwAdmin: cannot start on ${shown ? `database ${shown}` : 'the database'}: ${error.message}`, shown, error);
      }
      await createDefaultMenus(store, registry.list(), menuIcons);
    }
    const createdAdmin = firstAdmin ? await ensureFirstAdmin(store, firstAdmin, passwordPolicy) : undefined;
    if (typeof redisOption === 'string' || clusterNodes !== undefined) {
      ownedRedis = clusterNodes !== undefined ? createRedisCluster(clusterNodes) : createRedis(redisOption as string);
      const shown = clusterNodes !== undefined ? `cluster ${clusterNodes.map(redactUrl).join(', ')}` : redactUrl(redisOption as string);
      await redisReady(ownedRedis, REDIS_READY_MS).catch((error: unknown) => {
        throw new FwStartError(`fwAdmin: cannot reach Redis at ${shown}: ${connectionReason(error)}`, shown, error);
      });
      // ioredis prints every failed reconnection (about once a second) when nobody listens; the
      // app hears the first error of each outage instead, and the requests' own 503s.
      let down = false;
      ownedRedis.on('error', (error: Error) => {
        if (down) return;
        down = true;
        app.emit('error', error);
      });
      ownedRedis.on('ready', () => {
        down = false;
      });
    }
    const redis = ownedRedis ?? (typeof redisOption === 'string' || clusterNodes !== undefined ? undefined : (redisOption as FwRedisClient | undefined));
    const prefix = options.redisPrefix ?? 'fw:';
    const tokens = new FwTokenService({ store: redis ? new RedisTokenStore({ redis, prefix }) : new KnexTokenStore({ knex: store.knex }), config });
    const ephemeral = redis ? new RedisEphemeralStore({ redis, prefix }) : new KnexEphemeralStore({ knex: store.knex });
    // Live tables reach every instance through what the app already shares: Redis when it has it,
    // else PostgreSQL LISTEN/NOTIFY on PostgreSQL, else this process only. A bus the host passes wins.
    const hostBus = options.data?.live?.bus;
    ownedBus = hostBus ? undefined : liveBusFor({ ...(redis ? { redis } : {}), redisPrefix: prefix, store, onError: (error) => app.emit('error', error) });
    const live = { ...options.data?.live, bus: hostBus ?? ownedBus };
    const data = fwData({ ...framing, ...options.data, live, store, tokens, registry, config, files, passwordPolicy });
    // One writer of failed sign-ins for password, open-API and sign-on alike: one set of write caps.
    const failedLogins = options.login?.failedLogins ?? new FailedLoginLog({ store, ephemeral, config });
    // The load shedder first: a shed request costs no body parsing, no token lookup, no database.
    const parts: Middleware[] = [...(loadShed ? [loadShed] : []), fwErrorHandler(), apiNotFound(config['fw-app.apiPrefix'])];
    const web = options.web ?? (ui === undefined && options.oauth !== undefined);
    if (web) parts.push(fwWeb({ ...framing, ...(typeof web === 'object' ? web : {}) }));
    let providers = options.login?.providers;
    if (options.oauth) {
      const sessionStore = redis ? new RedisSessionStore({ redis, prefix }) : new KnexSessionStore({ knex: store.knex });
      // With the UI under a sub-path, the sign-on ends on its auth page, whose `./` is the UI.
      const authPage = options.oauth.authPage ?? (ui ? `${uiBase}/auth.html` : undefined);
      const oauth = fwOAuth(app, {
        ...options.oauth,
        store,
        tokens,
        config,
        sessionStore,
        failedLogins,
        ...(options.login?.proxy ? { proxy: options.login.proxy } : {}),
        ...(authPage ? { authPage } : {}),
      });
      providers ??= oauth.providers;
      parts.push(oauth);
    }
    parts.push(fwLogin({ ...options.login, store, tokens, ephemeral, config, failedLogins, passwordPolicy, registry, ...(providers ? { providers } : {}) }));
    parts.push(data);
    if (options.ai !== false) parts.push(fwMcp({ data, tokens, store, config }));
    const openapi = options.openapi ?? 'token';
    if (openapi !== false) {
      const document = openApiDocument({ registry, config, ai: options.ai !== false, openapi });
      parts.push(fwOpenApi({ document, mode: openapi, tokens, store, config }));
    }
    // Last: behind the sign-on guard (pages need a session when OAuth guards the host, as the spec's
    // guard says; its files stay open by their extensions), and mounted at `/`, its page answers
    // only deep links nothing else answered.
    if (ui) parts.push(ui);
    // Unauthenticated routes (code-img, failed logins) write rows that only a purge removes.
    // Uploads nobody saved into a row within 24 hours go too.
    const pendingFiles = { purgeExpired: () => data.service.purgePendingFiles() };
    const purge =
      purgeIntervalMs === false ? undefined : schedulePurge([ephemeral, tokens, pendingFiles], { intervalMs: purgeIntervalMs, onError: (error) => app.emit('error', error) });
    return {
      middleware: composeMiddleware(parts),
      store,
      tokens,
      registry,
      config,
      data,
      purge,
      loadShed,
      firstAdmin: createdAdmin,
      close: async () => {
        // Failures counted past the login log's caps in the current minute: their summary row.
        await failedLogins.flush();
        purge?.stop();
        // The counts and page anchors the data API reads in the background finish first, also
        // when the host closes the store itself afterwards.
        await data.service.settled();
        // The live streams end while the bus still carries the presence leaves of their tabs.
        await data.presence.close();
        await data.live.close();
        await ownedBus?.close();
        ownedRedis?.disconnect();
        if (owned) await store.destroy();
      },
    };
  } catch (error) {
    await ownedBus?.close();
    ownedRedis?.disconnect();
    if (owned) await store.destroy();
    throw error;
  }
}
