// Pickers for REFERENCE_TABLE (searchable, paged), REFERENCE_TREE (a tree) and COLLECTION (many),
// fed by POST /data/reference/{fw}/{field}: open to whoever may add or edit the referencing
// model, with the referenced model's row visibility applied by the server.
import { useEffect, useMemo, useState } from 'react';
import { Select, Spin, TreeSelect } from 'antd';
import { useInfiniteQuery } from '@tanstack/react-query';
import { fetchReference, keys, useReference } from '../client/queries';
import { useI18n } from '../i18n';
import type { ReferencePage } from '../types';

const PAGE_SIZE = 20;
/** A tree picker reads this many candidates at once (the route's limit for trees). */
export const TREE_SIZE = 1000;

function useDebounced<T>(value: T, ms: number): T {
  const [current, setCurrent] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setCurrent(value), ms);
    return () => clearTimeout(timer);
  }, [value, ms]);
  return current;
}

function toIds(value: unknown): number[] {
  const list = Array.isArray(value) ? value : value === null || value === undefined || value === '' ? [] : [value];
  return list.map(Number).filter((n) => Number.isInteger(n) && n > 0);
}

/** Props every picker takes (the form item gives value and onChange). */
export interface PickerProps {
  /** The referencing model. */
  model: string;
  field: string;
  value?: unknown;
  onChange?: (value: unknown) => void;
  autoFocus?: boolean;
  id?: string;
  disabled?: boolean;
  placeholder?: string;
  /** Open the list at once (the cell editor). */
  defaultOpen?: boolean;
}

/** REFERENCE_TABLE (`multiple` false) and COLLECTION (`multiple` true). */
export function ReferenceSelect({ model, field, value, onChange, multiple, autoFocus, id, disabled, placeholder, defaultOpen }: PickerProps & { multiple: boolean }) {
  const { t } = useI18n();
  const [search, setSearch] = useState('');
  const [open, setOpen] = useState(defaultOpen ?? false);
  const term = useDebounced(search, 250);
  const ids = toIds(value);
  const current = useReference(model, field, { ids }, ids.length > 0);
  const candidates = useInfiniteQuery({
    queryKey: keys.reference(model, field, { search: term, size: PAGE_SIZE, infinite: true }),
    initialPageParam: 1,
    enabled: open,
    queryFn: ({ pageParam }) => fetchReference(model, field, { ...(term ? { search: term } : {}), page: pageParam, size: PAGE_SIZE }),
    getNextPageParam: (last: ReferencePage) => (last.page * last.size < last.total ? last.page + 1 : undefined),
  });
  const options = useMemo(() => {
    const seen = new Set<number>();
    const out: Array<{ value: number; label: string }> = [];
    // The current value's label first, unless a search leaves it out.
    const needle = term.trim().toLowerCase();
    const currentRows = (current.data?.rows ?? []).filter((r) => !needle || r.label.toLowerCase().includes(needle));
    for (const row of [...currentRows, ...(candidates.data?.pages.flatMap((p) => p.rows) ?? [])]) {
      if (seen.has(row.id)) continue;
      seen.add(row.id);
      out.push({ value: row.id, label: row.label });
    }
    // A value whose label is not among them still needs one for the selection itself.
    for (const i of ids) if (!seen.has(i)) out.push({ value: i, label: current.data?.rows.find((r) => r.id === i)?.label ?? `#${i}` });
    return out;
  }, [current.data, candidates.data, ids, term]);

  return (
    <Select<number | number[]>
      id={id}
      mode={multiple ? 'multiple' : undefined}
      value={multiple ? ids : (ids[0] ?? null)}
      onChange={(next) => onChange?.(multiple ? (Array.isArray(next) ? next : []) : (next ?? null))}
      options={options}
      allowClear
      autoFocus={autoFocus}
      disabled={disabled}
      placeholder={placeholder ?? t('form.searchHint')}
      open={open}
      onOpenChange={setOpen}
      showSearch={{ filterOption: false, onSearch: setSearch, searchValue: search }}
      notFoundContent={candidates.isFetching ? <Spin size="small" /> : undefined}
      onPopupScroll={(event) => {
        const el = event.currentTarget;
        if (el.scrollTop + el.clientHeight >= el.scrollHeight - 24 && candidates.hasNextPage && !candidates.isFetchingNextPage) void candidates.fetchNextPage();
      }}
      style={{ width: '100%', minWidth: 160 }}
      className="fw-reference-select"
    />
  );
}

interface TreeNode {
  value: number;
  title: string;
  children?: TreeNode[];
}

/** REFERENCE_TREE: the candidates as a tree (the route gives each its parentId). */
export function ReferenceTreeSelect({ model, field, value, onChange, autoFocus, id, disabled, placeholder, defaultOpen }: PickerProps) {
  const { t } = useI18n();
  const ids = toIds(value);
  const all = useReference(model, field, { page: 1, size: TREE_SIZE });
  // Everything open until the person folds a branch (the candidates arrive after the first render).
  const [expanded, setExpanded] = useState<Array<string | number>>();
  const tree = useMemo(() => {
    const rows = all.data?.rows ?? [];
    const present = new Set(rows.map((r) => r.id));
    const nodes = new Map<number, TreeNode>(rows.map((r) => [r.id, { value: r.id, title: r.label }]));
    const roots: TreeNode[] = [];
    for (const r of rows) {
      const node = nodes.get(r.id)!;
      const parent = r.parentId !== null && r.parentId !== undefined && present.has(r.parentId) ? nodes.get(r.parentId) : undefined;
      if (parent) (parent.children ??= []).push(node);
      else roots.push(node);
    }
    for (const i of ids) if (!present.has(i)) roots.push({ value: i, title: `#${i}` });
    return roots;
  }, [all.data, ids]);
  return (
    <TreeSelect<number | null>
      id={id}
      value={ids[0] ?? null}
      onChange={(next) => onChange?.(next ?? null)}
      treeData={tree}
      allowClear
      showSearch
      treeNodeFilterProp="title"
      treeExpandedKeys={expanded ?? (all.data?.rows ?? []).map((r) => r.id)}
      onTreeExpand={(keys) => setExpanded([...keys])}
      autoFocus={autoFocus}
      disabled={disabled}
      defaultOpen={defaultOpen}
      placeholder={placeholder ?? t('form.searchHint')}
      loading={all.isFetching}
      style={{ width: '100%', minWidth: 160 }}
      className="fw-reference-tree"
    />
  );
}

/** The labels of reference ids, for the details view. */
export function ReferenceLabels({ model, field, value }: { model: string; field: string; value: unknown }) {
  const ids = toIds(value);
  const labels = useReference(model, field, { ids }, ids.length > 0);
  if (ids.length === 0) return null;
  const byId = new Map((labels.data?.rows ?? []).map((r) => [r.id, r.label]));
  return <>{ids.map((i) => byId.get(i) ?? `#${i}`).join(', ')}</>;
}
