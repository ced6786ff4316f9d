// The sessions of one user as a list that reads at 390 px as well as at 1366: device, address,
// times, and an "End" button per session (never on the current one: that is "Sign out").
import { App, Button, Empty, List, Popconfirm, Skeleton, Space, Tag, Typography } from 'antd';
import { DesktopOutlined, MobileOutlined } from '@ant-design/icons';
import dayjs from 'dayjs';
import { useI18n } from '../i18n';
import { useEndSession, useSessions, type SessionEntry } from '../client/sessions';

/** "Chrome on Windows" from a user agent, or the first characters of it. */
export function describeAgent(agent: string | null): { label: string; mobile: boolean } {
  if (!agent) return { label: '', mobile: false };
  const browser = /Edg\//.test(agent) ? 'Edge' : /Firefox\//.test(agent) ? 'Firefox' : /Chrome\/|Chromium\//.test(agent) ? 'Chrome' : /Safari\//.test(agent) ? 'Safari' : undefined;
  const os = /Windows/.test(agent)
    ? 'Windows'
    : /Android/.test(agent)
      ? 'Android'
      : /iPhone|iPad|iOS/.test(agent)
        ? 'iOS'
        : /Mac OS X|Macintosh/.test(agent)
          ? 'macOS'
          : /Linux/.test(agent)
            ? 'Linux'
            : undefined;
  const mobile = /Mobile|Android|iPhone/.test(agent);
  if (browser && os) return { label: `${browser} · ${os}`, mobile };
  return { label: agent.length > 60 ? `${agent.slice(0, 60)}…` : agent, mobile };
}

/** A date as the lists show it. */
export function when(iso: string): string {
  return dayjs(iso).format('YYYY-MM-DD HH:mm');
}

function SessionItem({ session, onEnd, ending }: { session: SessionEntry; onEnd: (id: string) => void; ending: boolean }) {
  const { t } = useI18n();
  const agent = describeAgent(session.userAgent);
  return (
    <List.Item
      className="fw-session"
      data-session={session.id}
      actions={
        session.current
          ? []
          : [
              <Popconfirm key="end" title={t('sessions.endConfirm')} okText={t('sessions.end')} cancelText={t('form.cancel')} onConfirm={() => onEnd(session.id)}>
                <Button danger size="small" loading={ending}>
                  {t('sessions.end')}
                </Button>
              </Popconfirm>,
            ]
      }
    >
      <List.Item.Meta
        avatar={agent.mobile ? <MobileOutlined className="fw-session-icon" /> : <DesktopOutlined className="fw-session-icon" />}
        title={
          <Space size={8} wrap>
            <span title={session.userAgent ?? undefined}>{agent.label || t('sessions.unknownDevice')}</span>
            {session.current && <Tag color="green">{t('sessions.current')}</Tag>}
          </Space>
        }
        description={
          <div className="fw-session-facts">
            <span>
              {t('sessions.ip')}: {session.ip ?? '—'}
            </span>
            <span>
              {t('sessions.signedIn')}: {when(session.createdAt)}
            </span>
            <span>
              {t('sessions.lastSeen')}: {when(session.lastSeenAt)}
            </span>
            <span>
              {t('sessions.expires')}: {when(session.expiresAt)}
            </span>
          </div>
        }
      />
    </List.Item>
  );
}

/** The live sessions of the caller, or of `userId` for an administrator. */
export function SessionList({ userId }: { userId?: number }) {
  const { t } = useI18n();
  const { message } = App.useApp();
  const sessions = useSessions(userId);
  const end = useEndSession(userId);
  if (sessions.isPending) return <Skeleton active />;
  if (sessions.isError) return <Typography.Text type="danger">{sessions.error.message}</Typography.Text>;
  if (sessions.data.length === 0) return <Empty description={t('sessions.none')} />;
  const onEnd = (id: string) =>
    end.mutate(id, {
      onSuccess: () => void message.success(t('sessions.ended')),
      onError: (e) => void message.error(e.message),
    });
  return (
    <List
      className="fw-session-list"
      itemLayout="horizontal"
      dataSource={sessions.data}
      rowKey="id"
      renderItem={(session) => <SessionItem session={session} onEnd={onEnd} ending={end.isPending && end.variables === session.id} />}
    />
  );
}
