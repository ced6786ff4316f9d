import { FwError } from '@fw/core';
import { defineRoute, isJsonObject, shape, type FwRoute, type ParamContract } from '@fw/http';
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

/** A key that is not `table:<model name>`: a 400 naming the accepted form, before any body is read. */
function checkPrefKey(key: string): void {
  if (!TABLE_KEY.test(key)) {
    throw new FwError('BAD_REQUEST', 'A preference key is table:<model name>', { details: [{ path: 'key', type: 'matches', message: 'key must be table:<model name>' }] });
  }
}

const COLUMNS = { type: 'array', maxItems: MAX_COLUMNS, uniqueItems: true, items: { type: 'string', pattern: COLUMN_KEY.source } };

/** A table layout, as `PUT /prefs/table:<model>` takes it (see {@link parseTablePref}). */
const TABLE_PREF = {
  type: 'object',
  description: 'A table layout: column order, hidden columns, widths, row density. Every field is optional',
  properties: {
    order: { ...COLUMNS, description: 'Column keys in display order' },
    hidden: { ...COLUMNS, description: 'Column keys the user hid' },
    widths: { type: 'object', additionalProperties: { type: 'integer', minimum: WIDTH_MIN, maximum: WIDTH_MAX }, description: 'Pixel widths by column key' },
    density: { enum: [...TABLE_DENSITIES] },
  },
  additionalProperties: false,
};

/** The body of `PUT /prefs/{key}`: `{ value }` and nothing else, the value a {@link TablePref}. */
export const PREF_BODY = shape<TablePref>({ type: 'object', properties: { value: TABLE_PREF }, required: ['value'], additionalProperties: false }, (body) => {
  if (!isJsonObject(body) || !('value' in body) || Object.keys(body).length !== 1) {
    throw new FwError('VALIDATION_FAILED', 'The body is { value }', { details: [{ path: 'value', type: 'required', message: 'value is required, and nothing else' }] });
  }
  // A host's own body parser may have read the body already, with its own larger limit.
  if (Buffer.byteLength(JSON.stringify(body)) > PREF_BODY_LIMIT) throw new FwError('PAYLOAD_TOO_LARGE', `The request body is larger than ${PREF_BODY_LIMIT} bytes`);
  return parseTablePref(body.value);
});

const KEY: ParamContract = { name: 'key', in: 'path', schema: { type: 'string', pattern: TABLE_KEY.source }, description: 'table:<model name>', check: checkPrefKey };

const PREF_ANSWER = {
  type: 'object',
  properties: { key: { type: 'string' }, value: { anyOf: [TABLE_PREF, { type: 'null' }] }, updatedAt: { type: ['string', 'null'], format: 'date-time' } },
  required: ['key', 'value', 'updatedAt'],
  additionalProperties: false,
};

/** What the preference routes need of `fwLogin`'s resolved options. */
export interface PrefRouteServices {
  store: FwStore;
}

/**
 * A preference route: the caller is the signed-in state `fwLogin` found (401 without one, 403
 * before a required password change); the body, if any, is read with {@link PREF_BODY_LIMIT}.
 */
export type PrefRoute = FwRoute<PrefRouteServices, TablePref | undefined, undefined, FwRequestState>;

const TAGS = ['prefs'];

/**
 * The preference routes of `fwLogin` (issue 20 §5): `GET`, `PUT` and `DELETE /prefs/{key}`, each
 * about the signed-in user alone; there is no way to name another user.
 */
export const prefRoutes: readonly PrefRoute[] = [
  /** `GET /prefs/{key}`: the caller's own preference; `value` is null when none is stored. */
  defineRoute({
    method: 'get',
    path: '/prefs/{key}',
    operationId: 'getPref',
    tags: TAGS,
    summary: "The caller's own preference under key (value null when none is stored)",
    security: 'token',
    params: [KEY],
    answers: { 200: { description: 'The preference', json: PREF_ANSWER } },
    errors: [400, 401, 403],
    async handle(ctx, { deps, who, params }) {
      const key = params.key!;
      const found = await deps.store.prefs.get(who.user.id, key);
      ctx.set('Cache-Control', 'no-store');
      return { key, value: found?.value ?? null, updatedAt: found ? found.updatedAt.toISOString() : null };
    },
  }),
  /** `PUT /prefs/{key}` with `{ value }`: stores the caller's own preference, replacing any. */
  defineRoute({
    method: 'put',
    path: '/prefs/{key}',
    operationId: 'putPref',
    tags: TAGS,
    summary: "Store the caller's own preference under key, replacing any (body at most 8 KiB)",
    security: 'token',
    params: [KEY],
    body: { shape: PREF_BODY, required: true },
    answers: { 200: { description: 'Stored', json: PREF_ANSWER } },
    errors: [400, 401, 403, 413, 415, 422],
    async handle(_ctx, { deps, who, params, body }) {
      const key = params.key!;
      const userId = who.user.id;
      if ((await deps.store.prefs.count(userId)) >= MAX_PREFS_PER_USER && !(await deps.store.prefs.get(userId, key))) {
        throw new FwError('CONFLICT', `You keep ${MAX_PREFS_PER_USER} preferences already: delete one before storing another`);
      }
      const saved = await deps.store.prefs.put(userId, key, body);
      return { key, value: saved.value, updatedAt: saved.updatedAt.toISOString() };
    },
  }),
  /** `DELETE /prefs/{key}`: forgets the caller's own preference (the "reset" of a table layout). */
  defineRoute({
    method: 'delete',
    path: '/prefs/{key}',
    operationId: 'deletePref',
    tags: TAGS,
    summary: "Forget the caller's own preference under key (a table's reset)",
    security: 'token',
    params: [KEY],
    answers: {
      200: {
        description: 'Forgotten',
        json: { type: 'object', properties: { ok: { const: true }, deleted: { type: 'boolean' } }, required: ['ok', 'deleted'], additionalProperties: false },
      },
    },
    errors: [400, 401, 403],
    async handle(_ctx, { deps, who, params }) {
      return { ok: true, deleted: await deps.store.prefs.delete(who.user.id, params.key!) };
    },
  }),
];
