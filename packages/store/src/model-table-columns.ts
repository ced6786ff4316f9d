// The column each field needs, by edit type: building it, naming its kind, and comparing it with
// the column a database has.
import { EditType, type FieldDefinition, type ModelDefinition } from '@fw/core';
import type { Knex } from 'knex';
import { schemaFor, splitTable, statements } from './model-table-sql.js';

export function integerKey(field: FieldDefinition | undefined): boolean {
  // An undeclared key is defineModel's default: a hidden integer.
  return field === undefined || field.edit.integer;
}

/**
 * The column of one stored field. Columns are nullable: required-ness is the model's rule,
 * checked by the data API with the whole row, so a definition can gain a required field without
 * a migration of existing rows.
 */
export function addColumn(t: Knex.TableBuilder, field: FieldDefinition): Knex.ColumnBuilder | undefined {
  const name = field.column;
  switch (field.edit.type) {
    case EditType.HIDDEN:
      // A hidden id (an owner, a tenant) is a number: compared, sorted and joined as one.
      return field.edit.integer ? t.integer(name) : t.string(name, 255);
    case EditType.INPUT:
    case EditType.PASSWORD:
    case EditType.CHOICE:
      return t.string(name, 255);
    case EditType.TEXTAREA:
    case EditType.MULTI_CHOICE:
    case EditType.TAGS:
    case EditType.ATTACHMENT:
      return t.text(name);
    case EditType.NUMBER:
      return field.edit.integer ? t.integer(name) : t.double(name);
    case EditType.BOOLEAN:
      return t.boolean(name);
    case EditType.DATE:
      return t.date(name);
    case EditType.DATETIME:
      return t.datetime(name, { precision: 3 });
    case EditType.REFERENCE_TABLE:
    case EditType.REFERENCE_TREE:
      // Unsigned to match `increments` on MySQL, should a host add a foreign key later.
      return t.integer(name).unsigned();
    case EditType.COLLECTION:
      return undefined;
  }
}

export function keyColumn(t: Knex.TableBuilder, name: string, integer: boolean): void {
  (integer ? t.integer(name).unsigned() : t.string(name, 255)).notNullable();
}

export type Family = 'string' | 'text' | 'integer' | 'float' | 'boolean' | 'date' | 'datetime';
// MySQL reports `tinyint` for both booleans (tinyint(1)) and small integers.
type ActualFamily = Family | 'tinyint' | 'unknown';

// The kind of column a field needs is decided by defineModel (core's field-capabilities.ts); a
// double is this module's `float`.
export function fieldFamily(field: FieldDefinition): Family | undefined {
  const kind = field.capabilities.storedKind;
  return kind === 'number' ? 'float' : kind;
}

export function actualFamily(info: Knex.ColumnInfo): ActualFamily {
  const type = String(info.type).toLowerCase();
  if (type === 'tinyint') return 'tinyint';
  if (type === 'bit' || type.startsWith('bool')) return 'boolean';
  if (type.includes('text') || type === 'clob' || type === 'ntext') return 'text';
  if (type.includes('char')) return info.maxLength === -1 || String(info.maxLength) === '-1' ? 'text' : 'string';
  if (type.includes('int')) return 'integer';
  if (/double|float|real|numeric|decimal|money/.test(type)) return 'float';
  if (type === 'date') return 'date';
  if (type.includes('timestamp') || type.startsWith('datetime')) return 'datetime';
  return 'unknown';
}

// SQLite keeps any value in any column (type affinity), so only a change of kind is a change there.
const SQLITE_KINDS: Record<Family, string> = { string: 's', text: 's', integer: 'n', float: 'n', boolean: 'n', date: 't', datetime: 't' };

export function compatible(expected: Family, actual: ActualFamily, dialect: string): boolean {
  if (actual === 'unknown' || actual === expected) return true;
  if (dialect === 'sqlite') return actual !== 'tinyint' && SQLITE_KINDS[actual] === SQLITE_KINDS[expected];
  if (actual === 'tinyint') return expected === 'boolean' || expected === 'integer';
  // A wider column holds every value the field gives it.
  if (expected === 'string' && actual === 'text') return true;
  if (expected === 'integer' && actual === 'float') return true;
  return false;
}

export const FAMILY_WORDS: Record<Family, string> = {
  string: 'a string (varchar 255)',
  text: 'long text',
  integer: 'an integer',
  float: 'a number',
  boolean: 'a boolean',
  date: 'a date',
  datetime: 'a date and time',
};

/** A default the column itself can carry: a scalar, except on long text (MySQL refuses defaults there). */
export function columnDefault(field: FieldDefinition, family: Family): string | number | boolean | undefined {
  const value = field.edit.defaultValue;
  if (family === 'text') return undefined;
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' ? value : undefined;
}

/** The value existing rows get for a default the column cannot carry (JSON for lists). */
export function fillValue(field: FieldDefinition): string | number | boolean | undefined {
  const value = field.edit.defaultValue;
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return value;
  return JSON.stringify(value);
}

export function buildModelTable(model: ModelDefinition): (t: Knex.CreateTableBuilder) => void {
  return (t) => {
    // The key first: defineModel appends an undeclared key after the declared fields.
    const names = [model.primaryKey, ...model.fieldNames.filter((n) => n !== model.primaryKey)];
    for (const name of names) {
      const field = model.fields[name];
      if (!field || !field.stored) continue;
      if (field.primaryKey && integerKey(field)) {
        t.increments(field.column);
        continue;
      }
      const column = addColumn(t, field);
      // A hashed password whose salt has a column of its own (hex of 16 bytes).
      if (field.edit.saltColumn !== undefined) t.string(field.edit.saltColumn, 64);
      if (column && field.primaryKey) column.notNullable().primary();
    }
  };
}

/**
 * SQLite changes a column's type only by rebuilding it (knex's `alter()` needs a live connection to
 * do so): a new column, the values copied, the old one dropped (SQLite 3.35+) and the new renamed.
 */
export function sqliteRetype(knex: Knex, name: string, field: FieldDefinition, column: string, salt: boolean): string {
  const tmp = `${column}__new`;
  const add = schemaFor(knex, name)
    .builder.alterTable(splitTable(name).table, (t) => {
      if (salt) t.string(tmp, 64);
      else addColumn(t, { ...field, column: tmp });
    })
    .toString();
  return statements(
    [
      add,
      knex(name)
        .update({ [tmp]: knex.ref(column) })
        .toString(),
      knex.raw('alter table ?? drop column ??', [name, column]).toString(),
      knex.raw('alter table ?? rename column ?? to ??', [name, tmp, column]).toString(),
    ].join(';\n'),
  );
}
