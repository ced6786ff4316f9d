// The in-table cell editor (spec, Power rule 7): an editor over the cell holding the form's own
// input for the field's edit type, inside a form of that one field, seeded from the row the table
// query returned. It is placed inside the model page, on its cell (useAnchor), so it scrolls and
// resizes with the table and takes the app's font and theme. Enter or leaving it saves through
// update-cell; Tab saves and moves on (Shift+Tab back); Esc cancels; a refusal keeps it open with
// the server's message; the answered row replaces the table row. Every save says what the editor
// was seeded with (`expect`, the row's value as the table showed it): when someone else changed
// the cell meanwhile the server writes nothing and the conflict dialog asks whose value stays.
// Before that, a live event for the cell (issue 24 §3) says so under the editor, with the new value
// (Tab reaches "Use this value" while it shows), and a row deleted meanwhile ends the editing;
// others who have the same cell open are named there too (§4). The notes hang below the editor, so
// the input never moves under the person's fingers; the person's own save is not news to them.
import { useContext, useEffect, useRef, useState, type KeyboardEvent } from 'react';
import { createPortal } from 'react-dom';
import { Alert, App, Button, Form } from 'antd';
import { useLiveEvent } from '../client/live';
import { usePresenceReport } from '../client/presence';
import { ApiError } from '../client/api';
import { saveFailure } from './errors';
import { peersOn, usePeers } from './presence';
import { useUpdateCell } from '../client/mutations';
import { useI18n } from '../i18n';
import type { FieldView, Row, StaleCell } from '../types';
import { renderValue, type Labels } from './cells';
import { LiveContext } from './LiveBar';
import { FieldItem } from './FieldItem';
import { StaleCellDialog, staleCellOf } from './StaleCellDialog';
import { useAnchor } from './useAnchor';

/** Popups that belong to the editor although antd renders them at the end of the body. */
const POPUPS = '.ant-select-dropdown, .ant-picker-dropdown, .ant-picker-panel-container, .ant-tree-select-dropdown';

function same(a: unknown, b: unknown): boolean {
  const norm = (v: unknown) => (v === undefined || v === '' ? null : v);
  return JSON.stringify(norm(a)) === JSON.stringify(norm(b));
}

/** The editor's own control (an input, a text area, a switch), which the focus returns to. */
const CONTROL = '.ant-form input:not([type="hidden"]), .ant-form textarea, .ant-form button[role="switch"], .ant-form [tabindex="0"]';

/** Where the editor opens and for what. */
export interface CellTarget {
  row: Row;
  id: number;
  field: FieldView;
  /** The id of the cell's `<td>` (see useCellFocus), which the editor stays on. */
  cellId: string;
  /** What the editor starts with instead of the stored value: the character typed on the cell. */
  seed?: string | number;
}

/**
 * The value a character typed on a cell of `field` starts its editor with: the text itself in a
 * text input, a digit's number in a number input; undefined where typing does not start an edit.
 */
export function typedSeed(field: FieldView, text: string): string | number | undefined {
  if (field.type === 'INPUT' || field.type === 'TEXTAREA') return text;
  if (field.type === 'NUMBER' && /^[0-9]$/.test(text)) return Number(text);
  return undefined;
}

/**
 * Why the editor closed, and so where the focus goes: back to its cell (Enter, Esc), to the next
 * or previous editable cell (Tab, Shift+Tab), or nowhere (a click elsewhere already moved it).
 */
export type CellClose = 'cell' | 'next' | 'prev' | 'none';

/** The floating editor of one cell. */
export function CellEditor({
  fw,
  target,
  labels,
  onClose,
  onSaved,
  onTheirs,
}: {
  fw: string;
  target: CellTarget;
  /** The table's reference labels, so the conflict dialog shows a reference as the table does. */
  labels: Labels | undefined;
  onClose: (then: CellClose) => void;
  onSaved: (row: Row) => void;
  /** Someone else's value was kept: the table shows `current` in the cell. */
  onTheirs: (current: unknown) => void;
}) {
  const { t } = useI18n();
  const { message } = App.useApp();
  const [form] = Form.useForm();
  const box = useRef<HTMLDivElement>(null);
  const saving = useRef(false);
  // Set once the editor has asked to close: a focus moving out afterwards must not save again.
  const closed = useRef(false);
  const [container] = useState(() => document.getElementById(target.cellId)?.closest<HTMLElement>('.fw-model') ?? null);
  const place = useAnchor(target.cellId, container);
  const [busy, setBusy] = useState(false);
  const updateCell = useUpdateCell(fw);
  // The server's refusal, shown above the input: a picker's popup opens below it.
  const [refusal, setRefusal] = useState<string[]>([]);
  const { field, row, id } = target;
  // What the editor expects the cell to hold: the row's value, or a newer one the person took.
  const expected = useRef<unknown>(row[field.name] ?? null);
  // Someone changed the cell (or deleted the row) while the editor is open.
  const [changed, setChanged] = useState<{ actor: string; value?: unknown; deleted?: true }>();
  const channel = useContext(LiveContext);
  // Others see that this cell is being edited while the editor is open (issue 24 §4).
  usePresenceReport(fw, { id, field: field.name });
  // Others (another person, or this person in another tab) with this very cell open.
  const alsoHere = [
    ...new Set(
      peersOn(usePeers(), id)
        .filter((p) => p.field === field.name)
        .map((p) => p.user),
    ),
  ];
  // The value this editor is saving or saved: the event of that save is the person's own news.
  const sent = useRef<{ value: unknown }>(undefined);
  const actorOf = (data: Record<string, unknown>) => (typeof data.actor === 'string' ? data.actor : '?');
  const onChange = (data: Record<string, unknown>, values: unknown) => {
    if (data.id !== id || !values || typeof values !== 'object' || !(field.name in values)) return;
    const value = (values as Record<string, unknown>)[field.name] ?? null;
    if (data.mine === true && (closed.current || (sent.current && same(value, sent.current.value)))) return;
    if (same(value, expected.current)) setChanged(undefined);
    else setChanged({ actor: actorOf(data), value });
  };
  useLiveEvent(channel, 'update', (event) => onChange(event.data, event.data.values));
  useLiveEvent(channel, 'insert', (event) => onChange(event.data, event.data.row));
  useLiveEvent(channel, 'delete', (event) => {
    if (!Array.isArray(event.data.ids) || !event.data.ids.includes(id) || closed.current) return;
    setChanged({ actor: actorOf(event.data), deleted: true });
  });
  // The row is gone and the input disabled: the focus goes to the note's Close, inside the editor.
  const gone = changed?.deleted === true;
  useEffect(() => {
    if (gone) box.current?.querySelector<HTMLElement>('.fw-live-close')?.focus();
  }, [gone]);
  const takeTheirs = () => {
    if (!changed || changed.deleted) return;
    expected.current = changed.value;
    form.setFieldsValue({ [field.name]: changed.value });
    setChanged(undefined);
    // After the note (and the button that was pressed) has gone.
    requestAnimationFrame(() => box.current?.querySelector<HTMLElement>(CONTROL)?.focus());
  };
  // Someone else's change met on saving, with the value this editor tried to save and how it was
  // closing; while it is shown, leaving the editor (into the dialog) does not save again.
  const [conflict, setConflict] = useState<{ stale: StaleCell; mine: unknown; then: CellClose }>();
  const inConflict = useRef(false);

  const close = (then: CellClose) => {
    closed.current = true;
    onClose(then);
  };

  const save = async (then: CellClose) => {
    if (saving.current || closed.current || inConflict.current) return;
    // The row is gone: there is nothing to save into.
    if (changed?.deleted) return close(then === 'none' ? 'none' : 'cell');
    let value: unknown;
    try {
      value = (await form.validateFields())[field.name];
    } catch {
      return; // the browser-side rule's message is on the field; the editor stays open
    }
    if (value === undefined) value = null;
    if (same(value, expected.current)) {
      close(then);
      return;
    }
    await submit(value, expected.current, then);
  };

  // Sends `value` for a cell expected to show `expect`; a stale cell opens the conflict dialog.
  const submit = async (value: unknown, expect: unknown, then: CellClose) => {
    saving.current = true;
    sent.current = { value };
    setBusy(true);
    setRefusal([]);
    try {
      const answered = await updateCell.mutateAsync({ id, field: field.name, value, expect });
      inConflict.current = false;
      setConflict(undefined);
      onSaved(answered);
      close(then);
    } catch (error) {
      const stale = staleCellOf(error, field.name);
      if (stale) {
        inConflict.current = true;
        setConflict({ stale, mine: value, then });
      } else if (error instanceof ApiError && error.status !== 401) {
        inConflict.current = false;
        setConflict(undefined);
        sent.current = undefined;
        // Every message, also a row rule's that names another field: this editor is the only place to show it.
        const own = saveFailure(error, t);
        setRefusal(own ? [own] : error.details.length > 0 ? error.details.map((d) => d.message) : [error.message]);
      } else if (!(error instanceof ApiError)) message.error(String(error));
    } finally {
      saving.current = false;
      setBusy(false);
    }
  };
  const keepTheirs = () => {
    if (!conflict) return;
    onTheirs(conflict.stale.current);
    const cell = document.getElementById(target.cellId);
    cell?.classList.add('fw-cell-flash');
    setTimeout(() => cell?.classList.remove('fw-cell-flash'), 1600);
    close('cell');
  };
  const saveRef = useRef(save);
  saveRef.current = save;

  useEffect(() => {
    // Typed into: the caret goes after the typed character, so typing goes on from there.
    if (target.seed === undefined) return;
    const frame = requestAnimationFrame(() => {
      const input = box.current?.querySelector<HTMLInputElement | HTMLTextAreaElement>('input, textarea');
      if (!input) return;
      input.focus();
      try {
        input.setSelectionRange(input.value.length, input.value.length);
      } catch {
        // An input kind without a text selection keeps the browser's caret.
      }
    });
    return () => cancelAnimationFrame(frame);
  }, [target.seed]);

  useEffect(() => {
    // Leaving the editor (a click or a focus elsewhere) saves, like Enter.
    const outside = (node: EventTarget | null) => node instanceof Node && !box.current?.contains(node) && !(node instanceof Element && node.closest(POPUPS));
    const onPointer = (event: PointerEvent) => {
      if (outside(event.target)) void saveRef.current('none');
    };
    const onFocus = (event: FocusEvent) => {
      if (outside(event.target)) void saveRef.current('none');
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
    // A button of the notes (Use this value, Close) takes Enter and Space for itself.
    if (target?.closest('.fw-cell-editor-notes button') && event.key !== 'Tab' && event.key !== 'Escape') return;
    const typing = target instanceof HTMLInputElement && target.closest('.ant-select') !== null && target.value !== '';
    const expanded = Boolean(target?.closest('[aria-expanded="true"]')) || typing;
    if (event.key === 'Escape' && !expanded) {
      event.preventDefault();
      close('cell');
    } else if (event.key === 'Enter' && !expanded && !event.shiftKey && !event.nativeEvent.isComposing) {
      event.preventDefault();
      void save('cell');
    } else if (event.key === 'Tab' && !event.nativeEvent.isComposing && changed && !changed.deleted) {
      // A live note is showing: Tab goes between the input and "Use this value" instead of saving.
      event.preventDefault();
      const input = box.current?.querySelector<HTMLElement>(CONTROL);
      const stops = [input, box.current?.querySelector<HTMLElement>('.fw-live-take')].filter((el): el is HTMLElement => Boolean(el));
      const at = stops.findIndex((el) => el === document.activeElement || el.contains(document.activeElement));
      stops[(at + (event.shiftKey ? stops.length - 1 : 1)) % stops.length]?.focus();
    } else if (event.key === 'Tab' && !event.nativeEvent.isComposing) {
      // Like a spreadsheet: Tab saves and goes on to the next editable cell, not to the next control.
      event.preventDefault();
      void save(event.shiftKey ? 'prev' : 'next');
    }
  };

  if (!container) return null;
  // As wide as the cell and a margin, at least a usable input, at most the page's width.
  const width = Math.min(Math.max((place?.width ?? 0) + 16, field.type === 'DATETIME' ? 260 : 220), container.clientWidth);
  const left = Math.min((place?.left ?? 0) - 8, container.clientWidth - width);
  const classes = ['fw-cell-editor', refusal.length > 0 && 'fw-cell-editor-refused', conflict && 'fw-cell-editor-behind'].filter(Boolean).join(' ');
  const editor = createPortal(
    <div
      ref={box}
      className={classes}
      role="dialog"
      aria-label={t('model.editCell')}
      data-field={field.name}
      style={{ top: (place?.top ?? 0) - 8, left: Math.max(0, left), width }}
      onKeyDown={onKeyDown}
      // Under the conflict dialog the editor waits: the dialog decides, nothing here can be used.
      inert={conflict !== undefined}
    >
      {refusal.length > 0 && (
        <div className="fw-cell-editor-error" role="alert">
          {refusal.map((m, i) => (
            <div key={i}>{m}</div>
          ))}
        </div>
      )}
      <Form form={form} initialValues={{ [field.name]: target.seed ?? row[field.name] ?? null }} component="div" disabled={changed?.deleted} onValuesChange={() => setRefusal([])}>
        <FieldItem field={field} model={fw} autoFocus inCell />
      </Form>
      {/* A deleted row's note has its own Close: no keys to tell. */}
      {!changed?.deleted && <div className="fw-cell-editor-hint">{changed ? t('live.takeKeys', { take: t('live.take') }) : t('cell.hintKeys')}</div>}
      {(changed || alsoHere.length > 0) && (
        <div className="fw-cell-editor-notes">
          {alsoHere.length > 0 && (
            <div className="fw-cell-presence" role="status">
              {alsoHere.map((user) => t('live.cellPresence', { user })).join(' ')}
            </div>
          )}
          {changed && (
            <Alert
              type={changed.deleted ? 'error' : 'warning'}
              role="status"
              className="fw-live-note"
              title={t(changed.deleted ? 'live.cellDeleted' : 'live.cellChanged', { actor: changed.actor })}
              description={
                changed.deleted ? (
                  <Button size="small" className="fw-live-close" onClick={() => close('cell')}>
                    {t('form.close')}
                  </Button>
                ) : (
                  <>
                    <div className="fw-live-note-value">{renderValue(field, changed.value, labels, t, { model: fw, rowId: id, thumbnail: true }) ?? t('stale.empty')}</div>
                    <Button size="small" className="fw-live-take" onClick={takeTheirs}>
                      {t('live.take')}
                    </Button>
                  </>
                )
              }
            />
          )}
        </div>
      )}
    </div>,
    container,
  );
  // The dialog is outside the editor's element: its keys (Esc) are not the editor's.
  return (
    <>
      {editor}
      {conflict && (
        <StaleCellDialog
          fw={fw}
          rowId={id}
          field={field}
          stale={conflict.stale}
          mine={conflict.mine}
          labels={labels}
          busy={busy}
          onKeep={keepTheirs}
          onOverwrite={() => void submit(conflict.mine, conflict.stale.current, conflict.then)}
        />
      )}
    </>
  );
}
