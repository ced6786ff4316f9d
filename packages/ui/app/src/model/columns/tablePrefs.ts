// A person's layout of one model's table (issue 20 §5): column order, hidden columns, widths and
// row density, kept on the server under `table:<model>` (GET/PUT/DELETE /prefs/{key}) so it
// follows them to another browser. The cache holds the server's answer; a change is written to
// the cache at once and then sent, so the table never waits for the server to redraw.
import { useQueryClient } from '@tanstack/react-query';
import { App } from 'antd';
import { prefKey, useDeletePref, useSavePref, useStoredPref } from '../../client/prefs';
import { useI18n } from '../../i18n';

/** Row heights, as antd's Table `size` names them. */
export type Density = 'small' | 'middle' | 'large';
export const DENSITIES: readonly Density[] = ['small', 'middle', 'large'];

/** What `table:<model>` stores; every field optional (absent: the model's default). */
export interface TablePref {
  order?: string[];
  hidden?: string[];
  widths?: Record<string, number>;
  density?: Density;
}

/** The bounds the server accepts for a width. */
export const WIDTH_MIN = 40;
export const WIDTH_MAX = 2000;

/** The stored layout of a model's table, and the ways to change or forget it. */
export function useTablePref(fw: string) {
  const { t } = useI18n();
  const { message } = App.useApp();
  const queryClient = useQueryClient();
  const name = `table:${fw}`;
  const key = prefKey(name);
  const query = useStoredPref<TablePref>(name, {});
  const failed = (error: Error) => {
    message.error(t('table.saveFailed', { error: error.message }));
    void queryClient.invalidateQueries({ queryKey: key });
  };
  // One queue per key: writes reach the server in the order they were made.
  const save = useSavePref<TablePref>(name, failed);
  const reset = useDeletePref(name, failed);
  const pref: TablePref = query.data ?? {};
  return {
    pref,
    /**
     * Merges the change into the layout and stores it. A function is given the latest layout:
     * two key presses before the next render must not both start from the same one.
     */
    update: (change: TablePref | ((latest: TablePref) => TablePref)) => {
      const latest = queryClient.getQueryData<TablePref>(key) ?? {};
      const next = cleanPref({ ...latest, ...(typeof change === 'function' ? change(latest) : change) });
      queryClient.setQueryData(key, next);
      save.mutate(next);
    },
    reset: () => {
      queryClient.setQueryData(key, {});
      reset.mutate();
    },
  };
}

/** The layout without empty parts, so a reset-looking layout stores as `{}`. */
export function cleanPref(pref: TablePref): TablePref {
  const out: TablePref = {};
  if (pref.order?.length) out.order = pref.order;
  if (pref.hidden?.length) out.hidden = pref.hidden;
  if (pref.widths && Object.keys(pref.widths).length) out.widths = pref.widths;
  if (pref.density) out.density = pref.density;
  return out;
}

/**
 * `keys` in the stored order: keys the layout names come first in its order, keys it does not
 * know (a field added since) keep their place after them; stored keys of removed columns drop out.
 */
export function orderedKeys(keys: readonly string[], order: readonly string[] | undefined): string[] {
  if (!order?.length) return [...keys];
  const known = new Set(keys);
  const first = order.filter((k) => known.has(k));
  const placed = new Set(first);
  return [...first, ...keys.filter((k) => !placed.has(k))];
}

/** `order` with `key` moved one place up (-1) or down (+1). */
export function moveKey(order: readonly string[], key: string, by: -1 | 1): string[] {
  const next = [...order];
  const from = next.indexOf(key);
  const to = from + by;
  if (from < 0 || to < 0 || to >= next.length) return next;
  [next[from], next[to]] = [next[to]!, next[from]!];
  return next;
}

/** A width within the bounds the server accepts. */
export function clampWidth(width: number): number {
  return Math.min(WIDTH_MAX, Math.max(WIDTH_MIN, Math.round(width)));
}
