import type { Context } from 'koa';
import type Router from '@koa/router';
import { FwError } from '@fw/core';
import { fwRoute, isJsonObject, readJsonBody } from '@fw/http';
import type { FwStore } from '@fw/store';
import type { FwRequestState } from './auth.js';

/**
 * The largest body `PUT /prefs/{key}` reads, in bytes: a table layout of a few hundred columns
 * fits; anything larger is refused with 413 before it is parsed.
 */
export const PREF_BODY_LIMIT = 8 * 1024;

/** A preference key: `table:<model name>` (the only kind so far). */
/**
 * The most preferences one user keeps. Keys are checked for shape only (fwLogin knows no models),
 * so without a bound one account could fill the table; a new key beyond it is 409 `CONFLICT`.
 */
export const MAX_PREFS_PER_USER = 500;

const TABLE_KEY = /^table:[A-Za-z_][A-Za-z0-9_.-]{0,120}$/;
const COLUMN_KEY = /^[A-Za-z0-9_.:$-]{1,128}$/;
const MAX_COLUMNS = 300;
const WIDTH_MIN = 40;
const WIDTH_MAX = 2000;

/** Row heights of a table, as antd's Table `size` names them. */
export const TABLE_DENSITIES = Object.freeze(['small', 'middle', 'large'] as const);

/** The layout of one model's table, as `table:<model>` stores it. Every field is optional. */
export interface TablePref {
  /** Column keys in display order; columns not named keep their place after these. */
  order?: string[];
  /** Column keys the user hid. */
  hidden?: string[];
  /** Column widths in pixels, 40 to 2000, by column key. */
  widths?: Record<string, number>;
  /** Row density. */
  density?: (typeof TABLE_DENSITIES)[number];
}

type Detail = { path: string; type: string; message: string };

function columnList(value: unknown, path: string, details: Detail[]): string[] | undefined {
  if (!Array.isArray(value) || value.length > MAX_COLUMNS || !value.every((k) => typeof k === 'string' && COLUMN_KEY.test(k)) || new Set(value).size !== value.length) {
    details.push({ path, type: 'typeError', message: `${path} must be a list of at most ${MAX_COLUMNS} distinct column keys` });
    return undefined;
  }
  return value as string[];
}

/**
 * The table layout in `body.value`, checked field by field; unknown fields are refused so a typo
 * does not store silently. Pure: throws `VALIDATION_FAILED` (422) with one detail per problem.
 */
export function parseTablePref(value: unknown): TablePref {
  if (!isJsonObject(value))
    throw new FwError('VALIDATION_FAILED', 'value must be an object', { details: [{ path: 'value', type: 'typeError', message: 'value must be an object' }] });
  const details: Detail[] = [];
  const out: TablePref = {};
  for (const [name, field] of Object.entries(value)) {
    const path = `value.${name}`;
    if (name === 'order' || name === 'hidden') {
      const list = columnList(field, path, details);
      if (list) out[name] = list;
    } else if (name === 'widths') {
      const ok =
        isJsonObject(field) &&
        Object.keys(field).length <= MAX_COLUMNS &&
        Object.entries(field).every(([k, w]) => COLUMN_KEY.test(k) && typeof w === 'number' && Number.isInteger(w) && w >= WIDTH_MIN && w <= WIDTH_MAX);
      if (ok) out.widths = { ...(field as Record<string, number>) };
      else details.push({ path, type: 'typeError', message: `${path} must map column keys to whole pixel widths from ${WIDTH_MIN} to ${WIDTH_MAX}` });
    } else if (name === 'density') {
      if (typeof field === 'string' && (TABLE_DENSITIES as readonly string[]).includes(field)) out.density = field as TablePref['density'];
      else details.push({ path, type: 'oneOf', message: `${path} must be one of ${TABLE_DENSITIES.join(', ')}` });
    } else {
      details.push({ path, type: 'noUnknown', message: `${path} is not a table preference` });
    }
  }
  if (details.length > 0) throw new FwError('VALIDATION_FAILED', 'The table preference is not valid', { details });
  return out;
}

/** The preference key of a request path, or a 400 naming the accepted form. */
function prefKey(ctx: Context): string {
  const key = (ctx.params as { key?: string }).key;
  if (typeof key !== 'string' || !TABLE_KEY.test(key)) {
    throw new FwError('BAD_REQUEST', 'A preference key is table:<model name>', { details: [{ path: 'key', type: 'matches', message: 'key must be table:<model name>' }] });
  }
  return key;
}

/** What the preference routes need of `fwLogin`'s resolved options. */
export interface PrefRouteServices {
  store: FwStore;
  /** The request's authenticated state, or a 401 (and a 403 before a required password change). */
  requireAuth: (ctx: Context) => Promise<FwRequestState>;
}

/** `GET /prefs/{key}`: the caller's own preference; `value` is null when none is stored. */
async function getPref(ctx: Context, s: PrefRouteServices): Promise<void> {
  const { user } = await s.requireAuth(ctx);
  const key = prefKey(ctx);
  const found = await s.store.prefs.get(user.id, key);
  ctx.set('Cache-Control', 'no-store');
  ctx.body = { key, value: found?.value ?? null, updatedAt: found ? found.updatedAt.toISOString() : null };
}

/** `PUT /prefs/{key}` with `{ value }`: stores the caller's own preference, replacing any. */
async function putPref(ctx: Context, s: PrefRouteServices): Promise<void> {
  const { user } = await s.requireAuth(ctx);
  const key = prefKey(ctx);
  const body = await readJsonBody(ctx, { limit: PREF_BODY_LIMIT });
  if (!isJsonObject(body) || !('value' in body) || Object.keys(body).length !== 1) {
    throw new FwError('VALIDATION_FAILED', 'The body is { value }', { details: [{ path: 'value', type: 'required', message: 'value is required, and nothing else' }] });
  }
  // A host's own body parser may have read the body already, with its own larger limit.
  if (Buffer.byteLength(JSON.stringify(body)) > PREF_BODY_LIMIT) throw new FwError('PAYLOAD_TOO_LARGE', `The request body is larger than ${PREF_BODY_LIMIT} bytes`);
  const value = parseTablePref(body.value);
  if ((await s.store.prefs.count(user.id)) >= MAX_PREFS_PER_USER && !(await s.store.prefs.get(user.id, key))) {
    throw new FwError('CONFLICT', `You keep ${MAX_PREFS_PER_USER} preferences already: delete one before storing another`);
  }
  const saved = await s.store.prefs.put(user.id, key, value);
  ctx.body = { key, value: saved.value, updatedAt: saved.updatedAt.toISOString() };
}

/** `DELETE /prefs/{key}`: forgets the caller's own preference (the "reset" of a table layout). */
async function deletePref(ctx: Context, s: PrefRouteServices): Promise<void> {
  const { user } = await s.requireAuth(ctx);
  const key = prefKey(ctx);
  ctx.body = { ok: true, deleted: await s.store.prefs.delete(user.id, key) };
}

/**
 * Adds the preference routes to `fwLogin`'s router (issue 20 §5): `GET`, `PUT` and `DELETE
 * /prefs/{key}`, each about the signed-in user alone; there is no way to name another user.
 * @internal
 */
export function addPrefRoutes(router: Router, services: PrefRouteServices): void {
  const route = (handler: (ctx: Context, s: PrefRouteServices) => Promise<void>) => fwRoute((ctx) => handler(ctx, services));
  router.get('/prefs/:key', route(getPref));
  router.put('/prefs/:key', route(putPref));
  router.delete('/prefs/:key', route(deletePref));
}
