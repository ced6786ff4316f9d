// The import dialog: the mode (add, update by id, or update-or-add) with what each does, the
// file convention, the file chooser; a refused file's problems as a table sorted by row, then
// column, each cell's place as the spreadsheet names it.
import { useRef, useState } from 'react';
import { Alert, Button, Modal, Radio, Space, Table, Typography } from 'antd';
import { UploadOutlined } from '@ant-design/icons';
import { useQueryClient } from '@tanstack/react-query';
import { ApiError } from '../client/api';
import { useImport } from '../client/mutations';
import type { ImportMode } from '../client/routes';
import { useI18n } from '../i18n';
import { invalidateModel } from '../client/queries';
import type { ErrorDetail } from '../types';
import { useUndoOffer } from './UndoProvider';

const ACCEPT = '.csv,.xlsx,text/csv,application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';

/** How an import writes its rows (the server's `?mode=`). */
export type { ImportMode };

const MODES: ReadonlyArray<{
  mode: ImportMode;
  labelKey: 'import.modeAdd' | 'import.modeUpdate' | 'import.modeUpsert';
  helpKey: 'import.modeAddHelp' | 'import.modeUpdateHelp' | 'import.modeUpsertHelp';
}> = [
  { mode: 'add', labelKey: 'import.modeAdd', helpKey: 'import.modeAddHelp' },
  { mode: 'update', labelKey: 'import.modeUpdate', helpKey: 'import.modeUpdateHelp' },
  { mode: 'upsert', labelKey: 'import.modeUpsert', helpKey: 'import.modeUpsertHelp' },
];

/** A spreadsheet column letter's order: A < Z < AA. */
const columnOrder = (c: string | undefined) => (c === undefined ? -1 : c.length * 1000 + c.localeCompare('A'));

/** Problems sorted by row, then column (those without a row, the header's, first). */
export function sortProblems(details: readonly ErrorDetail[]): ErrorDetail[] {
  return [...details].sort((a, b) => (a.row ?? 0) - (b.row ?? 0) || columnOrder(a.column) - columnOrder(b.column));
}

/** A message without the place it starts with ("row 3, column B (Price): "), which the table shows in its own columns. */
function problemText(d: ErrorDetail): string {
  return d.row === undefined ? (d.path ? `${d.path}: ${d.message}` : d.message) : d.message.replace(/^row \d+(, column [A-Z]+( \([^)]*\))?)?: /, '');
}

/** The column of a problem: its letter and, as the server's message names it, its header ("B (Price)"). */
function columnText(d: ErrorDetail): string {
  if (d.column === undefined) return '';
  const header = /^row \d+, column [A-Z]+ \(([^)]*)\):/.exec(d.message)?.[1];
  return header ? `${d.column} (${header})` : d.column;
}

/** The import dialog of model `fw`, open while `open`; `title` is the model's title. */
export function ImportDialog({ fw, title, open, onClose, power }: { fw: string; title: string; open: boolean; onClose: () => void; power?: { add: boolean; edit: boolean } }) {
  const { t } = useI18n();
  const queryClient = useQueryClient();
  const input = useRef<HTMLInputElement>(null);
  // The modes the power allows: add needs `add`, update `edit`, upsert either (each row its own).
  const offered = MODES.filter((m) => !power || (m.mode === 'add' ? power.add : m.mode === 'update' ? power.edit : power.add || power.edit));
  const [mode, setMode] = useState<ImportMode>(offered[0]?.mode ?? 'add');
  const [busy, setBusy] = useState(false);
  const [refusal, setRefusal] = useState<{ message: string; details: ErrorDetail[] }>();

  const importRows = useImport(fw);
  const offer = useUndoOffer(fw);
  const upload = async (file: File) => {
    setBusy(true);
    setRefusal(undefined);
    try {
      const answer = await importRows.mutateAsync({ file, mode });
      // Servers that log an import by batch answer it: then the message offers Undo.
      offer(t('import.done', { count: answer.imported, added: answer.added ?? answer.imported, updated: answer.updated ?? 0 }), answer.batch);
      await invalidateModel(queryClient, fw);
      onClose();
    } catch (error) {
      if (error instanceof ApiError && error.status === 401) return;
      setRefusal({ message: error instanceof Error ? error.message : String(error), details: error instanceof ApiError ? sortProblems(error.details) : [] });
    } finally {
      setBusy(false);
      if (input.current) input.current.value = '';
    }
  };

  return (
    <Modal open={open} title={t('import.title', { model: title })} onCancel={onClose} footer={null} width={640} className="fw-import-dialog" destroyOnHidden>
      <input
        ref={input}
        type="file"
        accept={ACCEPT}
        hidden
        className="fw-import-file"
        onChange={(e) => {
          const file = e.target.files?.[0];
          if (file) void upload(file);
        }}
      />
      <Typography.Paragraph strong id="fw-import-mode-label" style={{ marginBottom: 8 }}>
        {t('import.mode')}
      </Typography.Paragraph>
      <Radio.Group value={mode} onChange={(e) => setMode(e.target.value as ImportMode)} aria-labelledby="fw-import-mode-label" className="fw-import-mode">
        <Space direction="vertical" size={6}>
          {offered.map((m) => (
            <Radio key={m.mode} value={m.mode} className={`fw-import-mode-${m.mode}`}>
              <span>{t(m.labelKey)}</span>
              <Typography.Text type="secondary" style={{ display: 'block', fontSize: 13 }}>
                {t(m.helpKey)}
              </Typography.Text>
            </Radio>
          ))}
        </Space>
      </Radio.Group>
      <Typography.Paragraph type="secondary" style={{ marginTop: 12, fontSize: 13 }}>
        {t('import.convention')}
      </Typography.Paragraph>
      <Button type="primary" icon={<UploadOutlined />} loading={busy} onClick={() => input.current?.click()} className="fw-import-choose">
        {t('import.chooseFile')}
      </Button>
      {refusal && (
        <div className="fw-import-refused" style={{ marginTop: 16 }}>
          <Alert type="error" showIcon title={t('model.importRefused')} description={refusal.message !== t('model.importRefused') ? refusal.message : undefined} />
          {refusal.details.length > 0 && (
            <Table<ErrorDetail & { key: number }>
              className="fw-import-errors"
              size="small"
              style={{ marginTop: 8 }}
              pagination={refusal.details.length > 10 ? { pageSize: 10, size: 'small' } : false}
              dataSource={refusal.details.map((d, key) => ({ ...d, key }))}
              columns={[
                { key: 'row', title: t('import.row'), dataIndex: 'row', width: 64 },
                { key: 'column', title: t('import.column'), width: 140, render: (_: unknown, d: ErrorDetail) => columnText(d) },
                { key: 'problem', title: t('import.problem'), render: (_: unknown, d: ErrorDetail) => problemText(d) },
              ]}
            />
          )}
        </div>
      )}
    </Modal>
  );
}
