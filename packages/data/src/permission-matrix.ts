// The permission editor's grantable matrix (issue 20 §1): the menu tree as rows (folders, model
// menus, pages), the function menus of each row as cells keyed by column, and per menu whether
// the editor may grant it. The decision is grant-rules' `mayGrantMenu`, the same one the role
// write path refuses with, so the editor offers exactly what a save would accept.
import type { FwUser } from '@fw/core';
import { FUNCTION_MENU_SUFFIXES } from '@fw/power';
import type { FwMenuRecord } from '@fw/store';
import { mayGrantMenu } from './write/grant-rules.js';

/** Why a menu cannot be granted by this editor. */
export interface GrantRefusal {
  /** `NOT_HELD`: the editor does not hold the menu's code. */
  code: 'NOT_HELD';
  message: string;
}

/** One menu as a cell of the matrix. */
export interface GrantableMenu {
  id: number;
  code: string | null;
  name: string;
  /** `disabled` menus can be granted but grant nothing until enabled. */
  status: string;
  /** The editor may add it to a role. */
  grantable: boolean;
  /** The editor may take it from a role (the server refuses only additions). */
  revocable: boolean;
  /** Present when `grantable` is false. */
  refusal?: GrantRefusal;
}

/** A column: `query` (the row's own menu) or a function-menu suffix such as `ADD`. */
export interface GrantableColumn {
  key: string;
  /** The power flag the column's menus gate, when it is one of the built-in function menus. */
  flag?: string;
  /** A name for columns that are no built-in flag (the first menu's name). */
  name?: string;
}

/** One row: a non-function menu, with its function menus as cells. */
export interface GrantableRow {
  /** The row's own menu (the `query` column for a model menu; the folder's own grant for a `dir`). */
  menu: GrantableMenu;
  type: string;
  parentId: number | null;
  /** Depth in the menu tree (0 at the top). */
  depth: number;
  /** The model a `table` / `tree` menu opens. */
  model?: string;
  /** Function menus under this row, by column key. */
  cells: Record<string, GrantableMenu>;
}

/** `GET /power/grantable`. */
export interface GrantableMatrix {
  editor: { id: number; isAdmin: boolean };
  /** The role model and the field that holds its menus, where the matrix is used. */
  role: { model: string; field: string };
  columns: GrantableColumn[];
  rows: GrantableRow[];
}

const BUILT_IN = Object.entries(FUNCTION_MENU_SUFFIXES).map(([flag, key]) => ({ flag, key: key as string }));

function cell(menu: FwMenuRecord, admin: boolean, held: ReadonlySet<string>): GrantableMenu {
  const grantable = admin || mayGrantMenu(menu.code, held);
  const out: GrantableMenu = { id: menu.id, code: menu.code, name: menu.name, status: menu.status, grantable, revocable: true };
  if (!grantable) out.refusal = { code: 'NOT_HELD', message: `You do not hold ${menu.code}; only someone who holds it, or an administrator, may grant it` };
  return out;
}

/** The column a function menu falls in: the suffix after `<parent code>@`, else its own id. */
function columnKey(menu: FwMenuRecord, parent: FwMenuRecord | undefined): string {
  const prefix = parent?.code ? `${parent.code}@` : undefined;
  if (prefix && menu.code?.startsWith(prefix)) return menu.code.slice(prefix.length);
  return `#${menu.id}`;
}

/**
 * Builds the matrix from every menu (as `menus.list()` returns them, by sort then id) for an
 * editor holding `held` (ignored for administrators). Pure.
 */
export function grantableMatrix(menus: readonly FwMenuRecord[], editor: FwUser, held: ReadonlySet<string>, role: { model: string; field: string }): GrantableMatrix {
  const admin = editor.isAdmin === true;
  const byId = new Map(menus.map((m) => [m.id, m]));
  const children = new Map<number | null, FwMenuRecord[]>();
  for (const m of menus) {
    // A parent that no longer exists leaves its menu at the top, so nothing drops out of sight.
    const parent = m.parentId !== null && byId.has(m.parentId) ? m.parentId : null;
    children.set(parent, [...(children.get(parent) ?? []), m]);
  }
  const columns: GrantableColumn[] = [{ key: 'query', flag: 'query' }, ...BUILT_IN];
  const known = new Set(columns.map((c) => c.key));
  const rows: GrantableRow[] = [];
  const seen = new Set<number>();
  const visit = (menu: FwMenuRecord, depth: number) => {
    if (seen.has(menu.id)) return;
    seen.add(menu.id);
    const row: GrantableRow = { menu: cell(menu, admin, held), type: menu.type, parentId: menu.parentId, depth, cells: {} };
    if ((menu.type === 'table' || menu.type === 'tree') && menu.value) row.model = menu.value;
    rows.push(row);
    const below = children.get(menu.id) ?? [];
    for (const fn of below.filter((m) => m.type === 'function')) {
      seen.add(fn.id);
      const key = columnKey(fn, menu);
      if (!known.has(key)) {
        known.add(key);
        columns.push({ key, name: fn.name });
      }
      row.cells[key] = cell(fn, admin, held);
    }
    for (const child of below.filter((m) => m.type !== 'function')) visit(child, depth + 1);
  };
  for (const top of children.get(null) ?? []) visit(top, 0);
  return { editor: { id: editor.id, isAdmin: admin }, role, columns, rows };
}

