import { EditType, type AttachmentValue, type Choice, type FieldDefinition } from '@fw/core';
import { show } from './values.js';

/** A list element of a MULTI_CHOICE value (a choice's own value). */
export type ChoiceValue = Choice['value'];

/**
 * A value in the form representation: what {@link coerceValue} produces, what the row schema
 * validates, what `toFormRow` returns.
 *
 * | edit type | form value |
 * |---|---|
 * | INPUT, TEXTAREA, PASSWORD, HIDDEN | string |
 * | NUMBER (and HIDDEN with `integer`) | finite number |
 * | BOOLEAN | boolean |
 * | CHOICE | the choice's own value |
 * | MULTI_CHOICE | array of choice values |
 * | TAGS | array of strings |
 * | DATE | `'YYYY-MM-DD'` |
 * | DATETIME | `toISOString()` text (UTC, milliseconds) |
 * | REFERENCE_TABLE, REFERENCE_TREE | positive integer id |
 * | COLLECTION | sorted array of distinct positive integer ids |
 * | ATTACHMENT | array of `{ id, name, size, type }` (distinct ids) |
 *
 * Every type also takes `null` (no value).
 */
export type FormValue = string | number | boolean | null | readonly ChoiceValue[] | readonly AttachmentValue[];

/** The outcome of {@link coerceValue}: the converted value, or why it cannot be converted. */
export type CoerceResult = { ok: true; value: FormValue } | { ok: false; message: string };

const NUMERIC = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;
const DIGITS = /^\d+$/;
const DATE_RE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATETIME_RE = /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d+))?)?)?([Zz]|[+-]\d{2}(?::?\d{2})?)?$/;

function fail(message: string): CoerceResult {
  return { ok: false, message };
}

function ok(value: FormValue): CoerceResult {
  return { ok: true, value };
}

/** True for the three spellings of "no value": null, undefined and the empty string. */
export function isEmptyInput(value: unknown): value is null | undefined | '' {
  return value === null || value === undefined || value === '';
}

/** True when a field's form value is a number (NUMBER, or HIDDEN declared `integer`). */
function isNumberField(field: FieldDefinition): boolean {
  return field.edit.type === EditType.NUMBER || (field.edit.type === EditType.HIDDEN && field.edit.integer);
}

/** True when a field's form value is text (INPUT, TEXTAREA, PASSWORD, HIDDEN without `integer`). */
export function isTextField(field: FieldDefinition): boolean {
  const type = field.edit.type;
  return type === EditType.INPUT || type === EditType.TEXTAREA || type === EditType.PASSWORD || (type === EditType.HIDDEN && !field.edit.integer);
}

/**
 * What a field's form value must look like, as the end of a sentence ("must be a number"): the
 * message of the schema's type check.
 */
export function expectation(field: FieldDefinition): string {
  if (isNumberField(field)) return field.edit.integer ? 'must be an integer' : 'must be a number';
  switch (field.edit.type) {
    case EditType.BOOLEAN:
      return 'must be true or false';
    case EditType.CHOICE:
      return `must be one of the following values: ${choiceList(field)}`;
    case EditType.MULTI_CHOICE:
      return `must be a list of the following values: ${choiceList(field)}`;
    case EditType.TAGS:
      return 'must be a list of non-empty strings';
    case EditType.DATE:
      return 'must be a date (YYYY-MM-DD)';
    case EditType.DATETIME:
      return 'must be an ISO 8601 date-time';
    case EditType.REFERENCE_TABLE:
    case EditType.REFERENCE_TREE:
      return 'must be a positive integer id';
    case EditType.COLLECTION:
      return 'must be a list of positive integer ids';
    case EditType.ATTACHMENT:
      return 'must be a list of uploaded files ({ id, name, size, type })';
    default:
      return 'must be a string';
  }
}

function choiceList(field: FieldDefinition): string {
  return (field.edit.choices ?? []).map((c) => String(c.value)).join(', ');
}

function toText(value: unknown): CoerceResult {
  if (typeof value === 'string') return ok(value);
  if (typeof value === 'boolean' || typeof value === 'bigint') return ok(String(value));
  if (typeof value === 'number') return Number.isFinite(value) ? ok(String(value)) : fail('must be a finite number or a string');
  return fail('must be a string');
}

function toNumber(value: unknown, integer: boolean): CoerceResult {
  let n: number;
  if (typeof value === 'number') n = value;
  else if (typeof value === 'bigint') n = Number(value);
  else if (typeof value === 'string' && NUMERIC.test(value.trim())) n = Number(value.trim());
  else return fail(integer ? 'must be an integer' : 'must be a number');
  if (!Number.isFinite(n)) return fail('must be a finite number');
  if (integer && !Number.isInteger(n)) return fail('must be an integer');
  if (integer && !Number.isSafeInteger(n)) return fail('must be an integer between -(2^53 - 1) and 2^53 - 1');
  // -0 and 0 are one value to a database; keep comparisons (changedColumns) simple.
  return ok(n === 0 ? 0 : n);
}

function toBoolean(value: unknown): CoerceResult {
  if (typeof value === 'boolean') return ok(value);
  if (value === 1 || value === 0) return ok(value === 1);
  if (typeof value === 'string') {
    const text = value.trim().toLowerCase();
    if (text === 'true' || text === '1') return ok(true);
    if (text === 'false' || text === '0') return ok(false);
  }
  return fail('must be true or false');
}

/**
 * The declared choice a client value stands for: exactly equal first, then equal as text (the
 * string `'2'` is the numeric choice `2`, `'true'` the boolean choice `true`), then numerically
 * (`'2.0'` is `2`).
 */
export function findChoice(choices: readonly Choice[], value: unknown): Choice | undefined {
  if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') return undefined;
  const exact = choices.find((c) => Object.is(c.value, value));
  if (exact) return exact;
  const text = String(value);
  const asText = choices.find((c) => String(c.value) === text);
  if (asText) return asText;
  if (typeof value === 'string' && NUMERIC.test(value.trim())) {
    const n = Number(value.trim());
    return choices.find((c) => typeof c.value === 'number' && c.value === n);
  }
  return undefined;
}

function toChoice(field: FieldDefinition, value: unknown): CoerceResult {
  const choice = findChoice(field.edit.choices ?? [], value);
  return choice ? ok(choice.value) : fail(`must be one of the following values: ${choiceList(field)}`);
}

/** An array, or a JSON-array text (how a list arrives in a CSV cell). */
function toList(value: unknown): unknown[] | undefined {
  if (Array.isArray(value)) return value;
  if (typeof value === 'string' && value.trim().startsWith('[')) {
    try {
      const parsed: unknown = JSON.parse(value);
      if (Array.isArray(parsed)) return parsed;
    } catch {
      return undefined;
    }
  }
  return undefined;
}

function toMultiChoice(field: FieldDefinition, value: unknown): CoerceResult {
  const list = toList(value);
  if (!list) return fail(`must be a list (an array or a JSON array) of the following values: ${choiceList(field)}`);
  const out: ChoiceValue[] = [];
  for (const item of list) {
    const choice = findChoice(field.edit.choices ?? [], item);
    if (!choice) return fail(`must hold only the following values: ${choiceList(field)} (got ${show(item)})`);
    if (!out.some((v) => Object.is(v, choice.value))) out.push(choice.value);
  }
  return ok(out);
}

function toTags(value: unknown): CoerceResult {
  const list = toList(value);
  if (!list) return fail('must be a list (an array or a JSON array) of strings');
  const out: string[] = [];
  for (const item of list) {
    const text = typeof item === 'string' ? ok(item) : typeof item === 'number' || typeof item === 'boolean' ? toText(item) : undefined;
    const tag = text?.ok ? text.value : undefined;
    if (typeof tag !== 'string' || tag === '') return fail(`must hold only non-empty strings (got ${show(item)})`);
    if (!out.includes(tag)) out.push(tag);
  }
  return ok(out);
}

function toId(value: unknown): number | undefined {
  let n: number | undefined;
  if (typeof value === 'number') n = value;
  else if (typeof value === 'bigint') n = Number(value);
  else if (typeof value === 'string' && DIGITS.test(value.trim())) n = Number(value.trim());
  return n !== undefined && Number.isSafeInteger(n) && n > 0 ? n : undefined;
}

function toReference(value: unknown): CoerceResult {
  const id = toId(value);
  return id === undefined ? fail('must be a positive integer id') : ok(id);
}

function toCollection(value: unknown): CoerceResult {
  const list = toList(value);
  if (!list) return fail('must be a list (an array or a JSON array) of positive integer ids');
  const ids = new Set<number>();
  for (const item of list) {
    const id = toId(item);
    if (id === undefined) return fail(`must hold only positive integer ids (got ${show(item)})`);
    ids.add(id);
  }
  return ok([...ids].sort((a, b) => a - b));
}

const FILE_ID = /^[A-Za-z0-9_-]{16,64}$/;

/**
 * A list of file records. Only the shape is checked here; whether the caller may use each id is
 * the data service's business (it claims uploads by id and takes name, size and type from its own
 * record, never from the client).
 */
function toAttachments(field: FieldDefinition, value: unknown): CoerceResult {
  const list = toList(value);
  if (!list) return fail('must be a list (an array or a JSON array) of uploaded files');
  const out: AttachmentValue[] = [];
  for (const item of list) {
    if (typeof item !== 'object' || item === null || Array.isArray(item)) return fail(`must hold only file records { id, name, size, type } (got ${show(item)})`);
    const { id, name, size, type } = item as Record<string, unknown>;
    if (typeof id !== 'string' || !FILE_ID.test(id)) return fail(`must hold file records with an uploaded file's id (got ${show(id)})`);
    if (out.some((f) => f.id === id)) continue;
    out.push({
      id,
      name: typeof name === 'string' ? name : '',
      size: typeof size === 'number' && Number.isSafeInteger(size) && size >= 0 ? size : 0,
      type: typeof type === 'string' ? type : 'application/octet-stream',
    });
  }
  const max = field.edit.attachment?.maxFiles ?? 1;
  if (out.length > max) return fail(`must hold at most ${max} file${max === 1 ? '' : 's'}`);
  return ok(out);
}

const MONTH_DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

function daysInMonth(year: number, month: number): number {
  return month === 2 && isLeap(year) ? 29 : (MONTH_DAYS[month - 1] ?? 0);
}

function isLeap(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}

function realDate(year: number, month: number, day: number): boolean {
  return year >= 1 && month >= 1 && month <= 12 && day >= 1 && day <= daysInMonth(year, month);
}

function pad(n: number, width = 2): string {
  return String(n).padStart(width, '0');
}

/**
 * The calendar date of a driver's `Date`: the UTC date when the instant is exactly UTC midnight
 * (SQL Server, SQLite epoch values, dates written as UTC), otherwise the local date (node-postgres
 * and mysql2 build DATE values at local midnight).
 */
export function calendarDateOf(date: Date): string {
  const utcMidnight = date.getUTCHours() === 0 && date.getUTCMinutes() === 0 && date.getUTCSeconds() === 0 && date.getUTCMilliseconds() === 0;
  return utcMidnight
    ? `${pad(date.getUTCFullYear(), 4)}-${pad(date.getUTCMonth() + 1)}-${pad(date.getUTCDate())}`
    : `${pad(date.getFullYear(), 4)}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
}

function toDate(value: unknown): CoerceResult {
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? fail('must be a valid date') : ok(calendarDateOf(value));
  if (typeof value !== 'string') return fail('must be a date (YYYY-MM-DD)');
  const text = value.trim();
  const m = DATE_RE.exec(text);
  if (!m) return fail('must be a date (YYYY-MM-DD)');
  if (!realDate(Number(m[1]), Number(m[2]), Number(m[3]))) return fail('must be a real calendar date');
  return ok(text);
}

/**
 * An ISO 8601 date-time as an instant. A text without a zone designator is read as UTC (as
 * `@fw/store` reads SQLite's zone-less text), never in the server's local zone, so the same text
 * means the same instant on every server.
 */
function parseDateTime(text: string): Date | undefined {
  const m = DATETIME_RE.exec(text);
  if (!m) return undefined;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const [hour, minute, second] = [Number(m[4] ?? 0), Number(m[5] ?? 0), Number(m[6] ?? 0)];
  const ms = Number((m[7] ?? '').slice(0, 3).padEnd(3, '0'));
  if (!realDate(year, month, day) || hour > 23 || minute > 59 || second > 59) return undefined;
  let offset = 0;
  const zone = m[8];
  if (zone && zone !== 'Z' && zone !== 'z') {
    const digits = zone.slice(1).replace(':', '');
    const [oh, om] = [Number(digits.slice(0, 2)), Number(digits.slice(2) || 0)];
    if (oh > 23 || om > 59) return undefined;
    offset = (zone.startsWith('-') ? -1 : 1) * (oh * 60 + om);
  }
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hour, minute, second, ms);
  return new Date(date.getTime() - offset * 60_000);
}

function toDateTime(value: unknown): CoerceResult {
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? fail('must be a valid date-time') : ok(value.toISOString());
  if (typeof value !== 'string') return fail('must be an ISO 8601 date-time');
  const date = parseDateTime(value.trim());
  if (!date || Number.isNaN(date.getTime())) return fail('must be an ISO 8601 date-time');
  return ok(date.toISOString());
}

/**
 * Converts one value arriving from a client (JSON, or the text of a CSV cell) to a field's form
 * representation (see {@link FormValue}). `null`, `undefined` and `''` become `null` for every
 * type; required-ness is the row schema's business, not this one's.
 *
 * Accepted inputs by edit type:
 * - INPUT, TEXTAREA, PASSWORD, HIDDEN: strings; numbers and booleans become their text; objects
 *   and arrays are refused.
 * - NUMBER (and HIDDEN with `integer: true`): finite numbers and numeric strings (`'12.5'`,
 *   `' 3 '`, `'1e3'`); `'abc'`, NaN and Infinity are refused; `integer` refuses fractions.
 * - BOOLEAN: `true`/`false`, `'true'`/`'false'` (any case), `1`/`0`, `'1'`/`'0'`.
 * - CHOICE: a value matching one of `edit.choices` as text (`'2'` matches the choice `2`); the
 *   result is the choice's own value.
 * - MULTI_CHOICE, TAGS: arrays, or a JSON-array text such as `'["a","b"]'`; MULTI_CHOICE
 *   elements must match choices (returned in the choices' own type), TAGS elements must be
 *   non-empty strings (numbers become text). Duplicates are dropped, order kept.
 * - DATE: `'YYYY-MM-DD'` naming a real calendar date (a `Date` object gives its calendar date,
 *   see {@link calendarDateOf}).
 * - DATETIME: an ISO 8601 date-time (zone-less text is UTC), or a `Date`; the result is
 *   `toISOString()`.
 * - REFERENCE_TABLE, REFERENCE_TREE: a positive integer id, or its digits as a string.
 * - COLLECTION: an array (or JSON-array text) of positive integer ids; deduplicated and sorted.
 * - ATTACHMENT: an array (or JSON-array text) of `{ id, name, size, type }`, at most
 *   `attachment.maxFiles`; duplicate ids are dropped. An empty list is `[]`, not null.
 *
 * @returns `{ ok: true, value }`, or `{ ok: false, message }` where `message` completes a
 * sentence about the field: `must be a number`.
 * @example
 * coerceValue(model.fields.price, '12.50'); // { ok: true, value: 12.5 }
 * coerceValue(model.fields.price, 'abc');   // { ok: false, message: 'must be a number' }
 */
export function coerceValue(field: FieldDefinition, value: unknown): CoerceResult {
  if (isEmptyInput(value)) return ok(null);
  if (isNumberField(field)) return toNumber(value, field.edit.integer);
  switch (field.edit.type) {
    case EditType.BOOLEAN:
      return toBoolean(value);
    case EditType.CHOICE:
      return toChoice(field, value);
    case EditType.MULTI_CHOICE:
      return toMultiChoice(field, value);
    case EditType.TAGS:
      return toTags(value);
    case EditType.DATE:
      return toDate(value);
    case EditType.DATETIME:
      return toDateTime(value);
    case EditType.REFERENCE_TABLE:
    case EditType.REFERENCE_TREE:
      return toReference(value);
    case EditType.COLLECTION:
      return toCollection(value);
    case EditType.ATTACHMENT:
      return toAttachments(field, value);
    default:
      return toText(value);
  }
}
