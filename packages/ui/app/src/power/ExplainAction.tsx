// The Users page's "Why these permissions?" row action (issue 20 §1): administrators only, on
// the user model; it opens the explainer for that user.
import type { ReactNode } from 'react';
import { Button, Tooltip } from 'antd';
import { SafetyCertificateOutlined } from '@ant-design/icons';
import { useI18n } from '../i18n';
import { navigate } from '../router';
import { useUserInfo } from '../queries';

/** A row action maker for `fw`: a button for FwUser rows when the signed-in person is an administrator, else nothing. */
export function useExplainAction(fw: string): (id: number) => ReactNode[] {
  const { t } = useI18n();
  const admin = useUserInfo().data?.isAdmin === true;
  if (fw !== 'FwUser' || !admin) return () => [];
  return (id) => [
    <Tooltip key="explain" title={t('perm.explainUser')}>
      <Button
        size="small"
        type="text"
        icon={<SafetyCertificateOutlined />}
        aria-label={t('perm.explainUser')}
        className="fw-row-explain"
        onClick={() => navigate(`/permissions?user=${id}`)}
      />
    </Tooltip>,
  ];
}
