// The model page's side of live tables (issue 24 §3): every event of the page's stream changes the
// TanStack Query cache of the model's table pages and tree in place (liveCache.ts), with no
// request; the cells another person changed are marked for two seconds, rows that were deleted
// fade before they go, and new rows that cannot be placed on the page on screen are counted for
// the "N new rows — show" notice. `reload` (the stream fell behind, or resumed too late) loads
// the model's queries again.
import { useCallback, useEffect, useRef, useState } from 'react';
import { useQueryClient, type QueryKey } from '@tanstack/react-query';
import { fetchReference, invalidateModel, keys } from '../client/queries';
import { useLiveEvent, type LiveChannel, type LiveEvent } from '../client/live';
import type { ModelView, Row, TablePage, TableQuery } from '../types';
import { dropFromPage, insertIntoPage, patchPage, patchRows } from './liveCache';
import { reducedMotion } from '../motion';
import './live.css';

/** How long a changed cell or an arrived row stays marked, ms (the CSS animation's length). */
export const MARK_MS = 2000;
/** How long a deleted row fades before it leaves, ms (nothing to wait for when motion is reduced). */
export const FADE_MS = 600;

type TreeData = { rows: Row[]; labels: TablePage['labels'] };

/** What the table draws from the live events. */
export interface LiveTable {
  /** The class a cell gets while marked (`fw-live-changed`), else undefined. */
  cellClass(rowKey: unknown, field: string): string | undefined;
  /** The class a row gets while it arrives or leaves. */
  rowClass(rowKey: unknown): string | undefined;
  /** New rows of the query on screen that the page could not place. */
  fresh: number;
  /** Loads the table again and forgets the new rows counted. */
  showFresh(): void;
}

/**
 * Follows `channel` for the table of `model` showing `query`. The person's own changes (the
 * server marks them `mine`) are applied but not marked.
 */
export function useLiveTable(channel: LiveChannel | undefined, model: ModelView, query: TableQuery, onGone?: (ids: number[]) => void): LiveTable {
  const queryClient = useQueryClient();
  const fw = model.name;
  const key = model.primaryKey;
  const [marks, setMarks] = useState<ReadonlyMap<string, string>>(new Map());
  const [fresh, setFresh] = useState<ReadonlySet<unknown>>(new Set());
  const timers = useRef(new Set<ReturnType<typeof setTimeout>>());
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
  const trees = () => queryClient.getQueriesData<TreeData>({ queryKey: keys.tree(fw) });
  const put = <T>(entry: readonly [QueryKey, T | undefined], next: T | undefined) => {
    if (next !== undefined && next !== entry[1]) queryClient.setQueryData(entry[0], next);
  };
  // A load of this model's table or tree still in flight may have read the rows before the change
  // an event brings: landing after it, it would put back what the event took out (a deleted row,
  // an old value). Each such load is cancelled and asked again, so the page ends with the change.
  const reloadInFlight = () => {
    for (const queryKey of [[...keys.model(fw), 'table'], keys.tree(fw)]) {
      for (const query of queryClient.getQueryCache().findAll({ queryKey })) {
        if (query.state.fetchStatus === 'fetching') void queryClient.invalidateQueries({ queryKey: query.queryKey, exact: true });
      }
    }
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
    reloadInFlight();
    for (const entry of tables()) put(entry, entry[1] && patchPage(entry[1], key, id, values as Row));
    labelsFor(values as Row);
    for (const entry of trees()) put(entry, entry[1] && { ...entry[1], rows: patchRows(entry[1].rows, key, id, values as Row) });
    if (others(event))
      mark(
        Object.keys(values).map((f) => `${String(id)}\0${f}`),
        'fw-live-changed',
        MARK_MS,
      );
  });

  useLiveEvent(channel, 'insert', (event) => {
    const id = event.data.id;
    const row = event.data.row as Row | undefined;
    if (typeof id !== 'number' || !row || typeof row !== 'object') return;
    reloadInFlight();
    const full = { ...row, [key]: id };
    labelsFor(full);
    let shown = false;
    for (const entry of tables()) {
      if (!entry[1]) continue;
      const query = entry[0][3] as TableQuery;
      const { page, placed } = insertIntoPage(entry[1], model, query, full);
      put(entry, page);
      if (isCurrent(entry[0])) shown = placed;
    }
    for (const entry of trees()) {
      if (!entry[1]) continue;
      const has = entry[1].rows.some((r) => r[key] === id);
      put(entry, { ...entry[1], rows: has ? patchRows(entry[1].rows, key, id, full) : [...entry[1].rows, full] });
      shown = true;
    }
    // The person's own new row comes with the refetch after their save; others' are counted.
    if (!shown && others(event)) setFresh((old) => new Set([...old, id]));
    else if (shown && others(event)) mark([String(id)], 'fw-live-arrived', MARK_MS);
  });

  useLiveEvent(channel, 'delete', (event) => {
    const ids = (Array.isArray(event.data.ids) ? event.data.ids : []).filter((i): i is number => typeof i === 'number');
    if (ids.length === 0) return;
    reloadInFlight();
    setFresh((old) => (ids.some((i) => old.has(i)) ? new Set([...old].filter((i) => !ids.includes(i as number))) : old));
    const drop = () => {
      for (const entry of tables()) put(entry, entry[1] && dropFromPage(entry[1], key, ids, (entry[0][3] ?? {}) as TableQuery));
      for (const entry of trees()) put(entry, entry[1] && { ...entry[1], rows: entry[1].rows.filter((r) => !ids.includes(r[key] as number)) });
      onGone?.(ids);
    };
    if (reducedMotion()) return drop();
    mark(ids.map(String), 'fw-live-leaving', FADE_MS + 100);
    later(FADE_MS, drop);
  });

  useLiveEvent(channel, 'reload', () => {
    setFresh(new Set());
    void invalidateModel(queryClient, fw);
  });

  // The new rows counted belong to the query they were counted for.
  const queryText = JSON.stringify(query);
  useEffect(() => setFresh(new Set()), [queryText]);

  const showFresh = useCallback(() => {
    setFresh(new Set());
    void invalidateModel(queryClient, fw);
  }, [queryClient, fw]);

  // A counted row the page shows by now (a refetch brought it) is no longer new.
  const onPage = new Set((queryClient.getQueryData<TablePage>(keys.table(fw, query))?.rows ?? []).map((r) => r[key]));
  return {
    cellClass: (rowKey, field) => (marks.has(`${String(rowKey)}\0${field}`) ? 'fw-live-changed' : undefined),
    rowClass: (rowKey) => marks.get(String(rowKey))?.split(' ')[0],
    fresh: [...fresh].filter((id) => !onPage.has(id)).length,
    showFresh,
  };
}
