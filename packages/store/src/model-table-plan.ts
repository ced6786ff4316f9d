// Planning: reads each model's table and sorts every difference into safe, unsafe and notes.
import { BUILTIN_MODELS, type ModelDefinition } from '@fw/core';
import type { Knex } from 'knex';
import { dialectOfKnex } from './dialect.js';
import type { ModelTableChange, PlannedChange } from './model-table-changes.js';
import {
  FAMILY_WORDS,
  actualFamily,
  addColumn,
  buildModelTable,
  columnDefault,
  compatible,
  fieldFamily,
  fillValue,
  integerKey,
  keyColumn,
  sqliteRetype,
  type Family,
} from './model-table-columns.js';
import { planIndexes, readIndexes } from './model-table-indexes.js';
import { blocksInserts, createIfMissing, createSql, hasRows, hasTable, schemaFor, splitTable, statements } from './model-table-sql.js';

export type { PlannedChange } from './model-table-changes.js';

export interface Plan {
  safe: PlannedChange[];
  unsafe: PlannedChange[];
  notes: PlannedChange[];
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
    if (!BUILTIN_TABLES.has(name)) plan.safe.push(...planIndexes(knex, model, [], true).safe);
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
  // After the columns: an index may cover a column added above.
  if (model.indexes.length > 0) {
    const long = new Set(Object.entries(info).flatMap(([column, i]) => (actualFamily(i) === 'text' ? [column.toLowerCase()] : [])));
    const { safe, notes } = planIndexes(knex, model, await readIndexes(knex, name), false, long);
    plan.safe.push(...safe);
    plan.notes.push(...notes);
  }
}

export async function plan(knex: Knex, models: readonly ModelDefinition[]): Promise<Plan> {
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

export function plain(change: PlannedChange): ModelTableChange {
  const { apply: _apply, ...rest } = change;
  return rest;
}
