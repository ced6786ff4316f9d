// The home page's two lists (issue 20 §6): the person's recent edits, each linking to its row,
// and the recent sign-ins to their account, failed ones marked, linking to their sessions (and,
// for a failure, to the password change).
import type { ReactNode } from 'react';
import { Card, Empty, List, Skeleton, Tag, Typography } from 'antd';
import { CheckCircleOutlined, CloseCircleOutlined } from '@ant-design/icons';
import { useActivity, type EditEntry, type SignInEntry } from '../client/activity';
import { useI18n } from '../i18n';
import type { MessageKey } from '../i18n/en';
import { Link } from '../router';
import type { MenuEntry } from '../types';
import { rowPath } from '../model/rowLink';
import { describeAgent, when } from './SessionList';

const ACTIONS = new Set(['add', 'update', 'delete', 'copy', 'import']);
const REASONS = new Set(['bad-credentials', 'captcha', 'throttled', 'locked', 'expired', 'ip-not-allowed', 'not-stored', 'refused-by-hook', 'hook-error', 'rate-limited']);

function EditItem({ edit, menus }: { edit: EditEntry; menus: MenuEntry[] }) {
  const { t } = useI18n();
  const menu = menus.find((m) => m.value === edit.model);
  const model = menu?.name ?? edit.model;
  const action = ACTIONS.has(edit.action) ? t(`home.action.${edit.action}` as MessageKey) : edit.action;
  // One row, still there to look at: its details; several rows, or a deleted one: the table.
  const single = edit.targetId !== null && /^[1-9][0-9]{0,15}$/.test(edit.targetId) && edit.action !== 'delete';
  const what = single ? t('home.row', { model, id: edit.targetId! }) : model;
  const target = menu ? (single ? rowPath(edit.model, Number(edit.targetId)) : `/model/${encodeURIComponent(edit.model)}`) : undefined;
  return (
    <List.Item className="fw-home-edit" data-model={edit.model} data-action={edit.action}>
      <List.Item.Meta
        title={
          <span>
            {action} {target ? <Link to={target}>{what}</Link> : what}
          </span>
        }
        description={when(edit.time)}
      />
    </List.Item>
  );
}

function SignInItem({ signIn }: { signIn: SignInEntry }) {
  const { t } = useI18n();
  const device = describeAgent(signIn.userAgent).label;
  const reason = signIn.reason && REASONS.has(signIn.reason) ? t(`home.reason.${signIn.reason}` as MessageKey) : signIn.reason;
  return (
    <List.Item className={`fw-home-signin ${signIn.success ? 'fw-home-signin-ok' : 'fw-home-signin-failed'}`}>
      <List.Item.Meta
        avatar={signIn.success ? <CheckCircleOutlined className="fw-home-ok" aria-hidden /> : <CloseCircleOutlined className="fw-home-failed" aria-hidden />}
        title={
          <span>
            {signIn.success ? (
              <Link to="/sessions">{t('home.signedIn')}</Link>
            ) : (
              <>
                <Tag color="error">{t('home.signInFailed')}</Tag>
                {reason}
              </>
            )}
          </span>
        }
        description={
          <span>
            {[when(signIn.time), signIn.ip, device].filter(Boolean).join(' · ')}
            {!signIn.success && (
              <>
                {' · '}
                <Link to="/password">{t('home.notYou')}</Link>
              </>
            )}
          </span>
        }
      />
    </List.Item>
  );
}

/** The recent edits and sign-ins, side by side on a wide screen, one above the other on a phone. */
export function HomeActivity({ menus }: { menus: MenuEntry[] }) {
  const { t } = useI18n();
  const activity = useActivity();
  const body = <T,>(items: T[] | undefined, empty: string, render: (item: T) => ReactNode) =>
    activity.isPending ? (
      <Skeleton active />
    ) : activity.isError ? (
      <Typography.Text type="danger">{activity.error.message}</Typography.Text>
    ) : items && items.length > 0 ? (
      <List size="small" dataSource={items} renderItem={render} />
    ) : (
      <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={empty} />
    );
  return (
    <div className="fw-home-activity">
      <Card title={t('home.edits')} size="small" className="fw-home-edits">
        {body(activity.data?.edits, t('home.noEdits'), (edit) => (
          <EditItem key={edit.id} edit={edit} menus={menus} />
        ))}
      </Card>
      <Card title={t('home.signIns')} size="small" className="fw-home-signins" extra={<Link to="/sessions">{t('home.allSessions')}</Link>}>
        {body(activity.data?.signIns, t('home.noSignIns'), (signIn) => (
          <SignInItem key={signIn.id} signIn={signIn} />
        ))}
      </Card>
    </div>
  );
}
