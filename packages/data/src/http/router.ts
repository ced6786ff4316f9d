import type { Context, Middleware } from 'koa';
import Router from '@koa/router';
import {
  DEFAULT_FRAME_ANCESTORS,
  FwDefinitionError,
  isFwError,
  checkFrameAncestors,
  loadConfig,
  pageContentSecurityPolicy,
  resolvePasswordPolicy,
  type FwConfig,
  type ModelRegistry,
  type PasswordPolicy,
  type PasswordPolicyOptions,
} from '@fw/core';
import { allowedMethods, mountRoutes, readJsonBody, requireAuthState, routesWithAllowedMethods } from '@fw/http';
import { Authenticator } from '@fw/login';
import type { PowerResolver } from '@fw/power';
import type { FwStore } from '@fw/store';
import type { FwTokenService } from '@fw/token';
import type { DataEvents } from '../events.js';
import type { QueryLimits } from '../read/query.js';
import { DataService, type Actor } from '../service.js';
import { mountViewRoutes } from './view-routes.js';
import { mountTrashRoutes } from './trash-routes.js';
import { mountUndoRoutes } from './undo-route.js';
import { mountLiveRoutes } from './live-route.js';
import { mountPresenceRoutes } from './presence-route.js';
import { LiveHub, type LiveOptions } from '../live/hub.js';
import { LivePresence, presenceOptions, type PresenceOptions } from '../live/presence.js';
import { LivePublisher } from '../live/publish.js';
import { memoryBus } from '../live/bus.js';
import { randomUUID } from 'node:crypto';
import { DEFAULT_TRASH_RETENTION_DAYS, scheduleTrashPurge } from '../write/trash.js';
import { mountBulkRoutes } from './bulk-routes.js';
import type { FileStorage } from '@fw/files';
import type { UploadQuota } from '../files/upload-quota.js';
import type { DataScope } from '../bodies.js';
import type { DataDeps } from './data-route.js';
import { RESERVED } from './model-routes.js';
import { dataRoutes } from './routes.js';

/** Options of {@link fwData}. */
export interface FwDataOptions {
  /** The store holding the model tables and the operate log. */
  store: FwStore;
  /** Resolves request tokens (unless an `fwAuth` mounted before already did). */
  tokens: FwTokenService;
  /** The models served. */
  registry: ModelRegistry;
  /** Configuration (`fw-app.apiPrefix`). @default loadConfig() */
  config?: FwConfig;
  /** Table-query bounds. @default { defaultSize: 20, maxSize: 200, maxConditions: 50, maxInValues: 1000 } */
  limits?: Partial<QueryLimits>;
  /** Largest JSON body, bytes. @default 1 MiB */
  bodyLimit?: number;
  /** Largest import body (CSV text, .xlsx workbook or multipart form), bytes. @default 5 MiB */
  importBodyLimit?: number;
  /** Most rows per export. @default 100000 */
  exportMaxRows?: number;
  /** Most rows per import. @default 10000 */
  importMaxRows?: number;
  /** Rows per export read (one keyset seek each). @default 1000 */
  exportBatchRows?: number;
  /** Rows per multi-row INSERT of an import. @default 500 */
  importBatchRows?: number;
  /** Most rows one bulk edit (`update-many`) changes; more is a 413 `TOO_MANY_ROWS`. @default 10000 */
  bulkMaxRows?: number;
  /** A shared power engine (e.g. the one the AI tools use). */
  power?: PowerResolver;
  /** Errors that must not fail a request (operate-log writes, event listeners). @default console.error */
  onBackgroundError?: (error: unknown) => void;
  /** Where the files of ATTACHMENT fields are stored (`localFileStorage` or `s3FileStorage` of `@fw/files`); required when a model has one. */
  files?: FileStorage;
  /**
   * The policy FwUser's `password` is held to on every write path (add, edit, cell edit, copy,
   * import, AI): a policy from `passwordPolicy()` of `@fw/core`, or its options over the
   * configuration's (`fw-app.passwordMinLength`). Refusals answer 422 `VALIDATION_FAILED` with
   * `details[].path` the field and `details[].type` the rule.
   * @default the configuration's policy
   */
  passwordPolicy?: PasswordPolicy | PasswordPolicyOptions;
  /**
   * The per-user bound on pending uploads (uploaded, not yet saved in a row): past `maxFiles` an
   * upload is a 429 `UPLOAD_QUOTA_FILES`, past `maxBytes` a 413 `UPLOAD_QUOTA_BYTES`; a file that
   * passes `maxBytes` while it arrives is cut off and removed. A save that attaches files, and
   * the expiry of unsaved ones after 24 hours, make room again.
   * @default { maxFiles: 20, maxBytes: 209715200 } (200 MiB)
   * @example fwData({ …, uploadQuota: { maxFiles: 50, maxBytes: 1024 ** 3 } })
   */
  uploadQuota?: Partial<UploadQuota>;
  /**
   * Who may show the print page in a frame: the `frame-ancestors` sources of its
   * `Content-Security-Policy`. Give the origin of a host page that frames the admin.
   * @default ["'self'"]
   * @example fwData({ …, frameAncestors: ["'self'", 'https://portal.example.com'] })
   */
  frameAncestors?: string[];
  /**
   * Days a deleted row stays in the trash (models with `trash: true`, the default) before it is
   * purged with its files: at start-up, then hourly. Until then it can be undeleted.
   * @default 30
   */
  trashRetentionDays?: number;
  /**
   * Live tables (issue 24 §2): every committed change is published on `bus`, and
   * `GET /data/events/{fw}` streams to each viewer what they may see of it. Pass a bus that
   * reaches every instance (Redis, PostgreSQL) when there are several; limits: see LiveOptions.
   * Presence (issue 24 §4, `POST /data/presence/{fw}`) travels on the same bus; its bounds are
   * `presence` (see PresenceOptions).
   * @default { bus: memoryBus() }
   */
  live?: LiveOptions & { presence?: PresenceOptions };
}

/** The data-API middleware, with the service behind it and its edit events. */
export type FwDataMiddleware = Middleware & { service: DataService; events: DataEvents; live: LiveHub; presence: LivePresence };

// The router behind each fwData middleware, for the test that holds it to the declarations.
const ROUTERS = new WeakMap<Middleware, Router>();

/** The router an fwData middleware mounted its routes on (tests: routes.test.ts). */
export function routerOf(middleware: Middleware): Router | undefined {
  return ROUTERS.get(middleware);
}

function positive(key: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < 1) throw new FwDefinitionError(key, `must be a positive whole number, got ${String(value)}`);
  return value;
}

/**
 * The data API of Fw models under the configured prefix (`/fw-api`): schema, table query,
 * details, add, edit, cell edit, delete, export, import, print, copy, and the candidates of a
 * reference field (`POST /data/reference/{fw}/{field}`). Every route checks its
 * power flag on the server, applies row visibility, validates with the model's whole-row schema,
 * runs the data-proxy hooks in one transaction and writes the operate log.
 *
 * The print page carries `Content-Security-Policy: default-src 'self'; object-src 'none'; base-uri
 * 'self'; form-action 'self'; frame-ancestors 'self'` (see `frameAncestors`); the print page, the
 * export and the import template (reached with `_token`) carry `Referrer-Policy: no-referrer`.
 *
 * @throws {FwDefinitionError} at once for missing options, bad limits, a bad `frameAncestors`, or a model whose name is
 * one of the route words (`table`, `export`, `import`, `import-template`, `print`, `modify`, `upload`, `file`, `trash`).
 * @example
 * const data = fwData({ store, tokens, registry });
 * data.events.on('update', (e) => console.log(`${e.user.account} changed ${e.model} #${e.id}`, e.changed));
 * app.use(data);
 */
export function fwData(options: FwDataOptions): FwDataMiddleware {
  if (!options?.tokens || typeof options.tokens.resolve !== 'function') throw new FwDefinitionError('fwData.tokens', 'an FwTokenService is required');
  const config = options.config ?? loadConfig();
  const service = new DataService({
    passwordPolicy: resolvePasswordPolicy(config, options.passwordPolicy),
    store: options.store,
    registry: options.registry,
    ...(options.limits ? { limits: options.limits } : {}),
    ...(options.exportMaxRows !== undefined ? { exportMaxRows: positive('fwData.exportMaxRows', options.exportMaxRows, 100_000) } : {}),
    ...(options.importMaxRows !== undefined ? { importMaxRows: positive('fwData.importMaxRows', options.importMaxRows, 10_000) } : {}),
    ...(options.exportBatchRows !== undefined ? { exportBatchRows: positive('fwData.exportBatchRows', options.exportBatchRows, 1000) } : {}),
    ...(options.importBatchRows !== undefined ? { importBatchRows: positive('fwData.importBatchRows', options.importBatchRows, 500) } : {}),
    ...(options.bulkMaxRows !== undefined ? { bulkMaxRows: positive('fwData.bulkMaxRows', options.bulkMaxRows, 10_000) } : {}),
    ...(options.power ? { power: options.power } : {}),
    tokens: options.tokens,
    ...(options.onBackgroundError ? { onBackgroundError: options.onBackgroundError } : {}),
    ...(options.files ? { files: options.files } : {}),
    ...(options.uploadQuota !== undefined ? { uploadQuota: options.uploadQuota } : {}),
    trashRetentionDays: positive('fwData.trashRetentionDays', options.trashRetentionDays, DEFAULT_TRASH_RETENTION_DAYS),
  });
  for (const model of options.registry.list()) {
    if (RESERVED.has(model.name.toLowerCase())) throw new FwDefinitionError(`${model.name}.name`, `is a word of the data routes (${[...RESERVED].join(', ')}); rename the model`);
  }
  const bodyLimit = positive('fwData.bodyLimit', options.bodyLimit, 1024 * 1024);
  const importBodyLimit = positive('fwData.importBodyLimit', options.importBodyLimit, 5 * 1024 * 1024);
  const printPolicy = pageContentSecurityPolicy(
    'print',
    options.frameAncestors === undefined ? DEFAULT_FRAME_ANCESTORS : checkFrameAncestors('fwData.frameAncestors', options.frameAncestors),
  );
  const authenticator = new Authenticator({ tokens: options.tokens, store: options.store });

  async function actor(ctx: Context): Promise<Actor> {
    const state = await requireAuthState(ctx, (c) => authenticator.authenticate(c));
    return { user: state.user, ip: ctx.ip || null, source: 'http', token: state.token, ...(state.grantsVersion !== undefined ? { grantsVersion: state.grantsVersion } : {}) };
  }
  // Model names are case-sensitive registry keys, so the paths naming them are too.
  const prefix = config['fw-app.apiPrefix'];
  const router = new Router({ prefix, sensitive: true });
  const deps: DataDeps = { service, importBodyLimit, printPolicy, allowed: (ctx) => allowedMethods(router, ctx.path, `${prefix}/data/:fw/:id`) };
  // Live tables (issue 24 §2): committed changes go out on the bus; the hub streams them per viewer.
  const onError = options.onBackgroundError ?? ((error: unknown) => console.error('[fw/data]', error));
  const bus = options.live?.bus ?? memoryBus();
  const origin = randomUUID().slice(0, 8);
  const stopPublishing = service.publishLive(new LivePublisher(bus, origin, onError));
  const live = options.live ?? {};
  for (const key of ['maxStreamsPerUser', 'maxStreams', 'queueSize', 'resumeMessages', 'resumeMs', 'heartbeatMs', 'tokenCheckMs', 'subscribeRetryMs'] as const) positive(`fwData.live.${key}`, live[key], 1);
  if (live.batchMs !== undefined && (!Number.isInteger(live.batchMs) || live.batchMs < 0 || live.batchMs > 1000)) {
    throw new FwDefinitionError('fwData.live.batchMs', `must be a whole number of milliseconds from 0 to 1000, got ${String(live.batchMs)}`);
  }
  // Checked before the hub subscribes, so a wrong option leaves nothing behind.
  const presenceBounds = presenceOptions(live.presence ?? {});
  // An open stream's token is checked again as a request's would be (revoked, expired, user locked, expired or off their allowlist).
  const stillValid = async (token: string, ip: string | null) => {
    try {
      await authenticator.check(token, ip ?? undefined);
      return true;
    } catch (error) {
      // A store that cannot answer right now closes nothing: the next check asks again.
      if (isFwError(error) && error.status === 401) return false;
      throw error;
    }
  };
  const hub = new LiveHub(service, bus, live, stillValid, onError);
  const presence = new LivePresence(service, hub, bus, origin, presenceBounds, onError);
  // Before the data routes, whose `/data/{fw}/{id}` would take `/data/events/{fw}`.
  mountLiveRoutes(router, { service, hub, presence, actor });
  mountPresenceRoutes(router, { service, presence, actor });
  // Presence first: its leaves go out on the bus while the hub is still subscribed and the streams open.
  options.store.onDestroy?.(async () => {
    stopPublishing();
    await presence.close().catch(onError);
    await hub.close().catch(onError);
  });

  // Per request: what the route does first (headers, a route word where a model belongs), the
  // caller, the JSON body, then for a gated route the model, the caller's power and the gate, then
  // the body's shape (mountRoutes).
  mountRoutes<DataDeps, DataScope | undefined, Actor, (typeof dataRoutes)[number]>(router, dataRoutes, {
    deps,
    readJson: (ctx) => readJsonBody(ctx, { limit: bodyLimit }),
    who: (ctx, route) => {
      route.before?.(ctx, deps);
      return actor(ctx);
    },
    scope: async (ctx, route, who) => {
      if (!route.gate) return undefined;
      const params = ctx.params as Record<string, string>;
      const scope = await service.scope(params.fw, who, route.gate);
      return route.widen ? route.widen(scope, params, deps) : scope;
    },
  });
  // Saved views (issue 23 §1): routes of their own scope (the model and the query power).
  mountViewRoutes(router, { service, actor });
  // Bulk edit, a row's history and restore (issue 23 §2, §3).
  mountBulkRoutes(router, { service, actor, readJson: (ctx: Context) => readJsonBody(ctx, { limit: bodyLimit }) });
  // The trash (issue 23 §3): its page, undelete and purge.
  mountTrashRoutes(router, { service, actor, json: (ctx: Context) => readJsonBody(ctx, { limit: bodyLimit }) });
  // Undo of a batch or of a user's time window (issue 23 §3).
  mountUndoRoutes(router, { service, actor, json: (ctx: Context) => readJsonBody(ctx, { limit: bodyLimit }) });

  // Trashed rows past the retention time go at start-up, then hourly, until the store closes.
  options.store.onDestroy?.(scheduleTrashPurge(() => service.purgeExpiredTrash(), options.onBackgroundError ?? ((error) => console.error('[fw/data]', error))));

  // A data path asked with another method (GET …/modify/Book/update) is a 405 naming the right one.
  const routes = routesWithAllowedMethods(router);
  const middleware = async function fwData(ctx: Context, next: () => Promise<unknown>) {
    await routes(ctx, next as never);
  } as FwDataMiddleware;
  ROUTERS.set(middleware, router);
  middleware.service = service;
  middleware.events = service.events;
  middleware.live = hub;
  middleware.presence = presence;
  return middleware;
}
