// Which rows of a tree table are open. Every parent starts open; a parent the person closes stays
// closed, until a row appears under it (one just added, by this person or a refresh), which opens
// its ancestors: a new child is never added out of sight (issue 20).
import { useEffect, useMemo, useRef, useState } from 'react';
import type { BuildView, Row } from '../types';

/** A row of a tree table: the row, and its children when it has any. */
export type TreeRow = Row & { children?: TreeRow[] };

/** Each row's key with its parent's key (undefined for a root). */
function parentsByKey(rows: TreeRow[], keyOf: (r: Row) => string): Map<string, string | undefined> {
  const out = new Map<string, string | undefined>();
  const walk = (list: TreeRow[], parent: string | undefined) => {
    for (const r of list) {
      out.set(keyOf(r), parent);
      if (r.children) walk(r.children, keyOf(r));
    }
  };
  walk(rows, undefined);
  return out;
}

/** The open rows of a tree table and the handler that opens or closes one. */
export function useTreeExpansion(rows: TreeRow[], keyOf: (r: Row) => string): { expandedRowKeys: string[]; onExpand: (expanded: boolean, row: Row) => void } {
  const [closed, setClosed] = useState<ReadonlySet<string>>(new Set());
  const parents = useMemo(() => parentsByKey(rows, keyOf), [rows, keyOf]);
  const seen = useRef<ReadonlySet<string>>(undefined);

  useEffect(() => {
    const before = seen.current;
    seen.current = new Set(parents.keys());
    if (!before) return;
    const reopen = new Set<string>();
    for (const [k] of parents) {
      if (before.has(k)) continue;
      for (let p = parents.get(k); p !== undefined; p = parents.get(p)) reopen.add(p);
    }
    if ([...reopen].some((k) => closed.has(k))) setClosed((prev) => new Set([...prev].filter((k) => !reopen.has(k))));
  }, [parents, closed]);

  const expandedRowKeys = useMemo(() => [...new Set(parents.values())].filter((k): k is string => k !== undefined && !closed.has(k)), [parents, closed]);
  const onExpand = (expanded: boolean, row: Row) => {
    const k = keyOf(row);
    setClosed((prev) => {
      const next = new Set(prev);
      if (expanded) next.delete(k);
      else next.add(k);
      return next;
    });
  };
  return { expandedRowKeys, onExpand };
}

/** The rows of a table that is not a tree, as far as tree expansion goes. */
export const NO_ROWS: TreeRow[] = [];

export function nest(rows: Row[], key: string, parentField: string): TreeRow[] {
  const byId = new Map<unknown, TreeRow>(rows.map((r) => [r[key], { ...r }]));
  const roots: TreeRow[] = [];
  for (const r of byId.values()) {
    const parent = r[parentField] !== null && r[parentField] !== undefined ? byId.get(r[parentField]) : undefined;
    if (parent && parent !== r) (parent.children ??= []).push(r);
    else roots.push(r);
  }
  return roots;
}

export function parentFieldOf(build: BuildView): string | undefined {
  if (build.model.treeParentField) return build.model.treeParentField;
  // Older servers: the tree parent is the REFERENCE_TREE field pointing at the model itself.
  return build.model.fields.find((f) => f.type === 'REFERENCE_TREE' && f.reference?.model === build.model.name)?.name;
}
