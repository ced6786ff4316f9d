// The page of one model, drawn from GET /build/{fw} alone: search form, server-side paged and
// sorted table (a tree table for tree models), the buttons the power object allows, the row
// drawer and the in-table cell editor.
import { useCallback, useContext, useEffect, useMemo, useRef, useState } from 'react';
import { App, Button, Result, Space, Spin, Table, Tooltip, Typography, type TableProps } from 'antd';
import { CopyOutlined, DeleteOutlined, EditOutlined, EyeOutlined, PlusOutlined, PrinterOutlined, ReloadOutlined, RestOutlined, UndoOutlined } from '@ant-design/icons';
import { useQueryClient } from '@tanstack/react-query';
import { ApiError } from '../client/api';
import { printUrl } from '../client/links';
import { useDeleteRows } from '../client/mutations';
import { useI18n } from '../i18n';
import { navigate, useLocation } from '../router';
import { invalidateModel, keys, useBuild, useTable, useTreeRows, useUserInfo, useViews } from '../client/queries';
import type { BuildView, FieldView, Row, TablePage, TableQuery } from '../types';
import { CellEditor, typedSeed, type CellTarget } from './CellEditor';
import type { RowAction } from './columns/rowActions';
import { useTableColumns, type ColumnArrangement, type ColumnsOverride } from './columns/useTableColumns';
import { shownKeys, viewColumns } from './columns/viewColumns';
import { EditableCell } from './EditableCell';
import { renderValue, type Labels } from './cells';
import { columnFields, columnTitle, keyShown, keyOf, searchFields, sortableField } from './fields';
import { ExportButton } from './ExportButton';
import { ImportButton } from './ImportButton';
import { can } from './power';
import { useExplainAction } from '../power/ExplainAction';
import { RowDrawer, type DrawerState } from './RowDrawer';
import { NO_ROWS, nest, parentFieldOf, useTreeExpansion } from './treeExpansion';
import { dropRowFromAddress, rowFromQuery } from './rowLink';
import { SearchForm, toConditions } from './SearchForm';
import { FilterBuilder } from './FilterBuilder';
import { BulkEditDialog } from './BulkEditDialog';
import { UndoProvider, useUndoOffer } from './UndoProvider';
import { UndoChangesDialog } from './UndoChangesDialog';
import { OPERATE_LOG_MODEL } from './OperateLogDiff';
import { TrashDrawer } from './TrashDrawer';
import { PasteDialog, pasteRowLabel } from './PasteDialog';
import { MAX_PASTE_CELLS, parseClipboard, planPaste, type PastePlan } from './paste';
import { filterConditions, filterOfConditions } from './filterTree';
import { ViewsBar } from './ViewsBar';
import { DEFAULT_SIZE, readState, tableQuery, type TableState } from './tableState';
import { TablePager } from './EstimatePager';
import { isCursorRefusal, writeMove, type PageTarget } from './paging';
import { cellId, focusBeside, rowName, useCellFocus } from './useCellFocus';
import { useLiveStatus } from '../client/live';
import { FreshRows, LiveContext, LiveDenied, LiveProvider, LiveStatusBadge } from './LiveBar';
import { useLiveTable } from './useLiveTable';
import { PresenceProvider, useTablePresence } from './presence';

function writeState(fw: string, state: TableState) {
  const q = new URLSearchParams();
  if (state.page !== 1) q.set('page', String(state.page));
  // The cursor stays in the address (see paging.ts): a reload asks for exactly this page.
  if (state.page !== 1) writeMove(q, state.move);
  if (state.size !== DEFAULT_SIZE) q.set('size', String(state.size));
  if (state.sort.length) q.set('sort', state.sort.map((s) => `${s.field},${s.order}`).join(';'));
  const search = Object.fromEntries(
    Object.entries(state.search).filter(([, v]) => v !== undefined && v !== null && v !== '' && !(Array.isArray(v) && v.every((x) => x === null || x === undefined))),
  );
  if (Object.keys(search).length) q.set('s', JSON.stringify(search));
  if (state.filter) q.set('f', JSON.stringify(state.filter));
  if (state.view) q.set('v', String(state.view));
  const qs = q.toString();
  navigate(`/model/${encodeURIComponent(fw)}${qs ? `?${qs}` : ''}`, { replace: true });
}

function ModelTable({ build }: { build: BuildView }) {
  const { t } = useI18n();
  const { message, modal } = App.useApp();
  const queryClient = useQueryClient();
  const { query: params } = useLocation();
  const model = build.model;
  const explainAction = useExplainAction(model.name);
  const fw = model.name;
  const key = keyOf(model);
  const state = readState(params);
  const filterFields = useMemo(() => searchFields(model), [model]);
  const conditions = useMemo(
    () => [...toConditions(filterFields, state.search), ...filterConditions(state.filter)],
    [filterFields, JSON.stringify(state.search), JSON.stringify(state.filter)],
  );
  // "Count exactly" holds for the rows it counted: the same search, sort and page size.
  const [exactFor, setExactFor] = useState<string>();
  const countKey = JSON.stringify([state.size, state.sort, conditions]);
  const exact = exactFor === countKey;
  const query: TableQuery = useMemo(
    () => tableQuery(state, conditions, exact),
    [state.page, state.size, JSON.stringify(state.move), JSON.stringify(state.sort), conditions, exact],
  );
  const parentField = parentFieldOf(build);
  const asTree = model.tree && parentField !== undefined && conditions.length === 0;
  const flat = useTable(fw, query, !asTree);
  const tree = useTreeRows(fw, { ...(query.sort ? { sort: query.sort } : {}) }, asTree);
  // A cursor the server refuses (another sort, a stale link): the same page number by offset.
  const refused = flat.isError && state.move !== undefined && isCursorRefusal(flat.error);
  useEffect(() => {
    if (refused) writeState(fw, { ...state, move: undefined });
  }, [refused]);
  const goTo = (target: PageTarget) => writeState(fw, { ...state, page: target.page, move: target.move });
  const [selected, setSelected] = useState<number[]>([]);
  const [bulk, setBulk] = useState(false);
  const [trashOpen, setTrashOpen] = useState(false);
  const [pasted, setPasted] = useState<PastePlan>();
  // A block pasted onto a cell (issue 23 §2): it lands from that cell rightwards and downwards,
  // over the rows and columns as they are shown; the preview checks it before anything is saved.
  const onPaste = (text: string, td: HTMLElement) => {
    const grid = parseClipboard(text);
    const cellCount = grid.reduce((n, r) => n + r.length, 0);
    if (cellCount > MAX_PASTE_CELLS) {
      message.error(t('paste.tooLarge', { max: MAX_PASTE_CELLS }));
      return;
    }
    const tr = td.closest('tr');
    const body = td.closest('tbody');
    if (!tr || !body) return;
    const trs = [...body.querySelectorAll<HTMLTableRowElement>('tr[data-row-key]')];
    const rowKeys = trs.slice(trs.indexOf(tr as HTMLTableRowElement)).map((r) => r.dataset.rowKey!);
    const tds = [...tr.querySelectorAll<HTMLElement>('td[data-fw-cell]')];
    const columns = tds.slice(tds.indexOf(td)).map((c) => c.dataset.fwCol!);
    // Each pasted cell expects what the table shows there now, so a change made meanwhile is not overwritten unseen.
    const shown = (rowKey: string, name: string) => rows.find((r) => String(r[key]) === rowKey)?.[name];
    setPasted(planPaste(grid, rowKeys, columns, model.fields, (f) => can(build, 'cellEdit', { field: f }), shown));
  };
  const mayPaste = can(build, 'edit') && build.power.cellEdit && !model.tree;
  const [drawer, setDrawer] = useState<DrawerState | undefined>(() => rowFromQuery(params));
  const [editing, setEditing] = useState<CellTarget>();
  // Where the focus goes when the cell editor of a row someone deleted closes.
  const besideGone = useRef<{ row: number; cell: string }>(undefined);
  const scope = useRef<HTMLDivElement>(null);
  const grid = useCellFocus(scope);

  const labels: Labels | undefined = asTree ? tree.data?.labels : flat.data?.labels;
  const rows: Row[] = useMemo(() => (asTree ? nest(tree.data?.rows ?? [], key, parentField!) : (flat.data?.rows ?? [])), [asTree, tree.data, flat.data, key, parentField]);
  const rowKeyOf = useCallback((r: Row) => String(r[key]), [key]);
  const expansion = useTreeExpansion(asTree ? rows : NO_ROWS, rowKeyOf);

  const deleteRows = useDeleteRows(fw);
  const offer = useUndoOffer(fw);
  // The operation log's page offers administrators the undo of one person's changes (issue 23 §3).
  const me = useUserInfo().data;
  const admin = me?.isAdmin === true;
  // Live tables (issue 24 §3): one stream while the page is open; events patch the cached pages.
  const channel = useContext(LiveContext);
  const liveStatus = useLiveStatus(channel);
  const live = useLiveTable(channel, model, query, {
    // A row someone else deleted takes the focus with it: it goes to the same column of the row beside.
    // An open cell editor keeps it until it closes (see its onClose).
    leaving: (ids) => {
      const under = editing && ids.includes(editing.id) ? document.getElementById(editing.cellId) : null;
      const next = focusBeside(scope.current, ids.map(String), under ?? document.activeElement);
      if (next && under) besideGone.current = { row: editing!.id, cell: next };
      else if (next) grid.focusCell(next);
    },
    gone: (ids) => setSelected((s) => s.filter((i) => !ids.includes(i))),
  });
  const presence = useTablePresence(model.fields);
  // A new row listed by the live notice opens as the row actions would open it.
  const openMode = can(build, 'viewDetails') ? ('details' as const) : can(build, 'edit') ? ('edit' as const) : undefined;
  const mayUndoChanges = fw === OPERATE_LOG_MODEL && admin;
  const [undoChanges, setUndoChanges] = useState(false);
  const remove = async (ids: number[]) => {
    try {
      const answer = await deleteRows.mutateAsync(ids);
      offer(t('model.deleted', { count: answer.deleted }), answer.batch);
      setSelected((s) => s.filter((i) => !ids.includes(i)));
      await invalidateModel(queryClient, fw);
    } catch (error) {
      if (!(error instanceof ApiError && error.status === 401)) message.error(error instanceof Error ? error.message : String(error));
    }
  };

  const onCellSaved = (answered: Row) => {
    queryClient.setQueryData<TablePage>(keys.table(fw, query), (old) =>
      old ? { ...old, rows: old.rows.map((r) => (r[key] === answered[key] ? { ...r, ...answered } : r)) } : old,
    );
    void invalidateModel(queryClient, fw);
  };

  const fieldColumn = (f: FieldView): NonNullable<TableProps<Row>['columns']>[number] => {
    const editable = can(build, 'cellEdit', { field: f });
    const sortOrder = state.sort.find((s) => s.field === f.name)?.order;
    const firstField = columnFields(model)[0];
    // The cell as part of the keyboard grid: named by column and row, editable or not.
    const gridCell = (row: Row) => ({
      row,
      rowKey: row[key],
      field: f,
      column: columnTitle(f),
      rowLabel: rowName(row, firstField, row[key]),
      onEdit: editable ? () => setEditing({ row, id: Number(row[key]), field: f, cellId: cellId(row[key], f.name) }) : undefined,
      onPaste: mayPaste ? onPaste : undefined,
      onType:
        editable && typedSeed(f, '0') !== undefined
          ? (text: string) => {
              const seed = typedSeed(f, text);
              if (seed !== undefined) setEditing({ row, id: Number(row[key]), field: f, cellId: cellId(row[key], f.name), seed });
            }
          : undefined,
    });
    return {
      key: f.name,
      dataIndex: f.name,
      title: columnTitle(f),
      sorter: sortableField(f) ? { multiple: undefined } : false,
      sortOrder: sortOrder === 'desc' ? 'descend' : sortOrder === 'asc' ? 'ascend' : null,
      ellipsis: f.type === 'TEXTAREA',
      onCell: (row: Row) =>
        presence.onCell(row[key], f.name, { className: [`fw-col-${f.name}`, live.cellClass(row[key], f.name)].filter(Boolean).join(' '), ...grid.cellProps(gridCell(row)) }),
      render: (value: unknown, row: Row) =>
        presence.withBadge(
          row[key],
          f.name,
          <EditableCell id={cellId(row[key], f.name)} editLabel={t('model.editCell')} onEdit={editable ? () => gridCell(row).onEdit?.() : undefined}>
            {renderValue(f, value, labels, t, { model: fw, rowId: row[key], thumbnail: true })}
          </EditableCell>,
        ),
    };
  };

  const rowActions = (row: Row): RowAction[] => {
    const id = Number(row[key]);
    const items: RowAction[] = [];
    if (can(build, 'viewDetails'))
      items.push({ key: 'details', label: t('model.details'), icon: <EyeOutlined />, className: 'fw-row-details', onClick: () => setDrawer({ mode: 'details', id }) });
    if (can(build, 'edit')) items.push({ key: 'edit', label: t('model.edit'), icon: <EditOutlined />, className: 'fw-row-edit', onClick: () => setDrawer({ mode: 'edit', id }) });
    if (can(build, 'copy')) items.push({ key: 'copy', label: t('model.copy'), icon: <CopyOutlined />, className: 'fw-row-copy', onClick: () => setDrawer({ mode: 'copy', id }) });
    if (can(build, 'print')) items.push({ key: 'print', label: t('model.print'), icon: <PrinterOutlined />, className: 'fw-row-print', href: printUrl(fw, id) });
    if (can(build, 'delete'))
      items.push({
        key: 'delete',
        label: t('model.delete'),
        icon: <DeleteOutlined />,
        className: 'fw-row-delete',
        danger: true,
        confirm: { title: t('model.confirmDelete'), onConfirm: () => remove([id]) },
      });
    items.push(...explainAction(id));
    return items;
  };

  const actionCount = ['viewDetails', 'edit', 'copy', 'print', 'delete'].filter((a) => can(build, a as Parameters<typeof can>[1])).length + explainAction(0).length;
  const fieldColumns: NonNullable<TableProps<Row>['columns']> = [
    ...(keyShown(model)
      ? []
      : [
          {
            key,
            dataIndex: key,
            title: 'ID',
            width: 80,
            onCell: (row: Row) => presence.onCell(row[key], key, { className: `fw-col-${key}` }),
            render: (value: unknown, row: Row) => presence.withBadge(row[key], key, String(value ?? '')),
            sorter: true,
            sortOrder: state.sort.find((s) => s.field === key)?.order === 'desc' ? ('descend' as const) : state.sort.find((s) => s.field === key) ? ('ascend' as const) : null,
          },
        ]),
    ...columnFields(model).map(fieldColumn),
  ];
  // A chosen view's columns are in force while it stays chosen (columns/viewColumns.ts); what the
  // chooser changes meanwhile stays on this page and leaves the person's stored layout alone.
  const chosenView = useViews(fw).data?.views.find((v) => v.id === state.view);
  const fromView = chosenView
    ? viewColumns(
        fieldColumns.map((c) => String(c.key)),
        chosenView.columns,
      )
    : undefined;
  const [viewEdit, setViewEdit] = useState<ColumnArrangement & { view: number }>();
  const viewArranged = chosenView && fromView?.arrangement;
  const override: ColumnsOverride | undefined = viewArranged
    ? {
        ...(viewEdit?.view === chosenView.id ? viewEdit : viewArranged),
        change: (next) => setViewEdit((prev) => ({ ...next(prev?.view === chosenView.id ? prev : viewArranged), view: chosenView.id })),
        reset: () => setViewEdit(undefined),
      }
    : undefined;
  // Order, visibility, widths, density and the Actions column, as the person arranged them.
  const layout = useTableColumns({ build, columns: fieldColumns, sort: state.sort, actionCount, ...(actionCount > 0 ? { rowActions } : {}), ...(override ? { override } : {}) });
  presence.place(layout.columns, [key, ...columnFields(model).map((f) => f.name)]);

  const onChange: TableProps<Row>['onChange'] = (_pagination, _filters, sorter, extra) => {
    if (extra.action === 'sort') {
      const one = Array.isArray(sorter) ? sorter[0] : sorter;
      const field = one?.order ? String(one.columnKey ?? one.field) : undefined;
      writeState(fw, { ...state, page: 1, move: undefined, sort: field ? [{ field, order: one!.order === 'descend' ? 'desc' : 'asc' }] : [] });
    }
  };

  const exportParams = {
    ...(state.sort.length ? { sort: state.sort.map((s) => `${s.field},${s.order}`).join(';') } : {}),
    ...(conditions.length ? { conditions: JSON.stringify(conditions) } : {}),
  };
  const current = asTree ? tree : flat;

  return (
    <div className="fw-model" data-model={fw} ref={scope}>
      {grid.hints}
      <ViewsBar
        fw={fw}
        chosenId={state.view}
        current={{ conditions, sort: state.sort, size: state.size, columns: shownKeys(layout.columns) }}
        missingColumns={fromView?.missing ?? []}
        onApply={(view) => {
          setViewEdit(undefined);
          writeState(
            fw,
            view
              ? { page: 1, size: view.size ?? DEFAULT_SIZE, sort: view.sort ?? [], search: {}, filter: filterOfConditions(view.conditions), view: view.id }
              : { page: 1, size: state.size, sort: [], search: {} },
          );
        }}
      />
      <SearchForm
        key={JSON.stringify(state.search)}
        model={fw}
        fields={asTree && !model.tree ? [] : filterFields}
        values={state.search}
        onSearch={(search) => writeState(fw, { ...state, page: 1, move: undefined, search, view: undefined })}
      />
      <div className="fw-toolbar">
        <Space wrap>
          {can(build, 'add') && (
            <Button type="primary" icon={<PlusOutlined />} onClick={() => setDrawer({ mode: 'add' })} className="fw-add">
              {t('model.add')}
            </Button>
          )}
          {can(build, 'delete') && selected.length > 0 && (
            <Button
              danger
              icon={<DeleteOutlined />}
              className="fw-delete-selected"
              onClick={() =>
                modal.confirm({
                  title: t('model.confirmDeleteMany', { count: selected.length }),
                  okButtonProps: { danger: true, className: 'fw-confirm-delete' },
                  onOk: () => remove(selected),
                })
              }
            >
              {t('model.deleteSelected', { count: selected.length })}
            </Button>
          )}
          {!(asTree && !model.tree) && (
            <FilterBuilder
              model={fw}
              fields={filterFields}
              value={state.filter}
              onApply={(filter) => writeState(fw, { ...state, page: 1, move: undefined, filter, view: undefined })}
            />
          )}
          {can(build, 'edit') && build.power.cellEdit && !asTree && model.fields.some((f) => f.cellEdit) && (
            <Button icon={<EditOutlined />} className="fw-bulk-edit" onClick={() => setBulk(true)}>
              {selected.length > 0 ? `${t('bulk.button')} (${selected.length})` : t('bulk.button')}
            </Button>
          )}
          {can(build, 'export') && <ExportButton fw={fw} params={exportParams} />}
          {can(build, 'delete') && build.model.trash !== false && (
            <Button icon={<RestOutlined />} className="fw-trash-open" onClick={() => setTrashOpen(true)}>
              {t('trash.button')}
            </Button>
          )}
          {can(build, 'import') && <ImportButton fw={fw} />}
          {mayUndoChanges && (
            <Button icon={<UndoOutlined />} className="fw-undo-changes-open" onClick={() => setUndoChanges(true)}>
              {t('undo.changes.button')}
            </Button>
          )}
        </Space>
        <Space>
          <LiveStatusBadge status={liveStatus} onRetry={() => channel?.retryNow()} />
          {layout.chooser}
          <Tooltip title={t('model.reload')}>
            <Button icon={<ReloadOutlined />} className="fw-table-reload" aria-label={t('model.reload')} onClick={() => void invalidateModel(queryClient, fw)} />
          </Tooltip>
        </Space>
      </div>
      {current.isError && !(current.error instanceof ApiError && current.error.status === 401) && (
        <Result status="warning" subTitle={current.error.message} extra={<Button onClick={() => void current.refetch()}>{t('app.retry')}</Button>} />
      )}
      <LiveDenied status={liveStatus} />
      {asTree && tree.isPending && <Spin />}
      <div className="fw-table-wrap">
        <FreshRows
          rows={live.fresh}
          label={(row) => rowName(row, columnFields(model)[0], row[key])}
          {...(openMode
            ? {
                onOpen: (row: Row) => {
                  live.forgetFresh([row[key]]);
                  setDrawer({ mode: openMode, id: Number(row[key]) });
                },
              }
            : {})}
          onReload={() => {
            live.forgetFresh();
            void invalidateModel(queryClient, fw);
          }}
          onDismiss={() => live.forgetFresh()}
        />
        {!current.isError && !(asTree && tree.isPending) && (
          <Table<Row>
            rowKey={rowKeyOf}
            rowClassName={(row) => live.rowClass(row[key]) ?? ''}
            size={layout.size}
            columns={layout.columns}
            components={layout.components}
            dataSource={rows}
            loading={current.isFetching}
            onChange={onChange}
            scroll={{ x: 'max-content' }}
            showSorterTooltip={false}
            rowSelection={can(build, 'delete') ? { selectedRowKeys: selected.map(String), onChange: (keysSelected) => setSelected(keysSelected.map(Number)) } : undefined}
            expandable={asTree ? expansion : undefined}
            pagination={false}
          />
        )}
      </div>
      {!current.isError && !asTree && (
        <TablePager
          at={state}
          answer={flat.data}
          stale={flat.isPlaceholderData}
          exact={exact}
          onGo={goTo}
          onSize={(size) => writeState(fw, { ...state, page: 1, move: undefined, size })}
          onCountExact={() => setExactFor(countKey)}
        />
      )}
      {pasted && <PasteDialog build={build} plan={pasted} rowLabel={(k) => pasteRowLabel(rows, k, key, columnFields(model)[0]?.name)} onClose={() => setPasted(undefined)} />}
      {undoChanges && <UndoChangesDialog onClose={() => setUndoChanges(false)} />}
      {trashOpen && <TrashDrawer build={build} onClose={() => setTrashOpen(false)} />}
      {bulk && (
        <BulkEditDialog
          build={build}
          target={{ selected, conditions, ...(flat.data ? { matching: { total: flat.data.total, estimate: flat.data.totalIsEstimate === true } } : {}) }}
          onClose={() => setBulk(false)}
          onDone={() => setSelected([])}
        />
      )}
      {drawer && (
        <RowDrawer
          build={build}
          state={drawer}
          onClose={() => {
            setDrawer(undefined);
            dropRowFromAddress();
          }}
          onSwitch={setDrawer}
        />
      )}
      {editing && (
        <CellEditor
          key={`${editing.id}:${editing.field.name}`}
          fw={fw}
          target={editing}
          onClose={(then) => {
            setEditing(undefined);
            const gone = besideGone.current?.row === editing.id ? besideGone.current.cell : undefined;
            besideGone.current = undefined;
            if (gone && then !== 'none') setTimeout(() => grid.focusCell(gone));
            else grid.afterEdit(editing.cellId, then);
          }}
          labels={labels}
          onSaved={onCellSaved}
          onTheirs={(current) => onCellSaved({ [key]: editing.row[key], [editing.field.name]: current })}
        />
      )}
    </div>
  );
}

/** The model page (the default export is what the shell loads lazily). */
export default function ModelPage({ fw }: { fw: string }) {
  const { t } = useI18n();
  const build = useBuild(fw);
  if (build.isPending) return <Spin tip={t('app.loading')} />;
  if (build.isError) return <Result status={build.error instanceof ApiError && build.error.status === 404 ? '404' : '403'} subTitle={build.error.message} />;
  return (
    <div>
      <Typography.Title level={1} className="fw-page-title fw-model-title">
        {build.data.model.title}
      </Typography.Title>
      {can(build.data, 'query') ? (
        <UndoProvider>
          <LiveProvider fw={fw}>
            <PresenceProvider>
              <ModelTable build={build.data} />
            </PresenceProvider>
          </LiveProvider>
        </UndoProvider>
      ) : (
        <Result status="403" subTitle={t('model.noQuery')} />
      )}
    </div>
  );
}
