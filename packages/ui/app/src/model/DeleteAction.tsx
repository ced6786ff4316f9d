// A row's delete button: a confirm, and a tooltip that is never shown while the confirm is open
// (it covered the confirm's Cancel button).
import { useState } from 'react';
import { Button, Popconfirm, Tooltip } from 'antd';
import { DeleteOutlined } from '@ant-design/icons';
import { useI18n } from '../i18n';

/** The delete button of one row; `onConfirm` runs once the person confirms. */
export function DeleteAction({ onConfirm }: { onConfirm: () => unknown }) {
  const { t } = useI18n();
  const [confirming, setConfirming] = useState(false);
  return (
    <Popconfirm title={t('model.confirmDelete')} onConfirm={onConfirm} onOpenChange={setConfirming} okButtonProps={{ danger: true, className: 'fw-confirm-delete' }}>
      <Tooltip title={t('model.delete')} {...(confirming ? { open: false } : {})}>
        <Button size="small" type="text" danger icon={<DeleteOutlined />} aria-label={t('model.delete')} className="fw-row-delete" />
      </Tooltip>
    </Popconfirm>
  );
}
