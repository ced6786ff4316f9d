// Keyset (seek) conditions: "the rows that come after (or before) this one in this order". A page
// read this way costs an index seek plus the page, at any depth, where an OFFSET reads and drops
// every row before the page. Used by cursor pages of the table query and by exports.
import type { FwDialect } from '@fw/store';
import type { Knex } from 'knex';

/** One column of a sort order; the last key of an order must be unique (the primary key). */
export interface SeekKey {
  /** The column, qualified by its table (`items.score`). */
  column: string;
  order: 'asc' | 'desc';
  /** Whether the column can hold NULL (a NOT NULL column gets a simpler condition). */
  nullable: boolean;
}

/** Which way to seek from the row: the rows after it in the order, or the rows before it. */
export type SeekDirection = 'after' | 'before';

/**
 * Whether NULL sorts above every value in ascending order, as the database does it when ORDER BY
 * says nothing about NULLs: PostgreSQL yes; SQLite, MySQL/MariaDB and SQL Server no (NULL first).
 * The seek follows the database's own order rather than forcing one, so an ordinary index on
 * the column still serves both the ORDER BY and the seek.
 */
export function nullsSortHigh(dialect: FwDialect): boolean {
  return dialect === 'postgres';
}

/** A condition tree, written out by {@link applySeek}. */
type Cond =
  | { kind: 'false' }
  | { kind: 'cmp'; column: string; op: '>' | '<' | '=' | '>='| '<='; value: Knex.Value }
  | { kind: 'null'; column: string; isNull: boolean }
  | { kind: 'or'; parts: Cond[] }
  | { kind: 'and'; parts: Cond[] };

const FALSE: Cond = { kind: 'false' };

function or(...parts: Cond[]): Cond {
  const live = parts.filter((p) => p.kind !== 'false');
  return live.length === 0 ? FALSE : live.length === 1 ? live[0]! : { kind: 'or', parts: live };
}

function and(...parts: Cond[]): Cond {
  if (parts.some((p) => p.kind === 'false')) return FALSE;
  return parts.length === 1 ? parts[0]! : { kind: 'and', parts };
}

/** Rows whose `key` comes strictly beyond `value` (`up`: towards larger values, NULL placed as the dialect places it). */
function beyond(key: SeekKey, value: unknown, up: boolean, high: boolean): Cond {
  const nullBeyond = key.nullable && up === high;
  if (value === null || value === undefined) {
    // Every value lies beyond a NULL placed at the start; nothing lies beyond one at the end.
    return up === high ? FALSE : { kind: 'null', column: key.column, isNull: false };
  }
  const cmp: Cond = { kind: 'cmp', column: key.column, op: up ? '>' : '<', value: value as Knex.Value };
  return nullBeyond ? or(cmp, { kind: 'null', column: key.column, isNull: true }) : cmp;
}

/** Rows whose `key` equals `value` (NULL equal to NULL, as the order groups them). */
function same(key: SeekKey, value: unknown): Cond {
  return value === null || value === undefined ? { kind: 'null', column: key.column, isNull: true } : { kind: 'cmp', column: key.column, op: '=', value: value as Knex.Value };
}

/**
 * The seek condition as a tree: `k1 beyond v1 OR (k1 = v1 AND (k2 beyond v2 OR (…)))`, with a
 * leading `k1 at-or-beyond v1` conjunct that lets a database use an index range on `k1`.
 */
export function seekCondition(keys: readonly SeekKey[], values: readonly unknown[], direction: SeekDirection, dialect: FwDialect): Cond {
  if (keys.length === 0 || keys.length !== values.length) throw new Error(`a seek needs one value per key (${keys.length} keys, ${values.length} values)`);
  const high = nullsSortHigh(dialect);
  const upOf = (key: SeekKey) => (key.order === 'asc') === (direction === 'after');
  let tail: Cond = FALSE;
  for (let i = keys.length - 1; i >= 0; i--) {
    const key = keys[i]!;
    tail = or(beyond(key, values[i], upOf(key), high), i === keys.length - 1 ? FALSE : and(same(key, values[i]), tail));
  }
  if (keys.length === 1) return tail;
  const first = keys[0]!;
  const firstValue = values[0];
  // Redundant with the tree, but a plain range on the first key that planners turn into a seek.
  // It would drop NULLs, so it is left out when NULLs of the first key lie beyond the row.
  if (firstValue === null || firstValue === undefined || (first.nullable && upOf(first) === high)) return tail;
  return and({ kind: 'cmp', column: first.column, op: upOf(first) ? '>=' : '<=', value: firstValue as Knex.Value }, tail);
}

function write(qb: Knex.QueryBuilder, cond: Cond): void {
  switch (cond.kind) {
    case 'false':
      qb.whereRaw('1 = 0');
      return;
    case 'cmp':
      qb.where(cond.column, cond.op, cond.value);
      return;
    case 'null':
      if (cond.isNull) qb.whereNull(cond.column);
      else qb.whereNotNull(cond.column);
      return;
    case 'and':
      qb.where((inner) => {
        for (const part of cond.parts) write(inner, part);
      });
      return;
    case 'or':
      qb.where((inner) => {
        for (const part of cond.parts) inner.orWhere((branch) => write(branch, part));
      });
      return;
  }
}

/**
 * Limits `qb` to the rows after (or before) the row whose key values are `values`, in the order
 * `keys` (ascending or descending per key, NULLs where the dialect puts them). Values are bound,
 * in the form the database stores them. The caller orders the query by the same keys (reversed
 * for `before`, then reverses the rows it reads).
 * @throws {Error} when the keys and values do not pair up.
 */
export function applySeek(qb: Knex.QueryBuilder, keys: readonly SeekKey[], values: readonly unknown[], direction: SeekDirection, dialect: FwDialect): Knex.QueryBuilder {
  write(qb, seekCondition(keys, values, direction, dialect));
  return qb;
}
