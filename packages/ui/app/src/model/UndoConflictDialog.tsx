// The conflicts of an undo (issue 23 §3): the entries the server would leave alone, each with its
// row and the reason in words. An entry whose row changed since may be forced (a checkbox), which
// overwrites the later change; the others (row gone, id taken, …) cannot be.
import { useCallback, useState } from 'react';
import { Checkbox, Modal, Table, Typography } from 'antd';
import type { UndoAnswer, UndoConflict } from '../client/answers';
import { useMenu } from '../client/queries';
import { useI18n, type MessageKey } from '../i18n';

/**
 * How a row of an undo is named: `#id` on its own model's page, `Title #id` elsewhere, the model
 * by the title its menu shows the reader (their language), else by its name.
 */
export function undoRowLabel(model: string, id: number | null, fw?: string, title: (model: string) => string = (m) => m): string {
  if (id === null) return title(model);
  return model === fw ? `#${id}` : `${title(model)} #${id}`;
}

/** A model's title as the reader's menu shows it (the model's name when no menu names it). */
export function useModelTitle(): (model: string) => string {
  const { data: menus } = useMenu();
  return useCallback((model: string) => menus?.find((m) => m.type !== 'dir' && m.value === model)?.name ?? model, [menus]);
}

/** The conflicts as a table, with a force checkbox on each row changed since. */
export function UndoConflictTable({ conflicts, fw, forced, onForce }: { conflicts: UndoConflict[]; fw?: string; forced: number[]; onForce: (forced: number[]) => void }) {
  const { t } = useI18n();
  const title = useModelTitle();
  return (
    <Table<UndoConflict>
      size="small"
      rowKey="entry"
      className="fw-undo-conflict-table"
      dataSource={conflicts}
      pagination={conflicts.length > 10 ? { pageSize: 10, showSizeChanger: false, size: 'small' } : false}
      columns={[
        { key: 'row', title: t('undo.row'), render: (_: unknown, c) => undoRowLabel(c.model, c.id, fw, title) },
        {
          key: 'reason',
          title: t('undo.reason'),
          // The force checkbox sits under the reason, not in a column of its own, so a phone shows both.
          render: (_: unknown, c) => (
            <div className="fw-undo-why">
              <span className="fw-undo-reason" data-reason={c.reason} title={c.message}>
                {t(`undo.reason.${c.reason}` as MessageKey)}
              </span>
              {c.reason === 'changed' && (
                <Checkbox
                  className="fw-undo-force"
                  checked={forced.includes(c.entry)}
                  aria-label={`${t('undo.force')}: ${undoRowLabel(c.model, c.id, fw, title)}`}
                  onChange={(e) => onForce(e.target.checked ? [...forced, c.entry] : forced.filter((x) => x !== c.entry))}
                >
                  {t('undo.force')}
                </Checkbox>
              )}
            </div>
          ),
        },
      ]}
    />
  );
}

/** The dialog after a dry run found conflicts: force some, then undo. */
export function UndoConflictDialog({
  preview,
  fw,
  busy,
  onCancel,
  onApply,
}: {
  preview: UndoAnswer;
  fw?: string | undefined;
  busy: boolean;
  onCancel: () => void;
  onApply: (force: number[]) => void;
}) {
  const { t } = useI18n();
  const [forced, setForced] = useState<number[]>([]);
  const count = preview.undone + forced.length;
  return (
    <Modal
      open
      title={t('undo.conflictTitle')}
      onCancel={onCancel}
      okText={t('undo.apply', { count })}
      okButtonProps={{ disabled: count === 0, loading: busy, className: 'fw-undo-apply' }}
      onOk={() => onApply(forced)}
      destroyOnHidden
      className="fw-undo-conflicts"
    >
      <Typography.Paragraph>{t('undo.conflictSummary', { count: preview.undone, conflicts: preview.conflicted })}</Typography.Paragraph>
      <UndoConflictTable conflicts={preview.conflicts} fw={fw} forced={forced} onForce={setForced} />
      {preview.conflicts.some((c) => c.reason === 'changed') && (
        <Typography.Paragraph type="secondary" style={{ marginTop: 8, marginBottom: 0 }}>
          {t('undo.forceHint')}
        </Typography.Paragraph>
      )}
    </Modal>
  );
}
