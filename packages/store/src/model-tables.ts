import { EditType, type FieldDefinition, type ModelDefinition } from '@fw/core';
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
function addColumn(t: Knex.CreateTableBuilder, field: FieldDefinition): Knex.ColumnBuilder | undefined {
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

function keyColumn(t: Knex.CreateTableBuilder, name: string, integer: boolean): void {
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

/**
 * Creates every missing table for `models` from their field definitions, then every missing join
 * table of their COLLECTION fields (the two key columns and their composite primary key).
 * Existing tables are left as they are, so it is safe to call at each start-up.
 *
 * Column types by edit type: INPUT / PASSWORD / HIDDEN / CHOICE → varchar(255); TEXTAREA →
 * text; NUMBER and HIDDEN with `integer: true` → integer; NUMBER → double; BOOLEAN → boolean; MULTI_CHOICE / TAGS →
 * text (JSON); DATE → date; DATETIME → datetime; REFERENCE_* → integer. An integer primary key
 * is auto-incremented.
 *
 * @returns the names of the tables it created, in creation order.
 */
export async function createModelTables(knex: Knex, models: readonly ModelDefinition[]): Promise<string[]> {
  const created: string[] = [];
  const byName = new Map(models.map((m) => [m.name, m]));
  for (const model of models) {
    const made = await createIfMissing(knex, model.table, (t) => {
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
    });
    if (made) created.push(model.table);
  }
  const joins = new Set<string>();
  for (const model of models) {
    for (const name of model.fieldNames) {
      const collection = model.fields[name]?.edit.collection;
      if (!collection || joins.has(collection.joinTable)) continue;
      joins.add(collection.joinTable);
      const other = byName.get(collection.model);
      const made = await createIfMissing(knex, collection.joinTable, (t) => {
        keyColumn(t, collection.ownKey, integerKey(model.fields[model.primaryKey]));
        keyColumn(t, collection.foreignKey, other === undefined || integerKey(other.fields[other.primaryKey]));
        t.primary([collection.ownKey, collection.foreignKey]);
      });
      if (made) created.push(collection.joinTable);
    }
  }
  return created;
}
