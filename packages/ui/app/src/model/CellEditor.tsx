// The in-table cell editor (spec, Power rule 7): a floating editor over the cell holding the
// form's own input for the field's edit type, inside a form of that one field, seeded from the
// row the table query returned. Enter or leaving it saves through update-cell; Esc cancels; a
// refusal keeps it open with the server's message; the answered row replaces the table row.
import { useEffect, useRef, useState, type KeyboardEvent } from 'react';
import { createPortal } from 'react-dom';
import { App, Form } from 'antd';
import { api, ApiError } from '../api';
import { useI18n } from '../i18n';
import type { FieldView, Row } from '../types';
import { FieldItem } from './FieldItem';

/** Popups that belong to the editor although antd renders them at the end of the body. */
const POPUPS = '.ant-select-dropdown, .ant-picker-dropdown, .ant-picker-panel-container, .ant-tree-select-dropdown';

function same(a: unknown, b: unknown): boolean {
  const norm = (v: unknown) => (v === undefined || v === '' ? null : v);
  return JSON.stringify(norm(a)) === JSON.stringify(norm(b));
}

/** Where the editor opens and for what. */
export interface CellTarget {
  row: Row;
  id: number;
  field: FieldView;
  /** The cell's box on screen when it was opened. */
  rect: { top: number; left: number; width: number; height: number };
}

/** The floating editor of one cell. */
export function CellEditor({ fw, target, onClose, onSaved }: { fw: string; target: CellTarget; onClose: () => void; onSaved: (row: Row) => void }) {
  const { t } = useI18n();
  const { message } = App.useApp();
  const [form] = Form.useForm();
  const box = useRef<HTMLDivElement>(null);
  const saving = useRef(false);
  const [busy, setBusy] = useState(false);
  // The server's refusal, shown above the input: a picker's popup opens below it.
  const [refusal, setRefusal] = useState<string[]>([]);
  const { field, row, id } = target;
  const initial = row[field.name] ?? null;

  const save = async () => {
    if (saving.current) return;
    let value: unknown;
    try {
      value = (await form.validateFields())[field.name];
    } catch {
      return; // the browser-side rule's message is on the field; the editor stays open
    }
    if (value === undefined) value = null;
    if (same(value, initial)) {
      onClose();
      return;
    }
    saving.current = true;
    setBusy(true);
    setRefusal([]);
    try {
      const answered = await api<Row>(`/data/modify/${encodeURIComponent(fw)}/update-cell`, { body: { id, field: field.name, value } });
      onSaved(answered);
      onClose();
    } catch (error) {
      if (error instanceof ApiError && error.status !== 401) {
        // Every message, also a row rule's that names another field: this editor is the only place to show it.
        setRefusal(error.details.length > 0 ? error.details.map((d) => d.message) : [error.message]);
      } else if (!(error instanceof ApiError)) message.error(String(error));
    } finally {
      saving.current = false;
      setBusy(false);
    }
  };
  const saveRef = useRef(save);
  saveRef.current = save;

  useEffect(() => {
    // Leaving the editor (a click or a focus elsewhere) saves, like Enter.
    const outside = (node: EventTarget | null) => node instanceof Node && !box.current?.contains(node) && !(node instanceof Element && node.closest(POPUPS));
    const onPointer = (event: PointerEvent) => {
      if (outside(event.target)) void saveRef.current();
    };
    const onFocus = (event: FocusEvent) => {
      if (outside(event.target)) void saveRef.current();
    };
    document.addEventListener('pointerdown', onPointer, true);
    document.addEventListener('focusin', onFocus, true);
    return () => {
      document.removeEventListener('pointerdown', onPointer, true);
      document.removeEventListener('focusin', onFocus, true);
    };
  }, []);

  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    // A list or calendar that is open takes Enter and Esc for itself, and so does a list's search
    // box holding text (Enter there picks an option or makes a tag).
    const target = event.target instanceof Element ? event.target : null;
    const typing = target instanceof HTMLInputElement && target.closest('.ant-select') !== null && target.value !== '';
    const expanded = Boolean(target?.closest('[aria-expanded="true"]')) || typing;
    if (event.key === 'Escape' && !expanded) {
      event.preventDefault();
      onClose();
    } else if (event.key === 'Enter' && !expanded && !event.shiftKey && !event.nativeEvent.isComposing) {
      event.preventDefault();
      void save();
    }
  };

  const width = Math.max(target.rect.width + 16, field.type === 'DATETIME' ? 260 : 220);
  const left = Math.min(target.rect.left - 8, window.innerWidth - width - 8);
  return createPortal(
    <div
      ref={box}
      className={refusal.length > 0 ? 'fw-cell-editor fw-cell-editor-refused' : 'fw-cell-editor'}
      role="dialog"
      aria-label={t('model.editCell')}
      data-field={field.name}
      style={{ top: target.rect.top - 8, left: Math.max(8, left), width }}
      onKeyDown={onKeyDown}
    >
      {refusal.length > 0 && (
        <div className="fw-cell-editor-error" role="alert">
          {refusal.map((m, i) => (
            <div key={i}>{m}</div>
          ))}
        </div>
      )}
      <Form form={form} initialValues={{ [field.name]: initial }} component="div" disabled={busy} onValuesChange={() => setRefusal([])}>
        <FieldItem field={field} model={fw} autoFocus inCell />
      </Form>
      <div className="fw-cell-editor-hint">{t('cell.hint')}</div>
    </div>,
    document.body,
  );
}
