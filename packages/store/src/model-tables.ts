import { BUILTIN_MODELS, EditType, type FieldDefinition, type ModelDefinition } from '@fw/core';
import type { Knex } from 'knex';
import { dialectOfKnex } from './dialect.js';

function splitTable(name: string): { schema: string | undefined; table: string } {
  const dot = name.indexOf('.');
  return dot < 0 ? { schema: undefined, table: name } : { schema: name.slice(0, dot), table: name.slice(dot + 1) };
}

function schemaFor(knex: Knex, name: string): { builder: Knex.SchemaBuilder; table: string } {
  const { schema, table } = splitTable(name);
  return { builder: schema === undefined ? knex.schema : knex.schema.withSchema(schema), table };
}

function hasTable(knex: Knex, name: string): Promise<boolean> {
  const { builder, table } = schemaFor(knex, name);
  return builder.hasTable(table);
}

function integerKey(field: FieldDefinition | undefined): boolean {
  // An undeclared key is defineModel's default: a hidden integer.
  return field === undefined || field.edit.integer;
}

/**
 * The column of one stored field. Columns are nullable: required-ness is the model's rule,
 * checked by the data API with the whole row, so a definition can gain a required field without
 * a migration of existing rows.
 */
function addColumn(t: Knex.TableBuilder, field: FieldDefinition): Knex.ColumnBuilder | undefined {
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

function keyColumn(t: Knex.TableBuilder, name: string, integer: boolean): void {
  (integer ? t.integer(name).unsigned() : t.string(name, 255)).notNullable();
}

async function createIfMissing(knex: Knex, name: string, build: (t: Knex.CreateTableBuilder) => void): Promise<boolean> {
  if (await hasTable(knex, name)) return false;
  const mysql = dialectOfKnex(knex) === 'mysql';
  const { builder, table } = schemaFor(knex, name);
  try {
    await builder.createTable(table, (t) => {
      if (mysql) t.charset('utf8mb4');
      build(t);
    });
    return true;
  } catch (error) {
    // Another instance created it between our check and our CREATE: that is the same outcome.
    if (await hasTable(knex, name)) return false;
    throw error;
  }
}

/** What differs between a model and its table. */
export type ModelTableChangeKind =
  /** The model's table does not exist: it is created (safe). */
  | 'missingTable'
  /** A COLLECTION field's join table does not exist: it is created (safe). */
  | 'missingJoinTable'
  /** A stored field has no column: the column is added, nullable, with the field's default (safe). */
  | 'missingColumn'
  /** The column's type is not the one the field needs (unsafe: converting may lose data). */
  | 'typeChanged'
  /** A column no field maps to holds values (unsafe: the field was dropped or renamed while it had data). */
  | 'droppedField'
  /** A new `notNull` field without a default on a table with rows: those rows would break the model's rule (unsafe). */
  | 'notNullWithoutDefault'
  /** The table exists without the model's primary-key column (unsafe: no safe SQL adds a key to a table with rows). */
  | 'missingPrimaryKey'
  /** A column no field maps to, empty: left alone, reported as a note. */
  | 'extraColumn';

/** One difference between a model definition and the database. */
export interface ModelTableChange {
  /** The model's name (for a join table, the model declaring the COLLECTION field). */
  readonly model: string;
  /** The table, as the model names it (`schema.table` or `table`). */
  readonly table: string;
  /** The field concerned, when there is one. */
  readonly field?: string;
  /** The column concerned, when there is one. */
  readonly column?: string;
  readonly kind: ModelTableChangeKind;
  /** One line a person can act on. */
  readonly message: string;
  /**
   * SQL for this database's dialect: what start-up runs for a safe change; for an unsafe one, what
   * a person could run once they have decided (after saving data, or choosing a value where the SQL
   * says `<value>`). Statements end with `;`.
   */
  readonly sql: string;
}

/** The differences between models and the database, sorted by what start-up does with them. */
export interface ModelTablesPlan {
  /** Applied by {@link createModelTables} (tables created, columns added). */
  readonly safe: ModelTableChange[];
  /** Each stops {@link createModelTables} with a {@link ModelTablesError}; nothing is applied. */
  readonly unsafe: ModelTableChange[];
  /** Reported only (empty columns no field maps to). */
  readonly notes: ModelTableChange[];
}

/**
 * The database cannot be brought in line with the models without a person deciding: thrown by
 * {@link createModelTables} before anything is changed. The message lists every difference with
 * the SQL a person could run; `differences` has them as data.
 */
export class ModelTablesError extends Error {
  override readonly name = 'ModelTablesError';
  readonly differences: readonly ModelTableChange[];
  constructor(differences: readonly ModelTableChange[]) {
    super(describeModelTableChanges(differences));
    this.differences = differences;
  }
}

/**
 * The text of a {@link ModelTablesError}: a heading line, then per difference its message and the
 * SQL, indented. `fw doctor` prints the same.
 */
export function describeModelTableChanges(differences: readonly ModelTableChange[]): string {
  const lines = [`The database differs from the model definitions in ${differences.length} way${differences.length === 1 ? '' : 's'} that cannot be applied safely:`];
  for (const d of differences) {
    lines.push(`- ${d.message}`);
    for (const line of d.sql.split('\n')) lines.push(`    ${line}`);
  }
  return lines.join('\n');
}

type Family = 'string' | 'text' | 'integer' | 'float' | 'boolean' | 'date' | 'datetime';
// MySQL reports `tinyint` for both booleans (tinyint(1)) and small integers.
type ActualFamily = Family | 'tinyint' | 'unknown';

function fieldFamily(field: FieldDefinition): Family | undefined {
  if (field.primaryKey) return integerKey(field) ? 'integer' : 'string';
  switch (field.edit.type) {
    case EditType.HIDDEN:
      return field.edit.integer ? 'integer' : 'string';
    case EditType.INPUT:
    case EditType.PASSWORD:
    case EditType.CHOICE:
      return 'string';
    case EditType.TEXTAREA:
    case EditType.MULTI_CHOICE:
    case EditType.TAGS:
    case EditType.ATTACHMENT:
      return 'text';
    case EditType.NUMBER:
      return field.edit.integer ? 'integer' : 'float';
    case EditType.BOOLEAN:
      return 'boolean';
    case EditType.DATE:
      return 'date';
    case EditType.DATETIME:
      return 'datetime';
    case EditType.REFERENCE_TABLE:
    case EditType.REFERENCE_TREE:
      return 'integer';
    case EditType.COLLECTION:
      return undefined;
  }
}

function actualFamily(info: Knex.ColumnInfo): ActualFamily {
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

function compatible(expected: Family, actual: ActualFamily, dialect: string): boolean {
  if (actual === 'unknown' || actual === expected) return true;
  if (dialect === 'sqlite') return actual !== 'tinyint' && SQLITE_KINDS[actual] === SQLITE_KINDS[expected];
  if (actual === 'tinyint') return expected === 'boolean' || expected === 'integer';
  // A wider column holds every value the field gives it.
  if (expected === 'string' && actual === 'text') return true;
  if (expected === 'integer' && actual === 'float') return true;
  return false;
}

const FAMILY_WORDS: Record<Family, string> = {
  string: 'a string (varchar 255)',
  text: 'long text',
  integer: 'an integer',
  float: 'a number',
  boolean: 'a boolean',
  date: 'a date',
  datetime: 'a date and time',
};

/** A default the column itself can carry: a scalar, except on long text (MySQL refuses defaults there). */
function columnDefault(field: FieldDefinition, family: Family): string | number | boolean | undefined {
  const value = field.edit.defaultValue;
  if (family === 'text') return undefined;
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' ? value : undefined;
}

/** The value existing rows get for a default the column cannot carry (JSON for lists). */
function fillValue(field: FieldDefinition): string | number | boolean | undefined {
  const value = field.edit.defaultValue;
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return value;
  return JSON.stringify(value);
}

function statements(sql: string): string {
  return sql
    .split(/;\s*\n/)
    .map((s) => s.trim().replace(/;$/, ''))
    .filter((s) => s.length > 0)
    .map((s) => `${s};`)
    .join('\n');
}

interface PlannedChange extends ModelTableChange {
  /** Applies a safe change; true when it created a table. */
  readonly apply?: () => Promise<boolean>;
}

interface Plan {
  safe: PlannedChange[];
  unsafe: PlannedChange[];
  notes: PlannedChange[];
}

function knexOf(db: Knex | { readonly knex: Knex }): Knex {
  return typeof db === 'function' ? db : db.knex;
}

function createSql(knex: Knex, name: string, build: (t: Knex.CreateTableBuilder) => void): string {
  const mysql = dialectOfKnex(knex) === 'mysql';
  const { builder, table } = schemaFor(knex, name);
  return statements(
    builder
      .createTable(table, (t) => {
        if (mysql) t.charset('utf8mb4');
        build(t);
      })
      .toString(),
  );
}

function buildModelTable(model: ModelDefinition): (t: Knex.CreateTableBuilder) => void {
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
function sqliteRetype(knex: Knex, name: string, field: FieldDefinition, column: string, salt: boolean): string {
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

function blocksInserts(info: Knex.ColumnInfo | undefined): boolean {
  return info !== undefined && !info.nullable && (info.defaultValue === null || info.defaultValue === undefined);
}

async function hasRows(knex: Knex, name: string, column?: string): Promise<boolean> {
  const query = knex(name).select(knex.raw('1 as present')).limit(1);
  if (column !== undefined) query.whereNotNull(column);
  return (await query).length > 0;
}

// Built-in tables belong to the migrations, which keep columns of their own (a login log's token
// hash): comparing them with the built-in models would call those dropped fields.
const BUILTIN_TABLES = new Set(BUILTIN_MODELS.map((m) => m.table));

async function planModel(knex: Knex, model: ModelDefinition, plan: Plan): Promise<void> {
  const dialect = dialectOfKnex(knex);
  const name = model.table;
  const { table } = splitTable(name);
  if (!(await hasTable(knex, name))) {
    const build = buildModelTable(model);
    plan.safe.push({
      model: model.name,
      table: name,
      kind: 'missingTable',
      message: `${model.name}: table ${name} does not exist; it is created`,
      sql: createSql(knex, name, build),
      apply: () => createIfMissing(knex, name, build),
    });
    return;
  }
  if (BUILTIN_TABLES.has(name)) return;
  const { schema } = splitTable(name);
  const infoQuery = schema === undefined ? knex(table) : knex(table).withSchema(schema);
  const info = (await infoQuery.columnInfo()) as unknown as Record<string, Knex.ColumnInfo>;
  // Column names compared without case: MySQL and SQL Server are case-insensitive about them.
  const actual = new Map(Object.entries(info).map(([column, i]) => [column.toLowerCase(), i]));
  const expected = new Set<string>();
  let nonEmpty: boolean | undefined;
  const tableHasRows = async () => (nonEmpty ??= await hasRows(knex, name));
  for (const fieldName of model.fieldNames) {
    const field = model.fields[fieldName];
    if (!field || !field.stored) continue;
    const family = fieldFamily(field);
    if (family === undefined) continue;
    const columns: Array<{ column: string; family: Family; salt: boolean }> = [{ column: field.column, family, salt: false }];
    if (field.edit.saltColumn !== undefined) columns.push({ column: field.edit.saltColumn, family: 'string', salt: true });
    for (const c of columns) {
      expected.add(c.column.toLowerCase());
      const present = actual.get(c.column.toLowerCase());
      const where = `${model.name}.${field.name}: column ${name}.${c.column}`;
      if (present) {
        const found = actualFamily(present);
        if (!compatible(c.family, found, dialect)) {
          const alterSql = () =>
            schemaFor(knex, name)
              .builder.alterTable(table, (t) => {
                if (c.salt) t.string(c.column, 64).alter();
                else addColumn(t, field)?.alter();
              })
              .toString();
          const sql = dialect === 'sqlite' ? sqliteRetype(knex, name, field, c.column, c.salt) : statements(alterSql());
          plan.unsafe.push({
            model: model.name,
            table: name,
            field: field.name,
            column: c.column,
            kind: 'typeChanged',
            message: `${where} is ${String(present.type)} but the field needs ${FAMILY_WORDS[c.family]}; convert it (check its values first)`,
            sql,
          });
        }
        continue;
      }
      if (field.primaryKey) {
        plan.unsafe.push({
          model: model.name,
          table: name,
          field: field.name,
          column: c.column,
          kind: 'missingPrimaryKey',
          message: `${where} (the primary key) does not exist; the table's key must be created by hand`,
          sql: '-- no safe SQL: recreate the table with its key, or point the model at the right column',
        });
        continue;
      }
      const defaultValue = c.salt ? undefined : columnDefault(field, c.family);
      const fill = c.salt || defaultValue !== undefined ? undefined : fillValue(field);
      const alterSql = schemaFor(knex, name)
        .builder.alterTable(table, (t) => {
          const column = c.salt ? t.string(c.column, 64) : addColumn(t, field);
          if (column && defaultValue !== undefined) column.defaultTo(defaultValue);
        })
        .toString();
      const fillSql = (value: string) =>
        knex(name)
          .whereNull(c.column)
          .update({ [c.column]: knex.raw(value) })
          .toString();
      if (!c.salt && field.edit.notNull && defaultValue === undefined && fill === undefined && (await tableHasRows())) {
        plan.unsafe.push({
          model: model.name,
          table: name,
          field: field.name,
          column: c.column,
          kind: 'notNullWithoutDefault',
          message: `${where} is missing; the field is required (notNull) and has no default, but the table has rows that would have no value. Give the field an edit.defaultValue, or add the column and fill it`,
          sql: statements(`${alterSql};\n${fillSql('<value>')}`),
        });
        continue;
      }
      const filled = fill !== undefined && (await tableHasRows());
      plan.safe.push({
        model: model.name,
        table: name,
        field: field.name,
        column: c.column,
        kind: 'missingColumn',
        message: `${where} does not exist; it is added${defaultValue !== undefined || filled ? " with the field's default" : ', nullable'}`,
        sql: statements(
          filled
            ? `${alterSql};\n${knex(name)
                .whereNull(c.column)
                .update({ [c.column]: fill })
                .toString()}`
            : alterSql,
        ),
        apply: async () => {
          try {
            await schemaFor(knex, name).builder.alterTable(table, (t) => {
              const column = c.salt ? t.string(c.column, 64) : addColumn(t, field);
              if (column && defaultValue !== undefined) column.defaultTo(defaultValue);
            });
          } catch (error) {
            // Another instance added it between our plan and our ALTER: that is the same outcome.
            if (!(await schemaFor(knex, name).builder.hasColumn(table, c.column))) throw error;
          }
          if (filled)
            await knex(name)
              .whereNull(c.column)
              .update({ [c.column]: fill });
          return false;
        },
      });
    }
  }
  for (const [lower, column] of Object.entries(info).map(([column]) => [column.toLowerCase(), column] as const)) {
    if (expected.has(lower)) continue;
    const drop = knex.raw('alter table ?? drop column ??', [name, column]).toString();
    if (await hasRows(knex, name, column)) {
      plan.unsafe.push({
        model: model.name,
        table: name,
        column,
        kind: 'droppedField',
        message: `${model.name}: column ${name}.${column} holds values but no field maps to it (a field dropped or renamed?); declare the field again, or save the values and drop the column`,
        sql: `${drop};`,
      });
    } else {
      plan.notes.push({
        model: model.name,
        table: name,
        column,
        kind: 'extraColumn',
        message: `${model.name}: column ${name}.${column} is empty and no field maps to it; left alone${blocksInserts(info[column]) ? ' (it is NOT NULL without a default: adding a row fails until it is dropped or given a default)' : ''}`,
        sql: `${drop};`,
      });
    }
  }
}

async function plan(knex: Knex, models: readonly ModelDefinition[]): Promise<Plan> {
  const result: Plan = { safe: [], unsafe: [], notes: [] };
  const byName = new Map(models.map((m) => [m.name, m]));
  for (const model of models) await planModel(knex, model, result);
  const joins = new Set<string>();
  for (const model of models) {
    for (const name of model.fieldNames) {
      const collection = model.fields[name]?.edit.collection;
      if (!collection || joins.has(collection.joinTable)) continue;
      joins.add(collection.joinTable);
      if (await hasTable(knex, collection.joinTable)) continue;
      const other = byName.get(collection.model);
      const build = (t: Knex.CreateTableBuilder) => {
        keyColumn(t, collection.ownKey, integerKey(model.fields[model.primaryKey]));
        keyColumn(t, collection.foreignKey, other === undefined || integerKey(other.fields[other.primaryKey]));
        t.primary([collection.ownKey, collection.foreignKey]);
      };
      const joinTable = collection.joinTable;
      result.safe.push({
        model: model.name,
        table: joinTable,
        field: name,
        kind: 'missingJoinTable',
        message: `${model.name}.${name}: join table ${joinTable} does not exist; it is created`,
        sql: createSql(knex, joinTable, build),
        apply: () => createIfMissing(knex, joinTable, build),
      });
    }
  }
  return result;
}

function plain(change: PlannedChange): ModelTableChange {
  const { apply: _apply, ...rest } = change;
  return rest;
}

/**
 * Compares `models` with the database and says what {@link createModelTables} would do, changing
 * nothing. Columns are compared by kind (string, long text, integer, number, boolean, date, date
 * and time): SQLite's loose types only differ when the kind of value differs (text against
 * number), and MySQL's `tinyint` counts as a boolean or an integer.
 *
 * @param db a knex instance or an `FwStore`.
 * @example
 * const { safe, unsafe, notes } = await planModelTables(store, models);
 * if (unsafe.length) console.error(describeModelTableChanges(unsafe));
 */
export async function planModelTables(db: Knex | { readonly knex: Knex }, models: readonly ModelDefinition[]): Promise<ModelTablesPlan> {
  const result = await plan(knexOf(db), models);
  return { safe: result.safe.map(plain), unsafe: result.unsafe.map(plain), notes: result.notes.map(plain) };
}

/**
 * Brings the database in line with `models`, at each start-up: creates every missing table from
 * its field definitions, then every missing join table of their COLLECTION fields (the two key
 * columns and their composite primary key), and adds the column of each new field to a table that
 * exists (nullable, with the field's `edit.defaultValue` as its default when it has one).
 *
 * A difference that cannot be applied safely (a column of another type, a column no field maps to
 * that holds values, a new required field without a default on a table with rows) throws a
 * {@link ModelTablesError} listing each with the SQL a person could run, before anything is changed.
 * See {@link planModelTables}.
 *
 * Column types by edit type: INPUT / PASSWORD / HIDDEN / CHOICE → varchar(255); TEXTAREA →
 * text; NUMBER and HIDDEN with `integer: true` → integer; NUMBER → double; BOOLEAN → boolean; MULTI_CHOICE / TAGS / ATTACHMENT →
 * text (JSON); DATE → date; DATETIME → datetime; REFERENCE_* → integer. An integer primary key
 * is auto-incremented. Columns are nullable: required-ness is the model's rule, checked by the data
 * API with the whole row.
 *
 * @returns the names of the tables it created, in creation order.
 */
export async function createModelTables(knex: Knex, models: readonly ModelDefinition[]): Promise<string[]> {
  const result = await plan(knex, models);
  if (result.unsafe.length > 0) throw new ModelTablesError(result.unsafe.map(plain));
  const created: string[] = [];
  // Tables first, then columns, then join tables: the plan's own order.
  for (const change of result.safe) {
    if (change.apply && (await change.apply()) && change.kind !== 'missingColumn') created.push(change.table);
  }
  return created;
}
