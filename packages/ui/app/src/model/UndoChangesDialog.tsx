// "Undo changes…" on the operation log (issue 23 §3), for administrators: pick a person and a time
// window, preview what an undo would take back (a dry run: the steps and the conflicts), force the
// conflicts that may be forced, apply. The server refuses the route to anyone else anyway.
import { useState } from 'react';
import { Alert, Button, DatePicker, Modal, Select, Space, Table, Typography } from 'antd';
import dayjs, { type Dayjs } from 'dayjs';
import type { UndoAnswer, UndoBody, UndoStep } from '../client/answers';
import { useUndo } from '../client/mutations';
import { useTable } from '../client/queries';
import { useI18n } from '../i18n';
import { UndoConflictTable, undoRowLabel, useModelTitle } from './UndoConflictDialog';
import { useUndoTools } from './UndoProvider';

const USERS_SHOWN = 20;

/** The administrators' undo of one person's changes in a time window. */
export function UndoChangesDialog({ onClose }: { onClose: () => void }) {
  const { t } = useI18n();
  const tools = useUndoTools();
  const undo = useUndo();
  const [search, setSearch] = useState('');
  const [actor, setActor] = useState<number>();
  const [range, setRange] = useState<[Dayjs, Dayjs]>(() => [dayjs().subtract(1, 'hour').startOf('minute'), dayjs().add(1, 'minute').startOf('minute')]);
  const [preview, setPreview] = useState<{ body: UndoBody; answer: UndoAnswer }>();
  const [forced, setForced] = useState<number[]>([]);
  // The apply runs through the provider's own request (so it refreshes and offers the redo).
  const [applying, setApplying] = useState(false);
  const users = useTable(
    'FwUser',
    { page: 1, size: USERS_SHOWN, sort: [{ field: 'account', order: 'asc' }], ...(search.trim() ? { conditions: [{ field: 'account', op: 'like', value: search.trim() }] } : {}) },
    true,
  );
  // Another person or window makes the preview stale: it goes, and is asked for again.
  const changed = () => {
    setPreview(undefined);
    setForced([]);
  };

  const body = (): UndoBody | undefined => (actor === undefined ? undefined : { actor, from: range[0].toISOString(), to: range[1].toISOString() });
  const runPreview = async () => {
    const asked = body();
    if (!asked) return;
    try {
      setForced([]);
      setPreview({ body: asked, answer: await undo.mutateAsync({ ...asked, dryRun: true }) });
    } catch (error) {
      setPreview(undefined);
      tools?.fail(error);
    }
  };
  const runApply = async () => {
    if (!preview || !tools) return;
    setApplying(true);
    try {
      await tools.apply(preview.body, forced);
      onClose();
    } catch (error) {
      tools.fail(error);
      setApplying(false);
    }
  };

  const answer = preview?.answer;
  const count = (answer?.undone ?? 0) + forced.length;
  return (
    <Modal
      open
      title={t('undo.changes.title')}
      onCancel={onClose}
      width={760}
      destroyOnHidden
      className="fw-undo-changes"
      okText={answer ? t('undo.apply', { count }) : t('undo.changes.apply')}
      okButtonProps={{ disabled: !answer || count === 0, loading: applying, className: 'fw-undo-changes-apply' }}
      onOk={runApply}
    >
      <Space orientation="vertical" size="middle" style={{ width: '100%' }}>
        <Typography.Paragraph type="secondary" style={{ marginBottom: 0 }}>
          {t('undo.changes.hint')}
        </Typography.Paragraph>
        <div className="fw-undo-changes-inputs">
          <div className="fw-undo-changes-field">
            <Typography.Text strong id="fw-undo-user">
              {t('undo.changes.user')}
            </Typography.Text>
            <Select
              showSearch={{ filterOption: false, onSearch: setSearch }}
              aria-labelledby="fw-undo-user"
              className="fw-undo-user"
              placeholder={t('undo.changes.userPlaceholder')}
              value={actor}
              loading={users.isFetching}
              onChange={(id: number) => {
                setActor(id);
                changed();
              }}
              options={(users.data?.rows ?? []).map((u) => ({
                value: Number(u.id),
                label: u.name && u.name !== u.account ? `${String(u.account)} (${String(u.name)})` : String(u.account),
              }))}
              style={{ width: '100%' }}
            />
          </div>
          <div className="fw-undo-changes-field">
            <Typography.Text strong id="fw-undo-window">
              {t('undo.changes.window')}
            </Typography.Text>
            <DatePicker.RangePicker
              showTime={{ format: 'HH:mm' }}
              format="YYYY-MM-DD HH:mm"
              allowClear={false}
              className="fw-undo-window"
              aria-labelledby="fw-undo-window"
              value={range}
              onChange={(value) => {
                if (value?.[0] && value[1]) {
                  setRange([value[0], value[1]]);
                  changed();
                }
              }}
              style={{ width: '100%' }}
            />
          </div>
        </div>
        <Button onClick={runPreview} disabled={actor === undefined} loading={undo.isPending} className="fw-undo-preview">
          {t('undo.changes.preview')}
        </Button>
        {answer && <UndoPreview answer={answer} forced={forced} onForce={setForced} />}
      </Space>
    </Modal>
  );
}

/** What a dry run found: the steps (paged), then the conflicts with their force checkboxes. */
function UndoPreview({ answer, forced, onForce }: { answer: UndoAnswer; forced: number[]; onForce: (forced: number[]) => void }) {
  const { t } = useI18n();
  const title = useModelTitle();
  const action = (s: UndoStep) => t(`undo.action.${s.action}`) + (s.fields?.length ? `: ${s.fields.join(', ')}` : '');
  return (
    <div className="fw-undo-preview-result">
      <Typography.Title level={5} className="fw-undo-steps-title" style={{ marginTop: 0 }}>
        {t('undo.changes.steps', { count: answer.undone })}
      </Typography.Title>
      {answer.steps.length < answer.undone && (
        <Typography.Paragraph type="secondary">{t('undo.changes.listed', { shown: answer.steps.length, count: answer.undone })}</Typography.Paragraph>
      )}
      <Table<UndoStep>
        size="small"
        rowKey="entry"
        className="fw-undo-steps"
        dataSource={answer.steps}
        pagination={answer.steps.length > 8 ? { pageSize: 8, showSizeChanger: false, size: 'small' } : false}
        columns={[
          { key: 'model', title: t('undo.changes.table'), render: (_: unknown, s) => title(s.model) },
          { key: 'row', title: t('undo.row'), render: (_: unknown, s) => undoRowLabel(s.model, s.id, s.model) },
          { key: 'change', title: t('undo.changes.change'), render: (_: unknown, s) => action(s) },
        ]}
      />
      {answer.conflicts.length > 0 && (
        <>
          <Typography.Title level={5} style={{ marginTop: 16 }}>
            {t('undo.changes.conflicts', { count: answer.conflicted })}
          </Typography.Title>
          <UndoConflictTable conflicts={answer.conflicts} forced={forced} onForce={onForce} />
        </>
      )}
      {answer.skipped.length > 0 && <Alert type="info" showIcon style={{ marginTop: 12 }} title={t('undo.skipped', { count: answer.skipped.length })} />}
    </div>
  );
}
