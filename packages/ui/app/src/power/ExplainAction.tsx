// The Users page's "Why these permissions?" row action (issue 20 §1): administrators only, on
// the user model; it opens the explainer for that user.
import { SafetyCertificateOutlined } from '@ant-design/icons';
import { useI18n } from '../i18n';
import { navigate } from '../router';
import { useUserInfo } from '../client/queries';
import type { RowAction } from '../model/columns/rowActions';

/** A row action maker for `fw`: one action for FwUser rows when the signed-in person is an administrator, else nothing. */
export function useExplainAction(fw: string): (id: number) => RowAction[] {
  const { t } = useI18n();
  const admin = useUserInfo().data?.isAdmin === true;
  if (fw !== 'FwUser' || !admin) return () => [];
  return (id) => [
    { key: 'explain', label: t('perm.explainUser'), icon: <SafetyCertificateOutlined />, className: 'fw-row-explain', onClick: () => navigate(`/permissions?user=${id}`) },
  ];
}
