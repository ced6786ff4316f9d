import type { Context, Middleware } from 'koa';
import Router from '@koa/router';
import {
  DEFAULT_FRAME_ANCESTORS,
  FwDefinitionError,
  FwError,
  checkFrameAncestors,
  loadConfig,
  pageContentSecurityPolicy,
  resolvePasswordPolicy,
  type FwConfig,
  type ModelRegistry,
  type PasswordPolicy,
  type PasswordPolicyOptions,
} from '@fw/core';
import { allowedMethods, fwRoute, methodNotAllowed, readJsonBody, requireAuthState, routesWithAllowedMethods } from '@fw/http';
import { Authenticator } from '@fw/login';
import type { PowerResolver } from '@fw/power';
import type { FwStore } from '@fw/store';
import type { FwTokenService } from '@fw/token';
import type { DataEvents } from '../events.js';
import type { QueryLimits } from '../read/query.js';
import { DataService, type Actor, type UpdateOptions } from '../service.js';
import { transferRoutes } from './transfer-routes.js';
import { attachmentRoutes } from './attachment-routes.js';
import { powerRoutes } from './power-routes.js';
import { mountBulkRoutes } from './bulk-routes.js';
import type { FileStorage } from '@fw/files';
import { PRINT_CSS, PRINT_JS } from './print.js';
import type { UploadQuota } from '../files/upload-quota.js';

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
}

/** The data-API middleware, with the service behind it and its edit events. */
export type FwDataMiddleware = Middleware & { service: DataService; events: DataEvents };

// Path segments of the data routes: a model of one of these names would be shadowed.
const RESERVED = new Set(['table', 'export', 'import', 'import-template', 'print', 'modify', 'upload', 'file']);

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
 * one of the route words (`table`, `export`, `import`, `import-template`, `print`, `modify`, `upload`, `file`).
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
  const json = (ctx: Context) => readJsonBody(ctx, { limit: bodyLimit });
  const param = (ctx: Context, name: string): string => (ctx.params as Record<string, string>)[name] ?? '';
  // A save that names the version it read is refused (409) when the row has changed since.
  const ifMatch = (ctx: Context): UpdateOptions => (ctx.get('if-match') ? { ifMatch: ctx.get('if-match') } : {});

  // Model names are case-sensitive registry keys, so the paths naming them are too.
  const router = new Router({ prefix: config['fw-app.apiPrefix'], sensitive: true });
  router.get('/build/:fw', fwRoute(async (ctx) => {
    ctx.body = await service.schema(param(ctx, 'fw'), await actor(ctx));
  }));
  router.post('/data/table/:fw', fwRoute(async (ctx) => {
    const who = await actor(ctx);
    const body = ctx.get('content-length') === '0' || !ctx.get('content-type') ? {} : await json(ctx);
    ctx.body = await service.query(param(ctx, 'fw'), who, body);
  }));
  router.post('/data/reference/:fw/:field', fwRoute(async (ctx) => {
    const who = await actor(ctx);
    const body = ctx.get('content-length') === '0' || !ctx.get('content-type') ? {} : await json(ctx);
    ctx.body = await service.referenceCandidates(param(ctx, 'fw'), who, param(ctx, 'field'), body);
  }));
  transferRoutes(router, { service, actor, importBodyLimit });
  attachmentRoutes(router, { service, actor });
  powerRoutes(router, { service, actor });
  mountBulkRoutes(router, { service, actor, readJson: json });
  // The print page's own stylesheet and script: linked rather than inline, so the page works under
  // a `default-src 'self'` content security policy. Public: they hold nothing but layout.
  router.get('/data/print.css', fwRoute((ctx) => {
    ctx.type = 'text/css; charset=utf-8';
    ctx.body = PRINT_CSS;
  }));
  router.get('/data/print.js', fwRoute((ctx) => {
    ctx.type = 'text/javascript; charset=utf-8';
    ctx.body = PRINT_JS;
  }));
  router.get('/data/print/:fw/:id', fwRoute(async (ctx) => {
    // Opened with `_token` in its URL: no Referer may carry it to the stylesheet, the script or a
    // link; and the page runs nothing but its own script, whatever a row's text holds.
    ctx.set('Referrer-Policy', 'no-referrer');
    ctx.set('Content-Security-Policy', printPolicy);
    const html = await service.print(param(ctx, 'fw'), await actor(ctx), param(ctx, 'id'));
    ctx.type = 'html';
    ctx.set('Cache-Control', 'no-store');
    ctx.body = html;
  }));
  router.post('/data/modify/:fw', fwRoute(async (ctx) => {
    const who = await actor(ctx);
    ctx.body = await service.add(param(ctx, 'fw'), who, await json(ctx));
  }));
  router.post('/data/modify/:fw/update', fwRoute(async (ctx) => {
    const who = await actor(ctx);
    ctx.body = await service.update(param(ctx, 'fw'), who, await json(ctx), ifMatch(ctx));
  }));
  router.post('/data/modify/:fw/update-cell', fwRoute(async (ctx) => {
    const who = await actor(ctx);
    ctx.body = await service.updateCell(param(ctx, 'fw'), who, await json(ctx), ifMatch(ctx));
  }));
  router.post('/data/modify/:fw/delete', fwRoute(async (ctx) => {
    const who = await actor(ctx);
    ctx.body = await service.delete(param(ctx, 'fw'), who, await json(ctx));
  }));
  router.post('/data/modify/:fw/copy', fwRoute(async (ctx) => {
    const who = await actor(ctx);
    ctx.body = await service.copy(param(ctx, 'fw'), who, await json(ctx));
  }));
  router.get('/data/:fw/:id', fwRoute(async (ctx) => {
    // `GET /data/table/Book` is the table route asked with the wrong method, not a model "table".
    if (RESERVED.has(param(ctx, 'fw'))) {
      const allow = allowedMethods(router, ctx.path, `${config['fw-app.apiPrefix']}/data/:fw/:id`);
      throw allow.length > 0 ? methodNotAllowed(ctx.method, allow) : new FwError('NOT_FOUND', `No data route ${ctx.path}`);
    }
    const { row, version } = await service.detailsWithVersion(param(ctx, 'fw'), await actor(ctx), param(ctx, 'id'));
    ctx.set('ETag', version);
    ctx.body = row;
  }));

  // A data path asked with another method (GET …/modify/Book/update) is a 405 naming the right one.
  const routes = routesWithAllowedMethods(router);
  const middleware = async function fwData(ctx: Context, next: () => Promise<unknown>) {
    await routes(ctx, next as never);
  } as FwDataMiddleware;
  middleware.service = service;
  middleware.events = service.events;
  return middleware;
}
