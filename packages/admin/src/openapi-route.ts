import type { Middleware } from 'koa';
import { FwDefinitionError, loadConfig, type FwConfig } from '@fw/core';
import { defineRoute, methodNotAllowed, renderError, requireAuthState, routeMiddleware, type FwRoute, type OpenApiOperation } from '@fw/http';
import { Authenticator, type FwRequestState } from '@fw/login';
import type { FwStore } from '@fw/store';
import type { FwTokenService } from '@fw/token';

/** An OpenAPI 3.1 document, as plain JSON data (what `openApiDocument` makes and `fwOpenApi` serves). */
export type OpenApiDocument = Record<string, unknown> & { openapi: '3.1.0'; paths: Record<string, Record<string, OpenApiOperation>> };

/** Options of {@link fwOpenApi}. */
export interface FwOpenApiOptions {
  /** The description to serve (`openApiDocument(...)`). */
  document: OpenApiDocument;
  /**
   * `'token'`: only a signed-in caller (token header or Bearer) gets it; `'open'`: anyone.
   * @default 'token'
   */
  mode?: 'open' | 'token';
  /** Resolves tokens in `'token'` mode. */
  tokens?: FwTokenService;
  /** The store holding users, in `'token'` mode. */
  store?: FwStore;
  /** Configuration (`fw-app.apiPrefix`). @default loadConfig() */
  config?: FwConfig;
}

/** What the description's route needs: the description, rendered once. */
export interface OpenApiRouteServices {
  /** The JSON text of the description. */
  json: string;
}

/** The description's own route. */
export type OpenApiRoute = FwRoute<OpenApiRouteServices, undefined, undefined, FwRequestState | undefined>;

function openApiRoute(mode: 'open' | 'token'): OpenApiRoute {
  return defineRoute<OpenApiRouteServices, undefined, undefined, FwRequestState | undefined>({
    method: 'get',
    path: '/openapi.json',
    operationId: 'openApi',
    tags: ['openapi'],
    summary: 'This description (OpenAPI 3.1)',
    security: mode,
    answers: { 200: { description: 'The description', json: { type: 'object', required: ['openapi', 'info', 'paths'] } } },
    errors: mode === 'open' ? [] : [401],
    handle(ctx, { deps }) {
      ctx.type = 'application/json; charset=utf-8';
      return deps.json;
    },
  });
}

/**
 * `GET /openapi.json`, its contract beside its handler, as `fwOpenApi` serves it in each mode:
 * `open` to anyone, `token` to a signed-in caller only.
 */
export const openApiRoutes: Readonly<Record<'open' | 'token', readonly OpenApiRoute[]>> = { open: [openApiRoute('open')], token: [openApiRoute('token')] };

/**
 * Serves the OpenAPI description at `GET {apiPrefix}/openapi.json`. The JSON is rendered once, at
 * start-up: the registry it describes does not change while the app runs.
 *
 * @throws {FwDefinitionError} for a missing document, an unknown mode, or `'token'` mode without `tokens` and `store`.
 * @example app.use(fwOpenApi({ document: openApiDocument({ registry, config }), mode: 'token', tokens, store, config }));
 */
export function fwOpenApi(options: FwOpenApiOptions): Middleware {
  if (!options?.document || options.document.openapi !== '3.1.0') throw new FwDefinitionError('fwOpenApi.document', 'pass openApiDocument(...)');
  const mode = options.mode ?? 'token';
  if (mode !== 'open' && mode !== 'token') throw new FwDefinitionError('fwOpenApi.mode', `must be 'open' or 'token', got ${JSON.stringify(mode)}`);
  const authenticator = mode === 'token' ? tokenCheck(options) : undefined;
  const path = `${(options.config ?? loadConfig())['fw-app.apiPrefix']}/openapi.json`;
  const route = routeMiddleware(openApiRoutes[mode][0]!, {
    deps: { json: JSON.stringify(options.document) },
    who: async (ctx) => (authenticator ? requireAuthState(ctx, (c) => authenticator.authenticate(c)) : undefined),
  });
  return async function fwOpenApi(ctx, next) {
    if (ctx.path !== path) return next();
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') return renderError(ctx, methodNotAllowed(ctx.method, ['GET', 'HEAD']));
    await route(ctx, next);
  };
}

function tokenCheck(options: FwOpenApiOptions): Authenticator {
  if (!options.tokens || typeof options.tokens.resolve !== 'function' || !options.store?.users) {
    throw new FwDefinitionError('fwOpenApi.tokens', "mode 'token' needs tokens and store (or use mode 'open')");
  }
  return new Authenticator({ tokens: options.tokens, store: options.store });
}
