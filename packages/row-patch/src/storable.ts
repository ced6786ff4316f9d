import { EditType, type FieldDefinition, type FwErrorDetail, type ModelDefinition } from '@fw/core';
import type { FormRow } from './storage.js';
import { hasOwn } from './values.js';

/** The SQL dialects whose column limits {@link storageIssues} knows (the same names as `@fw/store`'s `FwDialect`). */
export type StorageDialect = 'sqlite' | 'postgres' | 'mysql' | 'mssql';

/** Inclusive bounds of a column type, as form values (DATE text, DATETIME `toISOString()` text, integers). */
export interface StorageBounds<T> {
  min: T;
  max: T;
}

/** What one dialect's columns store, for the column types Fw creates. */
export interface DialectLimits {
  /** DATE columns. */
  date: StorageBounds<string>;
  /** DATETIME columns (UTC instants: every store writes them in UTC). */
  datetime: StorageBounds<string>;
}

// The form representation already bounds years to 0001..9999. MySQL and MariaDB document DATE
// and DATETIME from the year 1000 only, and outside it they do not refuse: MariaDB stores
// `0001-01-01` as `2001-01-01` (issue 10 §7), so the bound is checked before writing. SQL Server
// columns made by Fw are DATE and DATETIME2 (0001..9999); a host column of the legacy DATETIME
// type (from 1753) needs a `range` rule of its own. SQLite keeps DATE as text and DATETIME as
// epoch milliseconds, PostgreSQL goes far beyond both ends.
const WIDE: DialectLimits = Object.freeze({
  date: { min: '0001-01-01', max: '9999-12-31' },
  datetime: { min: '0001-01-01T00:00:00.000Z', max: '9999-12-31T23:59:59.999Z' },
});

/** DATE and DATETIME bounds by dialect; see {@link storageIssues}. */
export const DIALECT_LIMITS: Readonly<Record<StorageDialect, DialectLimits>> = Object.freeze({
  sqlite: WIDE,
  postgres: WIDE,
  mssql: WIDE,
  mysql: Object.freeze({
    date: { min: '1000-01-01', max: '9999-12-31' },
    datetime: { min: '1000-01-01T00:00:00.000Z', max: '9999-12-31T23:59:59.999Z' },
  }),
});

/** The range of the 32-bit integer columns Fw creates for ids, references and `integer` numbers. */
const INT32_MAX = 2_147_483_647;

// A surrogate half without its partner is no character at all: UTF-8 cannot encode it, so each
// driver writes U+FFFD instead, and the stored text is not the text that was sent.
const LONE_SURROGATE = /\p{Cs}/u;

/** Why a text cannot be stored as it is, or undefined. */
function textProblem(value: string): string | undefined {
  if (value.includes('\u0000')) return 'must not contain the NUL character';
  if (LONE_SURROGATE.test(value)) return 'must be valid Unicode text (it holds half of a surrogate pair)';
  return undefined;
}

function badText(value: unknown): string | undefined {
  if (typeof value === 'string') return textProblem(value);
  if (!Array.isArray(value)) return undefined;
  for (const item of value) {
    const problem = typeof item === 'string' ? textProblem(item) : undefined;
    if (problem) return problem;
  }
  return undefined;
}

function fieldIssue(field: FieldDefinition, value: unknown, limits: DialectLimits): FwErrorDetail | undefined {
  const title = field.edit.title;
  // PostgreSQL refuses NUL in text outright and other databases cut or keep it; one answer for
  // every dialect, so a row that saves on SQLite also saves on PostgreSQL.
  const problem = badText(value);
  if (problem) return { path: field.name, type: 'invalidCharacter', message: `${title} ${problem}` };
  const type = field.edit.type;
  if ((type === EditType.DATE || type === EditType.DATETIME) && typeof value === 'string') {
    const bounds = type === EditType.DATE ? limits.date : limits.datetime;
    if (value < bounds.min)
      return { path: field.name, type: 'min', message: `${title} must be ${bounds.min} or later (the database stores no earlier ${type === EditType.DATE ? 'date' : 'time'})` };
    if (value > bounds.max)
      return { path: field.name, type: 'max', message: `${title} must be ${bounds.max} or earlier (the database stores no later ${type === EditType.DATE ? 'date' : 'time'})` };
  }
  // The join table's key columns are 32-bit like the ids they hold.
  if (type === EditType.COLLECTION && Array.isArray(value) && value.some((id) => typeof id === 'number' && id > INT32_MAX)) {
    return { path: field.name, type: 'max', message: `${title} holds an id beyond ${INT32_MAX}, which no row can have` };
  }
  return undefined;
}

/**
 * What the database could not store faithfully in a form row that is otherwise valid: a NUL
 * character or a lone surrogate in any text (every dialect alike), a DATE or DATETIME outside what `dialect`'s
 * columns hold ({@link DIALECT_LIMITS}; without a dialect, the bounds every dialect shares
 * beyond MySQL's), a COLLECTION id beyond the 32-bit key columns. Each is one detail on the
 * field (`invalidCharacter`, `min`, `max`), so it is refused as a validation failure instead of
 * failing in the driver or being stored as another value.
 *
 * `validateRow(model, row, { dialect })` includes these; call this only on its own.
 * @example storageIssues(Book, { published: '0001-01-01' }, 'mysql'); // [{ path: 'published', type: 'min', … }]
 */
export function storageIssues(model: ModelDefinition, row: Readonly<FormRow>, dialect?: StorageDialect): FwErrorDetail[] {
  const limits = dialect === undefined ? WIDE : DIALECT_LIMITS[dialect];
  const out: FwErrorDetail[] = [];
  for (const name of model.fieldNames) {
    const field = model.fields[name];
    if (!field || !hasOwn(row, name)) continue;
    const issue = fieldIssue(field, row[name], limits);
    if (issue) out.push(issue);
  }
  return out;
}
