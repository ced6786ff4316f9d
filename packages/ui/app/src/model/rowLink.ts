// A link to one row of a model (issue 20 §6): `/model/Book?row=3` opens the Book page with the
// row's details in the drawer, so the home page's recent edits can link to what was changed.
import type { DrawerState } from './RowDrawer';

const ROW_ID = /^[1-9][0-9]{0,15}$/;

/** The app path of a row's details. */
export function rowPath(fw: string, id: number): string {
  return `/model/${encodeURIComponent(fw)}?row=${id}`;
}

/** The drawer a model page opens with: the details of `?row=<id>`, or none. */
export function rowFromQuery(params: URLSearchParams): DrawerState | undefined {
  const raw = params.get('row');
  return raw !== null && ROW_ID.test(raw) ? { mode: 'details', id: Number(raw) } : undefined;
}
