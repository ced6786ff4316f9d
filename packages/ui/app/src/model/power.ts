// Ask "may I?" in one place: every button, link and editor of the model page is drawn through
// `can`, from the power object of GET /build/{fw}. The server checks each request again.
import type { BuildView, FieldView } from '../types';

/** What the model page can offer. */
export type UiAction = 'query' | 'add' | 'edit' | 'delete' | 'viewDetails' | 'export' | 'import' | 'print' | 'copy' | 'cellEdit';

/** Where a cell editor would open (only for `cellEdit`). */
export interface CellPlace {
  field: FieldView;
  /** Sub-tables (a row's related rows shown inside another table) never edit cells. */
  subTable?: boolean;
}

/**
 * Whether the user may do `action` on the model, as the route that serves it decides:
 * copy needs `copy` and `add`, import needs `importable` and `add` or `edit`, a cell editor needs `edit`,
 * `cellEdit`, a flat (not tree) table that is not a sub-table, and a field whose own `cellEdit`
 * (the model's and the field's switches, read-only, key, collection and password combined by the
 * server) is true.
 */
export function can(build: BuildView, action: UiAction, place?: CellPlace): boolean {
  const p = build.power;
  switch (action) {
    case 'copy':
      return p.copy && p.add;
    case 'import':
      // Adding rows needs `add`; updating them by id (import modes update, upsert) needs `edit`.
      return p.importable && (p.add || p.edit);
    case 'cellEdit':
      return p.edit && p.cellEdit && !build.model.tree && !place?.subTable && place?.field.cellEdit === true;
    default:
      return p[action] === true;
  }
}
