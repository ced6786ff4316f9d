// The entry points: plan model tables, or plan then apply the safe changes.
import type { ModelDefinition } from '@fw/core';
import type { Knex } from 'knex';
import { ModelTablesError, type ModelTablesPlan } from './model-table-changes.js';
import { plain, plan } from './model-table-plan.js';

export { ModelTablesError, describeModelTableChanges } from './model-table-changes.js';
export type { ModelTableChange, ModelTableChangeKind, ModelTablesPlan } from './model-table-changes.js';

function knexOf(db: Knex | { readonly knex: Knex }): Knex {
  return typeof db === 'function' ? db : db.knex;
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
 * exists (nullable, with the field's `edit.defaultValue` as its default when it has one), then
 * each declared index (`index: true`, `indexes`) no index of the table starts with — on
 * PostgreSQL `CONCURRENTLY` when the table already exists, so writes go on meanwhile.
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
