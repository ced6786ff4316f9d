// A route declares its contract beside its handler (issue 22 §5): method, path, the JSON body it
// takes (a shape: the JSON Schema it publishes and the parser that holds requests to it), the
// answers it gives and the error statuses it may answer with. `mountRoutes` puts the handlers on
// a router and parses each body at the edge, so a handler receives typed input; the OpenAPI
// description is generated from the same declarations (`describeRoutes`, route-openapi.ts), so
// the document cannot drift from the code.
import type { Context, Middleware } from 'koa';
import type Router from '@koa/router';
import type { ModelDefinition } from '@fw/core';
import { readJsonBody } from './body.js';
import { fwRoute } from './errors.js';

/** A JSON Schema (2020-12), as plain data. */
export type JsonSchema = Record<string, unknown>;

/** A value that is the same for every model, or one that depends on the model of a per-model route. */
export type PerModel<T> = T | ((model: ModelDefinition) => T);

/** The value of `value` for `model` (a plain value is returned as it is). */
export function forModel<T>(value: PerModel<T>, model: ModelDefinition | undefined): T {
  if (typeof value !== 'function') return value;
  if (!model) throw new TypeError('a per-model contract value was asked without a model');
  return (value as (model: ModelDefinition) => T)(model);
}

/**
 * What a route accepts as its JSON body: the schema it publishes, and the parser that holds a
 * request to it. `parse` throws the `FwError` the route answers with (400 and its code) and returns
 * the typed value the handler receives; `scope` is what the parser needs beyond the body (for the
 * data routes: the model and the caller's power).
 */
export interface Shape<T, Scope = undefined> {
  readonly schema: PerModel<JsonSchema>;
  parse(value: unknown, scope: Scope): T;
}

/** A {@link Shape} from its schema and its parser. */
export function shape<T, Scope = undefined>(schema: PerModel<JsonSchema>, parse: (value: unknown, scope: Scope) => T): Shape<T, Scope> {
  return { schema, parse };
}

/** A path, query or header parameter of a route. */
export interface ParamContract {
  name: string;
  in: 'path' | 'query' | 'header';
  schema: PerModel<JsonSchema>;
  /** @default true for a path parameter, false otherwise */
  required?: boolean;
  description?: string;
  /**
   * Holds a path parameter to its form at the edge: runs right after the caller is known and
   * before the body is read, and throws the `FwError` the route answers with (a malformed key is
   * a 400 before a large body is read). Path parameters only; others are read by the handler.
   */
  check?(value: string): void;
}

/** One answer of a route: a JSON body (`json`), another kind (`content`: media type → schema), or none. */
export interface AnswerContract {
  description: string;
  json?: PerModel<JsonSchema>;
  content?: Record<string, JsonSchema>;
  headers?: Record<string, { description?: string; schema: JsonSchema }>;
}

/** Who may call a route: a token in a header, a token in a header or `?_token=` (downloads), or anyone. */
export type RouteSecurity = 'token' | 'download' | 'open';

/** The HTTP methods Fw routes use. */
export type HttpMethod = 'get' | 'post' | 'put' | 'delete';

/** Everything a route promises its callers, as data. */
export interface RouteContract<Body = unknown, Scope = unknown> {
  method: HttpMethod;
  /** Below the API prefix, with OpenAPI-style parameters: `/data/modify/{fw}/update-cell`. */
  path: string;
  /** For a per-model route, the model's name is appended (`updateCell` → `updateCellBook`). */
  operationId: string;
  summary: PerModel<string>;
  description?: string;
  /** @default the model's name for a per-model route; otherwise none */
  tags?: PerModel<string[]>;
  security: RouteSecurity;
  /**
   * Marks a route served for every model, named by `{fw}` in the path. The description lists it
   * once per model for which `describedFor` holds: the models whose declared power lets the route
   * answer anything but 403.
   */
  perModel?: { describedFor(model: ModelDefinition): boolean };
  /**
   * For a route that is not per model: whether the description lists it, given every model
   * described (e.g. the print page's stylesheet, only when some model may print). @default always
   */
  describedWhen?(models: readonly ModelDefinition[]): boolean;
  params?: ParamContract[];
  /** The JSON body, parsed at the edge; `required: false` lets an empty body through as `undefined`. */
  body?: { shape: Shape<Body, Scope>; required: boolean };
  /** A body of another kind (CSV, a workbook, multipart), which the handler reads itself. */
  content?: { required: boolean; types: Record<string, JsonSchema> };
  answers: Record<number, AnswerContract>;
  /** The error statuses the route may answer with (the Fw error body); 500 and 503 are always added. */
  errors: number[];
}

/** What a handler receives: its package's dependencies, the parsed body and the scope. */
export interface RouteInput<Deps, Body, Scope, Who> {
  deps: Deps;
  /** The body as its shape parsed it (`undefined` when the route declares none, or an optional one was absent). */
  body: Body;
  scope: Scope;
  /** The caller, as the mount's `who` found them (`undefined` on an open route). */
  who: Who;
  /** The path parameters, as strings. */
  params: Record<string, string>;
}

/** A route: its contract, and the handler beside it. */
export interface FwRoute<Deps = unknown, Body = unknown, Scope = unknown, Who = unknown> extends RouteContract<Body, Scope> {
  /** Answers the request: a returned value other than `undefined` becomes the JSON body. */
  handle(ctx: Context, input: RouteInput<Deps, Body, Scope, Who>): unknown;
}

/** Declares a route (an identity function that gives the declaration its types). */
export function defineRoute<Deps, Body = undefined, Scope = undefined, Who = undefined>(route: FwRoute<Deps, Body, Scope, Who>): FwRoute<Deps, Body, Scope, Who> {
  return route;
}

/** How {@link mountRoutes} runs each route of a package. */
export interface MountOptions<Deps, Scope, Who, R> {
  deps: Deps;
  /**
   * Reads a JSON body, with the package's limit (`readJsonBody` of this package); never called
   * for routes that declare no body.
   * @default `readJsonBody` with its default limit
   */
  readJson?(ctx: Context): Promise<unknown>;
  /** The caller of a route that is not `'open'`, first of all (401 when there is none). */
  who?(ctx: Context, route: R): Promise<Who>;
  /** What the body's parser and the handler need, after the body is read (e.g. the model and the caller's power, 404/403). */
  scope?(ctx: Context, route: R, who: Who): Promise<Scope> | Scope;
}

// An optional body counts as absent when the request says it has none, or names no type.
const NO_BODY = (ctx: Context) => ctx.get('content-length') === '0' || !ctx.get('content-type');

/** `/data/{fw}/{id}` → `/data/:fw/:id`. */
export function routerPath(path: string): string {
  return path.replace(/\{([A-Za-z_][A-Za-z0-9_]*)\}/g, ':$1');
}

/**
 * The middleware that answers one route, in this order: the caller (`who`, skipped on open
 * routes), the path parameters' checks, the JSON body when the route declares one (415/413/400
 * from the reader), the scope, the body's shape, then the handler with typed input. Every answer
 * goes through `fwRoute`. For a route matched by other means than a router (one exact path);
 * {@link mountRoutes} puts a list on a router.
 */
export function routeMiddleware<Deps, Scope, Who, R extends FwRoute<Deps, unknown, Scope, Who>>(route: R, options: MountOptions<Deps, Scope, Who, R>): Middleware {
  const body = route.body;
  const checks = (route.params ?? []).filter((p) => p.in === 'path' && p.check);
  return fwRoute(async (ctx) => {
    const who = route.security !== 'open' && options.who ? await options.who(ctx, route) : (undefined as Who);
    const params = (ctx.params ?? {}) as Record<string, string>;
    for (const param of checks) param.check!(params[param.name] ?? '');
    let raw: unknown;
    if (body) raw = !body.required && NO_BODY(ctx) ? undefined : await (options.readJson ? options.readJson(ctx) : readJsonBody(ctx));
    const scope = options.scope ? await options.scope(ctx, route, who) : (undefined as Scope);
    const parsed = body ? body.shape.parse(raw, scope) : undefined;
    const answer = await route.handle(ctx, { deps: options.deps, body: parsed, scope, who, params });
    if (answer !== undefined) ctx.body = answer;
  });
}

/** Puts `routes` on `router`, each answered as {@link routeMiddleware} says. */
export function mountRoutes<Deps, Scope, Who, R extends FwRoute<Deps, unknown, Scope, Who>>(
  router: Router,
  routes: readonly R[],
  options: MountOptions<Deps, Scope, Who, R>,
): void {
  for (const route of routes) router[route.method](routerPath(route.path), routeMiddleware(route, options));
}
