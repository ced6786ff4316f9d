// How a live event changes a cached table page (issue 24 §3), without asking the server again:
// an update patches the row's values, a delete takes rows out (the total with them), and an insert
// goes where the page's order puts it — or, when the browser cannot tell that the row belongs on
// this page (a search is in force, the row sorts beyond the page's ends, the order depends on the
// database's collation), the page stays as it is and the caller offers "N new rows — show".
//
// Pure: plain data in, new plain data out (the same object when nothing changed), unit-tested under
// Node (packages/ui/src/live-cache.test.ts). The order is the server's (data's keyset pages): the
// query's sort, else the model's `orderBy`, then the primary key running the way the last key runs.
import type { Row, TablePage, TableQuery } from '../types';

/** What the patching needs of the model. */
export interface OrderModel {
  primaryKey: string;
  orderBy?: ReadonlyArray<{ field: string; order: 'asc' | 'desc' }>;
}

/** One key of the page's order. */
export type OrderKey = { field: string; order: 'asc' | 'desc' };

/** The order the server gives a page of `query`. */
export function pageOrder(model: OrderModel, query: Pick<TableQuery, 'sort'>): OrderKey[] {
  const sort = query.sort?.length ? query.sort : (model.orderBy ?? []);
  const keys = sort.filter((s) => s.field !== model.primaryKey).map((s) => ({ field: s.field, order: s.order }));
  return [...keys, { field: model.primaryKey, order: sort.at(-1)?.order ?? 'asc' }];
}

/**
 * Compares two values as the database would, or answers undefined when that depends on the
 * database: NULLs (first or last by dialect), text whose order differs between a binary and a
 * case-insensitive collation ("a" / "B"), values of different kinds.
 */
export function compareValues(a: unknown, b: unknown): number | undefined {
  if (a === null || a === undefined || b === null || b === undefined) return (a ?? null) === (b ?? null) ? 0 : undefined;
  if (typeof a === 'number' && typeof b === 'number') return Math.sign(a - b);
  if (typeof a === 'boolean' && typeof b === 'boolean') return Number(a) - Number(b);
  if (typeof a === 'string' && typeof b === 'string') {
    if (a === b) return 0;
    const binary = a < b ? -1 : 1;
    const folded = Math.sign(a.localeCompare(b, 'en', { sensitivity: 'base' }));
    return folded === binary ? binary : undefined;
  }
  return undefined;
}

/** Where `a` sorts against `b` in `order` (negative: before), or undefined when the browser cannot tell. */
export function compareRows(a: Row, b: Row, order: readonly OrderKey[]): number | undefined {
  for (const key of order) {
    const c = compareValues(a[key.field], b[key.field]);
    if (c === undefined) return undefined;
    if (c !== 0) return key.order === 'desc' ? -c : c;
  }
  return 0;
}

/** The rows with `id`'s values replaced by `values` (the same array when the row is not there). */
export function patchRows<R extends Row>(rows: R[], key: string, id: unknown, values: Row): R[] {
  const at = rows.findIndex((r) => r[key] === id);
  if (at < 0) return rows;
  const next = rows.slice();
  next[at] = { ...rows[at]!, ...values };
  return next;
}

/** An update event on a page: the row's changed values, where the page holds the row. */
export function patchPage(page: TablePage, key: string, id: unknown, values: Row): TablePage {
  const rows = patchRows(page.rows, key, id, values);
  return rows === page.rows ? page : { ...page, rows };
}

/**
 * A delete event on a page: its rows go. The total loses them too: every one of them when the
 * query has no conditions (the server names only rows the person could see, so each was counted),
 * else only those the page held (the others may not have matched).
 */
export function dropFromPage(page: TablePage, key: string, ids: readonly unknown[], query: Pick<TableQuery, 'conditions'>): TablePage {
  const gone = new Set(ids);
  const rows = page.rows.filter((r) => !gone.has(r[key]));
  const unfiltered = !query.conditions?.length;
  if (rows.length === page.rows.length && !unfiltered) return page;
  const total = Math.max(rows.length, page.total - (unfiltered ? gone.size : page.rows.length - rows.length));
  return { ...page, rows, total };
}

/** The outcome of an insert event on a page: the page, and whether the row is on it. */
export interface Placed {
  page: TablePage;
  placed: boolean;
}

/**
 * An insert event on a page of `query`. A row the page already holds is replaced (it entered the
 * person's filter again, or the event repeats). A new row is placed where the order puts it when
 * that lies within the page — before its first row only on the first page, after its last only
 * on the last page — and the page grows by one, so the cursors of its neighbours stay right.
 */
export function insertIntoPage(page: TablePage, model: OrderModel, query: TableQuery, row: Row): Placed {
  const key = model.primaryKey;
  const id = row[key];
  if (page.rows.some((r) => r[key] === id)) return { page: patchPage(page, key, id, row), placed: true };
  const unfiltered = !query.conditions?.length;
  // A new row that matches no condition is part of the total whether or not it shows here.
  const counted = unfiltered ? { ...page, total: page.total + 1 } : page;
  if (!unfiltered) return { page, placed: false };
  const first = page.cursors ? page.cursors.prev === null : query.page === 1 && !query.after && !query.before && !query.last;
  const last = page.cursors ? page.cursors.next === null : query.page * query.size >= page.total;
  const order = pageOrder(model, query);
  let at = page.rows.length;
  for (let i = 0; i < page.rows.length; i += 1) {
    const c = compareRows(row, page.rows[i]!, order);
    if (c === undefined) return { page: counted, placed: false };
    if (c < 0) {
      at = i;
      break;
    }
  }
  if ((at === 0 && page.rows.length > 0 && !first) || (at === page.rows.length && !last)) return { page: counted, placed: false };
  const rows = page.rows.slice();
  rows.splice(at, 0, row);
  return { page: { ...counted, rows }, placed: true };
}
