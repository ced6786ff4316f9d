// The table's columns as the person arranged them (issue 20 §4/§5): ModelPage builds one column
// per field; this hook puts them in the stored order, leaves out the hidden ones, applies the
// stored widths (and the one being dragged), pins the first column, marks the model's default
// sort when the URL names none, and adds an Actions column as wide as its buttons (one "…"
// menu on phones). It also gives the Table its row size and header cell, and the chooser.
import { useState, type ReactNode } from 'react';
import type { TableProps } from 'antd';
import { useI18n } from '../../i18n';
import type { BuildView, Row } from '../../types';
import { ColumnChooser } from './ColumnChooser';
import { ResizableTitle, type ResizeProps } from './ResizableTitle';
import { InlineRowActions, RowActionsMenu, actionsWidth, useNarrow, type RowAction } from './rowActions';
import { clampWidth, moveKey, orderedKeys, useTablePref, type Density, type TablePref } from './tablePrefs';
import './columns.css';

type Column = NonNullable<TableProps<Row>['columns']>[number];

export interface TableColumnsOptions {
  build: BuildView;
  /** One column per field (and the key's), each with a string `key` and title. */
  columns: Column[];
  /** The sort the URL names (empty: the model's `orderBy` applies). */
  sort: ReadonlyArray<{ field: string; order: 'asc' | 'desc' }>;
  /** A row's actions; absent when the user may do none. */
  rowActions?: (row: Row) => RowAction[];
  /** How many actions a row has (the same for every row: they follow the model's power). */
  actionCount: number;
  /**
   * Which columns show, and in what order, when a saved view decides it rather than the stored
   * layout (see viewColumns.ts). The chooser then changes this one and leaves the stored layout
   * alone; widths and row height stay the person's own.
   */
  override?: ColumnsOverride;
}

/** Column order and hidden columns held outside the stored layout, with the way to change them. */
export interface ColumnsOverride {
  order: string[];
  hidden: string[];
  /** Given the latest order and hidden keys (two key presses may come before a render). */
  change(next: (latest: ColumnArrangement) => ColumnArrangement): void;
  /** The chooser's reset was pressed (the stored layout is then left alone). */
  reset(): void;
}

/** Column keys in order, and the hidden ones. */
export interface ColumnArrangement {
  order: string[];
  hidden: string[];
}

/** What the Table and the toolbar need. */
export interface TableColumns {
  columns: Column[];
  size: Density;
  components: TableProps<Row>['components'];
  /** The layout menu, for the toolbar. */
  chooser: ReactNode;
}

const titleOf = (c: Column): string => (typeof c.title === 'string' ? c.title : String(c.key));
const sortOrder = (order: 'asc' | 'desc' | undefined) => (order === 'desc' ? ('descend' as const) : order === 'asc' ? ('ascend' as const) : null);
const components: TableProps<Row>['components'] = { header: { cell: ResizableTitle } };

export function useTableColumns({ build, columns, sort, rowActions, actionCount, override }: TableColumnsOptions): TableColumns {
  const { t } = useI18n();
  const narrow = useNarrow();
  const { pref, update, reset } = useTablePref(build.model.name);
  // The width of the column being dragged, until the drag ends and the stored one takes over.
  const [dragging, setDragging] = useState<{ key: string; width: number }>();
  const byKey = new Map(columns.map((c) => [String(c.key), c]));
  const order = orderedKeys([...byKey.keys()], override ? override.order : pref.order);
  const hidden = new Set(((override ? override.hidden : pref.hidden) ?? []).filter((k) => byKey.has(k)));
  // A stored layout that hides every column (the fields changed since) shows them all.
  if (hidden.size >= order.length) hidden.clear();
  // The table sorts by one column at a time, so the default's first key is the one it shows.
  const byDefault = sort.length === 0 ? build.model.orderBy?.[0] : undefined;

  const visible = order
    .filter((k) => !hidden.has(k))
    .map((k, i): Column => {
      const c = byKey.get(k)!;
      const width = dragging?.key === k ? dragging.width : (pref.widths?.[k] ?? (c.width as number | undefined));
      const resize: ResizeProps = {
        resizeLabel: t('table.resize', { column: titleOf(c) }),
        onResize: (w) => setDragging({ key: k, width: w }),
        onResizeEnd: (w) => {
          setDragging(undefined);
          update((latest) => ({ widths: { ...latest.widths, [k]: w } }));
        },
        onResizeStep: (by, measured) => update((latest) => ({ widths: { ...latest.widths, [k]: clampWidth((latest.widths?.[k] ?? measured) + by) } })),
      };
      return {
        ...c,
        ...(width !== undefined ? { width } : {}),
        // The first column stays in view while the table scrolls sideways (phones especially).
        ...(i === 0 ? { fixed: 'start' as const } : {}),
        // With no sort in the URL the rows come in the model's default order: show it, and let a
        // click turn it around rather than off (off would be the same default again).
        ...(byDefault?.field === k ? { sortOrder: sortOrder(byDefault.order), sortDirections: byDefault.order === 'desc' ? ['descend', 'ascend'] : ['ascend', 'descend'] } : {}),
        onHeaderCell: (col) => ({ ...(c.onHeaderCell?.(col) ?? {}), ...resize }),
      } as Column;
    });

  const actions: Column[] = rowActions
    ? [
        {
          key: '_actions',
          title: t('model.actions'),
          fixed: 'end',
          width: actionsWidth(actionCount, narrow),
          className: 'fw-col-actions',
          render: (_: unknown, row: Row) => (narrow ? <RowActionsMenu actions={rowActions(row)} /> : <InlineRowActions actions={rowActions(row)} />),
        },
      ]
    : [];

  const keys = [...byKey.keys()];
  const chooser = (
    <ColumnChooser
      columns={order.map((k) => ({ key: k, title: titleOf(byKey.get(k)!) }))}
      hidden={hidden}
      density={pref.density ?? 'middle'}
      onToggle={(key, show) => {
        const toggled = (latest: TablePref) => {
          const next = new Set(latest.hidden ?? []);
          if (show) next.delete(key);
          else next.add(key);
          return { hidden: orderedKeys(keys, latest.order).filter((k) => next.has(k)) };
        };
        if (override) override.change((latest) => ({ ...latest, ...toggled(latest) }));
        else update(toggled);
      }}
      onMove={(key, by) => {
        const moved = (latest: TablePref) => ({ order: moveKey(orderedKeys(keys, latest.order), key, by) });
        if (override) override.change((latest) => ({ ...latest, ...moved(latest) }));
        else update(moved);
      }}
      onDensity={(density) => update({ density })}
      // Under a view, reset goes back to the view's columns; the stored layout is not the view's to forget.
      onReset={override ? override.reset : reset}
    />
  );
  return { columns: [...visible, ...actions], size: pref.density ?? 'middle', components, chooser };
}
