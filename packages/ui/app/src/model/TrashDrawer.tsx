// The trash of a model (issue 23 §3): the rows deleted from it, newest first, each with who deleted
// it and when; selected rows go back with their ids (all or none), and an administrator may empty
// rows for good. Rows leave the trash on their own after the server's retention time.
import { useState } from 'react';
import { App, Button, Drawer, Popconfirm, Space, Table, Typography } from 'antd';
import { DeleteOutlined, UndoOutlined } from '@ant-design/icons';
import { useQueryClient } from '@tanstack/react-query';
import { ApiError } from '../client/api';
import type { TrashEntry } from '../client/answers';
import { usePurgeTrash, useUndelete } from '../client/mutations';
import { invalidateModel, useTrash, useUserInfo } from '../client/queries';
import { useI18n } from '../i18n';
import type { BuildView } from '../types';
import { formatDateTime, renderValue } from './cells';
import { columnFields, columnTitle } from './fields';
import { useUndoOffer } from './UndoProvider';

const PAGE_SIZE = 20;

export function TrashDrawer({ build, onClose }: { build: BuildView; onClose: () => void }) {
  const { t } = useI18n();
  const { message } = App.useApp();
  const queryClient = useQueryClient();
  const fw = build.model.name;
  const [page, setPage] = useState(1);
  const [selected, setSelected] = useState<number[]>([]);
  const trash = useTrash(fw, page, PAGE_SIZE);
  const undelete = useUndelete(fw);
  const purge = usePurgeTrash(fw);
  const offer = useUndoOffer(fw);
  const admin = useUserInfo().data?.isAdmin === true;
  const mayRestore = build.power.add && build.power.delete;
  // The first few columns the table shows, so a person recognises the rows.
  const shown = columnFields(build.model)
    .filter((f) => f.type !== 'PASSWORD' && f.type !== 'COLLECTION' && f.type !== 'ATTACHMENT')
    .slice(0, 3);

  const fail = (error: unknown) => {
    if (!(error instanceof ApiError && error.status === 401)) message.error(error instanceof Error ? error.message : String(error));
  };
  const restore = async () => {
    try {
      const answer = await undelete.mutateAsync(selected);
      offer(t('trash.restored', { count: answer.restored }), answer.batch);
      setSelected([]);
      await invalidateModel(queryClient, fw);
    } catch (error) {
      fail(error);
    }
  };
  const empty = async () => {
    try {
      const answer = await purge.mutateAsync(selected.length > 0 ? selected : undefined);
      message.success(t('trash.purged', { count: answer.purged }));
      setSelected([]);
      await invalidateModel(queryClient, fw);
    } catch (error) {
      fail(error);
    }
  };

  return (
    <Drawer open title={t('trash.title')} onClose={onClose} size={Math.min(760, window.innerWidth)} destroyOnHidden className="fw-trash">
      <Space wrap style={{ marginBottom: 12 }}>
        {mayRestore && (
          <Button type="primary" icon={<UndoOutlined />} disabled={selected.length === 0} loading={undelete.isPending} onClick={restore} className="fw-trash-restore">
            {t('trash.restore', { count: selected.length })}
          </Button>
        )}
        {admin && (
          <Popconfirm
            title={selected.length > 0 ? t('trash.purgeSelectedConfirm', { count: selected.length }) : t('trash.purgeAllConfirm')}
            onConfirm={empty}
            okButtonProps={{ danger: true }}
          >
            <Button danger icon={<DeleteOutlined />} loading={purge.isPending} className="fw-trash-purge">
              {selected.length > 0 ? t('trash.purgeSelected', { count: selected.length }) : t('trash.purgeAll')}
            </Button>
          </Popconfirm>
        )}
      </Space>
      <Typography.Paragraph type="secondary">{t('trash.hint')}</Typography.Paragraph>
      <Table<TrashEntry>
        size="small"
        rowKey="id"
        loading={trash.isPending}
        dataSource={trash.data?.rows ?? []}
        scroll={{ x: 'max-content' }}
        locale={{ emptyText: trash.isError ? trash.error.message : t('trash.empty') }}
        rowSelection={mayRestore || admin ? { selectedRowKeys: selected, onChange: (keys) => setSelected(keys.map(Number)) } : undefined}
        pagination={{ current: page, pageSize: PAGE_SIZE, total: trash.data?.total ?? 0, onChange: setPage, showSizeChanger: false, size: 'small' }}
        columns={[
          { key: 'id', title: 'ID', dataIndex: 'id', width: 80 },
          ...shown.map((f) => ({ key: f.name, title: columnTitle(f), render: (_: unknown, e: TrashEntry) => renderValue(f, e.row[f.name], undefined, t) })),
          { key: 'deletedAt', title: t('trash.deletedAt'), render: (_: unknown, e: TrashEntry) => formatDateTime(e.deletedAt) },
          { key: 'deletedBy', title: t('trash.deletedBy'), render: (_: unknown, e: TrashEntry) => e.deletedBy.account ?? t('history.unknownUser') },
        ]}
      />
    </Drawer>
  );
}
