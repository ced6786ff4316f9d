// The first load of a deep link asks for everything its first screen needs at once, as soon as the
// main script runs, instead of one request after another as components mount: the user and the
// menu (the shell), and on /model/{fw} the model page's code, the model's description and the
// table's first page. The page request does not wait for the description: without a search in the
// URL (conditions need the description's fields), its body follows from the URL alone. Everything
// goes into the TanStack Query cache under the keys the components read, so nothing is asked twice.
// A tree model reads its rows another way: its prefetched flat page is then simply not used.
import { QueryClient } from '@tanstack/react-query';
import { ApiError } from './client/api';
import { getToken } from './auth';
import { currentPath } from './router';
import { buildQuery, menuQuery, notePrefetchedPage, tableQuery, userInfoQuery } from './client/queries';
import { readState, tableQuery as tableBody } from './model/tableState';
import { filterConditions } from './model/filterTree';

/** The app's one cache. */
export const queryClient = new QueryClient({
  defaultOptions: {
    queries: {
      // A refused request (4xx) is an answer, not a hiccup: asking again changes nothing.
      retry: (count, error) => !(error instanceof ApiError && error.status >= 400 && error.status < 500) && count < 2,
      refetchOnWindowFocus: false,
    },
  },
});

/** The model page's code, loaded once (the shell's lazy route awaits the same promise). */
export const loadModelPage = () => import('./model/ModelPage');
/** The signed-in shell's code with the rest of antd's stylesheet (App's lazy route awaits the same promise). */
export const loadShell = () => import('./shell/route');
/** The sign-in page's code. */
export const loadLoginPage = () => import('./LoginPage');

/** Starts the first screen's requests for the current URL (signed in only). */
export function prefetchFirstScreen(client: QueryClient = queryClient): void {
  if (getToken() === undefined) return;
  const path = currentPath();
  const q = path.indexOf('?');
  const pathname = q === -1 ? path : path.slice(0, q);
  if (pathname === '/login') return;
  void loadShell().catch(() => undefined);
  void client.prefetchQuery(userInfoQuery);
  void client.prefetchQuery(menuQuery);
  const model = /^\/model\/([^/?]+)$/.exec(pathname);
  if (!model) return;
  let fw: string;
  try {
    fw = decodeURIComponent(model[1]!);
  } catch {
    return;
  }
  void loadModelPage().catch(() => undefined);
  void client.prefetchQuery(buildQuery(fw));
  const params = new URLSearchParams(q === -1 ? '' : path.slice(q + 1));
  // The search form's conditions need the model's fields; the filter's are in the address as they are.
  if (params.has('s')) return;
  const state = readState(params);
  const body = tableBody(state, filterConditions(state.filter));
  notePrefetchedPage(fw, body);
  void client.prefetchQuery(tableQuery(fw, body));
}
