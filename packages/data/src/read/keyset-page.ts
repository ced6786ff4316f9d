// The keyset side of a table page: which keys order it, how a cursor's seek and the (possibly
// reversed) ORDER BY go into the query, and which cursors the answer carries. rows.ts compiles
// and runs the queries; this module only says what they are.
import type { Condition, ModelDefinition } from '@fw/core';
import type { FwDialect } from '@fw/store';
import type { Knex } from 'knex';
import { encodeCursor, keyFields, rowKeyValues, type PageSeek, type ResolvedSeek, type SortEntry } from './cursor.js';
import { dataError } from '../error-codes.js';
import { applyConditions } from './query.js';
import { applySeek, type SeekKey, type SeekDirection } from './keyset.js';

/** The cursors of a page: where the page before it ends and where the page after it starts. */
export interface PageCursors {
  /** Hand back as `before` for the page before this one; null when no row precedes the first row. */
  prev: string | null;
  /** Hand back as `after` for the page after this one; null when no row follows the last row. */
  next: string | null;
}

/**
 * The columns of `table` the database declares NOT NULL (an empty set when it cannot say). Fw's
 * own model columns are nullable (see @fw/store addColumn); the built-in tables' timestamps and
 * many host tables' columns are not, and a seek on a NOT NULL column is a plain index range.
 */
export async function notNullColumns(knex: Knex, table: string): Promise<Set<string>> {
  try {
    const info = (await knex(table).columnInfo()) as unknown as Record<string, { nullable?: unknown }>;
    return new Set(Object.entries(info).filter(([, c]) => c.nullable === false).map(([name]) => name));
  } catch {
    return new Set();
  }
}

/**
 * The keys of a page's order: the sort fields, then the primary key, which makes the order total.
 * The primary key runs the way the last sort field runs (ascending when there is none): then an
 * index on that field serves the whole ORDER BY and the seek, read forward or backward. SQLite
 * and InnoDB keep the primary key at the end of every index; PostgreSQL needs it declared
 * (`indexes: [['score', 'id']]`). A mixed order (score descending, id ascending) would leave
 * every database sorting the ties itself.
 */
export function pageKeys(model: ModelDefinition, sort: readonly SortEntry[], notNull: ReadonlySet<string> = new Set()): SeekKey[] {
  const pk = model.fields[model.primaryKey]!;
  // A column not known to be NOT NULL is taken as nullable: correct either way, only a little
  // less direct for the planner.
  const keys: SeekKey[] = sort.map((s) => {
    const field = model.fields[s.field]!;
    return { column: `${model.table}.${field.column}`, order: s.order, nullable: !field.primaryKey && !notNull.has(field.column) };
  });
  keys.push({ column: `${model.table}.${pk.column}`, order: sort.at(-1)?.order ?? 'asc', nullable: false });
  return keys;
}

/** Whether a page is read from its end backwards (then its rows are reversed back). */
export function readsBackward(seek: ResolvedSeek | undefined): boolean {
  return seek?.direction === 'before' || seek?.direction === 'last';
}

/**
 * Orders `qb` by `keys` and, for a cursor, limits it to the rows after or before the cursor's
 * row (`values`, each a value or a slot standing for one). Read backward (`before`, `last`), the
 * order is reversed so that a LIMIT takes the rows nearest the cursor or the end. Reversing each
 * key also moves NULLs to the other end, exactly as the reversed order needs.
 */
export function orderAndSeek(qb: Knex.QueryBuilder, keys: readonly SeekKey[], seek: ResolvedSeek | undefined, values: readonly unknown[] | undefined, dialect: FwDialect): Knex.QueryBuilder {
  if (seek && seek.direction !== 'last') applySeek(qb, keys, values ?? [], seek.direction, dialect);
  const backward = readsBackward(seek);
  for (const key of keys) qb.orderBy(key.column, backward ? (key.order === 'asc' ? 'desc' : 'asc') : key.order);
  return qb;
}

/**
 * The seek of a cursor that names its row by primary key only: the row's key values, read now
 * under the user's row visibility (`visibility`).
 * @throws {FwError} 400 `BAD_QUERY` at `after` / `before` when the row is gone or out of sight.
 */
export async function resolveSeek(knex: Knex, model: ModelDefinition, sort: readonly SortEntry[], seek: PageSeek | undefined, visibility: readonly Condition[]): Promise<ResolvedSeek | undefined> {
  if (!seek || !('row' in seek)) return seek;
  const pk = model.fields[model.primaryKey]!;
  const columns = [...new Set(keyFields(model, sort).map((f) => `${model.table}.${f.column}`))];
  const row: Record<string, unknown> | undefined = await applyConditions(knex(model.table).select(columns).where(`${model.table}.${pk.column}`, seek.row as Knex.Value), model, visibility).first();
  const values = row && rowKeyValues(model, sort, row);
  if (!values) {
    const message = 'the row this cursor starts from no longer exists; start again from the first page';
    throw dataError('BAD_QUERY', message, [{ path: seek.direction, type: 'cursor', message }]);
  }
  return { direction: seek.direction, values };
}

/** A query that says whether any row lies beyond a row (`values`) in `direction`: one key, at most one row. */
export function probeQuery(qb: Knex.QueryBuilder, keys: readonly SeekKey[], values: readonly unknown[], direction: SeekDirection, dialect: FwDialect): Knex.QueryBuilder {
  return applySeek(qb.select(keys[keys.length - 1]!.column), keys, values, direction, dialect).limit(1);
}

/** What {@link pageEnds} needs to know of how a page was read. */
export interface PageRead {
  /** The rows read, in the order read (backward for `before` / `last`), at most size + 1 of them. */
  rows: Array<Record<string, unknown>>;
  size: number;
  seek: ResolvedSeek | undefined;
  /** The OFFSET of a page by number (0 for the first page and for keyset pages). */
  offset: number;
}

/** The page's rows in the requested order, and which of its ends still need a probe. */
export function pageRows(read: PageRead): { rows: Array<Record<string, unknown>>; before: boolean | 'probe'; after: boolean | 'probe' } {
  // One row more than the page was read, to know without counting whether another follows.
  const more = read.rows.length > read.size;
  const rows = read.rows.slice(0, read.size);
  const direction = read.seek?.direction;
  if (readsBackward(read.seek)) rows.reverse();
  if (rows.length === 0) return { rows, before: false, after: false };
  switch (direction) {
    case 'last':
      return { rows, before: more, after: false };
    case 'before':
      // The cursor's row came after this page once; whether anything still does, a probe says.
      return { rows, before: more, after: 'probe' };
    case 'after':
      return { rows, before: 'probe', after: more };
    default:
      // A page by number: the OFFSET skipped rows that precede it in the same read.
      return { rows, before: read.offset > 0, after: more };
  }
}

/** The cursors of a page whose rows (raw, in order) are `rows`, given which of its ends have rows beyond. */
export function pageCursors(model: ModelDefinition, sort: readonly SortEntry[], rows: ReadonlyArray<Record<string, unknown>>, before: boolean, after: boolean): PageCursors {
  const first = rows[0];
  const last = rows[rows.length - 1];
  return {
    prev: before && first ? (encodeCursor(model, sort, first) ?? null) : null,
    next: after && last ? (encodeCursor(model, sort, last) ?? null) : null,
  };
}

/**
 * The key columns of every `step`-th row of `filtered` (a query of the model's table with the
 * page's conditions applied) in the order of `keys`: `ROW_NUMBER()` over that order, kept where
 * it is a multiple of `step` (page-anchors.ts). The window orders exactly as the page does,
 * NULLs included, since both leave their place to the database.
 */
export function anchorQuery(knex: Knex, filtered: Knex.QueryBuilder, keys: readonly SeekKey[], step: number): Knex.QueryBuilder {
  const columns = [...new Set(keys.map((k) => k.column))];
  const order = keys.map((k) => `?? ${k.order === 'desc' ? 'desc' : 'asc'}`).join(', ');
  const numbered = filtered.select(columns).select(knex.raw(`row_number() over (order by ${order}) as fw_anchor_n`, keys.map((k) => k.column)));
  return knex
    .select(columns.map((c) => c.slice(c.lastIndexOf('.') + 1)))
    .from(numbered.as('fw_anchors'))
    .whereRaw('?? % ? = 0', ['fw_anchor_n', step])
    .orderBy('fw_anchor_n');
}
