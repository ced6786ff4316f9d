// A saved view's columns (issue 23 §1) laid over the table. A view keeps the columns that were
// shown when it was kept, in their order; choosing it shows those columns in that order for as
// long as the view stays chosen (the `v` in the address), and leaving the view brings back the
// person's own layout, which the view never writes over. Column keys the table no longer has for
// this person (a field removed, or one they may not see) are left out and reported, so the bar
// can say so; a view with none of its columns left shows the person's own layout.
import type { ColumnArrangement } from './useTableColumns';

/** A view's columns applied to the keys the table has now. */
export interface ViewColumns {
  /** The arrangement to show; absent when none of the view's columns remain. */
  arrangement?: ColumnArrangement;
  /** The view's keys the table does not have (shown nowhere). */
  missing: string[];
}

/**
 * `keys` arranged as `columns` names them: the named ones first, in the view's order; the others
 * after them, hidden. Undefined when the view keeps no columns (the person's own layout applies).
 */
export function viewColumns(keys: readonly string[], columns: readonly string[] | null | undefined): ViewColumns | undefined {
  if (!columns?.length) return undefined;
  const have = new Set(keys);
  const shown = [...new Set(columns.filter((k) => have.has(k)))];
  const missing = [...new Set(columns.filter((k) => !have.has(k)))];
  if (shown.length === 0) return { missing };
  const placed = new Set(shown);
  const rest = keys.filter((k) => !placed.has(k));
  return { arrangement: { order: [...shown, ...rest], hidden: rest }, missing };
}

/** The keys a view would keep from the table's columns as shown (the Actions column is no field). */
export function shownKeys(columns: ReadonlyArray<{ key?: unknown }>): string[] {
  return columns.map((c) => String(c.key)).filter((k) => k !== '_actions');
}
