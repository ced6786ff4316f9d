// Cursors of keyset pages: the position of one row in one order, written so that a client can
// hand it back (`after` / `before`) and the server can seek from it without an OFFSET.
//
// A cursor is base64url of the JSON `[1, sortHash, [v1, …, vn, pk]]`: a format version, a short
// hash of the model and the sort it belongs to, and the row's values of the sort fields and the
// primary key. When those values do not fit in 2 KB (long texts in the sort), the cursor names
// the row by its primary key alone, `[1, sortHash, null, pk]`, and the page looks the row's
// values up (see resolveSeek in keyset-page.ts). The values travel in a form that survives JSON exactly (text as given, numbers
// as numbers or as the decimal text the driver gave, dates as `YYYY-MM-DD`, times as ISO 8601
// with milliseconds) and are turned back into the values the database compares (a `Date` for a
// time, as conditions bind them). The hash is no secret: it only makes a cursor of another
// model or sort a 400 instead of a silent jump. Every value is checked against its field's type
// on the way in, so a crafted cursor can move the page, never reach the database as something
// it cannot compare (a 500).
import { createHash } from 'node:crypto';
import type { FieldDefinition, ModelDefinition } from '@fw/core';
import { DIALECT_LIMITS, coerceValue, toFormRow } from '@fw/row-patch';
import { dataError } from '../error-codes.js';

/** Longest cursor accepted or handed out, in characters (base64url, so also bytes). */
export const MAX_CURSOR_LENGTH = 2048;

/** One entry of a table query's sort. */
export interface SortEntry {
  field: string;
  order: 'asc' | 'desc';
}

/** Where a keyset page starts: after or before a row (its key values, as bound), or at the end. */
export type ResolvedSeek = { direction: 'after' | 'before'; values: unknown[] } | { direction: 'last' };

/** A {@link ResolvedSeek}, or one from a cursor that names its row by primary key only (`row`, as bound). */
export type PageSeek = ResolvedSeek | { direction: 'after' | 'before'; row: unknown };

/** How a value of a column travels in a cursor. */
type Kind = 'text' | 'integer' | 'number' | 'boolean' | 'date' | 'datetime';

const FORMAT = 1;
const TIME_RANGE = DIALECT_LIMITS.postgres;
const BASE64URL = /^[A-Za-z0-9_-]+$/;
// Decimal text as PostgreSQL numeric or MySQL decimal columns give it; no exponent, so no value
// a double column cannot hold.
const DECIMAL = /^-?\d{1,40}(\.\d{1,40})?$/;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const INT32 = { min: -2_147_483_648, max: 2_147_483_647 };

function kindOf(field: FieldDefinition): Kind {
  // The column's kind, decided by defineModel (core's field-capabilities.ts); short and long text travel alike.
  const stored = field.capabilities.storedKind;
  return stored === undefined || stored === 'string' ? 'text' : stored;
}

/** The fields of the seek keys: the sort fields, then the primary key (which makes the order total). */
export function keyFields(model: ModelDefinition, sort: readonly SortEntry[]): FieldDefinition[] {
  return [...sort.map((s) => model.fields[s.field]!), model.fields[model.primaryKey]!];
}

/** A short hash of what a cursor is bound to: the model, its table and the sort. */
function sortHash(model: ModelDefinition, sort: readonly SortEntry[]): string {
  const text = JSON.stringify([model.name, model.table, sort.map((s) => [s.field, s.order])]);
  return createHash('sha256').update(text).digest('base64url').slice(0, 12);
}

/** One raw column value (as the driver returned it) in its cursor form. */
function travelling(model: ModelDefinition, field: FieldDefinition, raw: unknown): unknown {
  if (raw === null || raw === undefined) return null;
  const value = raw instanceof Uint8Array && kindOf(field) !== 'boolean' ? new TextDecoder().decode(raw) : raw;
  switch (kindOf(field)) {
    case 'text':
      // Not through the form conversion: that turns '' into null, another place in the order.
      return typeof value === 'string' ? value : String(value);
    case 'integer':
    case 'number':
      if (typeof value === 'number') return Number.isFinite(value) ? value : String(value);
      if (typeof value === 'bigint') return Number.isSafeInteger(Number(value)) ? Number(value) : String(value);
      // Decimal text (numeric, decimal, bigint columns) stays text: a double would round it.
      if (typeof value === 'string' && /^-?\d+$/.test(value) && Number.isSafeInteger(Number(value))) return Number(value);
      return String(value);
    default: {
      // Booleans, dates and times in their form representation (true/false, YYYY-MM-DD, ISO).
      const form = toFormRow(model, { [field.column]: raw })[field.name];
      return form instanceof Date ? form.toISOString() : (form ?? null);
    }
  }
}

/**
 * The key values of `row` (a raw database row) in the form the database compares, as a cursor of
 * the row would give them back; undefined when one of them could not travel in a cursor.
 */
export function rowKeyValues(model: ModelDefinition, sort: readonly SortEntry[], row: Readonly<Record<string, unknown>>): unknown[] | undefined {
  const out: unknown[] = [];
  for (const field of keyFields(model, sort)) {
    const result = bindable(field, travelling(model, field, row[field.column]));
    if (!result.ok) return undefined;
    out.push(result.value);
  }
  return out;
}

/**
 * The cursor of `row` (a raw database row, keyed by column) in the order `sort` of `model`.
 * Undefined when the row's values do not fit in {@link MAX_CURSOR_LENGTH} (long texts in the
 * sort); the page then cannot be continued by cursor from that row.
 */
export function encodeCursor(model: ModelDefinition, sort: readonly SortEntry[], row: Readonly<Record<string, unknown>>): string | undefined {
  const fields = keyFields(model, sort);
  const values = fields.map((field) => travelling(model, field, row[field.column]));
  const seal = (content: unknown[]) => Buffer.from(JSON.stringify(content), 'utf8').toString('base64url');
  const cursor = seal([FORMAT, sortHash(model, sort), values]);
  if (cursor.length <= MAX_CURSOR_LENGTH) return cursor;
  // Too long to carry the values: the row by its primary key (a text key could be long too).
  const byKey = seal([FORMAT, sortHash(model, sort), null, values[values.length - 1]]);
  return byKey.length <= MAX_CURSOR_LENGTH ? byKey : undefined;
}

function bad(message: string, path: string): Error {
  return dataError('BAD_QUERY', message, [{ path, type: 'cursor', message }]);
}

/**
 * The whole numbers a cursor may carry for `field`: what its column can hold, not what its rules
 * allow. A row may hold a value outside a declared range (written by another program or before
 * the rule), and the cursor of that row must come back; a value past the column (2^31 in an int
 * column) would fail the query on PostgreSQL. Fw's columns are 32-bit; a declared bound beyond
 * that (`max: Number.MAX_SAFE_INTEGER` on a bigint key) widens that side, an open side does not.
 */
export function columnBounds(field: FieldDefinition): { min: number; max: number } {
  const bounds = { ...INT32 };
  for (const rule of field.rules) {
    if (rule.type !== 'range') continue;
    if (typeof rule.min === 'number' && Number.isSafeInteger(rule.min)) bounds.min = Math.min(bounds.min, rule.min);
    if (typeof rule.max === 'number' && Number.isSafeInteger(rule.max)) bounds.max = Math.max(bounds.max, rule.max);
  }
  return bounds;
}

/** A cursor value of `field` as the database compares it, or a message saying why it is not one. */
function bindable(field: FieldDefinition, value: unknown): { ok: true; value: unknown } | { ok: false; message: string } {
  const no = (message: string) => ({ ok: false as const, message: `${field.name}: ${message}` });
  if (value === null) return field.primaryKey ? no('a primary key is never empty') : { ok: true, value: null };
  switch (kindOf(field)) {
    case 'text':
      if (typeof value !== 'string') return no('must be text');
      // PostgreSQL cannot compare text holding NUL, nor send half a surrogate pair as UTF-8.
      if (value.includes('\u0000') || LONE_SURROGATE.test(value)) return no('holds a character no column holds');
      return { ok: true, value };
    case 'integer': {
      const bounds = columnBounds(field);
      if (typeof value !== 'number' || !Number.isSafeInteger(value)) return no('must be a whole number');
      if (value < bounds.min || value > bounds.max) return no(`must be from ${bounds.min} to ${bounds.max}`);
      return { ok: true, value };
    }
    case 'number':
      if (typeof value === 'number' && Number.isFinite(value)) return { ok: true, value };
      if (typeof value === 'string' && DECIMAL.test(value)) return { ok: true, value };
      // PostgreSQL double precision holds these (node-postgres reads them as NaN and ±Infinity);
      // elsewhere they compare as text or as 0, a wrong place but never an error.
      if (value === 'NaN' || value === 'Infinity' || value === '-Infinity') return { ok: true, value };
      return no('must be a number');
    case 'boolean':
      return typeof value === 'boolean' ? { ok: true, value } : no('must be true or false');
    case 'date':
    case 'datetime': {
      const time = kindOf(field) === 'datetime';
      if (typeof value !== 'string' || value.length > 40) return no(time ? 'must be an ISO 8601 date-time' : 'must be a date (YYYY-MM-DD)');
      const result = coerceValue(field, value);
      if (!result.ok || typeof result.value !== 'string') return no(result.ok ? 'must not be empty' : result.message);
      const range = time ? TIME_RANGE.datetime : TIME_RANGE.date;
      if (result.value < range.min || result.value > range.max) return no(`must be from ${range.min} to ${range.max}`);
      // Bound like a condition's value: a Date for a time (each driver writes it its own way).
      return { ok: true, value: time ? new Date(result.value) : result.value };
    }
  }
}

/**
 * The key values of a cursor handed back at `path`, checked and in the form the database
 * compares (one per sort field, then the primary key); `{ row }` (the primary key) for a cursor
 * that names its row by key only.
 * @throws {FwError} 400 `BAD_QUERY` at `path` for anything that is not a cursor of this model
 * and sort: malformed, too long, truncated, tampered into wrong types, or of another sort.
 */
export function decodeCursor(model: ModelDefinition, sort: readonly SortEntry[], cursor: unknown, path: string): unknown[] | { row: unknown } {
  if (typeof cursor !== 'string' || cursor.length === 0) throw bad('a cursor is a non-empty string from an earlier answer', path);
  if (cursor.length > MAX_CURSOR_LENGTH) throw bad(`a cursor has at most ${MAX_CURSOR_LENGTH} characters`, path);
  if (!BASE64URL.test(cursor)) throw bad('not a cursor (base64url expected)', path);
  let parsed: unknown;
  try {
    parsed = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(Buffer.from(cursor, 'base64url')));
  } catch {
    throw bad('not a cursor (damaged or truncated)', path);
  }
  const byKey = Array.isArray(parsed) && parsed.length === 4 && parsed[2] === null;
  if (!Array.isArray(parsed) || (parsed.length !== 3 && !byKey) || parsed[0] !== FORMAT || typeof parsed[1] !== 'string' || (!byKey && !Array.isArray(parsed[2]))) {
    throw bad('not a cursor of this server', path);
  }
  if (parsed[1] !== sortHash(model, sort)) throw bad('the cursor belongs to another model or sort order; start again from the first page', path);
  const fields = keyFields(model, sort);
  if (byKey) {
    const key = bindable(fields[fields.length - 1]!, parsed[3]);
    if (!key.ok) throw bad(`the cursor holds a wrong value (${key.message})`, path);
    return { row: key.value };
  }
  const values = parsed[2] as unknown[];
  if (values.length !== fields.length) throw bad('the cursor does not match the sort order', path);
  return fields.map((field, i) => {
    const result = bindable(field, values[i]);
    if (!result.ok) throw bad(`the cursor holds a wrong value (${result.message})`, path);
    return result.value;
  });
}

/**
 * The keyset part of a table query body: `after` or `before` (a cursor) or `last: true`, at
 * most one of them; undefined when there is none (a page by number).
 * @throws {FwError} 400 `BAD_QUERY` naming the offending part.
 */
export function parsePageSeek(model: ModelDefinition, input: Readonly<Record<string, unknown>>, sort: readonly SortEntry[]): PageSeek | undefined {
  const given = (v: unknown) => v !== undefined && v !== null;
  let last = false;
  if (given(input.last)) {
    if (input.last !== true && input.last !== false && input.last !== 'true' && input.last !== 'false') throw bad('last is true or false', 'last');
    last = input.last === true || input.last === 'true';
  }
  const named = [given(input.after) && 'after', given(input.before) && 'before', last && 'last'].filter((n): n is string => typeof n === 'string');
  if (named.length > 1) throw bad(`give at most one of after, before and last (got ${named.join(', ')})`, named[1]!);
  if (last) return { direction: 'last' };
  const direction = given(input.after) ? 'after' : given(input.before) ? 'before' : undefined;
  if (!direction) return undefined;
  const decoded = decodeCursor(model, sort, input[direction], direction);
  return Array.isArray(decoded) ? { direction, values: decoded } : { direction, row: decoded.row };
}
