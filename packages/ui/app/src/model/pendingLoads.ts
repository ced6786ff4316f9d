// A live event patches the cached pages at once. A load of one of those pages that is in flight
// when the event comes may have read the rows before the change; landing after the event it would
// put back what the event took out (a deleted row, an old value). So the event's patch is kept for
// that load and applied again to what it brings: never a reload, which on a busy table would never
// end.
//
// The patch belongs to that one load, not to the query: a refetch that cancels it (TanStack's
// `cancelRefetch`, e.g. the invalidation after an Undo) starts a new load that read after the event,
// and the old patch applied to its answer would take out rows that came back since. TanStack marks
// a new load with a `fetch` action only when the query was idle or the load's `meta` differs (with
// no meta it always does today, by `null !== undefined`); rather than lean on that, each kept patch
// is tagged with the load's promise and only the load that lands with the same promise gets it.
import type { Query, QueryClient } from '@tanstack/react-query';

type Patch = (data: unknown) => unknown;

export interface PendingLoads {
  /** Keeps `patch` for the load of `query` now in flight; nothing when it is not fetching. */
  keep(query: Query, patch: Patch): void;
  /** Stops following the cache. */
  stop(): void;
}

export function followLoads(queryClient: QueryClient): PendingLoads {
  const kept = new Map<string, { load: Promise<unknown> | undefined; patches: Patch[] }>();
  const stop = queryClient.getQueryCache().subscribe((event) => {
    if (event.type !== 'updated') return;
    const { query, action } = event;
    const mine = kept.get(query.queryHash);
    if (!mine) return;
    // A load that starts now reads after the events so far; one that failed brought nothing.
    if (action.type === 'fetch' || action.type === 'error') kept.delete(query.queryHash);
    else if (action.type === 'success' && !action.manual) {
      kept.delete(query.queryHash);
      const landed: unknown = query.state.data;
      if (landed === undefined || mine.load !== query.promise) return;
      const next = mine.patches.reduce<unknown>((data, patch) => patch(data), landed);
      if (next !== landed) queryClient.setQueryData(query.queryKey, next);
    }
  });
  return {
    keep(query, patch) {
      if (query.state.fetchStatus !== 'fetching') return;
      const load = query.promise;
      const mine = kept.get(query.queryHash);
      if (mine && mine.load === load) mine.patches.push(patch);
      else kept.set(query.queryHash, { load, patches: [patch] });
    },
    stop,
  };
}
