// The model page's side of live tables (issue 24 §3): every event of the page's stream changes the
// TanStack Query cache of the model's table pages and tree in place (liveCache.ts), with no
// request; the cells another person changed are marked for two seconds, rows that were deleted
// fade before they go (unless put back meanwhile), and new rows that belong elsewhere in the table (another page) are kept
// for the "N new rows" notice, which lists them. With a search or filter in force the browser
// cannot tell whether a new row matches it: the server is asked, by id, which of them do (one small
// request for the rows that came within a quarter of a second), and only those count — placed on
// the page when it is theirs, else listed. `reload` (the stream fell behind, or resumed too late)
// loads the model's queries again.
import { useCallback, useEffect, useRef, useState } from 'react';
import { useQueryClient, type QueryKey } from '@tanstack/react-query';
import { fetchReference, fetchTablePage, invalidateModel, keys, MAX_PAGE_SIZE } from '../client/queries';
import { useLiveEvent, type LiveChannel, type LiveEvent } from '../client/live';
import type { ModelView, Row, TablePage, TableQuery } from '../types';
import { dropFromPage, insertIntoPage, patchPage, patchRows } from './liveCache';
import { followLoads, type PendingLoads } from './pendingLoads';
import { reducedMotion } from '../motion';
import './live.css';

/** How long a changed cell or an arrived row stays marked, ms (the CSS animation's length). */
export const MARK_MS = 2000;
/** How long a deleted row fades before it leaves, ms (nothing to wait for when motion is reduced). */
export const FADE_MS = 600;

type TreeData = { rows: Row[]; labels: TablePage['labels'] };

function mergeLabels(old: TablePage['labels'], more: NonNullable<TablePage['labels']>): TablePage['labels'] {
  const out = { ...old };
  for (const [field, byId] of Object.entries(more)) out[field] = { ...out[field], ...byId };
  return out;
}

/** What the table draws from the live events. */
export interface LiveTable {
  /** The class a cell gets while marked (`fw-live-changed`), else undefined. */
  cellClass(rowKey: unknown, field: string): string | undefined;
  /** The class a row gets while it arrives or leaves. */
  rowClass(rowKey: unknown): string | undefined;
  /** New rows of the query on screen that belong elsewhere in the table, oldest first, as the table shows them. */
  fresh: Row[];
  /** Forgets the new rows `ids` (all of them without). */
  forgetFresh(ids?: unknown[]): void;
}

/** How long new rows under a search are gathered before the server is asked which match it, ms. */
const MATCH_WAIT_MS = 250;

/**
 * Follows `channel` for the table of `model` showing `query`. The person's own changes (the
 * server marks them `mine`) are applied but not marked.
 */
export function useLiveTable(
  channel: LiveChannel | undefined,
  model: ModelView,
  query: TableQuery,
  /** Rows others deleted: called when they start to leave (`leaving`) and once they are gone. */
  on: { leaving?: (ids: number[]) => void; gone?: (ids: number[]) => void } = {},
): LiveTable {
  const queryClient = useQueryClient();
  const fw = model.name;
  const key = model.primaryKey;
  const [marks, setMarks] = useState<ReadonlyMap<string, string>>(new Map());
  const [fresh, setFresh] = useState<ReadonlyMap<unknown, Row>>(new Map());
  const timers = useRef(new Set<ReturnType<typeof setTimeout>>());
  // Rows deleted that are still fading out (they leave the cache when the fade ends), each with
  // the delete it fades for: a later delete of the same row restarts its fade.
  const leaving = useRef(new Map<unknown, object>());
  const current = useRef(query);
  current.current = query;
  useEffect(() => () => timers.current.forEach(clearTimeout), []);

  const later = (ms: number, run: () => void) => {
    const timer = setTimeout(() => {
      timers.current.delete(timer);
      run();
    }, ms);
    timers.current.add(timer);
  };
  // Marks `names` (`row` or `row\0field`) with `cls` for `ms`; a newer mark of the same name wins.
  const mark = (names: string[], cls: string, ms: number) => {
    const stamp = `${cls} ${Date.now()}${Math.random()}`;
    setMarks((old) => new Map([...old, ...names.map((n) => [n, stamp] as const)]));
    later(ms, () => setMarks((old) => new Map([...old].filter(([, s]) => s !== stamp))));
  };

  const tables = () => queryClient.getQueriesData<TablePage>({ queryKey: [...keys.model(fw), 'table'] });
  const put = <T>(entry: readonly [QueryKey, T | undefined], next: T | undefined) => {
    if (next !== undefined && next !== entry[1]) queryClient.setQueryData(entry[0], next);
  };
  // An event patches every cached page and tree of the model, and a load of one of them in flight
  // gets the same patch when it lands (pendingLoads.ts).
  const pending = useRef<PendingLoads>(undefined);
  useEffect(() => {
    const following = followLoads(queryClient);
    pending.current = following;
    return () => {
      following.stop();
      if (pending.current === following) pending.current = undefined;
    };
  }, [queryClient]);
  const patchAll = (patchTable: (page: TablePage, queryKey: QueryKey) => TablePage, patchTree: (tree: TreeData) => TreeData) => {
    const each = <T>(queryKey: QueryKey, patch: (data: T, queryKey: QueryKey) => T) => {
      for (const query of queryClient.getQueryCache().findAll({ queryKey })) {
        const data = query.state.data as T | undefined;
        if (data !== undefined) put([query.queryKey, data], patch(data, query.queryKey));
        pending.current?.keep(query, (landed) => patch(landed as T, query.queryKey));
      }
    };
    each([...keys.model(fw), 'table'], patchTable);
    each(keys.tree(fw), patchTree);
  };
  const isCurrent = (k: QueryKey) => JSON.stringify(k) === JSON.stringify(keys.table(fw, current.current));
  // A reference value the pages have no label for (someone picked another author): its label is
  // asked for by id, the one small request an event may cause, and merged into every page.
  const labelsFor = (values: Row) => {
    const pages = tables();
    for (const field of model.fields) {
      if (!(field.name in values) || !(field.reference || field.collection)) continue;
      const value = values[field.name];
      const ids = (Array.isArray(value) ? value : [value]).filter((v): v is number => typeof v === 'number');
      const missing = ids.filter((i) => !pages.some(([, page]) => page?.labels?.[field.name]?.[String(i)] !== undefined));
      if (missing.length === 0) continue;
      fetchReference(fw, field.name, { ids: missing }).then(
        (answer) => {
          const found = Object.fromEntries(answer.rows.map((r) => [String(r.id), r.label]));
          for (const entry of tables()) put(entry, entry[1] && { ...entry[1], labels: { ...entry[1].labels, [field.name]: { ...entry[1].labels?.[field.name], ...found } } });
        },
        () => undefined, // the cell shows `#id` until the next load
      );
    }
  };
  // The server marks the viewer's own changes (`mine`, by user id): applied, never highlighted.
  const others = (event: LiveEvent) => event.data.mine !== true;

  useLiveEvent(channel, 'update', (event) => {
    const id = event.data.id;
    const values = event.data.values;
    if (typeof id !== 'number' || !values || typeof values !== 'object') return;
    patchAll(
      (page) => patchPage(page, key, id, values as Row),
      (tree) => ({ ...tree, rows: patchRows(tree.rows, key, id, values as Row) }),
    );
    labelsFor(values as Row);
    const asked = asking.current.get(id);
    if (asked) asking.current.set(id, { ...asked, ...(values as Row) });
    if (others(event))
      mark(
        Object.keys(values).map((f) => `${String(id)}\0${f}`),
        'fw-live-changed',
        MARK_MS,
      );
  });

  // New rows under a search or filter, waiting to be matched against it by the server.
  const unmatched = useRef(new Map<unknown, Row>());
  // Rows whose match is being asked: what events said of them meanwhile (values changed since, or
  // null: deleted), applied to the answer, which may have read them before.
  const asking = useRef(new Map<unknown, Row | null>());
  const matchTimer = useRef<ReturnType<typeof setTimeout>>(undefined);
  // One question at a time: rows that come while one is asked wait for its answer (a flood of
  // inserts makes one request per answer, not one per quarter second).
  const matching = useRef(false);
  const mounted = useRef(true);
  useEffect(() => {
    mounted.current = true;
    return () => {
      mounted.current = false;
      clearTimeout(matchTimer.current);
      matchTimer.current = undefined;
    };
  }, []);
  const matchLater = () => {
    if (matchTimer.current !== undefined || matching.current || !mounted.current) return;
    matchTimer.current = setTimeout(() => {
      matchTimer.current = undefined;
      const asked = current.current;
      const rows = [...unmatched.current.values()].slice(0, MAX_PAGE_SIZE);
      if (rows.length === 0) return; // forgotten meanwhile (another search, a reload)
      for (const row of rows) unmatched.current.delete(row[key]);
      matching.current = true;
      const ids = rows.map((r) => r[key]);
      for (const id of ids) asking.current.set(id, {});
      const conditions = [...(asked.conditions ?? []), { field: key, op: 'in' as const, value: ids }];
      const since = (id: unknown) => {
        const seen = asking.current.get(id);
        asking.current.delete(id);
        return seen;
      };
      fetchTablePage(fw, { page: 1, size: ids.length, conditions, count: 'none' })
        .then(
          (answer) => {
            const news = new Map(ids.map((id) => [id, since(id)] as const));
            if (!mounted.current) return;
            // The search changed meanwhile: what was counted belonged to the old one.
            if (JSON.stringify(current.current) !== JSON.stringify(asked)) return;
            for (const row of answer.rows) {
              const seen = news.get(row[key]);
              // Deleted while asked (its answer would bring it back as a ghost), else with the newer values.
              if (seen !== null) placeOrKeep({ ...row, ...seen }, asked, answer.labels);
            }
          },
          () => ids.forEach(since), // the rows show with the next load
        )
        .finally(() => {
          matching.current = false;
          if (unmatched.current.size > 0) matchLater();
        });
    }, MATCH_WAIT_MS);
  };
  // A new row known to match the query on screen: on its page where the order puts it there (the
  // total grows by one either way), else kept for the notice.
  const placeOrKeep = (row: Row, asked: TableQuery, labels?: TablePage['labels']) => {
    const tableKey = keys.table(fw, asked);
    const page = queryClient.getQueryData<TablePage>(tableKey);
    const id = row[key];
    if (!page) return;
    if (page.rows.some((r) => r[key] === id)) return;
    // Known to match: placed as on a page without conditions.
    const { page: next, placed } = insertIntoPage(page, model, { ...asked, conditions: [] }, row);
    const withLabels = labels ? { ...next, labels: mergeLabels(next.labels, labels) } : next;
    queryClient.setQueryData(tableKey, withLabels);
    if (placed) mark([String(id)], 'fw-live-arrived', MARK_MS);
    else setFresh((old) => new Map([...old, [id, row]]));
  };

  useLiveEvent(channel, 'insert', (event) => {
    const id = event.data.id;
    const row = event.data.row as Row | undefined;
    if (typeof id !== 'number' || !row || typeof row !== 'object') return;
    const full = { ...row, [key]: id };
    labelsFor(full);
    // Put back while it fades out (Undo right after the delete): the delete has not taken it out of
    // the cache or the total yet, so it only stays, with the values it came back with.
    if (leaving.current.delete(id)) {
      setMarks((old) => new Map([...old].filter(([name]) => name !== String(id))));
      patchAll(
        (page) => patchPage(page, key, id, full),
        (tree) => ({ ...tree, rows: patchRows(tree.rows, key, id, full) }),
      );
      return;
    }
    // Whether the row is on screen is judged on the first pass only (a replay changes nothing here).
    let first = true;
    let shown = false;
    patchAll(
      (page, queryKey) => {
        const { page: next, placed } = insertIntoPage(page, model, queryKey[3] as TableQuery, full);
        if (first && isCurrent(queryKey)) shown = placed;
        return next;
      },
      (tree) => {
        // The tree is on screen only without a search (a search shows the flat table).
        if (first && !current.current.conditions?.length) shown = true;
        const has = tree.rows.some((r) => r[key] === id);
        return { ...tree, rows: has ? patchRows(tree.rows, key, id, full) : [...tree.rows, full] };
      },
    );
    first = false;
    // The person's own new row comes with the refetch after their save; others' are marked, kept
    // for the notice, or (under a search) first matched against it.
    if (!others(event)) return;
    if (shown) mark([String(id)], 'fw-live-arrived', MARK_MS);
    else if (current.current.conditions?.length) {
      unmatched.current.set(id, full);
      matchLater();
    } else setFresh((old) => new Map([...old, [id, full]]));
  });

  useLiveEvent(channel, 'delete', (event) => {
    const ids = (Array.isArray(event.data.ids) ? event.data.ids : []).filter((i): i is number => typeof i === 'number');
    if (ids.length === 0) return;
    for (const i of ids) {
      unmatched.current.delete(i);
      if (asking.current.has(i)) asking.current.set(i, null);
    }
    setFresh((old) => (ids.some((i) => old.has(i)) ? new Map([...old].filter(([i]) => !ids.includes(i as number))) : old));
    const fade = {};
    for (const i of ids) leaving.current.set(i, fade);
    const drop = () => {
      // Rows put back meanwhile are not taken out (nor those deleted again since: a later fade ends it).
      const gone = ids.filter((i) => leaving.current.get(i) === fade);
      for (const i of gone) leaving.current.delete(i);
      if (gone.length === 0) return;
      patchAll(
        (page, queryKey) => dropFromPage(page, key, gone, (queryKey[3] ?? {}) as TableQuery),
        (tree) => ({ ...tree, rows: tree.rows.filter((r) => !gone.includes(r[key] as number)) }),
      );
      on.gone?.(gone);
    };
    on.leaving?.(ids);
    if (reducedMotion()) return drop();
    mark(ids.map(String), 'fw-live-leaving', FADE_MS + 100);
    later(FADE_MS, drop);
  });

  useLiveEvent(channel, 'reload', () => {
    setFresh(new Map());
    unmatched.current.clear();
    // The load says which rows are there: a fade under way takes nothing out after it.
    leaving.current.clear();
    void invalidateModel(queryClient, fw);
  });

  // The new rows counted belong to the query they were counted for.
  const queryText = JSON.stringify(query);
  useEffect(() => {
    setFresh(new Map());
    unmatched.current.clear();
  }, [queryText]);

  const forgetFresh = useCallback((ids?: unknown[]) => setFresh((old) => (ids ? new Map([...old].filter(([i]) => !ids.includes(i))) : new Map())), []);

  // A counted row the page shows by now (a refetch brought it) is no longer new.
  const onPage = new Set((queryClient.getQueryData<TablePage>(keys.table(fw, query))?.rows ?? []).map((r) => r[key]));
  return {
    cellClass: (rowKey, field) => (marks.has(`${String(rowKey)}\0${field}`) ? 'fw-live-changed' : undefined),
    rowClass: (rowKey) => marks.get(String(rowKey))?.split(' ')[0],
    fresh: [...fresh].filter(([id]) => !onPage.has(id)).map(([, row]) => row),
    forgetFresh,
  };
}
