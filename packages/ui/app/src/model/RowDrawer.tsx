// Add, edit, copy and details in a drawer. The edit form sends back the row version it read
// (If-Match); a 409 STALE_ROW shows what the row holds now and offers to load the fields others
// changed (the person's other edits stay). What may arrive while the person types (a live change,
// others opening the row) is said in the drawer's footer, so the fields never move under them.
import { useEffect, useMemo, useRef, useState } from 'react';
import { Alert, App, Button, Descriptions, Drawer, Form, Result, Space, Spin, Tabs } from 'antd';
import { EditOutlined } from '@ant-design/icons';
import { useQueryClient } from '@tanstack/react-query';
import { ApiError } from '../client/api';
import { useAddRow, useCopyRow, useUpdateRow } from '../client/mutations';
import { useReturnFocus } from '../focus';
import { useI18n } from '../i18n';
import { invalidateModel, useDetails } from '../client/queries';
import type { BuildView, FieldView, Row } from '../types';
import { renderValue } from './cells';
import { showServerErrors } from './errors';
import { FieldItem } from './FieldItem';
import { OPERATE_LOG_MODEL, OperateLogDiff, shownAsDiff } from './OperateLogDiff';
import { formFields, formTitle, keyOf } from './fields';
import { ReferenceLabels } from './references';
import { PermissionSummary } from '../power/PermissionSummary';
import { drawerTitle, type DrawerState } from './drawerTitle';
import { can } from './power';
import { FormRowContext } from './rowContext';
import { RowHistory } from './RowHistory';
import { LiveRowNote, useLiveRow } from './LiveRowNote';
import { usePresenceReport } from '../client/presence';
import { PresenceNote, peersOn, usePeers } from './presence';

export type { DrawerState } from './drawerTitle';

// A role's menus are edited in the permission matrix, which needs the room (issue 20 §1).
const isPermissionField = (f: FieldView) => f.type === 'COLLECTION' && f.collection?.model === 'FwMenu';
const isReference = (f: FieldView) => f.type === 'REFERENCE_TABLE' || f.type === 'REFERENCE_TREE' || f.type === 'COLLECTION';

function DetailsView({ build, row }: { build: BuildView; row: Row }) {
  const { t } = useI18n();
  const fw = build.model.name;
  const key = keyOf(build.model);
  const fields = build.model.fields.filter((f) => f.type !== 'PASSWORD' && f.name !== key && !shownAsDiff(fw, f.name));
  return (
    <Descriptions
      column={1}
      bordered
      size="small"
      className="fw-details"
      items={[
        { key, label: 'ID', children: String(row[key] ?? '') },
        ...fields.map((f) => ({
          key: f.name,
          label: formTitle(f),
          children: isPermissionField(f) ? (
            <PermissionSummary value={row[f.name]} fallback={<ReferenceLabels model={fw} field={f.name} value={row[f.name]} />} />
          ) : isReference(f) ? (
            <ReferenceLabels model={fw} field={f.name} value={row[f.name]} />
          ) : (
            renderValue(f, row[f.name], undefined, t, { model: fw, rowId: row[key], preview: true })
          ),
        })),
      ]}
    />
  );
}

/** The values a form starts from. */
function initialValues(build: BuildView, mode: DrawerState['mode'], row: Row | undefined): Row {
  const fields = formFields(build.model);
  if (mode === 'add') return Object.fromEntries(fields.filter((f) => f.defaultValue !== undefined).map((f) => [f.name, f.defaultValue]));
  if (!row) return {};
  return Object.fromEntries(fields.filter((f) => f.type !== 'PASSWORD' && !(mode === 'copy' && f.readonly)).map((f) => [f.name, row[f.name] ?? null]));
}

/** The add / edit / copy / details drawer. */
export function RowDrawer({ build, state, onClose, onSwitch }: { build: BuildView; state: DrawerState; onClose: () => void; onSwitch?: (next: DrawerState) => void }) {
  const { t } = useI18n();
  const { message } = App.useApp();
  const queryClient = useQueryClient();
  const [form] = Form.useForm<Row>();
  useReturnFocus();
  const fw = build.model.name;
  const id = state.mode === 'add' ? undefined : state.id;
  const details = useDetails(fw, id);
  const [version, setVersion] = useState<string>();
  const [stale, setStale] = useState<{ current: Row; version?: string }>();
  const [problems, setProblems] = useState<string[]>([]);
  const [busy, setBusy] = useState(false);
  // Read-only fields cannot be set by add or copy; on edit they are shown, disabled, and not sent.
  const fields = useMemo(() => formFields(build.model).filter((f) => state.mode === 'edit' || !f.readonly), [build.model, state.mode]);
  const names = fields.map((f) => f.name);

  // The form starts from the row once per mode and row: a later read (a live change, a refetch)
  // never overwrites what the person is typing; the live note offers the new values instead.
  const seeded = useRef<string>(undefined);
  useEffect(() => {
    const now = `${state.mode}:${id ?? ''}`;
    if (seeded.current === now) return;
    if (state.mode === 'add') form.setFieldsValue(initialValues(build, 'add', undefined));
    else if (details.data) {
      form.setFieldsValue(initialValues(build, state.mode, details.data.row));
      setVersion(details.data.version);
    } else return;
    seeded.current = now;
  }, [details.data, state.mode, id, build, form]);
  const [liveChange, clearLive] = useLiveRow(fw, id, state.mode, details.data?.row, busy);
  // While the edit form is open, others see it on the row (issue 24 §4); closing, saving or
  // cancelling unmounts the drawer, which says "left".
  usePresenceReport(fw, state.mode === 'edit' && details.data ? { id: state.id } : undefined);
  // "Load their changes": the row read again; its version, and only the fields they changed.
  const loadTheirs = async () => {
    if (id === undefined || !liveChange || liveChange.deleted) return;
    const names = Object.keys(liveChange.values);
    const fresh = await details.refetch();
    if (!fresh.data) return;
    takeFields(fresh.data.row, names, fresh.data.version);
  };
  // Puts the fields `theirs` of `row` into the form with the row's version, leaves the rest as the
  // person typed it, and puts the focus on the first of them (the note that held the button goes).
  const takeFields = (row: Row, theirs: string[], rowVersion: string | undefined) => {
    const values = initialValues(build, 'edit', row);
    form.setFieldsValue(Object.fromEntries(Object.entries(values).filter(([name]) => theirs.includes(name))));
    setVersion(rowVersion);
    setStale(undefined);
    clearLive();
    const first = fields.find((f) => theirs.includes(f.name) && !f.readonly) ?? fields.find((f) => !f.readonly);
    if (first) requestAnimationFrame(() => form.focusField(first.name));
  };
  // The fields whose stored value is no longer what the form started from.
  const changedSince = (row: Row) =>
    fields.filter((f) => f.type !== 'PASSWORD' && f.name in row && JSON.stringify(row[f.name] ?? null) !== JSON.stringify(details.data?.row[f.name] ?? null)).map((f) => f.name);

  const loading = state.mode !== 'add' && details.isPending;
  const failed = state.mode !== 'add' && details.isError;
  const title = drawerTitle(t, build.model, state);
  const others = peersOn(usePeers(), id).length > 0;
  const liveFooter = state.mode === 'edit' && !loading && !failed && (others || (liveChange !== undefined && !stale));

  const addRow = useAddRow(fw);
  const updateRow = useUpdateRow(fw);
  const copyRow = useCopyRow(fw);
  const submit = async (values: Row) => {
    setBusy(true);
    setProblems([]);
    setStale(undefined);
    const body: Row = {};
    for (const f of fields) {
      if (f.readonly) continue;
      const v = values[f.name];
      // An empty password keeps the stored one (edit) or is simply not set (add, copy).
      if (f.type === 'PASSWORD' && (v === undefined || v === null || v === '')) continue;
      if (v !== undefined) body[f.name] = v;
    }
    try {
      if (state.mode === 'add') {
        await addRow.mutateAsync(body);
        message.success(t('model.added'));
      } else if (state.mode === 'edit') {
        await updateRow.mutateAsync({ values: { ...body, [keyOf(build.model)]: state.id }, version });
        message.success(t('model.saved'));
      } else if (state.mode === 'copy') {
        await copyRow.mutateAsync({ id: state.id, values: body });
        message.success(t('model.copied'));
      }
      await invalidateModel(queryClient, fw);
      onClose();
    } catch (error) {
      if (error instanceof ApiError && error.code === 'STALE_ROW') {
        const current = (error.body.error as { current?: Row } | undefined)?.current ?? {};
        const v = (error.body.error as { version?: string } | undefined)?.version;
        setStale({ current, version: v });
      } else if (!(error instanceof ApiError && error.status === 401)) setProblems(showServerErrors(form, error, names, t));
    } finally {
      setBusy(false);
    }
  };

  const readOnly = state.mode === 'details';

  return (
    <Drawer
      open
      title={title}
      size={fields.some(isPermissionField) ? Math.min(900, window.innerWidth) : 560}
      onClose={onClose}
      footer={
        liveFooter ? (
          <div className="fw-drawer-live">
            <PresenceNote id={state.id} fields={fields} />
            {/* After a refused save the warning above says it all. */}
            {liveChange && !stale && <LiveRowNote fw={fw} fields={fields} change={liveChange} onLoad={() => void loadTheirs()} />}
          </div>
        ) : undefined
      }
      destroyOnHidden
      className={`fw-drawer fw-drawer-${state.mode}`}
      extra={
        readOnly ? (
          // Details → the edit form of the same row, when the power allows editing.
          onSwitch &&
          can(build, 'edit') && (
            <Button type="primary" icon={<EditOutlined />} className="fw-details-edit" onClick={() => onSwitch({ mode: 'edit', id: state.id })}>
              {t('model.edit')}
            </Button>
          )
        ) : (
          <Space>
            <Button onClick={onClose}>{t('form.cancel')}</Button>
            <Button type="primary" loading={busy} onClick={() => form.submit()} disabled={loading || failed || liveChange?.deleted === true}>
              {t('form.save')}
            </Button>
          </Space>
        )
      }
    >
      {loading && <Spin />}
      {failed && <Result status="warning" subTitle={details.error.message} />}
      {/* An operate-log row: what changed first (issue 20 §7), then the rest of the row. */}
      {readOnly && details.data && fw === OPERATE_LOG_MODEL && <OperateLogDiff row={details.data.row} />}
      {readOnly && details.data && fw === OPERATE_LOG_MODEL && <DetailsView build={build} row={details.data.row} />}
      {/* A row's history (issue 23 §3) beside its details; the operate log has none of its own. */}
      {readOnly && details.data && fw !== OPERATE_LOG_MODEL && state.mode === 'details' && (
        <Tabs
          className="fw-row-tabs"
          items={[
            { key: 'details', label: t('row.details'), children: <DetailsView build={build} row={details.data.row} /> },
            { key: 'history', label: t('row.history'), children: <RowHistory build={build} id={state.id} /> },
          ]}
        />
      )}
      {!readOnly && !loading && !failed && (
        <>
          {stale && (
            <Alert
              type="warning"
              showIcon
              className="fw-stale"
              style={{ marginBottom: 16 }}
              title={t('form.stale')}
              description={
                <div>
                  <div>{t('form.staleCurrent')}</div>
                  <Descriptions
                    size="small"
                    column={1}
                    items={fields
                      .filter((f) => f.type !== 'PASSWORD')
                      .map((f) => ({
                        key: f.name,
                        label: formTitle(f),
                        children: isReference(f) ? (
                          <ReferenceLabels model={fw} field={f.name} value={stale.current[f.name]} />
                        ) : (
                          renderValue(f, stale.current[f.name], undefined, t)
                        ),
                      }))}
                  />
                  <Button size="small" className="fw-stale-load" onClick={() => takeFields(stale.current, changedSince(stale.current), stale.version)}>
                    {t('form.reload')}
                  </Button>
                </div>
              }
            />
          )}
          {problems.length > 0 && <Alert type="error" showIcon style={{ marginBottom: 16 }} title={problems.join('; ')} className="fw-form-error" />}
          <FormRowContext value={state.mode === 'edit' ? state.id : undefined}>
            <Form form={form} layout="vertical" onFinish={submit} name={`row-${state.mode}`} scrollToFirstError>
              {fields.map((f, i) => (
                <FieldItem key={f.name} field={f} model={fw} autoFocus={i === 0} keepEmptyPassword={state.mode === 'edit'} />
              ))}
            </Form>
          </FormRowContext>
        </>
      )}
    </Drawer>
  );
}
