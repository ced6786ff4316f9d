// The role form's menus as a permission matrix (issue 20 §1): the menu tree as rows (folders →
// models, indented), one column per function (query, add, edit, delete, export, import, view
// details, then any other function menu a model has), an "all" box per row (a folder's covers
// everything below it, tri-state) and per column, and a search. Only what the server says the
// editor may grant (GET /power/grantable) is enabled; a refusal on save marks the cell it names.
import { useEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import { Alert, Checkbox, Form, Input, Spin, Tooltip, Typography } from 'antd';
import { FolderOutlined } from '@ant-design/icons';
import { NoFormStyle } from 'antd/es/form/context';
import { useI18n } from '../i18n';
import { canToggle, cellOf, hasChildren, refusedCodes, rowMenus, subtree, toggle, triState, visibleRows } from './matrix';
import { columnLabel } from './PermissionSummary';
import { useGrantable, type GrantableMatrix, type GrantableMenu } from '../client/power';
import './permission-matrix.css';

function toIds(value: unknown): number[] {
  return Array.isArray(value) ? value.map(Number).filter((n) => Number.isInteger(n) && n > 0) : [];
}

/** Props the form item gives (value, onChange, id). */
export interface PermissionMatrixProps {
  value?: unknown;
  onChange?: (value: number[]) => void;
  id?: string;
  disabled?: boolean;
  /** What to show when the matrix cannot be loaded (the plain picker). */
  fallback: ReactNode;
}

/** The matrix input. Falls back to `fallback` when the server offers no matrix to this person. */
export function PermissionMatrix(props: PermissionMatrixProps) {
  const grantable = useGrantable();
  if (grantable.isPending) return <Spin />;
  if (grantable.isError) return <>{props.fallback}</>;
  return <Matrix {...props} matrix={grantable.data} />;
}

function Matrix({ value, onChange, id, disabled, matrix }: PermissionMatrixProps & { matrix: GrantableMatrix }) {
  const { t } = useI18n();
  const [term, setTerm] = useState('');
  const { errors } = Form.Item.useStatus();
  const selected = useMemo(() => new Set(toIds(value)), [value]);
  const shown = useMemo(() => visibleRows(matrix, term), [matrix, term]);
  const refused = useMemo(() => refusedCodes(errors.map(String), matrix), [errors, matrix]);
  const rows = matrix.rows;
  const scroller = useRef<HTMLDivElement>(null);
  // A refused cell may sit off to the side on a narrow screen: bring the first one into view.
  // Keyed by the codes, not the set: the form hands over a new errors array on every render.
  const refusedKey = [...refused].sort().join(',');
  useEffect(() => {
    if (refusedKey !== '') scroller.current?.querySelector('.fw-pm-refused-cell')?.scrollIntoView({ block: 'nearest', inline: 'center' });
  }, [refusedKey]);
  const columnName = (key: string, name?: string) => columnLabel(t, key, name);
  const set = (next: number[]) => onChange?.(next);

  const columnMenus = (key: string) => shown.flatMap((i) => cellOf(rows[i]!, key) ?? []);

  const box = (menus: GrantableMenu[], label: string, className: string) => {
    const state = triState(menus, selected);
    return <Checkbox {...state} className={className} aria-label={label} disabled={disabled || !canToggle(menus, selected)} onChange={() => set(toggle(menus, selected))} />;
  };

  const cell = (menu: GrantableMenu | undefined, label: string) => {
    if (!menu) return <span className="fw-pm-none" aria-hidden="true" />;
    const on = selected.has(menu.id);
    const locked = disabled || !(on ? menu.revocable : menu.grantable);
    const isRefused = menu.code !== null && refused.has(menu.code);
    const why = isRefused ? t('perm.refused') : !menu.grantable ? t('perm.notHeld', { code: menu.code ?? menu.name }) : undefined;
    const input = (
      <Checkbox
        checked={on}
        disabled={locked}
        aria-label={label}
        aria-invalid={isRefused || undefined}
        className={`fw-pm-cell${isRefused ? ' fw-pm-refused' : ''}`}
        data-code={menu.code ?? undefined}
        onChange={(e) => set(e.target.checked ? [...selected, menu.id].sort((a, b) => a - b) : [...selected].filter((x) => x !== menu.id))}
      />
    );
    return why ? (
      <Tooltip title={why}>
        <span className="fw-pm-tip">{input}</span>
      </Tooltip>
    ) : (
      input
    );
  };

  return (
    <div className="fw-permission-matrix" id={id}>
      {/* The field's error status belongs to the grid, not to its search box. */}
      <NoFormStyle status override>
        <Input.Search allowClear className="fw-pm-search" placeholder={t('perm.search')} aria-label={t('perm.search')} value={term} onChange={(e) => setTerm(e.target.value)} />
      </NoFormStyle>
      {refused.size > 0 && <Alert type="error" showIcon className="fw-pm-refusal" title={t('perm.refusedList', { codes: [...refused].join(', ') })} />}
      <div className="fw-pm-scroll" ref={scroller}>
        <table className="fw-pm-table">
          <caption className="fw-sr-only">{t('perm.caption')}</caption>
          <thead>
            <tr>
              <th scope="col" className="fw-pm-name">
                {t('perm.menu')}
              </th>
              <th scope="col">{t('perm.all')}</th>
              {matrix.columns.map((c) => {
                const label = columnName(c.key, c.name);
                return (
                  <th scope="col" key={c.key} className={`fw-pm-col-${c.key}`}>
                    <div className="fw-pm-head">
                      <span>{label}</span>
                      {box(columnMenus(c.key), t('perm.allColumn', { column: label }), 'fw-pm-colall')}
                    </div>
                  </th>
                );
              })}
            </tr>
          </thead>
          <tbody>
            {shown.map((i) => {
              const row = rows[i]!;
              const folder = hasChildren(rows, i);
              const under = folder ? subtree(rows, i).flatMap(rowMenus) : rowMenus(row);
              return (
                <tr key={row.menu.id} className={`fw-pm-row${folder ? ' fw-pm-folder' : ''}`} data-menu={row.menu.code ?? row.menu.id}>
                  <th scope="row" className="fw-pm-name" style={{ paddingInlineStart: 8 + row.depth * 16 }}>
                    {folder && <FolderOutlined aria-hidden="true" />} <Typography.Text>{row.menu.name}</Typography.Text>
                  </th>
                  <td>{box(under, t(folder ? 'perm.allFolder' : 'perm.allRow', { row: row.menu.name }), 'fw-pm-rowall')}</td>
                  {matrix.columns.map((c) => {
                    const menu = cellOf(row, c.key);
                    const isRefused = menu?.code != null && refused.has(menu.code);
                    return (
                      <td key={c.key} className={isRefused ? 'fw-pm-refused-cell' : undefined}>
                        {cell(menu, `${row.menu.name}: ${columnName(c.key, c.name).toLocaleLowerCase()}`)}
                      </td>
                    );
                  })}
                </tr>
              );
            })}
          </tbody>
        </table>
        {shown.length === 0 && <Typography.Paragraph className="fw-pm-nomatch">{t('perm.noMatch')}</Typography.Paragraph>}
      </div>
    </div>
  );
}
