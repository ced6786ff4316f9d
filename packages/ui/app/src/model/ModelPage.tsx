// The page of one model, drawn from GET /build/{fw} alone: search form, server-side paged and
// sorted table (a tree table for tree models), the buttons the power object allows, the row
// drawer and the in-table cell editor.
import { useMemo, useState, type MouseEvent, type ReactNode } from 'react';
import { App, Button, Popconfirm, Result, Space, Spin, Table, Tooltip, Typography, type TableProps } from 'antd';
import { CopyOutlined, DeleteOutlined, EditOutlined, EyeOutlined, PlusOutlined, PrinterOutlined, ReloadOutlined } from '@ant-design/icons';
import { useQueryClient } from '@tanstack/react-query';
import { api, ApiError, tokenUrl } from '../api';
import { useI18n } from '../i18n';
import { navigate, useLocation } from '../router';
import { invalidateModel, keys, useBuild, useTable, useTreeRows } from '../queries';
import type { BuildView, FieldView, Row, TablePage, TableQuery } from '../types';
import { CellEditor, type CellTarget } from './CellEditor';
import { renderValue, type Labels } from './cells';
import { columnFields, columnTitle, keyShown, keyOf, searchFields } from './fields';
import { ExportButton } from './ExportButton';
import { ImportButton } from './ImportButton';
import { can } from './power';
import { RowDrawer, type DrawerState } from './RowDrawer';
import { rowFromQuery } from './rowLink';
import { SearchForm, toConditions } from './SearchForm';
import { DEFAULT_SIZE, readState, tableQuery, type TableState } from './tableState';

function writeState(fw: string, state: TableState) {
  const q = new URLSearchParams();
  if (state.page !== 1) q.set('page', String(state.page));
  if (state.size !== DEFAULT_SIZE) q.set('size', String(state.size));
  if (state.sort.length) q.set('sort', state.sort.map((s) => `${s.field},${s.order}`).join(';'));
  const search = Object.fromEntries(
    Object.entries(state.search).filter(([, v]) => v !== undefined && v !== null && v !== '' && !(Array.isArray(v) && v.every((x) => x === null || x === undefined))),
  );
  if (Object.keys(search).length) q.set('s', JSON.stringify(search));
  const qs = q.toString();
  navigate(`/model/${encodeURIComponent(fw)}${qs ? `?${qs}` : ''}`, { replace: true });
}

/** A table cell: the value, and where the cell editor is allowed, its icon and double-click. */
function Cell({ children, onEdit, editLabel }: { children: ReactNode; onEdit?: (cell: HTMLElement) => void; editLabel: string }) {
  const open = (event: MouseEvent<HTMLElement>) => {
    const cell = event.currentTarget.closest('td') ?? event.currentTarget;
    onEdit?.(cell as HTMLElement);
  };
  return (
    <div className="fw-cell" onDoubleClick={onEdit ? open : undefined} data-editable={onEdit ? 'true' : undefined}>
      <span className="fw-cell-value">{children}</span>
      {onEdit && (
        <button type="button" className="fw-cell-edit" aria-label={editLabel} title={editLabel} onClick={open}>
          <EditOutlined />
        </button>
      )}
    </div>
  );
}

interface TreeRow extends Row {
  children?: TreeRow[];
}

function nest(rows: Row[], key: string, parentField: string): TreeRow[] {
  const byId = new Map<unknown, TreeRow>(rows.map((r) => [r[key], { ...r }]));
  const roots: TreeRow[] = [];
  for (const r of byId.values()) {
    const parent = r[parentField] !== null && r[parentField] !== undefined ? byId.get(r[parentField]) : undefined;
    if (parent && parent !== r) (parent.children ??= []).push(r);
    else roots.push(r);
  }
  return roots;
}

function parentFieldOf(build: BuildView): string | undefined {
  if (build.model.treeParentField) return build.model.treeParentField;
  // Older servers: the tree parent is the REFERENCE_TREE field pointing at the model itself.
  return build.model.fields.find((f) => f.type === 'REFERENCE_TREE' && f.reference?.model === build.model.name)?.name;
}

function ModelTable({ build }: { build: BuildView }) {
  const { t } = useI18n();
  const { message, modal } = App.useApp();
  const queryClient = useQueryClient();
  const { query: params } = useLocation();
  const model = build.model;
  const fw = model.name;
  const key = keyOf(model);
  const state = readState(params);
  const filterFields = useMemo(() => searchFields(model), [model]);
  const conditions = useMemo(() => toConditions(filterFields, state.search), [filterFields, JSON.stringify(state.search)]);
  const query: TableQuery = useMemo(() => tableQuery(state, conditions), [state.page, state.size, JSON.stringify(state.sort), conditions]);
  const parentField = parentFieldOf(build);
  const asTree = model.tree && parentField !== undefined && conditions.length === 0;
  const flat = useTable(fw, query, !asTree);
  const tree = useTreeRows(fw, { ...(query.sort ? { sort: query.sort } : {}) }, asTree);
  const [selected, setSelected] = useState<number[]>([]);
  const [drawer, setDrawer] = useState<DrawerState | undefined>(() => rowFromQuery(params));
  const [editing, setEditing] = useState<CellTarget>();

  const labels: Labels | undefined = asTree ? tree.data?.labels : flat.data?.labels;
  const rows: Row[] = useMemo(() => (asTree ? nest(tree.data?.rows ?? [], key, parentField!) : (flat.data?.rows ?? [])), [asTree, tree.data, flat.data, key, parentField]);

  const remove = async (ids: number[]) => {
    try {
      const answer = await api<{ deleted: number }>(`/data/modify/${encodeURIComponent(fw)}/delete`, { body: { ids } });
      message.success(t('model.deleted', { count: answer.deleted }));
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
    return {
      key: f.name,
      dataIndex: f.name,
      title: columnTitle(f),
      sorter: f.views.sortable && f.type !== 'COLLECTION' ? { multiple: undefined } : false,
      sortOrder: sortOrder === 'desc' ? 'descend' : sortOrder === 'asc' ? 'ascend' : null,
      ellipsis: f.type === 'TEXTAREA',
      onCell: () => ({ className: `fw-col-${f.name}` }),
      render: (value: unknown, row: Row) => (
        <Cell
          editLabel={t('model.editCell')}
          onEdit={
            editable
              ? (cell) => {
                  const r = cell.getBoundingClientRect();
                  setEditing({ row, id: Number(row[key]), field: f, rect: { top: r.top, left: r.left, width: r.width, height: r.height } });
                }
              : undefined
          }
        >
          {renderValue(f, value, labels, t, { model: fw, rowId: row[key], thumbnail: true })}
        </Cell>
      ),
    };
  };

  const rowActions = (row: Row) => {
    const id = Number(row[key]);
    const items: ReactNode[] = [];
    if (can(build, 'viewDetails'))
      items.push(
        <Tooltip key="details" title={t('model.details')}>
          <Button size="small" type="text" icon={<EyeOutlined />} aria-label={t('model.details')} className="fw-row-details" onClick={() => setDrawer({ mode: 'details', id })} />
        </Tooltip>,
      );
    if (can(build, 'edit'))
      items.push(
        <Tooltip key="edit" title={t('model.edit')}>
          <Button size="small" type="text" icon={<EditOutlined />} aria-label={t('model.edit')} className="fw-row-edit" onClick={() => setDrawer({ mode: 'edit', id })} />
        </Tooltip>,
      );
    if (can(build, 'copy'))
      items.push(
        <Tooltip key="copy" title={t('model.copy')}>
          <Button size="small" type="text" icon={<CopyOutlined />} aria-label={t('model.copy')} className="fw-row-copy" onClick={() => setDrawer({ mode: 'copy', id })} />
        </Tooltip>,
      );
    if (can(build, 'print'))
      items.push(
        <Tooltip key="print" title={t('model.print')}>
          <Button
            size="small"
            type="text"
            icon={<PrinterOutlined />}
            aria-label={t('model.print')}
            className="fw-row-print"
            href={tokenUrl(`/data/print/${encodeURIComponent(fw)}/${id}`)}
            target="_blank"
            rel="noopener noreferrer"
          />
        </Tooltip>,
      );
    if (can(build, 'delete'))
      items.push(
        <Popconfirm key="delete" title={t('model.confirmDelete')} onConfirm={() => remove([id])} okButtonProps={{ danger: true, className: 'fw-confirm-delete' }}>
          <Tooltip title={t('model.delete')}>
            <Button size="small" type="text" danger icon={<DeleteOutlined />} aria-label={t('model.delete')} className="fw-row-delete" />
          </Tooltip>
        </Popconfirm>,
      );
    return items;
  };

  const hasRowActions = ['viewDetails', 'edit', 'copy', 'print', 'delete'].some((a) => can(build, a as Parameters<typeof can>[1]));
  const columns: NonNullable<TableProps<Row>['columns']> = [
    ...(keyShown(model)
      ? []
      : [
          {
            key,
            dataIndex: key,
            title: 'ID',
            width: 80,
            onCell: () => ({ className: `fw-col-${key}` }),
            sorter: true,
            sortOrder: state.sort.find((s) => s.field === key)?.order === 'desc' ? ('descend' as const) : state.sort.find((s) => s.field === key) ? ('ascend' as const) : null,
          },
        ]),
    ...columnFields(model).map(fieldColumn),
    ...(hasRowActions
      ? [{ key: '_actions', title: t('model.actions'), fixed: 'end' as const, width: 40 * 5, render: (_: unknown, row: Row) => <Space size={0}>{rowActions(row)}</Space> }]
      : []),
  ];

  const onChange: TableProps<Row>['onChange'] = (pagination, _filters, sorter, extra) => {
    if (extra.action === 'sort') {
      const one = Array.isArray(sorter) ? sorter[0] : sorter;
      const field = one?.order ? String(one.columnKey ?? one.field) : undefined;
      writeState(fw, { ...state, page: 1, sort: field ? [{ field, order: one!.order === 'descend' ? 'desc' : 'asc' }] : [] });
    } else if (extra.action === 'paginate') {
      writeState(fw, { ...state, page: pagination.current ?? 1, size: pagination.pageSize ?? state.size });
    }
  };

  const exportParams = {
    ...(state.sort.length ? { sort: state.sort.map((s) => `${s.field},${s.order}`).join(';') } : {}),
    ...(conditions.length ? { conditions: JSON.stringify(conditions) } : {}),
  };
  const current = asTree ? tree : flat;

  return (
    <div className="fw-model" data-model={fw}>
      <SearchForm model={fw} fields={asTree && !model.tree ? [] : filterFields} values={state.search} onSearch={(search) => writeState(fw, { ...state, page: 1, search })} />
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
          {can(build, 'export') && <ExportButton fw={fw} params={exportParams} />}
          {can(build, 'import') && <ImportButton fw={fw} />}
        </Space>
        <Tooltip title={t('model.reload')}>
          <Button icon={<ReloadOutlined />} aria-label={t('model.reload')} onClick={() => void invalidateModel(queryClient, fw)} />
        </Tooltip>
      </div>
      {current.isError && !(current.error instanceof ApiError && current.error.status === 401) && (
        <Result status="warning" subTitle={current.error.message} extra={<Button onClick={() => void current.refetch()}>{t('app.retry')}</Button>} />
      )}
      {asTree && tree.isPending && <Spin />}
      {!current.isError && !(asTree && tree.isPending) && (
        <Table<Row>
          rowKey={(r) => String(r[key])}
          size="middle"
          columns={columns}
          dataSource={rows}
          loading={current.isFetching}
          onChange={onChange}
          scroll={{ x: 'max-content' }}
          showSorterTooltip={false}
          rowSelection={can(build, 'delete') ? { selectedRowKeys: selected.map(String), onChange: (keysSelected) => setSelected(keysSelected.map(Number)) } : undefined}
          expandable={asTree ? { defaultExpandAllRows: true } : undefined}
          pagination={
            asTree
              ? false
              : {
                  current: state.page,
                  pageSize: state.size,
                  total: flat.data?.total ?? 0,
                  showSizeChanger: true,
                  pageSizeOptions: [10, 20, 50, 100, 200],
                  showTotal: (total) => t('model.total', { total }),
                }
          }
        />
      )}
      {drawer && <RowDrawer build={build} state={drawer} onClose={() => setDrawer(undefined)} />}
      {editing && <CellEditor key={`${editing.id}:${editing.field.name}`} fw={fw} target={editing} onClose={() => setEditing(undefined)} onSaved={onCellSaved} />}
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
      <Typography.Title level={4} className="fw-page-title">
        {build.data.model.title}
      </Typography.Title>
      {can(build.data, 'query') ? <ModelTable build={build.data} /> : <Result status="403" subTitle={t('model.noQuery')} />}
    </div>
  );
}
