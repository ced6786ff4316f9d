// "My sessions": where the person is signed in, with a way to end one or all the others.
import { App, Button, Card, Popconfirm, Space, Typography } from 'antd';
import { useI18n } from '../i18n';
import { useEndOtherSessions, useSessions } from '../client/sessions';
import { SessionList } from './SessionList';

/** The signed-in person's own sessions. */
export function MySessions() {
  const { t } = useI18n();
  const { message } = App.useApp();
  const sessions = useSessions();
  const endOthers = useEndOtherSessions();
  const others = (sessions.data ?? []).filter((s) => !s.current).length;
  return (
    <div className="fw-sessions-page">
      <Space className="fw-page-head" wrap>
        <Typography.Title level={1} className="fw-page-title">
          {t('sessions.title')}
        </Typography.Title>
        <Popconfirm
          title={t('sessions.endOthersConfirm')}
          okText={t('sessions.endOthers')}
          cancelText={t('form.cancel')}
          disabled={others === 0}
          onConfirm={() =>
            endOthers.mutate(undefined, {
              onSuccess: (r) => void message.success(t('sessions.endedCount', { count: r.ended })),
              onError: (e) => void message.error(e.message),
            })
          }
        >
          <Button danger disabled={others === 0} loading={endOthers.isPending}>
            {t('sessions.endOthers')}
          </Button>
        </Popconfirm>
      </Space>
      <Typography.Paragraph type="secondary">{t('sessions.hint')}</Typography.Paragraph>
      <Card size="small">
        <SessionList />
      </Card>
    </div>
  );
}
