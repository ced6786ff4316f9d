// The conflict of a cell edit (issue 24 §1): the cell editor sends the value it was seeded with,
// and the server refuses with 409 STALE_CELL when someone else saved the cell in between. This
// dialog says who and when, shows their value and the person's own side by side the way the table
// shows that field, and lets the person keep theirs (the safe choice: focused, and what Esc does)
// or overwrite with their own.
import { Button, Modal, Typography } from 'antd';
import { ApiError } from '../client/api';
import { useI18n } from '../i18n';
import type { FieldView, StaleCell } from '../types';
import { formatDateTime, renderValue, type Labels } from './cells';
import { columnTitle } from './fields';
import './stale.css';
import { personLabel } from './person';

/** The stale cell a 409 STALE_CELL answer names for `field`, or undefined for any other refusal. */
export function staleCellOf(error: unknown, field: string): StaleCell | undefined {
  if (!(error instanceof ApiError) || error.status !== 409 || error.code !== 'STALE_CELL') return undefined;
  const body = (error.body.error ?? {}) as Partial<StaleCell> & { cells?: StaleCell[] };
  const cell = body.cells?.find((c) => c.field === field) ?? (body.field === field ? (body as StaleCell) : undefined);
  if (!cell) return undefined;
  return { field, current: cell.current ?? null, changedBy: cell.changedBy ?? null, changedAt: cell.changedAt ?? null };
}

/** The dialog over the cell editor while a save met someone else's change. */
export function StaleCellDialog({
  fw,
  rowId,
  field,
  stale,
  mine,
  labels,
  busy,
  onKeep,
  onOverwrite,
}: {
  fw: string;
  rowId: unknown;
  field: FieldView;
  stale: StaleCell;
  mine: unknown;
  labels: Labels | undefined;
  busy: boolean;
  onKeep: () => void;
  onOverwrite: () => void;
}) {
  const { t } = useI18n();
  const column = columnTitle(field);
  const person = personLabel(stale.changedBy);
  const when = stale.changedAt ? formatDateTime(stale.changedAt) : undefined;
  const who =
    person && when
      ? t('stale.byAt', { who: person, field: column, time: when })
      : person
        ? t('stale.by', { who: person, field: column })
        : when
          ? t('stale.at', { field: column, time: when })
          : t('stale.someone', { field: column });
  const shown = (value: unknown) =>
    renderValue(field, value, labels, t, { model: fw, rowId, thumbnail: true }) ?? <Typography.Text type="secondary">{t('stale.empty')}</Typography.Text>;
  return (
    <Modal
      open
      title={t('stale.title')}
      className="fw-stale-dialog"
      width={Math.min(480, window.innerWidth - 16)}
      onCancel={onKeep}
      maskClosable={false}
      destroyOnHidden
      footer={[
        <Button key="mine" danger className="fw-stale-overwrite" loading={busy} onClick={onOverwrite}>
          {t('stale.overwrite')}
        </Button>,
        <Button key="theirs" type="primary" className="fw-stale-keep" disabled={busy} autoFocus onClick={onKeep}>
          {t('stale.keep')}
        </Button>,
      ]}
    >
      <Typography.Paragraph className="fw-stale-who">{who}</Typography.Paragraph>
      <div className="fw-stale-values">
        <section className="fw-stale-theirs" aria-label={t('stale.theirs')}>
          <div className="fw-stale-label">{t('stale.theirs')}</div>
          <div className="fw-stale-value">{shown(stale.current)}</div>
        </section>
        <section className="fw-stale-mine" aria-label={t('stale.yours')}>
          <div className="fw-stale-label">{t('stale.yours')}</div>
          <div className="fw-stale-value">{shown(mine)}</div>
        </section>
      </div>
    </Modal>
  );
}
