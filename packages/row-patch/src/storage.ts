import { EditType, type FieldDefinition, type ModelDefinition } from '@fw/core';
import { calendarDateOf, coerceValue } from './coerce.js';
import { formValuesEqual, hasOwn, setOwn, type Row } from './values.js';

/** A row keyed by field name, values in the form representation (see `FormValue`). */
export type FormRow = Record<string, unknown>;

/** A row keyed by column, values as a driver returns them or as knex writes them. */
export type DbRow = Record<string, unknown>;

const DATE_PREFIX = /^(\d{4}-\d{2}-\d{2})[Tt ]\d{2}:\d{2}/;
const EPOCH = /^-?\d+$/;

/** Undoes the shapes drivers give that a client never sends: binary text and bits, bigints, epochs. */
function fromDriver(field: FieldDefinition, raw: unknown): unknown {
  let value = raw;
  if (value instanceof Uint8Array) {
    // MySQL BIT(1) is a one-byte buffer; binary text columns are buffers too.
    value = field.edit.type === EditType.BOOLEAN && value.length === 1 ? value[0] : new TextDecoder().decode(value);
  }
  if (typeof value === 'bigint') value = Number.isSafeInteger(Number(value)) ? Number(value) : String(value);
  switch (field.edit.type) {
    case EditType.DATE:
      if (typeof value === 'number' || (typeof value === 'string' && EPOCH.test(value))) return calendarDateOf(new Date(Number(value)));
      if (typeof value === 'string') {
        // A date-time text names its calendar date in its first ten characters, whatever its zone.
        const prefix = DATE_PREFIX.exec(value.trim());
        if (prefix) return prefix[1];
        if (value.length > 10) {
          const date = new Date(value);
          if (!Number.isNaN(date.getTime())) return calendarDateOf(date);
        }
      }
      return value;
    case EditType.DATETIME:
      // SQLite hands back the epoch milliseconds knex bound for a Date.
      if (typeof value === 'number' || (typeof value === 'string' && EPOCH.test(value))) return new Date(Number(value));
      return value;
    default:
      return value;
  }
}

/**
 * Turns a database row (keys = columns, values as the driver returns them) into the form row
 * (keys = field names, values in the form representation), the shape the row schema validates
 * and `patchRow` patches.
 *
 * - Driver shapes are understood: 0/1 (SQLite, MySQL tinyint) and one-byte buffers (MySQL BIT)
 *   for booleans; numeric strings (PostgreSQL numeric and bigint, MySQL decimal) for numbers and
 *   ids; JSON text or already-parsed arrays for MULTI_CHOICE and TAGS; `Date` objects, strings or
 *   epoch milliseconds for dates.
 * - DATE from a `Date` object: the UTC calendar date when the `Date` is exactly at UTC midnight
 *   (SQL Server, SQLite), otherwise the local calendar date (node-postgres and mysql2 build DATE
 *   values at local midnight). DATETIME becomes `toISOString()`.
 * - PASSWORD fields are left out: a password is never returned.
 * - COLLECTION fields have no column and are left out; a caller that loads the join table adds
 *   them itself.
 * - A column missing from `dbRow` is left out (not invented as null).
 * - A stored value the field's type cannot convert (a choice since removed from the definition)
 *   is kept as it is, so the read succeeds and validating the row reports that field.
 *
 * @example
 * toFormRow(Book, { id: 7, is_public: 1, tags: '["a"]', published_on: new Date('2024-03-05T00:00:00Z') });
 * // { id: 7, isPublic: true, tags: ['a'], publishedOn: '2024-03-05' }
 */
export function toFormRow(model: ModelDefinition, dbRow: Readonly<DbRow>): FormRow {
  const row: FormRow = {};
  for (const { name, column, convert } of readersOf(model)) {
    if (!hasOwn(dbRow, column)) continue;
    // Field names are identifiers and never prototype keys (defineModel refuses those), so a plain
    // assignment is safe, and keeps rows fast to build and to serialize.
    row[name] = convert(dbRow[column]);
  }
  return row;
}

interface FieldReader {
  name: string;
  column: string;
  convert: (raw: unknown) => unknown;
}

// Built once per model: toFormRow runs for every row of every read. Which fields are read is the
// model's (capabilities.readableFields); what is cached here are the conversion functions.
const readers = new WeakMap<ModelDefinition, FieldReader[]>();

function readersOf(model: ModelDefinition): FieldReader[] {
  let list = readers.get(model);
  if (!list) {
    list = model.capabilities.readableFields.map((name) => model.fields[name]!).map((field) => ({ name: field.name, column: field.column, convert: readerOf(field) }));
    readers.set(model, list);
  }
  return list;
}

const PLAIN_DATE = /^\d{4}-\d{2}-\d{2}$/;

/**
 * The driver-to-form conversion of one field: a fast answer for values already in form shape
 * (what drivers return most of the time), the full conversion otherwise.
 */
function readerOf(field: FieldDefinition): (raw: unknown) => unknown {
  const full = (raw: unknown): unknown => {
    const result = coerceValue(field, fromDriver(field, raw));
    return result.ok ? result.value : raw;
  };
  const type = field.edit.type;
  if (type === EditType.INPUT || type === EditType.TEXTAREA || (type === EditType.HIDDEN && !field.edit.integer)) {
    return (raw) => (typeof raw === 'string' && raw !== '' ? raw : raw === null ? null : full(raw));
  }
  if (type === EditType.NUMBER || (type === EditType.HIDDEN && field.edit.integer) || type === EditType.REFERENCE_TABLE || type === EditType.REFERENCE_TREE) {
    const integer = field.edit.integer || type !== EditType.NUMBER;
    return (raw) =>
      typeof raw === 'number' && raw !== 0 && (integer ? Number.isSafeInteger(raw) && (type === EditType.NUMBER || type === EditType.HIDDEN || raw > 0) : Number.isFinite(raw))
        ? raw
        : raw === null
          ? null
          : full(raw);
  }
  if (type === EditType.BOOLEAN) return (raw) => (raw === 1 || raw === true ? true : raw === 0 || raw === false ? false : raw === null ? null : full(raw));
  if (type === EditType.DATE)
    return (raw) => (typeof raw === 'string' && PLAIN_DATE.test(raw) && raw.slice(5) !== '02-29' && raw.slice(8) <= '30' ? raw : raw === null ? null : full(raw));
  return full;
}

function toDbValue(field: FieldDefinition, value: unknown): unknown {
  if (value === null) return null;
  switch (field.edit.type) {
    case EditType.MULTI_CHOICE:
    case EditType.TAGS:
    case EditType.ATTACHMENT:
      return Array.isArray(value) ? JSON.stringify(value) : value;
    case EditType.DATETIME:
      return typeof value === 'string' ? new Date(value) : value;
    default:
      return value;
  }
}

/**
 * Turns form values (keys = field names) into column-keyed values for a knex insert or update:
 * booleans stay booleans (knex binds them as 0/1 where needed), MULTI_CHOICE and TAGS become
 * JSON text, DATE stays `'YYYY-MM-DD'`, DATETIME becomes a `Date`. COLLECTION fields (join
 * table), unknown names and `undefined` values are skipped. PASSWORD values are written as
 * given: hashing them is the caller's job.
 *
 * @example
 * toDbValues(Book, { isPublic: true, tags: ['a'] }); // { is_public: true, tags: '["a"]' }
 */
export function toDbValues(model: ModelDefinition, formValues: Readonly<FormRow>): DbRow {
  const out: DbRow = {};
  for (const [name, value] of Object.entries(formValues)) {
    if (value === undefined || !hasOwn(model.fields, name)) continue;
    const field = model.fields[name];
    if (!field || !field.stored) continue;
    setOwn(out, field.column, toDbValue(field, value));
  }
  return out;
}

/**
 * The column-keyed values (as {@link toDbValues} makes them) of the stored fields whose form
 * value differs between `storedFormRow` and `nextFormRow`; arrays compare element by element.
 * Names absent from `nextFormRow` are not changes. Writing only these keeps a concurrent edit of
 * another cell of the same row.
 *
 * @example
 * changedColumns(Book, { title: 'A', tags: ['x'] }, { title: 'A', tags: ['x', 'y'] }); // { tags: '["x","y"]' }
 */
export function changedColumns(model: ModelDefinition, storedFormRow: Readonly<FormRow>, nextFormRow: Readonly<FormRow>): DbRow {
  const changed: Row = {};
  for (const [name, value] of Object.entries(nextFormRow)) {
    if (value === undefined || !hasOwn(model.fields, name) || !model.fields[name]?.stored) continue;
    if (!formValuesEqual(hasOwn(storedFormRow, name) ? storedFormRow[name] : undefined, value)) setOwn(changed, name, value);
  }
  return toDbValues(model, changed);
}
