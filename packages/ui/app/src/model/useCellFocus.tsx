// The table body as a keyboard grid (issue 20 §2): one cell is a Tab stop (roving tabindex),
// arrow keys, Home and End move the cell focus, Enter or F2 opens the cell editor on an editable
// cell (typing a character on a text or number cell opens it holding that character),
// cell. Each cell tells a screen reader its column, its row and whether it is editable.
import { useCallback, useEffect, useState, type ClipboardEvent, type KeyboardEvent, type RefObject } from 'react';
import { useI18n } from '../i18n';
import type { FieldView, Row } from '../types';
import type { CellClose } from './CellEditor';

const CELL = 'td[data-fw-cell]';
const HINT_EDITABLE = 'fw-cell-hint-editable';
const HINT_READONLY = 'fw-cell-hint-readonly';

/** The id of the cell of `field` in the row keyed `rowKey` (also the anchor of its editor). */
export function cellId(rowKey: unknown, field: string): string {
  return `fw-cell-${String(rowKey).replace(/[^\w-]/g, '_')}-${field}`;
}

/** How a row is named to a screen reader: the first column's text when it is plain, else "#id". */
export function rowName(row: Row, first: FieldView | undefined, id: unknown): string {
  const value = first ? row[first.name] : undefined;
  const plain = first && !['PASSWORD', 'REFERENCE_TABLE', 'REFERENCE_TREE', 'COLLECTION', 'ATTACHMENT', 'BOOLEAN', 'CHOICE'].includes(first.type);
  return plain && (typeof value === 'string' || typeof value === 'number') && String(value) !== '' ? String(value) : `#${String(id)}`;
}

/**
 * When the focus (or `from`, the cell an editor is open on) is in one of the rows `keys` (leaving
 * the table), the id of the cell to take it:
 * the same column in the nearest row below that stays, else above (else its first cell); else
 * undefined.
 */
export function focusBeside(root: HTMLElement | null, keys: readonly string[], from: Element | null = document.activeElement): string | undefined {
  const active = from;
  const tr = active?.closest<HTMLTableRowElement>('tr[data-row-key]');
  if (!root || !tr || !root.contains(tr) || !keys.includes(tr.dataset.rowKey ?? '')) return undefined;
  const column = active?.closest<HTMLElement>(CELL)?.dataset.fwCol;
  const rows = [...root.querySelectorAll<HTMLTableRowElement>('tbody tr[data-row-key]')].filter((r) => r.querySelector(CELL));
  const at = rows.indexOf(tr);
  const staying = (r: HTMLTableRowElement) => !keys.includes(r.dataset.rowKey ?? '');
  const beside = rows.slice(at + 1).find(staying) ?? rows.slice(0, Math.max(at, 0)).reverse().find(staying);
  const cell = (column && beside?.querySelector<HTMLElement>(`${CELL}[data-fw-col="${CSS.escape(column)}"]`)) || beside?.querySelector<HTMLElement>(CELL);
  return cell?.id || undefined;
}

/** Where focus goes from a cell. */
export type CellMove = 'left' | 'right' | 'up' | 'down' | 'home' | 'end' | 'nextEditable' | 'prevEditable';

/** The cell `move` leads to from `from`, or undefined at an edge. */
function target(root: HTMLElement, from: HTMLElement, move: CellMove): HTMLElement | undefined {
  const rows = [...root.querySelectorAll<HTMLTableRowElement>('tbody tr')].filter((tr) => tr.querySelector(CELL));
  const tr = from.closest('tr')!;
  const inRow = [...tr.querySelectorAll<HTMLElement>(CELL)];
  const col = inRow.indexOf(from);
  const r = rows.indexOf(tr as HTMLTableRowElement);
  switch (move) {
    case 'left':
      return inRow[col - 1];
    case 'right':
      return inRow[col + 1];
    case 'home':
      return inRow[0];
    case 'end':
      return inRow.at(-1);
    case 'up':
    case 'down': {
      const next = rows[r + (move === 'up' ? -1 : 1)];
      return next?.querySelector<HTMLElement>(`${CELL}[data-fw-col="${from.dataset.fwCol}"]`) ?? undefined;
    }
    default: {
      const all = [...root.querySelectorAll<HTMLElement>(`${CELL}[data-fw-editable="true"], ${CELL}#${CSS.escape(from.id)}`)];
      return all[all.indexOf(from) + (move === 'nextEditable' ? 1 : -1)];
    }
  }
}

/**
 * antd's hidden measure row (a table with horizontal scroll) copies the header, "select all"
 * checkbox included, under aria-hidden: out of the Tab order, as aria-hidden content must be.
 */
function hideMeasureControls(root: HTMLElement): void {
  for (const control of root.querySelectorAll<HTMLElement>('.ant-table-measure-row :is(input, button, a[href], [tabindex])')) control.tabIndex = -1;
}

const KEYS: Record<string, CellMove> = { ArrowLeft: 'left', ArrowRight: 'right', ArrowUp: 'up', ArrowDown: 'down', Home: 'home', End: 'end' };

/** What a cell needs to be part of the grid. */
export interface GridCell {
  row: Row;
  rowKey: unknown;
  field: FieldView;
  /** The column title, as read out. */
  column: string;
  /** The row's name, as read out (see rowName). */
  rowLabel: string;
  /** Opens the cell editor; absent when the cell is not editable. */
  onEdit?: () => void;
  /**
   * Opens the cell editor holding the typed character instead of the value, as a spreadsheet
   * does; absent where typing cannot start an edit (not editable, or a list, date or file input).
   */
  onType?: (text: string) => void;
  /** Takes text pasted onto the focused cell (a block copied from a spreadsheet). */
  onPaste?: (text: string, cell: HTMLElement) => void;
}

/**
 * The grid of the table inside `scope`. `cellProps` gives a cell's `<td>` attributes (from a
 * column's onCell); `focusCell` / `moveFrom` / `afterEdit` move the focus; `hints` must be rendered once (the
 * texts the cells' aria-describedby name).
 */
export function useCellFocus(scope: RefObject<HTMLElement | null>) {
  const { t } = useI18n();
  const [active, setActive] = useState<string>();

  // Exactly one cell is a Tab stop: when the focused one left the page (another page, a search),
  // the first cell becomes it.
  useEffect(() => {
    const root = scope.current;
    if (!root) return;
    hideMeasureControls(root);
    if (root.querySelector(`${CELL}[tabindex="0"]`)) return;
    const first = root.querySelector<HTMLElement>(CELL);
    if (first && first.id !== active) setActive(first.id);
  });

  const focusCell = useCallback((id: string) => {
    const cell = document.getElementById(id);
    if (!cell) return false;
    setActive(id);
    cell.focus();
    return true;
  }, []);

  /** Moves the focus from the cell `id`; false at an edge (the focus stays). */
  const moveFrom = useCallback(
    (id: string, move: CellMove) => {
      const root = scope.current;
      const from = document.getElementById(id);
      const to = root && from ? target(root, from, move) : undefined;
      return to ? focusCell(to.id) : false;
    },
    [scope, focusCell],
  );

  /** Where the focus goes once the editor of the cell `id` closed (see CellClose). */
  const afterEdit = useCallback(
    (id: string, then: CellClose) => {
      if (then === 'none') return;
      // After the editor has left the page, so its "focus moved out" saving does not fire.
      setTimeout(() => {
        if (then === 'cell' || !moveFrom(id, then === 'next' ? 'nextEditable' : 'prevEditable')) focusCell(id);
      });
    },
    [moveFrom, focusCell],
  );

  const cellProps = (cell: GridCell) => {
    const id = cellId(cell.rowKey, cell.field.name);
    return {
      id,
      'data-fw-cell': '',
      'data-fw-col': cell.field.name,
      'data-fw-editable': cell.onEdit ? 'true' : 'false',
      tabIndex: id === active ? 0 : -1,
      // The name reads "Column, Row" and then the value (the cell's own label first, then its value).
      'aria-label': t('cell.label', { column: cell.column, row: cell.rowLabel }),
      'aria-labelledby': `${id} ${id}-value`,
      'aria-describedby': cell.onEdit ? HINT_EDITABLE : HINT_READONLY,
      onFocus: () => setActive(id),
      onPaste: (event: ClipboardEvent<HTMLElement>) => {
        if (!cell.onPaste || event.target !== event.currentTarget) return;
        const text = event.clipboardData.getData('text/plain');
        if (!text) return;
        event.preventDefault();
        cell.onPaste(text, event.currentTarget);
      },
      onKeyDown: (event: KeyboardEvent<HTMLElement>) => {
        if (event.target !== event.currentTarget || event.altKey || event.ctrlKey || event.metaKey) return;
        const move = KEYS[event.key];
        if (move) {
          event.preventDefault();
          moveFrom(id, move);
        } else if ((event.key === 'Enter' || event.key === 'F2') && cell.onEdit) {
          event.preventDefault();
          cell.onEdit();
        } else if (cell.onType && event.key.length === 1 && event.key !== ' ' && !event.nativeEvent.isComposing) {
          event.preventDefault();
          cell.onType(event.key);
        }
      },
    };
  };

  const hints = (
    <div hidden>
      <span id={HINT_EDITABLE}>{t('cell.editable')}</span>
      <span id={HINT_READONLY}>{t('cell.readOnly')}</span>
    </div>
  );

  return { cellProps, focusCell, moveFrom, afterEdit, hints };
}
