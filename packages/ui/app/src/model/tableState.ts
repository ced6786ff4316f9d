// The table's paging, sorting and search as the URL holds them, and the body of the table request
// made from them. Kept apart from ModelPage (no antd here) so the first load can ask for the first
// page before the model page's code has arrived (see prefetch.ts): both build the same query, so
// the prefetched page is the one the table reads from the cache.
import { MAX_PAGE_SIZE } from '../client/queries';
import type { ConditionNode, TableQuery } from '../types';
import { readFilter, type FilterGroup } from './filterTree';
import type { SearchValues } from './SearchForm';
import { MAX_PAGE, moveBody, readMove, type PageMove } from './paging';

/** Rows per page when the URL names no size. */
export const DEFAULT_SIZE = 20;

/** Table state read from the URL; bad values fall back to the defaults. */
export interface TableState {
  page: number;
  size: number;
  /** How the page was reached (cursor or last); absent for an offset page. See paging.ts. */
  move?: PageMove;
  sort: Array<{ field: string; order: 'asc' | 'desc' }>;
  search: SearchValues;
  /** The filter builder's rules (the `f` parameter), when any are in force. */
  filter?: FilterGroup;
  /** The saved view last applied (the `v` parameter): shown as chosen in the views bar. */
  view?: number;
}

/** Paging, sorting and search live in the URL, so a reload or a shared link shows the same rows. */
export function readState(query: URLSearchParams): TableState {
  const whole = (v: string | null, fallback: number, max: number) => {
    const n = Number(v);
    return Number.isInteger(n) && n >= 1 ? Math.min(n, max) : fallback;
  };
  const sortParam = query.get('sort');
  const sort = sortParam
    ? sortParam
        .split(';')
        .map((part) => part.split(','))
        .filter(([field]) => field)
        .map(([field, order]) => ({ field: field!, order: order === 'desc' ? ('desc' as const) : ('asc' as const) }))
    : [];
  let search: SearchValues = {};
  try {
    const parsed: unknown = JSON.parse(query.get('s') ?? '{}');
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) search = parsed as SearchValues;
  } catch {
    search = {};
  }
  let filter: FilterGroup | undefined;
  try {
    filter = readFilter(JSON.parse(query.get('f') ?? 'null'));
  } catch {
    filter = undefined;
  }
  const view = whole(query.get('v'), 0, 2147483647) || undefined;
  const page = whole(query.get('page'), 1, MAX_PAGE);
  // Page 1 is always the plain first page (a cursor there would only make a second cache entry).
  const move = page > 1 ? readMove(query) : undefined;
  return { page, size: whole(query.get('size'), DEFAULT_SIZE, MAX_PAGE_SIZE), ...(move ? { move } : {}), sort, search, ...(filter ? { filter } : {}), ...(view ? { view } : {}) };
}

/**
 * The body of `POST /data/table/{fw}` for a state and its search conditions. `exact` asks for an
 * exact total (`count: 'exact'`); otherwise the server's default (`auto`) applies and `count` is
 * left out, so the body stays the one the first-load prefetch builds.
 */
export function tableQuery(state: Pick<TableState, 'page' | 'size' | 'sort' | 'move'>, conditions: ConditionNode[], exact = false): TableQuery {
  return {
    page: state.page,
    size: state.size,
    ...(state.sort.length ? { sort: state.sort } : {}),
    ...(conditions.length ? { conditions } : {}),
    ...moveBody(state.move),
    ...(exact ? { count: 'exact' as const } : {}),
  };
}
