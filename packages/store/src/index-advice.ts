// `fw doctor`'s index advice (issue 21 §3): fields of large tables that the table page filters or
// sorts on, with no index to do it by.
import { isIndexable, type FieldDefinition, type ModelDefinition } from '@fw/core';
import type { Knex } from 'knex';
import { dialectOfKnex } from './dialect.js';
import { readIndexes } from './model-table-indexes.js';
import { hasTable, splitTable } from './model-table-sql.js';

/** Default of {@link IndexAdviceOptions.largeTableRows}. */
export const DEFAULT_LARGE_TABLE_ROWS = 100_000;

/** Options of {@link adviseIndexes}. */
export interface IndexAdviceOptions {
  /** A table with at least this many rows (by the database's estimate) is large. @default 100000 */
  largeTableRows?: number;
}

/** A field worth an index. */
export interface IndexAdvice {
  readonly model: string;
  readonly table: string;
  readonly field: string;
  readonly column: string;
  /** What the table page does with it: filter (the search form offers it), sort, or both. */
  readonly use: 'filter' | 'sort' | 'filter and sort';
  /** The table's row count: the database's estimate, or a count that stopped at the threshold. */
  readonly rows: number;
}

/** The database's own estimate of a table's rows, from its statistics; undefined where it keeps none. */
async function statisticsRows(knex: Knex, name: string): Promise<number | undefined> {
  const { schema, table } = splitTable(name);
  const dialect = dialectOfKnex(knex);
  let value: unknown;
  switch (dialect) {
    case 'sqlite':
      return undefined;
    case 'postgres': {
      const sql = `select c.reltuples as n from pg_class c join pg_namespace s on s.oid = c.relnamespace where c.relname = ? and s.nspname = coalesce(?, current_schema())`;
      value = (await knex.raw(sql, [table, schema ?? null])).rows[0]?.n;
      break;
    }
    case 'mysql': {
      const sql = 'select table_rows as n from information_schema.tables where table_schema = coalesce(?, database()) and table_name = ?';
      value = (await knex.raw(sql, [schema ?? null, table]))[0][0]?.n;
      break;
    }
    case 'mssql':
      value = (await knex.raw('select sum(rows) as n from sys.partitions where object_id = object_id(?) and index_id in (0, 1)', [name]))[0]?.n;
      break;
  }
  const n = Number(value);
  // PostgreSQL says -1 for a table never analyzed.
  return Number.isFinite(n) && n >= 0 ? n : undefined;
}

/**
 * The table's rows, as cheaply as the answer allows: the statistics when they already say
 * "large"; otherwise a count that stops at `limit` rows (statistics lag behind, SQLite keeps none),
 * so it never reads more than the threshold.
 */
export async function tableRows(knex: Knex, name: string, limit: number): Promise<number> {
  const estimate = await statisticsRows(knex, name);
  if (estimate !== undefined && estimate >= limit) return Math.round(estimate);
  const bounded = knex(name).select(knex.raw('1 as one')).limit(limit).as('bounded');
  const rows = (await knex.count({ n: '*' }).from(bounded)) as Array<{ n?: string | number }>;
  return Number(rows[0]?.n ?? 0);
}

function use(field: FieldDefinition): IndexAdvice['use'] | undefined {
  // What the search form offers (see the UI's searchFields and data's schema view).
  const filter = field.views.show && field.capabilities.filterable;
  const sort = field.capabilities.sortable;
  if (filter && sort) return 'filter and sort';
  return filter ? 'filter' : sort ? 'sort' : undefined;
}

/**
 * Fields of large tables that the table page filters or sorts on, and that no index of the
 * table starts with: each reads the whole table. Fields that cannot be indexed (long text) and
 * the primary key are left out; tables that do not exist yet are skipped.
 * @example for (const a of await adviseIndexes(knex, models)) console.log(`${a.model}.${a.field}: index: true`);
 */
export async function adviseIndexes(knex: Knex, models: readonly ModelDefinition[], options: IndexAdviceOptions = {}): Promise<IndexAdvice[]> {
  const limit = options.largeTableRows ?? DEFAULT_LARGE_TABLE_ROWS;
  if (!Number.isSafeInteger(limit) || limit < 1) throw new RangeError(`largeTableRows must be a positive integer, got ${String(limit)}`);
  const advice: IndexAdvice[] = [];
  for (const model of models) {
    if (!(await hasTable(knex, model.table))) continue;
    const candidates = model.fieldNames
      .map((name) => model.fields[name]!)
      .flatMap((field) => {
        const how = !field.primaryKey && isIndexable(field) ? use(field) : undefined;
        return how === undefined ? [] : [{ field, how }];
      });
    if (candidates.length === 0) continue;
    const rows = await tableRows(knex, model.table, limit);
    if (rows < limit) continue;
    const leading = new Set((await readIndexes(knex, model.table)).filter((i) => i.valid).map((i) => i.columns[0]));
    for (const { field, how } of candidates) {
      if (leading.has(field.column.toLowerCase())) continue;
      advice.push({ model: model.name, table: model.table, field: field.name, column: field.column, use: how, rows });
    }
  }
  return advice;
}
