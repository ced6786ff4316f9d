// A row's actions (details, edit, copy, print, delete) as data, drawn two ways (issue 20 §4/§5):
// a row of icon buttons where there is room, one "…" menu on phones (≤ 768 px).
import { useState, useSyncExternalStore, type ReactNode } from 'react';
import { App, Button, Dropdown, Popconfirm, Space, Tooltip } from 'antd';
import { EllipsisOutlined } from '@ant-design/icons';
import { useI18n } from '../../i18n';

/** One action of a row. */
export interface RowAction {
  key: string;
  label: string;
  icon: ReactNode;
  /** The button's class (tests and styles find actions by it). */
  className: string;
  danger?: boolean;
  /** Opens this address in a new tab instead of calling `onClick`. */
  href?: string;
  onClick?: () => void;
  /** Asks first: the question, and what a yes does. */
  confirm?: { title: string; onConfirm: () => void | Promise<void> };
}

/** Widths below this (phones) collapse row actions into one menu. */
export const NARROW_QUERY = '(max-width: 768px)';

function subscribe(listener: () => void): () => void {
  const media = window.matchMedia(NARROW_QUERY);
  media.addEventListener('change', listener);
  return () => media.removeEventListener('change', listener);
}

/** True on phone-sized screens (≤ 768 px), updated as the window is resized or turned. */
export function useNarrow(): boolean {
  return useSyncExternalStore(subscribe, () => window.matchMedia(NARROW_QUERY).matches);
}

/** The Actions column's width: what its buttons take (24 px each), plus the cell's padding. */
export function actionsWidth(count: number, narrow: boolean): number {
  return (narrow ? 1 : Math.max(count, 1)) * 24 + 8 * 2 + 8;
}

/** One icon button with its tooltip; an action that asks first wraps it in its confirmation. */
function InlineAction({ action: a }: { action: RowAction }) {
  // The tooltip stays shut while the confirmation is open: it would sit over its buttons.
  const [asking, setAsking] = useState(false);
  const button = (
    <Button
      size="small"
      type="text"
      danger={a.danger}
      icon={a.icon}
      aria-label={a.label}
      className={a.className}
      {...(a.href ? { href: a.href, target: '_blank', rel: 'noopener noreferrer' } : { onClick: a.confirm ? undefined : a.onClick })}
    />
  );
  if (!a.confirm) return <Tooltip title={a.label}>{button}</Tooltip>;
  return (
    <Popconfirm title={a.confirm.title} onConfirm={a.confirm.onConfirm} onOpenChange={setAsking} okButtonProps={{ danger: true, className: 'fw-confirm-delete' }}>
      <Tooltip title={a.label} {...(asking ? { open: false } : {})}>
        {button}
      </Tooltip>
    </Popconfirm>
  );
}

/** The actions as a row of icon buttons, each with its tooltip. */
export function InlineRowActions({ actions }: { actions: RowAction[] }) {
  return (
    <Space size={0}>
      {actions.map((a) => (
        <InlineAction key={a.key} action={a} />
      ))}
    </Space>
  );
}

/** The actions behind one "…" button: a menu with each action's icon and name. */
export function RowActionsMenu({ actions }: { actions: RowAction[] }) {
  const { t } = useI18n();
  const { modal } = App.useApp();
  // Not antd's `danger` item: its red text is below the contrast WCAG asks for; the icon is red instead.
  const items = actions.map((a) => ({
    key: a.key,
    icon: a.icon,
    className: a.danger ? `${a.className} fw-row-danger` : a.className,
    label: a.href ? (
      <a href={a.href} target="_blank" rel="noopener noreferrer">
        {a.label}
      </a>
    ) : (
      a.label
    ),
  }));
  const onClick = ({ key }: { key: string }) => {
    const action = actions.find((a) => a.key === key);
    if (!action || action.href) return;
    if (action.confirm) {
      const { title, onConfirm } = action.confirm;
      modal.confirm({ title, okButtonProps: { danger: true, className: 'fw-confirm-delete' }, onOk: onConfirm });
    } else action.onClick?.();
  };
  return (
    <Dropdown trigger={['click']} menu={{ items, onClick }} placement="bottomRight">
      <Button size="small" type="text" icon={<EllipsisOutlined />} aria-label={t('table.moreActions')} className="fw-row-more" />
    </Dropdown>
  );
}
