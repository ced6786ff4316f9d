// A row's history (issue 23 §3): who changed what and when, newest first, from the operate log,
// each entry with its fields before → after; and, for whoever may edit, "restore to before this
// change", which the server runs through the normal update path and reports field by field.
import { useState } from 'react';
import { App, Button, Empty, Pagination, Popconfirm, Spin, Table, Tag, Timeline, Typography } from 'antd';
import { RollbackOutlined } from '@ant-design/icons';
import { useQueryClient } from '@tanstack/react-query';
import { ApiError } from '../client/api';
import type { HistoryEntry } from '../client/answers';
import { useRestore } from '../client/mutations';
import { invalidateModel, useRowHistory } from '../client/queries';
import { useI18n, type MessageKey } from '../i18n';
import type { BuildView } from '../types';
import { formatDateTime, renderValue } from './cells';
import { formTitle } from './fields';
import { can } from './power';
import { useUndoOffer } from './UndoProvider';
import { personLabel } from './person';

const PAGE_SIZE = 10;
const SOURCES = new Set(['http', 'form', 'cell', 'import', 'bulk', 'ai', 'restore', 'undo']);
const ACTIONS = new Set(['add', 'update', 'delete', 'copy', 'undelete']);

function EntryChanges({ build, entry }: { build: BuildView; entry: HistoryEntry }) {
  const { t } = useI18n();
  const show = (field: string, value: unknown) => {
    const f = build.model.fields.find((x) => x.name === field);
    if (value === '******') return <Typography.Text type="secondary">******</Typography.Text>;
    if (value === null || value === undefined || value === '') return <Typography.Text type="secondary">—</Typography.Text>;
    return f ? renderValue(f, value, undefined, t) : String(typeof value === 'object' ? JSON.stringify(value) : value);
  };
  const title = (field: string) => {
    const f = build.model.fields.find((x) => x.name === field);
    return f ? formTitle(f) : field;
  };
  if (entry.changes.length === 0) return null;
  return (
    <Table
      size="small"
      pagination={false}
      rowKey="field"
      className="fw-history-changes"
      dataSource={entry.changes}
      columns={[
        { key: 'field', title: t('history.field'), render: (_: unknown, c: HistoryEntry['changes'][number]) => title(c.field), width: '30%' },
        { key: 'before', title: t('history.before'), render: (_: unknown, c: HistoryEntry['changes'][number]) => show(c.field, c.before) },
        { key: 'after', title: t('history.after'), render: (_: unknown, c: HistoryEntry['changes'][number]) => show(c.field, c.after) },
      ]}
    />
  );
}

/** The History tab of a row's details. */
export function RowHistory({ build, id }: { build: BuildView; id: number }) {
  const { t } = useI18n();
  const { message } = App.useApp();
  const queryClient = useQueryClient();
  const fw = build.model.name;
  const [page, setPage] = useState(1);
  const history = useRowHistory(fw, id, page, PAGE_SIZE);
  const restore = useRestore(fw, id);
  const mayRestore = can(build, 'edit');
  const offer = useUndoOffer(fw);

  const run = async (entry: HistoryEntry) => {
    try {
      const answer = await restore.mutateAsync(entry.id);
      const skipped = answer.skipped.map((s) => `${s.field} (${s.reason})`).join(', ');
      if (answer.restored.length > 0) offer(t('history.restored', { count: answer.restored.length }), answer.batch);
      if (skipped) message.warning(t('history.skipped', { fields: skipped }));
      await invalidateModel(queryClient, fw);
    } catch (error) {
      if (!(error instanceof ApiError && error.status === 401)) message.error(error instanceof Error ? error.message : String(error));
    }
  };

  if (history.isPending) return <Spin />;
  if (history.isError) return <Typography.Text type="danger">{history.error.message}</Typography.Text>;
  const { rows, total } = history.data;
  if (rows.length === 0) return <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('history.empty')} />;
  return (
    <div className="fw-history">
      <Timeline
        items={rows.map((entry) => ({
          key: entry.id,
          content: (
            <div className="fw-history-entry" data-entry={entry.id}>
              <div className="fw-history-head">
                <Typography.Text strong>{personLabel(entry.user) ?? t('history.unknownUser')}</Typography.Text>
                <Typography.Text type="secondary">{formatDateTime(entry.at)}</Typography.Text>
                <Tag>{ACTIONS.has(entry.action) ? t(`history.action.${entry.action}` as MessageKey) : entry.action}</Tag>
                <Tag
                  color={
                    entry.source === 'ai'
                      ? 'purple'
                      : entry.source === 'restore' || entry.source === 'undo'
                        ? 'gold'
                        : entry.source === 'bulk' || entry.source === 'import'
                          ? 'blue'
                          : 'default'
                  }
                >
                  {SOURCES.has(entry.source) ? t(`history.source.${entry.source}` as MessageKey) : entry.source}
                </Tag>
                {mayRestore && entry.action === 'update' && entry.changes.length > 0 ? (
                  <Popconfirm title={t('history.restoreConfirm')} okText={t('history.restore')} cancelText={t('form.cancel')} onConfirm={() => run(entry)}>
                    <Button size="small" icon={<RollbackOutlined />} loading={restore.isPending && restore.variables === entry.id} className="fw-history-restore">
                      {t('history.restore')}
                    </Button>
                  </Popconfirm>
                ) : null}
              </div>
              <EntryChanges build={build} entry={entry} />
            </div>
          ),
        }))}
      />
      {total > PAGE_SIZE ? <Pagination size="small" simple current={page} pageSize={PAGE_SIZE} total={total} onChange={setPage} /> : null}
    </div>
  );
}
