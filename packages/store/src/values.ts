import objection from 'objection';
import type { Knex } from 'knex';
import { FwError } from '@fw/core';
import type { FwDialect } from './dialect.js';

/**
 * A stored datetime as a `Date`. Drivers disagree: pg, mysql2 and tedious give `Date`s, SQLite
 * gives the epoch milliseconds knex's better-sqlite3 client bound (or a `CURRENT_TIMESTAMP`-style
 * UTC string written by some other tool).
 */
export function toDate(value: unknown): Date | null {
  if (value === null || value === undefined) return null;
  if (value instanceof Date) return value;
  if (typeof value === 'number' || typeof value === 'bigint') return new Date(Number(value));
  if (typeof value === 'string') {
    if (/^-?\d+$/.test(value)) return new Date(Number(value));
    // SQLite's own `datetime('now')` text is UTC without a zone designator.
    const iso = /^\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/.test(value) ? `${value.replace(' ', 'T')}Z` : value;
    const date = new Date(iso);
    if (!Number.isNaN(date.getTime())) return date;
  }
  throw new TypeError(`not a stored datetime: ${String(value)}`);
}

/** A datetime column that must hold a value. */
export function toRequiredDate(value: unknown): Date {
  const date = toDate(value);
  if (date === null) throw new TypeError('a not-null datetime column held null');
  return date;
}

/** A stored boolean: SQLite and MySQL give 0 / 1, SQL Server and PostgreSQL give booleans. */
export function toBoolean(value: unknown): boolean {
  if (typeof value === 'string') return value === '1' || value.toLowerCase() === 'true';
  return Boolean(value);
}

/** A numeric id: PostgreSQL returns `bigint` columns (the log ids) as strings. */
export function toId(value: unknown): number {
  const id = typeof value === 'number' ? value : Number(value);
  if (!Number.isSafeInteger(id)) throw new TypeError(`not a numeric id: ${String(value)}`);
  return id;
}

/** A nullable numeric id. */
export function toOptionalId(value: unknown): number | null {
  return value === null || value === undefined ? null : toId(value);
}

/** A nullable string column. */
export function toOptionalString(value: unknown): string | null {
  return value === null || value === undefined ? null : String(value);
}

function property(value: unknown, key: string): unknown {
  return typeof value === 'object' && value !== null && key in value ? (value as Record<string, unknown>)[key] : undefined;
}

/**
 * True when `error` is a unique-key violation on any of the four dialects, whether objection
 * wrapped it (`UniqueViolationError`) or the driver threw it raw (better-sqlite3 is not wrapped).
 */
export function isUniqueViolation(error: unknown): boolean {
  for (let e: unknown = error, depth = 0; e !== undefined && e !== null && depth < 4; depth++) {
    if (e instanceof objection.UniqueViolationError) return true;
    const code = property(e, 'code');
    if (code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY' || code === '23505' || code === 'ER_DUP_ENTRY') return true;
    const number = property(e, 'number');
    if (number === 2627 || number === 2601) return true;
    e = property(e, 'nativeError') ?? property(e, 'cause');
  }
  return false;
}

/**
 * Runs `write`, turning a unique-key violation into a 409 `CONFLICT` naming the field, so two
 * instances racing to create the same account fail the same way as a plain duplicate.
 */
export async function conflictOnDuplicate<T>(write: () => PromiseLike<T>, path: string, message: string): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (isUniqueViolation(error)) throw new FwError('CONFLICT', message, { details: [{ path, type: 'unique', message }], cause: error });
    throw error;
  }
}

/** Refuses a value outside an enumeration with a 422 naming the field. */
export function checkOneOf<T extends string>(path: string, value: unknown, allowed: readonly T[]): T {
  if (typeof value === 'string' && (allowed as readonly string[]).includes(value)) return value as T;
  throw invalid(path, 'oneOf', `must be one of ${allowed.join(', ')}, got ${JSON.stringify(value)}`);
}

/** Unique positive integer ids, or a 422 naming the field. */
export function checkIds(path: string, ids: readonly unknown[]): number[] {
  if (!Array.isArray(ids)) throw invalid(path, 'typeError', 'must be an array of ids');
  const out = new Set<number>();
  for (const id of ids) {
    if (!isRowId(id)) throw invalid(path, 'typeError', `must hold positive integer ids, got ${JSON.stringify(id)}`);
    out.add(id);
  }
  return [...out];
}

/**
 * Inserts one row and returns its generated `id`. MySQL has no `RETURNING` (knex warns on every
 * call if asked), so it reads the insert id instead; the others return the column.
 */
export async function insertReturningId(db: Knex | Knex.Transaction, dialect: FwDialect, table: string, row: Record<string, unknown>): Promise<number> {
  if (dialect === 'mysql') {
    const [id] = await db(table).insert(row);
    return toId(id);
  }
  const [returned] = await db(table).insert(row).returning('id');
  return toId(property(returned, 'id') ?? returned);
}

/** Clamps a list limit to a sane positive integer. */
export function checkLimit(limit: unknown, fallback: number, max = 10_000): number {
  if (limit === undefined) return fallback;
  if (typeof limit !== 'number' || !Number.isSafeInteger(limit) || limit <= 0) throw invalid('limit', 'typeError', `must be a positive integer, got ${JSON.stringify(limit)}`);
  return Math.min(limit, max);
}

function invalid(path: string, type: string, message: string): FwError {
  return new FwError('VALIDATION_FAILED', `${path} ${message}`, { details: [{ path, type, message }] });
}

/** A required string of at most `max` characters (a column's size), or a 422 naming the field. */
export function checkText(path: string, value: unknown, max: number): string {
  if (typeof value !== 'string' || value.trim() === '') throw invalid(path, 'required', 'must be a non-empty string');
  if (value.length > max) throw invalid(path, 'max', `must be at most ${max} characters`);
  return value;
}

/** An optional string column: undefined and null both store NULL. */
export function checkOptionalText(path: string, value: unknown, max: number): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string') throw invalid(path, 'typeError', 'must be a string or null');
  if (value.length > max) throw invalid(path, 'max', `must be at most ${max} characters`);
  return value;
}

/** A log column: too long a value is cut, because a log write must not fail the request it records. */
export function clip(value: unknown, max: number): string | null {
  if (value === undefined || value === null) return null;
  const text = String(value);
  return text.length > max ? text.slice(0, max) : text;
}

// Control, format (zero-width, bidi), surrogate-half, private-use, unassigned and line/paragraph
// separator characters: nothing a person reading a log should be shown raw.
const UNPRINTABLE = /[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}]/gu;

/**
 * Text typed by an unauthenticated client (an account name on a failed sign-in), made fit for a
 * log column an administrator reads: Unicode NFC; every unprintable character (control, invisible,
 * direction-changing, a lone surrogate) replaced by U+FFFD, so `admin` + U+200B does not show as
 * `admin` and PostgreSQL is never handed a NUL; cut to `max` UTF-16 code units without splitting
 * a surrogate pair (SQL Server's `nvarchar(n)` counts code units, the others characters).
 */
export function logText(value: unknown, max: number): string | null {
  if (value === undefined || value === null) return null;
  // Well-formed first: normalize() keeps lone surrogates, which the replacement then catches.
  let text = String(value).normalize('NFC').replace(UNPRINTABLE, '\uFFFD');
  if (text.length > max) {
    text = text.slice(0, max);
    // A high surrogate left at the end lost its pair to the cut.
    if (/[\uD800-\uDBFF]$/.test(text)) text = text.slice(0, -1);
  }
  return text;
}

/** An optional datetime: a valid `Date` or null. */
export function checkOptionalDate(path: string, value: unknown): Date | null {
  if (value === undefined || value === null) return null;
  if (!(value instanceof Date) || Number.isNaN(value.getTime())) throw invalid(path, 'typeError', 'must be a valid Date or null');
  return value;
}

/** A boolean option. */
export function checkBoolean(path: string, value: unknown, fallback: boolean): boolean {
  if (value === undefined) return fallback;
  if (typeof value !== 'boolean') throw invalid(path, 'typeError', 'must be true or false');
  return value;
}

/** A 32-bit integer option (sort orders, durations). */
export function checkInteger(path: string, value: unknown, fallback: number): number {
  if (value === undefined || value === null) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < -2_147_483_648 || value > 2_147_483_647) {
    throw invalid(path, 'typeError', 'must be a 32-bit integer');
  }
  return value;
}

/** An optional reference to another row by id. */
export function checkOptionalId(path: string, value: unknown): number | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value <= 0) throw invalid(path, 'typeError', 'must be a positive integer id or null');
  return value;
}

/** True for a value that can be a row id; anything else matches no row. */
export function isRowId(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value > 0;
}

/** Splits rows into chunks that stay under SQL Server's 2,100 bound parameters per statement. */
export function chunks<T>(items: readonly T[], size = 500): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/** Checked paging of a list: `limit` undefined means every row. */
export function checkPaging(options: { limit?: unknown; offset?: unknown }): { limit: number | undefined; offset: number } {
  const offset = checkInteger('offset', options.offset, 0);
  if (offset < 0) throw invalid('offset', 'min', 'must not be negative');
  return { limit: options.limit === undefined ? undefined : checkLimit(options.limit, 100), offset };
}

/** A query with checked `limit` / `offset` paging options applied (the repositories' `list`). */
export function paged<Q extends { limit(n: number): Q; offset(n: number): Q }>(query: Q, options: { limit?: unknown; offset?: unknown }): Q {
  const { limit, offset } = checkPaging(options);
  let out = query;
  if (limit !== undefined) out = out.limit(limit);
  if (offset > 0) out = out.offset(offset);
  return out;
}

/** A clear-text password: any non-empty string up to 1024 characters (spaces are characters too). */
export function checkPassword(value: unknown): string {
  if (typeof value !== 'string' || value.length === 0) throw invalid('password', 'required', 'must be a non-empty string');
  if (value.length > 1024) throw invalid('password', 'max', 'must be at most 1024 characters');
  return value;
}
