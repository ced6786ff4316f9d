// What a data route declares beyond @fw/http's route contract (issue 22 §5): the power gate the
// mount's scope checks before the body is parsed, and what the route does before the caller is
// known (headers every answer carries, a refusal that does not depend on the caller).
import type { Context } from 'koa';
import type { FwRoute, JsonSchema, ParamContract } from '@fw/http';
import type { DataScope } from '../bodies.js';
import type { PowerGate } from '../gates.js';
import type { DataService } from '../service.js';
import type { Actor, UpdateOptions } from '../service-types.js';

/** What the data routes' handlers use, given once when fwData mounts them. */
export interface DataDeps {
  service: DataService;
  /** Largest import body (CSV text, workbook or multipart), bytes. */
  importBodyLimit: number;
  /** The print page's Content-Security-Policy. */
  printPolicy: string;
  /** The methods the data router has for the request's path besides the model-row route (for a 405). */
  allowed(ctx: Context): string[];
}

/**
 * A data route. A route with a `gate` is per model (`{fw}` in its path): the mount's scope finds
 * the model (404 `MODEL_NOT_FOUND`), resolves the caller's power once and checks the gate (its
 * 403), then the body's shape parses with that scope. A route without one receives no scope and
 * checks power itself (its order of checks differs: a query parameter first, or 404 for all).
 */
export interface DataRoute<Body = unknown> extends FwRoute<DataDeps, Body, DataScope, Actor> {
  gate?: PowerGate;
  /** After the gate, before the body: adds to the scope what the path names (the reference route's field, its 400). */
  widen?(scope: DataScope, params: Record<string, string>, deps: DataDeps): DataScope;
  /** Runs first, before the caller is checked: headers every answer carries, errors included; or a refusal anyone gets. */
  before?(ctx: Context, deps: DataDeps): void;
}

/** Declares a data route (an identity function that gives the declaration its types). */
export function dataRoute<Body = undefined>(route: DataRoute<Body>): DataRoute<Body> {
  return route;
}

/** A save that names the version it read is refused (409 `STALE_ROW`) when the row has changed since. */
export const ifMatch = (ctx: Context): UpdateOptions => (ctx.get('if-match') ? { ifMatch: ctx.get('if-match') } : {});

/** The `If-Match` header of the saves. */
export const IF_MATCH_PARAM: ParamContract = {
  name: 'If-Match',
  in: 'header',
  required: false,
  schema: { type: 'string' },
  description: 'The ETag read with the row: 409 STALE_ROW when the row changed since',
};

/** A path parameter holding a row id. */
export const ID_PARAM: ParamContract = { name: 'id', in: 'path', schema: { type: 'integer', minimum: 1 }, description: 'The row id: a positive whole number' };

/** A query parameter. */
export function queryParam(name: string, schema: ParamContract['schema'], description: string): ParamContract {
  return { name, in: 'query', required: false, schema, description };
}

/** A JSON object schema with these properties, all required, no others. */
export function closedObject(properties: Record<string, JsonSchema>): JsonSchema {
  return { type: 'object', properties, required: Object.keys(properties), additionalProperties: false };
}
