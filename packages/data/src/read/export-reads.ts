// The reads of an export: batches of rows in the export's order, each batch found by a keyset seek
// past the last row of the one before (issue 21 §4). An OFFSET read of batch n reads and drops the
// n × batch rows before it, so a 1,000,000-row export by OFFSET costs about 500 times its rows;
// a seek costs an index descent per batch. A seek also stays on course while rows are added or
// deleted during the export: it never gives a row twice, where an OFFSET shifts with every change
// before it and repeats or skips rows.
import { EditType, type ModelDefinition } from '@fw/core';
import type { FwDialect } from '@fw/store';
import type { Knex } from 'knex';
import { applySeek, nullsSortHigh, type SeekKey } from './keyset.js';
import { pkColumn } from './row-keys.js';

/** One key of an export's order, and where its boundary value is read from each raw row. */
interface OrderKey extends SeekKey {
  /** The property of a raw row holding the value the seek binds back. */
  from: string;
  /** The extra select that gives that value as text, when the driver's own value would not bind back exactly. */
  select?: Knex.Raw;
}

/** What {@link seekBatches} reads. */
export interface SeekBatchesOptions {
  knex: Knex;
  dialect: FwDialect;
  model: ModelDefinition;
  /** The rows' query: table, selected columns and conditions, no order and no limit. */
  query: () => Knex.QueryBuilder;
  /** The export's sort (stored, sortable fields); the primary key follows as the tie-breaker. */
  sort: ReadonlyArray<{ field: string; order: 'asc' | 'desc' }>;
  /** Rows per batch. */
  batchRows: number;
  /** Most rows in all. */
  maxRows: number;
}

// Boundary aliases: plain identifiers no field column is likely to use.
const aliasOf = (i: number) => `fw_seek_${i}`;

/**
 * The keys of the order: the sort's columns, then the primary key (unique, so the order is total
 * and a seek is exact). A sort on the primary key ends the list there.
 *
 * Boundary values are bound back as the driver returned them, except date and time columns on
 * PostgreSQL and MySQL/MariaDB: their drivers turn them into JavaScript Dates (milliseconds, the
 * local zone for a PostgreSQL `timestamp`), which would lose the microseconds of a host's
 * `timestamp(6)` column, so those keys are also selected as text and the seek binds that text.
 * Columns made by Fw are nullable except the key (see `addColumn` in @fw/store).
 */
export function exportOrder(knex: Knex, dialect: FwDialect, model: ModelDefinition, sort: SeekBatchesOptions['sort']): OrderKey[] {
  const keys: OrderKey[] = [];
  const asText = dialect === 'postgres' ? 'text' : dialect === 'mysql' ? 'char' : undefined;
  for (const s of [...sort, { field: model.primaryKey, order: 'asc' as const }]) {
    const field = model.fields[s.field]!;
    const column = `${model.table}.${field.column}`;
    const temporal = field.edit.type === EditType.DATE || field.edit.type === EditType.DATETIME;
    const alias = aliasOf(keys.length);
    const key: OrderKey = { column, order: s.order, nullable: !field.primaryKey, from: field.column };
    if (temporal && asText) Object.assign(key, { from: alias, select: knex.raw(`CAST(?? AS ${asText}) AS ??`, [column, alias]) });
    keys.push(key);
    if (field.primaryKey) break;
  }
  return keys;
}

/**
 * The rows of an export in batches of at most `batchRows` raw database rows (column names as keys),
 * `maxRows` in all, ordered by the sort then the primary key, each batch read by seeking past the
 * last row of the previous one. Every batch given holds rows, but one: an export without any
 * row gives a single empty batch, so the first `next()` always runs a query (`maxRows` ≥ 1).
 */
export async function* seekBatches(options: SeekBatchesOptions): AsyncGenerator<Array<Record<string, unknown>>> {
  const { knex, dialect, model, query, sort, batchRows, maxRows } = options;
  const keys = exportOrder(knex, dialect, model, sort);
  let read = 0;
  const phases = phasesOf(keys, dialect);
  for (const phase of phases) {
    let after: unknown[] | undefined;
    for (;;) {
      const want = Math.min(batchRows, maxRows - read);
      const qb = query();
      for (const key of keys) {
        if (key.select) qb.select(key.select);
        qb.orderBy(key.column, key.order);
      }
      phase.filter?.(qb);
      if (after) applySeek(qb, phase.keys, after, 'after', dialect);
      const rows = (await qb.limit(want)) as Array<Record<string, unknown>>;
      const last = rows[rows.length - 1];
      if (last) after = phase.keys.map((k) => last[k.from]);
      for (const row of rows) for (const key of keys) if (key.select) delete row[key.from];
      read += rows.length;
      // Only batches with rows are given, and one empty batch when the export has no row at all.
      if (rows.length > 0 || (read === 0 && phase === phases[phases.length - 1])) yield rows;
      if (read >= maxRows) return;
      if (rows.length < want) break;
    }
  }
}

/** One stretch of the order read by seeks of its own: its keys, and what confines it. */
interface Phase {
  keys: OrderKey[];
  filter?: (qb: Knex.QueryBuilder) => void;
}

/**
 * A nullable first key splits the order in two stretches, its NULLs and its values (in the order
 * the database puts them), each read by its own seek: within the values the first key is a
 * plain range (`score > v`), within the NULLs it drops out. One seek across both would need
 * `score > v OR score IS NULL`, which no index serves as one range, so every batch would scan
 * from the start of the index again.
 */
function phasesOf(keys: OrderKey[], dialect: FwDialect): Phase[] {
  const [first, ...rest] = keys;
  if (!first || !first.nullable || rest.length === 0) return [{ keys }];
  const values: Phase = { keys: [{ ...first, nullable: false }, ...rest], filter: (qb) => qb.whereNotNull(first.column) };
  const nulls: Phase = { keys: rest, filter: (qb) => qb.whereNull(first.column) };
  const nullsFirst = (first.order === 'asc') !== nullsSortHigh(dialect);
  return nullsFirst ? [nulls, values] : [values, nulls];
}

/**
 * The same batches read the old way, by OFFSET: for the benchmark's baseline and for tests that
 * prove the seek reads give the same rows in the same order.
 */
export async function* offsetBatches(options: SeekBatchesOptions): AsyncGenerator<Array<Record<string, unknown>>> {
  const { model, query, sort, batchRows, maxRows } = options;
  for (let offset = 0; offset < maxRows; offset += batchRows) {
    const want = Math.min(batchRows, maxRows - offset);
    const qb = query();
    for (const s of sort) qb.orderBy(`${model.table}.${model.fields[s.field]!.column}`, s.order);
    const rows = (await qb.orderBy(`${model.table}.${pkColumn(model)}`, 'asc').limit(want).offset(offset)) as Array<Record<string, unknown>>;
    yield rows;
    if (rows.length < want) return;
  }
}
