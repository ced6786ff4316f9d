// Pure helpers of the permission matrix: which rows a search shows, which menus a row, a folder
// or a column covers, and what a tri-state box toggles. Grantability is the server's answer
// (GET /power/grantable); nothing here decides it.
import type { GrantableMenu, GrantableMatrix, GrantableRow } from '../client/power';

/** The column key of a row's own menu (a model's query, a folder's own grant). */
export const OWN = 'query';

/** A row's menu in `column`, if it has one. */
export function cellOf(row: GrantableRow, column: string): GrantableMenu | undefined {
  return column === OWN ? row.menu : row.cells[column];
}

/** Every menu of a row: its own and its function menus. */
export function rowMenus(row: GrantableRow): GrantableMenu[] {
  return [row.menu, ...Object.values(row.cells)];
}

/** The row at `index` and every row below it in the tree (rows are in tree order with depths). */
export function subtree(rows: readonly GrantableRow[], index: number): GrantableRow[] {
  const top = rows[index];
  if (!top) return [];
  let end = index + 1;
  while (end < rows.length && rows[end]!.depth > top.depth) end += 1;
  return rows.slice(index, end);
}

/** Whether the row has rows below it (a folder). */
export function hasChildren(rows: readonly GrantableRow[], index: number): boolean {
  return (rows[index + 1]?.depth ?? -1) > (rows[index]?.depth ?? 0);
}

/**
 * Indexes of the rows a search shows: rows whose name, model or code contains the term (any
 * case), the folders above them (for context) and the rows below a matching folder.
 */
export function visibleRows(matrix: GrantableMatrix, term: string): number[] {
  const needle = term.trim().toLowerCase();
  const rows = matrix.rows;
  if (needle === '') return rows.map((_, i) => i);
  const shown = new Set<number>();
  rows.forEach((row, i) => {
    const hay = [row.menu.name, row.model ?? '', row.menu.code ?? ''].join(' ').toLowerCase();
    if (!hay.includes(needle)) return;
    subtree(rows, i).forEach((_, k) => shown.add(i + k));
    // The folders above it, nearest first.
    let depth = row.depth;
    for (let j = i - 1; j >= 0 && depth > 0; j -= 1) {
      if (rows[j]!.depth < depth) {
        shown.add(j);
        depth = rows[j]!.depth;
      }
    }
  });
  return [...shown].sort((a, b) => a - b);
}

/** How many of `menus` are in `selected`: the tri-state of a box that covers them. */
export function triState(menus: readonly GrantableMenu[], selected: ReadonlySet<number>): { checked: boolean; indeterminate: boolean } {
  const on = menus.filter((m) => selected.has(m.id)).length;
  return { checked: on > 0 && on === menus.length, indeterminate: on > 0 && on < menus.length };
}

/** Whether a box over `menus` can change anything: something to grant, or something to take back. */
export function canToggle(menus: readonly GrantableMenu[], selected: ReadonlySet<number>): boolean {
  return menus.some((m) => (selected.has(m.id) ? m.revocable : m.grantable));
}

/**
 * The selection after a box over `menus` is clicked: when every one is on, all revocable ones go
 * off; otherwise every grantable one goes on (the others are left as they are).
 */
export function toggle(menus: readonly GrantableMenu[], selected: ReadonlySet<number>): number[] {
  const next = new Set(selected);
  const allOn = menus.length > 0 && menus.every((m) => selected.has(m.id));
  for (const m of menus) {
    if (allOn && m.revocable) next.delete(m.id);
    if (!allOn && m.grantable) next.add(m.id);
  }
  return [...next].sort((a, b) => a - b);
}

/** Menu codes a server refusal names (`GRANT_DENIED`'s message lists them). */
export function refusedCodes(messages: readonly string[], matrix: GrantableMatrix): Set<string> {
  const tokens = new Set(messages.flatMap((m) => m.split(/[\s,()]+/)));
  const codes = new Set<string>();
  for (const row of matrix.rows) for (const m of rowMenus(row)) if (m.code && tokens.has(m.code)) codes.add(m.code);
  return codes;
}
