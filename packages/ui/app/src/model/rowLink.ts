// A link to one row of a model (issue 20 §6): `/model/Book?row=3` opens the Book page with the
// row's details in the drawer, so the home page's recent edits can link to what was changed.
import { currentPath, navigate } from '../router';
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

/** Takes `?row=` out of the address once the drawer it opened has closed (a reload leaves it shut). */
export function dropRowFromAddress(): void {
  const path = currentPath();
  const q = path.indexOf('?');
  if (q === -1) return;
  const params = new URLSearchParams(path.slice(q + 1));
  if (!params.has('row')) return;
  params.delete('row');
  const rest = params.toString();
  navigate(`${path.slice(0, q)}${rest ? `?${rest}` : ''}`, { replace: true });
}
