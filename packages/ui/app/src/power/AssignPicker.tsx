// The user form's roles and organisations (issue 20 §1): a checkbox list with a search, the
// organisations indented as their tree, instead of a picker of bare ids. Like the permission
// matrix, it enables only what the server says the editor may give (GET /power/assignable) and
// says why not on the rest; a box already ticked can always be cleared.
import { useMemo, useState, type ReactNode } from 'react';
import { Checkbox, Input, Spin, Tooltip, Typography } from 'antd';
import { NoFormStyle } from 'antd/es/form/context';
import { useI18n } from '../i18n';
import { useAssignable, type AssignableEntry } from '../client/power';
import './permission-matrix.css';

/** Props the form item gives, plus which list and the plain picker to fall back on. */
export interface AssignPickerProps {
  /** The referencing model and field, checked against the server's `user` description. */
  model: string;
  field: string;
  value?: unknown;
  onChange?: (value: number[]) => void;
  id?: string;
  disabled?: boolean;
  fallback: ReactNode;
}

function toIds(value: unknown): number[] {
  return Array.isArray(value) ? value.map(Number).filter((n) => Number.isInteger(n) && n > 0) : [];
}

/** Entries a search shows: those whose name or code contains the text, with the organisations above them. */
function visible(entries: readonly AssignableEntry[], term: string): AssignableEntry[] {
  const needle = term.trim().toLowerCase();
  if (needle === '') return [...entries];
  const byId = new Map(entries.map((e) => [e.id, e]));
  const shown = new Set<number>();
  for (const e of entries) {
    if (!`${e.name} ${e.code ?? ''}`.toLowerCase().includes(needle)) continue;
    for (let at: AssignableEntry | undefined = e; at && !shown.has(at.id); at = at.parentId != null ? byId.get(at.parentId) : undefined) shown.add(at.id);
  }
  return entries.filter((e) => shown.has(e.id));
}

/** The picker; the plain one when the server offers no lists to this person or for this field. */
export function AssignPicker(props: AssignPickerProps) {
  const lists = useAssignable();
  if (lists.isPending) return <Spin />;
  const which = lists.data?.user.model === props.model ? (lists.data.user.roles === props.field ? 'roles' : lists.data.user.orgs === props.field ? 'orgs' : undefined) : undefined;
  if (!lists.data || !which) return <>{props.fallback}</>;
  return <Checklist {...props} entries={lists.data[which]} />;
}

function Checklist({ value, onChange, id, disabled, entries, field }: AssignPickerProps & { entries: AssignableEntry[] }) {
  const { t } = useI18n();
  const [term, setTerm] = useState('');
  const selected = useMemo(() => new Set(toIds(value)), [value]);
  const shown = useMemo(() => visible(entries, term), [entries, term]);
  const toggle = (entry: AssignableEntry, on: boolean) => onChange?.(on ? [...selected, entry.id].sort((a, b) => a - b) : [...selected].filter((x) => x !== entry.id));
  return (
    <div className={`fw-assign-picker fw-assign-${field}`} id={id}>
      {/* The field's error status belongs to the grid, not to its search box. */}
      <NoFormStyle status override>
        <Input.Search
          allowClear
          className="fw-assign-search"
          placeholder={t('perm.searchList')}
          aria-label={t('perm.searchList')}
          value={term}
          onChange={(e) => setTerm(e.target.value)}
        />
      </NoFormStyle>
      {shown.length > 0 && (
        <ul className="fw-assign-list">
          {shown.map((e) => {
            const on = selected.has(e.id);
            const box = (
              <Checkbox checked={on} disabled={disabled || (!on && !e.grantable)} onChange={(ev) => toggle(e, ev.target.checked)}>
                {e.name}
                {e.code ? <span className="fw-assign-code"> · {e.code}</span> : null}
              </Checkbox>
            );
            return (
              <li key={e.id} style={{ paddingInlineStart: (e.depth ?? 0) * 20 }} data-id={e.id}>
                {e.grantable ? box : <Tooltip title={e.refusal?.message}>{<span>{box}</span>}</Tooltip>}
              </li>
            );
          })}
        </ul>
      )}
      {shown.length === 0 && <Typography.Paragraph className="fw-assign-empty">{t(entries.length === 0 ? 'perm.nothingToChoose' : 'perm.nothingMatches')}</Typography.Paragraph>}
      <Typography.Text className="fw-assign-count">{t('perm.selectedCount', { count: selected.size })}</Typography.Text>
    </div>
  );
}
