// The operate-log row's details as a before/after table (issue 20 §7) instead of raw JSON: one
// line per field with the model's own titles and choice labels, changed fields highlighted and
// first, secrets masked, unchanged fields behind a switch. What was recorded stays one click away.
import { useMemo, useState } from 'react';
import { Skeleton, Switch, Table, Typography } from 'antd';
import { useI18n } from '../i18n';
import { useBuild } from '../client/queries';
import type { FieldView, Row } from '../types';
import { choiceLabel, formTitle, keyOf } from './fields';
import { logDiff, MASKED, type DiffLine } from './logDiff';

/** The model whose log rows get the diff, and its fields shown as the diff instead. */
export const OPERATE_LOG_MODEL = 'FwOperateLog';
const DIFF_FIELDS = new Set(['beforeData', 'request']);

/** True for a field the details drawer leaves to {@link OperateLogDiff}. */
export function shownAsDiff(fw: string, field: string): boolean {
  return fw === OPERATE_LOG_MODEL && DIFF_FIELDS.has(field);
}

function Value({ value, field }: { value: unknown; field: FieldView | undefined }) {
  const { t } = useI18n();
  if (value === undefined || value === null || value === '') return <Typography.Text type="secondary">{t('log.empty')}</Typography.Text>;
  if (value === MASKED) return <Typography.Text type="secondary">{t('log.secret')}</Typography.Text>;
  if (typeof value === 'boolean') return <>{value ? t('model.yes') : t('model.no')}</>;
  if (field?.choices && typeof value !== 'object') return <>{choiceLabel(field, value)}</>;
  return <>{typeof value === 'object' ? JSON.stringify(value) : String(value)}</>;
}

/** The before/after table of one FwOperateLog row. */
export function OperateLogDiff({ row }: { row: Row }) {
  const { t } = useI18n();
  const [all, setAll] = useState(false);
  const model = typeof row.model === 'string' ? row.model : '';
  // Titles and choice labels of the logged model, when the person may see it; field names otherwise.
  const build = useBuild(model);
  const fields = useMemo(() => new Map((build.data?.model.fields ?? []).map((f) => [f.name, f])), [build.data]);
  const secrets = useMemo(() => new Set([...fields.values()].filter((f) => f.type === 'PASSWORD').map((f) => f.name)), [fields]);
  const key = build.data ? keyOf(build.data.model) : 'id';
  const lines = logDiff(String(row.action ?? ''), row.beforeData, row.request, secrets, key);
  const raw = (
    <details className="fw-log-raw">
      <summary>{t('log.raw')}</summary>
      <pre>{[row.beforeData, row.request].filter((x) => typeof x === 'string' && x !== '').join('\n\n')}</pre>
    </details>
  );
  if (!lines) return raw;
  // Wait for the titles, so the lines do not change their names under the reader.
  if (build.isPending) return <Skeleton active paragraph={{ rows: 2 }} className="fw-log-diff-loading" />;
  const changed = lines.filter((l) => l.changed).length;
  const shown = all ? lines : lines.filter((l) => l.changed);
  return (
    <section className="fw-log-diff" aria-labelledby="fw-log-diff-title">
      <div className="fw-log-diff-head">
        <Typography.Title level={5} id="fw-log-diff-title">
          {t('log.diff')}
        </Typography.Title>
        {changed < lines.length && (
          <label className="fw-log-diff-all">
            <Switch size="small" checked={all} onChange={setAll} /> {t('log.showAll')}
          </label>
        )}
      </div>
      {shown.length === 0 ? (
        <Typography.Paragraph type="secondary">{t('log.noChanges')}</Typography.Paragraph>
      ) : (
        <Table<DiffLine>
          size="small"
          pagination={false}
          rowKey="field"
          dataSource={shown}
          rowClassName={(l) => (l.changed ? 'fw-diff-changed' : 'fw-diff-same')}
          columns={[
            { key: 'field', title: t('log.field'), render: (_, l) => (fields.get(l.field) ? formTitle(fields.get(l.field)!) : l.field), className: 'fw-diff-field' },
            { key: 'before', title: t('log.before'), render: (_, l) => <Value value={l.before} field={fields.get(l.field)} />, className: 'fw-diff-before' },
            { key: 'after', title: t('log.after'), render: (_, l) => <Value value={l.after} field={fields.get(l.field)} />, className: 'fw-diff-after' },
          ]}
        />
      )}
      {raw}
    </section>
  );
}
