// A role's menus in its Details (issue 20 §1): one line per menu row that holds anything,
// "Books: Query, Add", instead of a row of identical "Add" chips. Read from the same matrix as
// the editor; the plain labels when the matrix is not offered to this person.
import type { ReactNode } from 'react';
import { Spin } from 'antd';
import { useI18n } from '../i18n';
import type { MessageKey } from '../i18n/en';
import { cellOf } from './matrix';
import { useGrantable } from '../client/power';

const COLUMN_KEYS: Record<string, MessageKey> = {
  query: 'perm.col.query',
  ADD: 'perm.col.add',
  EDIT: 'perm.col.edit',
  DELETE: 'perm.col.delete',
  EXPORT: 'perm.col.export',
  IMPORTABLE: 'perm.col.importable',
  VIEW_DETAIL: 'perm.col.viewDetails',
};

/** The column heading of a matrix column. */
export function columnLabel(t: ReturnType<typeof useI18n>['t'], key: string, name?: string): string {
  return COLUMN_KEYS[key] ? t(COLUMN_KEYS[key]) : (name ?? key);
}

/** The granted menus of a role, grouped by menu row. */
export function PermissionSummary({ value, fallback }: { value: unknown; fallback: ReactNode }) {
  const { t } = useI18n();
  const grantable = useGrantable();
  if (grantable.isPending) return <Spin size="small" />;
  if (grantable.isError) return <>{fallback}</>;
  const held = new Set(Array.isArray(value) ? value.map(Number) : []);
  const lines = grantable.data.rows.flatMap((row) => {
    const on = grantable.data.columns.filter((c) => {
      const menu = cellOf(row, c.key);
      return menu !== undefined && held.has(menu.id);
    });
    return on.length > 0 ? [{ id: row.menu.id, name: row.menu.name, columns: on.map((c) => columnLabel(t, c.key, c.name)) }] : [];
  });
  if (lines.length === 0) return <span>—</span>;
  return (
    <ul className="fw-permission-summary">
      {lines.map((l) => (
        <li key={l.id}>
          <strong>{l.name}</strong>: {l.columns.join(', ')}
        </li>
      ))}
    </ul>
  );
}
