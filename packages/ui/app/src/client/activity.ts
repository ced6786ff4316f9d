// The signed-in person's own recent activity for the home page (issue 20 §6): their latest
// sign-ins, failed ones included, and their latest edits, from `GET /my/activity` (the server
// answers the caller's own rows only), and the row counts of the models they may query.
import { useQueries, useQuery } from '@tanstack/react-query';
import { ApiError, call } from './api';
import { routes } from './routes';
export type { SignInEntry, EditEntry, Activity } from './answers';
import { tableQuery } from './queries';

/** The person's latest sign-ins and edits; asked again whenever the home page opens. */
export function useActivity() {
  return useQuery({ queryKey: ['my-activity'], queryFn: () => call(routes.activity()), staleTime: 0 });
}

/** A model's row count: a number, or `undefined` while loading; `null` when the user may not query it. */
export type Count = number | null | undefined;

/**
 * The row count of each model: the table route's `total` for a page of one row, so the count is
 * exactly what the person's table would say (their row visibility applied). Shares the table's
 * cache keys, so a write to a model refreshes its count.
 */
export function useCounts(models: string[]): Count[] {
  return useQueries({
    queries: models.map((fw) => ({
      ...tableQuery(fw, { page: 1, size: 1 }),
      retry: (failures: number, error: Error) => !(error instanceof ApiError && error.status < 500) && failures < 2,
    })),
    combine: (results) => results.map((r) => (r.isSuccess ? r.data.total : r.isError ? null : undefined)),
  });
}
