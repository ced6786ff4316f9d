// The preview of a paste (issue 23 §2): the block as it landed on the grid, each cell with the
// value it will save or the reason it cannot, checked by the server without writing (a dry run
// of the bulk request), then saved as one all-or-nothing request. Each row expects the values the
// grid showed in the cells pasted over: a cell someone else changed since is shown with its new
// value, and the paste can be sent again over the new values.
import { useEffect, useMemo, useState } from 'react';
import { Alert, Button, Modal, Space, Table, Tag, Typography } from 'antd';
import { useQueryClient } from '@tanstack/react-query';
import { ExclamationCircleOutlined } from '@ant-design/icons';
import { ApiError } from '../client/api';
import { useUpdateRows } from '../client/mutations';
import { invalidateModel } from '../client/queries';
import { useI18n, type MessageKey } from '../i18n';
import type { BuildView, PastedRow, Row } from '../types';
import { renderValue } from './cells';
import { columnTitle } from './fields';
import type { PastedCell, PastePlan } from './paste';
import { useUndoOffer } from './UndoProvider';
import './stale.css';

/** Server refusals of a dry run, by "row index.field" of the request's rows. */
function serverProblems(error: unknown): Map<string, string> {
  const out = new Map<string, string>();
  if (!(error instanceof ApiError)) return out;
  for (const d of error.details) {
    if (d.type === 'stale') continue;
    const m = /^rows\[(\d+)\]\.(.+)$/.exec(d.path);
    out.set(m ? `${m[1]}.${m[2]}` : d.path || '*', d.message);
  }
  if (out.size === 0 && staleCells(error).size === 0) out.set('*', error.message);
  return out;
}

/** Pasted cells someone else changed since the grid showed them (details of type stale): "row index.field" → the value shown now. */
function staleCells(error: unknown): Map<string, unknown> {
  const out = new Map<string, unknown>();
  if (!(error instanceof ApiError)) return out;
  for (const d of error.details) {
    const m = /^rows\[(\d+)\]\.(.+)$/.exec(d.path);
    if (d.type === 'stale' && m) out.set(`${m[1]}.${m[2]}`, d.current ?? null);
  }
  return out;
}

/** `rows` expecting, in each stale cell, the value it shows now: the paste goes over the new values. */
function overNewValues(rows: PastedRow[], stale: Map<string, unknown>): PastedRow[] {
  return rows.map((row, i) => {
    const expect = { ...row.expect };
    for (const [at, current] of stale) {
      const dot = at.indexOf('.');
      if (Number(at.slice(0, dot)) === i) expect[at.slice(dot + 1)] = current;
    }
    return { ...row, expect };
  });
}

export function PasteDialog({ build, plan, rowLabel, onClose }: { build: BuildView; plan: PastePlan; rowLabel: (key: string) => string; onClose: () => void }) {
  const { t } = useI18n();
  const queryClient = useQueryClient();
  const fw = build.model.name;
  const save = useUpdateRows(fw);
  const check = useUpdateRows(fw);
  const offer = useUndoOffer(fw);
  const [refused, setRefused] = useState<Map<string, string>>();
  // The rows sent (their expect moves to the new values when the person pastes over them) and the stale cells.
  const [rows, setRows] = useState(plan.rows);
  const [stale, setStale] = useState<Map<string, unknown>>(new Map());
  const refuse = (error: unknown) => {
    setRefused(serverProblems(error));
    setStale(staleCells(error));
  };
  // The request's rows index by id, so a server detail rows[i].field finds its cell.
  const requestIndex = useMemo(() => new Map(plan.rows.map((r, i) => [String(r.id), i])), [plan.rows]);

  useEffect(() => {
    if (plan.rows.length === 0) return;
    check.mutateAsync({ rows, dryRun: true }).then(
      () => setRefused(new Map()),
      (error: unknown) => refuse(error),
    );
  }, [plan]);

  const cellAt = new Map(plan.cells.map((c) => [`${c.row}.${c.col}`, c]));
  const field = (name: string) => build.model.fields.find((f) => f.name === name);
  const serverSays = (cell: PastedCell) => {
    const i = requestIndex.get(plan.rowKeys[cell.row]!);
    return i === undefined ? undefined : refused?.get(`${i}.${cell.field}`);
  };
  const staleAt = (cell: PastedCell) => {
    const at = `${requestIndex.get(plan.rowKeys[cell.row]!)}.${cell.field}`;
    return stale.has(at) ? { current: stale.get(at) } : undefined;
  };
  const changing = plan.cells.filter((c) => !c.problem).length;
  const rowWide = refused?.get('*');
  const blocked = refused === undefined || refused.size > 0 || stale.size > 0 || plan.rows.length === 0;

  const onSave = async (sent: PastedRow[] = rows) => {
    try {
      const answer = await save.mutateAsync({ rows: sent });
      offer(t('paste.done', { count: answer.updated }), answer.batch);
      await invalidateModel(queryClient, fw);
      onClose();
    } catch (error) {
      if (!(error instanceof ApiError && error.status === 401)) refuse(error);
    }
  };

  const data = plan.rowKeys.map((key, r) => ({ key, r }));
  return (
    <Modal
      open
      width={Math.min(960, window.innerWidth)}
      title={t('paste.title', { rows: plan.rowKeys.length, cols: plan.columns.length })}
      onCancel={onClose}
      onOk={() => void onSave()}
      okText={t('paste.save', { count: plan.rows.length })}
      okButtonProps={{ disabled: blocked, loading: save.isPending, className: 'fw-paste-save' }}
      destroyOnHidden
      className="fw-paste-dialog"
    >
      <Space orientation="vertical" style={{ width: '100%' }}>
        <Typography.Text>{t('paste.summary', { cells: changing, rows: plan.rows.length })}</Typography.Text>
        {plan.problems > 0 && <Alert type="warning" showIcon title={t('paste.problems', { count: plan.problems })} />}
        {plan.cutRows + plan.cutColumns > 0 && <Alert type="info" showIcon title={t('paste.cut', { rows: plan.cutRows, cols: plan.cutColumns })} />}
        {refused === undefined && plan.rows.length > 0 && <Typography.Text type="secondary">{t('paste.checking')}</Typography.Text>}
        {stale.size > 0 && (
          <Alert
            type="warning"
            showIcon
            className="fw-paste-stale-alert"
            title={t('paste.stale', { count: stale.size })}
            description={
              <Button
                className="fw-paste-over"
                loading={save.isPending}
                disabled={refused !== undefined && refused.size > 0}
                onClick={() => {
                  const next = overNewValues(rows, stale);
                  setRows(next);
                  void onSave(next);
                }}
              >
                {t('paste.overNew')}
              </Button>
            }
          />
        )}
        {refused && refused.size > 0 && <Alert type="error" showIcon className="fw-paste-refused" title={t('paste.serverFailed')} description={rowWide} />}
        <Table
          size="small"
          pagination={false}
          scroll={{ x: 'max-content', y: 360 }}
          dataSource={data}
          className="fw-paste-preview"
          columns={[
            { key: 'row', title: '#', fixed: 'left', render: (_: unknown, d: { key: string; r: number }) => rowLabel(d.key) },
            ...plan.columns.map((name, c) => ({
              key: name,
              title: field(name) ? columnTitle(field(name)!) : name,
              render: (_: unknown, d: { key: string; r: number }) => {
                const cell = cellAt.get(`${d.r}.${c}`);
                if (!cell) return null;
                const f = field(cell.field);
                const said = serverSays(cell);
                const changed = staleAt(cell);
                if (changed && !cell.problem && !said) {
                  return (
                    <span className="fw-paste-stale" data-problem="stale">
                      <span className="fw-paste-good">{f ? renderValue(f, cell.value, undefined, t) : String(cell.value)}</span>{' '}
                      <Tag className="fw-paste-stale-tag" icon={<ExclamationCircleOutlined aria-hidden />}>
                        {t('paste.staleNow')} {f ? (renderValue(f, changed.current, undefined, t) ?? t('stale.empty')) : String(changed.current)}
                      </Tag>
                    </span>
                  );
                }
                if (cell.problem || said) {
                  return (
                    <span className="fw-paste-bad" data-problem={cell.problem ?? 'server'}>
                      <Typography.Text delete type="danger">
                        {cell.text}
                      </Typography.Text>{' '}
                      <Tag color="error">{cell.problem ? t(`paste.problem.${cell.problem}` as MessageKey) : said}</Tag>
                    </span>
                  );
                }
                return <span className="fw-paste-good">{f ? renderValue(f, cell.value, undefined, t) : String(cell.value)}</span>;
              },
            })),
          ]}
        />
      </Space>
    </Modal>
  );
}

/** The row label a preview shows for a row key, from the rows on screen. */
export function pasteRowLabel(rows: Row[], key: string, keyField: string, labelField: string | undefined): string {
  const row = rows.find((r) => String(r[keyField]) === key);
  const label = row && labelField ? row[labelField] : undefined;
  return typeof label === 'string' || typeof label === 'number' ? `${String(label)} (#${key})` : `#${key}`;
}
