// Server state lives in the TanStack Query cache only, keyed by what was asked (model and
// parameters); every write invalidates the model's keys (see invalidateModel).
import { useCallback } from 'react';
import { keepPreviousData, queryOptions, useQuery, type QueryClient } from '@tanstack/react-query';
import { localizeBuild, localizeMenus, useI18n } from '../i18n';
import { call, send } from './api';
import { routes, type ReferenceParams } from './routes';
import type { BuildView, MenuEntry, ReferencePage, Row, TablePage, TableQuery } from '../types';

/** Query keys, in one place so writes can invalidate exactly what they change. */
export const keys = {
  loginSettings: ['login-settings'] as const,
  userinfo: ['userinfo'] as const,
  menu: ['menu'] as const,
  build: (fw: string) => ['build', fw] as const,
  model: (fw: string) => ['model', fw] as const,
  table: (fw: string, query: TableQuery) => ['model', fw, 'table', query] as const,
  tree: (fw: string) => ['model', fw, 'tree'] as const,
  details: (fw: string, id: number) => ['model', fw, 'details', id] as const,
  history: (fw: string, id: number, page: number, size: number) => ['model', fw, 'history', id, page, size] as const,
  trash: (fw: string, page: number, size: number) => ['model', fw, 'trash', page, size] as const,
  views: (fw: string) => ['views', fw] as const,
  reference: (fw: string, field: string, params: Record<string, unknown>) => ['reference', fw, field, params] as const,
};

/** The public login settings (open route). */
export function useLoginSettings() {
  return useQuery({ queryKey: keys.loginSettings, queryFn: () => call(routes.loginSettings()), staleTime: 60_000 });
}

// The queries the first screen needs, as options shared by the hooks and prefetch.ts (same key,
// same request, same freshness), so a prefetched answer is the one the component reads.
export const userInfoQuery = queryOptions({ queryKey: keys.userinfo, queryFn: () => call(routes.userInfo()), staleTime: 60_000 });
export const menuQuery = queryOptions({ queryKey: keys.menu, queryFn: () => call(routes.menu()), staleTime: 60_000 });
export const buildQuery = (fw: string) => queryOptions({ queryKey: keys.build(fw), queryFn: () => call(routes.build(fw)), staleTime: 30_000 });
// A few seconds fresh: the page prefetched on the first load is not asked again when the table
// mounts. Writes and the reload button invalidate the model's keys, which refetches regardless.
export const tableQuery = (fw: string, query: TableQuery) => queryOptions({ queryKey: keys.table(fw, query), queryFn: () => call(routes.table(fw, query)), staleTime: 5_000 });

// The pages prefetch.ts asked for on the first load, not yet shown: the table's first mount takes
// them as they are, however long the page's code took to arrive on a slow machine or network
// (staleTime alone would ask again past its few seconds).
const prefetchedPages = new Set<string>();

/** Marks a table page as asked for by the first load's prefetch. */
export function notePrefetchedPage(fw: string, query: TableQuery): void {
  prefetchedPages.add(JSON.stringify(keys.table(fw, query)));
}

/** False once for a page the first load prefetched (its first mount does not ask again); else TanStack's default. */
function refetchUnlessPrefetched(query: { queryHash: string; queryKey: readonly unknown[] }): boolean {
  return !prefetchedPages.delete(JSON.stringify(query.queryKey));
}

/** The signed-in user. */
export function useUserInfo(enabled = true) {
  return useQuery({ ...userInfoQuery, enabled });
}

/** The user's menus (grants included), in the server's order; Fw's own names in the user's language. */
export function useMenu(enabled = true) {
  const { locale, models, englishModels } = useI18n();
  const select = useCallback((menus: MenuEntry[]) => localizeMenus(menus, locale, englishModels, models), [locale, models, englishModels]);
  return useQuery({ ...menuQuery, enabled, select });
}

/** A model's description and the user's power on it, its titles in the user's language. */
export function useBuild(fw: string) {
  const { locale, models } = useI18n();
  const select = useCallback((build: BuildView) => localizeBuild(build, locale, models), [locale, models]);
  return useQuery({ ...buildQuery(fw), select });
}

/** One page of the table. The previous page stays on screen while the next one loads. */
export function useTable(fw: string, query: TableQuery, enabled: boolean) {
  return useQuery({ ...tableQuery(fw, query), enabled, placeholderData: keepPreviousData, refetchOnMount: refetchUnlessPrefetched });
}

/** One page of the table, outside the cache (the live table asks which new rows match a search). */
export function fetchTablePage(fw: string, query: TableQuery): Promise<TablePage> {
  return call(routes.table(fw, query));
}

/** The largest page the table route gives; a tree table reads its rows this many at a time. */
export const MAX_PAGE_SIZE = 200;
/** A tree table shows at most this many rows (a tree menu of more is not a menu any more). */
export const MAX_TREE_ROWS = 2000;

/** Every row of a tree model (up to MAX_TREE_ROWS), for the expandable tree table. */
export function useTreeRows(fw: string, query: Omit<TableQuery, 'page' | 'size'>, enabled: boolean) {
  return useQuery({
    queryKey: [...keys.tree(fw), query],
    enabled,
    queryFn: async () => {
      const rows: Row[] = [];
      const labels: NonNullable<TablePage['labels']> = {};
      for (let page = 1; rows.length < MAX_TREE_ROWS; page += 1) {
        const answer = await call(routes.table(fw, { ...query, page, size: MAX_PAGE_SIZE }));
        rows.push(...answer.rows);
        for (const [field, map] of Object.entries(answer.labels ?? {})) labels[field] = { ...labels[field], ...map };
        if (answer.rows.length < MAX_PAGE_SIZE || rows.length >= answer.total) break;
      }
      return { rows, labels };
    },
  });
}

/** One row with its version (the ETag the edit form sends back as If-Match). */
export function useDetails(fw: string, id: number | undefined) {
  return useQuery({
    queryKey: keys.details(fw, id ?? 0),
    enabled: id !== undefined,
    queryFn: async () => {
      const { data, headers } = await send(routes.row(fw, id ?? 0));
      return { row: data, version: headers.get('etag') ?? undefined };
    },
    // The form must start from what the row holds now, not from a cached read.
    staleTime: 0,
    gcTime: 0,
  });
}

/** Candidates of a reference or collection field (search, page) or the labels of given ids. */
export function fetchReference(fw: string, field: string, params: ReferenceParams): Promise<ReferencePage> {
  return call(routes.reference(fw, field, params));
}

/** {@link fetchReference} through the cache. */
export function useReference(fw: string, field: string, params: ReferenceParams, enabled = true) {
  return useQuery({
    queryKey: keys.reference(fw, field, params),
    queryFn: () => fetchReference(fw, field, params),
    enabled,
    staleTime: 10_000,
    placeholderData: keepPreviousData,
  });
}

/** The administrators' user picker of the permission explainer: the first 200 users by account. */
export function useUserPicker(enabled: boolean) {
  return useQuery({
    queryKey: ['model', 'FwUser', 'permissions-picker'],
    enabled,
    queryFn: () => call(routes.table('FwUser', { page: 1, size: 200, sort: [{ field: 'account', order: 'asc' }] })),
    staleTime: 30_000,
  });
}

/** After a write to a model: its table pages, tree, details, and every reference list. */
export function invalidateModel(client: QueryClient, fw: string): Promise<void> {
  // A write to the users may change the signed-in person's own name: the header reads userinfo.
  const own = fw === 'FwUser' ? [client.invalidateQueries({ queryKey: keys.userinfo })] : [];
  return Promise.all([client.invalidateQueries({ queryKey: keys.model(fw) }), client.invalidateQueries({ queryKey: ['reference'] }), ...own]).then(() => undefined);
}

/** A page of a row's history (newest first); part of the model's keys, so every write refreshes it. */
export function useRowHistory(fw: string, id: number, page: number, size: number, enabled = true) {
  return useQuery({ queryKey: keys.history(fw, id, page, size), enabled, queryFn: () => call(routes.history(fw, id, page, size)), placeholderData: keepPreviousData });
}

/** A page of a model's trash (newest first); part of the model's keys, so a delete or undelete refreshes it. */
export function useTrash(fw: string, page: number, size: number, enabled = true) {
  return useQuery({ queryKey: keys.trash(fw, page, size), enabled, queryFn: () => call(routes.trash(fw, page, size)), placeholderData: keepPreviousData });
}

/** The saved views of a model the caller may use: their own and those shared with their roles. */
export function useViews(fw: string) {
  return useQuery({ queryKey: keys.views(fw), queryFn: () => call(routes.views(fw)), staleTime: 30_000 });
}
