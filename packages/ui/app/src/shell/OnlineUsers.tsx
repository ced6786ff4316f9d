// "Online users" (administrators): everyone holding a live session, with their sessions in a
// drawer and a way to end them.
import { useState } from 'react';
import { App, Button, Drawer, Popconfirm, Space, Table, Typography, type TableColumnsType } from 'antd';
import { useReturnFocus } from '../focus';
import { useI18n } from '../i18n';
import { useEndOtherSessions, useOnlineUsers, type OnlineUserEntry } from '../client/sessions';
import { SessionList, when } from './SessionList';

const PAGE_SIZE = 20;

/** The users online, for an administrator. */
export function OnlineUsers({ selfId }: { selfId: number }) {
  const { t } = useI18n();
  const { message } = App.useApp();
  const [page, setPage] = useState(1);
  const [open, setOpen] = useState<OnlineUserEntry>();
  useReturnFocus(open !== undefined);
  const online = useOnlineUsers(page, PAGE_SIZE);
  const endAll = useEndOtherSessions();
  const label = (u: OnlineUserEntry) => u.name || u.account || `#${u.userId}`;
  const columns: TableColumnsType<OnlineUserEntry> = [
    { key: 'account', title: t('online.account'), dataIndex: 'account', render: (v: string | null, u) => v ?? `#${u.userId}` },
    { key: 'name', title: t('online.name'), dataIndex: 'name', responsive: ['md'] },
    { key: 'sessions', title: t('online.sessions'), dataIndex: 'sessions', align: 'right', width: 90 },
    { key: 'lastSeen', title: t('sessions.lastSeen'), dataIndex: 'lastSeenAt', render: (v: string) => when(v), responsive: ['sm'] },
    {
      key: 'actions',
      title: t('online.actions'),
      render: (_, u) => (
        <Space size={4} wrap>
          <Button size="small" onClick={() => setOpen(u)}>
            {t('online.view')}
          </Button>
          <Popconfirm
            title={t(u.userId === selfId ? 'sessions.endOthersConfirm' : 'online.endAllConfirm', { name: label(u) })}
            okText={t('online.endAll')}
            cancelText={t('form.cancel')}
            onConfirm={() =>
              endAll.mutate(u.userId, {
                onSuccess: (r) => void message.success(t('sessions.endedCount', { count: r.ended })),
                onError: (e) => void message.error(e.message),
              })
            }
          >
            <Button size="small" danger>
              {t('online.endAll')}
            </Button>
          </Popconfirm>
        </Space>
      ),
    },
  ];
  return (
    <div className="fw-online-page">
      <Typography.Title level={1} className="fw-page-title">
        {t('online.title')}
      </Typography.Title>
      {online.isError ? (
        <Typography.Text type="danger">{online.error.message}</Typography.Text>
      ) : (
        <Table<OnlineUserEntry>
          rowKey="userId"
          size="small"
          columns={columns}
          dataSource={online.data?.rows ?? []}
          loading={online.isFetching}
          pagination={{
            current: page,
            pageSize: PAGE_SIZE,
            total: online.data?.total ?? 0,
            onChange: setPage,
            showSizeChanger: false,
            showTotal: (total) => t('online.total', { total }),
          }}
        />
      )}
      <Drawer open={open !== undefined} onClose={() => setOpen(undefined)} title={open ? t('online.sessionsOf', { name: label(open) }) : ''} size="large" destroyOnHidden>
        {open && <SessionList userId={open.userId === selfId ? undefined : open.userId} />}
      </Drawer>
    </div>
  );
}
