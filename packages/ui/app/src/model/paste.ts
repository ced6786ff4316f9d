// Paste from a spreadsheet (issue 23 §2): a block of cells copied in Excel or LibreOffice arrives
// as tab-separated text. It lands on the grid from the focused cell rightwards and downwards; each
// text is read by the target field's type the way its input would take it, and what cannot be read
// (or lands on a column that cannot be edited) is marked, not sent. No antd here: tested on its own.
import type { FieldView, PastedRow } from '../types';

/** Most cells one paste takes (a larger block is refused whole, before anything is read). */
export const MAX_PASTE_CELLS = 10_000;

/**
 * The cells of a clipboard text: rows by line, cells by tab. A cell holding a tab, a line break or
 * a quote comes quoted (`"a ""b"""`), as both spreadsheets write it; a trailing line break does
 * not make an empty last row.
 */
export function parseClipboard(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let i = 0;
  const n = text.length;
  let atCellStart = true;
  while (i < n) {
    const ch = text[i]!;
    if (atCellStart && ch === '"') {
      // A quoted cell: up to the closing quote, "" standing for one quote.
      let j = i + 1;
      let value = '';
      let closed = false;
      while (j < n) {
        if (text[j] === '"') {
          if (text[j + 1] === '"') {
            value += '"';
            j += 2;
            continue;
          }
          closed = true;
          j += 1;
          break;
        }
        value += text[j];
        j += 1;
      }
      if (closed && (j >= n || text[j] === '\t' || text[j] === '\n' || text[j] === '\r')) {
        cell = value;
        i = j;
        atCellStart = false;
        continue;
      }
      // Not a quoted cell after all (a quote that opens ordinary text): read it as text.
    }
    atCellStart = false;
    if (ch === '\t') {
      row.push(cell);
      cell = '';
      atCellStart = true;
    } else if (ch === '\n' || ch === '\r') {
      row.push(cell);
      rows.push(row);
      row = [];
      cell = '';
      atCellStart = true;
      if (ch === '\r' && text[i + 1] === '\n') i += 1;
    } else cell += ch;
    i += 1;
  }
  if (cell !== '' || row.length > 0) {
    row.push(cell);
    rows.push(row);
  }
  return rows;
}

/** Why a pasted text was not taken. */
export type PasteProblem = 'notEditable' | 'number' | 'integer' | 'boolean' | 'date' | 'datetime' | 'choice' | 'reference' | 'required';

const TRUE = new Set(['true', 'yes', 'y', '1', 'on', 'x', '✓', '是', '对', 'ja', 'oui', 'sí', 'si', 'はい']);
const FALSE = new Set(['false', 'no', 'n', '0', 'off', '否', '不', '错', 'nein', 'non', 'いいえ']);

function pad(n: number): string {
  return String(n).padStart(2, '0');
}

/** A date typed or copied as 2024-01-05, 2024/1/5 or 2024.1.5 (year first: the one unambiguous order). */
function readDate(text: string): string | undefined {
  const m = /^(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})$/.exec(text);
  if (!m) return undefined;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const date = new Date(Date.UTC(y, mo - 1, d));
  if (date.getUTCFullYear() !== y || date.getUTCMonth() !== mo - 1 || date.getUTCDate() !== d) return undefined;
  return `${y}-${pad(mo)}-${pad(d)}`;
}

/** A number as spreadsheets copy it: thousands separators and spaces dropped, a leading + allowed. */
function readNumber(text: string): number | undefined {
  const cleaned = text.replace(/[\s,\u00a0\u202f']/g, '').replace(/^\+/, '');
  if (!/^-?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?$/i.test(cleaned)) return undefined;
  const n = Number(cleaned);
  return Number.isFinite(n) ? n : undefined;
}

/** The value a pasted text stands for in `field`, or why it stands for none. */
export function fromText(field: FieldView, raw: string): { value: unknown } | { problem: PasteProblem } {
  const text = raw.trim();
  if (text === '') return field.notNull && field.type !== 'TAGS' && field.type !== 'MULTI_CHOICE' ? { problem: 'required' } : { value: null };
  switch (field.type) {
    case 'NUMBER': {
      const n = readNumber(text);
      if (n === undefined) return { problem: 'number' };
      if (field.integer && !Number.isInteger(n)) return { problem: 'integer' };
      return { value: n };
    }
    case 'BOOLEAN': {
      const lower = text.toLowerCase();
      if (TRUE.has(lower)) return { value: true };
      if (FALSE.has(lower)) return { value: false };
      return { problem: 'boolean' };
    }
    case 'DATE': {
      const date = readDate(text.slice(0, 10).trim() === text ? text : text.split(/[ T]/)[0]!);
      return date ? { value: date } : { problem: 'date' };
    }
    case 'DATETIME': {
      const m = /^(\d{4}[-/.]\d{1,2}[-/.]\d{1,2})(?:[ T](\d{1,2}):(\d{2})(?::(\d{2}))?)?$/.exec(text);
      const day = m ? readDate(m[1]!) : undefined;
      if (!m || !day) {
        const parsed = new Date(text);
        return Number.isNaN(parsed.getTime()) || !/\d{4}/.test(text) ? { problem: 'datetime' } : { value: parsed.toISOString() };
      }
      const [h, mi, s] = [Number(m[2] ?? 0), Number(m[3] ?? 0), Number(m[4] ?? 0)];
      if (h > 23 || mi > 59 || s > 59) return { problem: 'datetime' };
      // Wall-clock time where the person is, as the date-time picker reads it.
      const [y, mo, d] = day.split('-').map(Number) as [number, number, number];
      return { value: new Date(y, mo - 1, d, h, mi, s).toISOString() };
    }
    case 'CHOICE': {
      const choice =
        (field.choices ?? []).find((c) => String(c.value) === text) ??
        (field.choices ?? []).find((c) => [c.label, ...Object.values(c.labels ?? {})].some((l) => l.toLowerCase() === text.toLowerCase()));
      return choice ? { value: choice.value } : { problem: 'choice' };
    }
    case 'MULTI_CHOICE': {
      const values: unknown[] = [];
      for (const part of text
        .split(/[,，;；]/)
        .map((p) => p.trim())
        .filter(Boolean)) {
        const one = fromText({ ...field, type: 'CHOICE', notNull: false }, part);
        if ('problem' in one) return one;
        values.push(one.value);
      }
      return { value: values };
    }
    case 'TAGS':
      return {
        value: text
          .split(/[,，;；]/)
          .map((p) => p.trim())
          .filter(Boolean),
      };
    case 'REFERENCE_TABLE':
    case 'REFERENCE_TREE': {
      // A reference is pasted as the row's id (what an export writes); labels are not looked up.
      const id = /^#?(\d+)$/.exec(text);
      return id ? { value: Number(id[1]) } : { problem: 'reference' };
    }
    default:
      return { value: raw.replace(/\r\n?/g, '\n') };
  }
}

/** One pasted cell as it landed. */
export interface PastedCell {
  /** Index of the target row (in `rowKeys`) and of the target column (in `columns`). */
  row: number;
  col: number;
  field: string;
  text: string;
  value?: unknown;
  problem?: PasteProblem;
}

/** What a paste would do. */
export interface PastePlan {
  /** The target rows' keys and the target columns, in grid order. */
  rowKeys: string[];
  columns: string[];
  cells: PastedCell[];
  /**
   * Per row, the values that read well (rows without any are left out), and what the grid showed
   * in those cells (`expect`): the server refuses the paste when one of them changed meanwhile.
   */
  rows: PastedRow[];
  /** Pasted rows and columns that fell off the grid's edge (below the last row shown, right of the last column). */
  cutRows: number;
  cutColumns: number;
  problems: number;
}

/**
 * Lays `grid` onto the table from the focused cell: `rowKeys` are the rows from the focused one
 * down (as shown), `columns` the columns from the focused one rightwards. A single copied cell
 * pasted onto several selected rows is not guessed at: one cell lands on one cell. `shown` gives
 * the value a target cell shows in the table (sent as the row's `expect`).
 */
export function planPaste(
  grid: string[][],
  rowKeys: string[],
  columns: string[],
  fields: FieldView[],
  editable: (field: FieldView) => boolean,
  shown?: (rowKey: string, field: string) => unknown,
): PastePlan {
  const byName = new Map(fields.map((f) => [f.name, f]));
  const width = Math.max(0, ...grid.map((r) => r.length));
  const cells: PastedCell[] = [];
  const rows: PastePlan['rows'] = [];
  let problems = 0;
  const usedRows = Math.min(grid.length, rowKeys.length);
  const usedCols = Math.min(width, columns.length);
  for (let r = 0; r < usedRows; r++) {
    const values: Record<string, unknown> = {};
    for (let c = 0; c < usedCols; c++) {
      const text = grid[r]![c];
      if (text === undefined) continue;
      const name = columns[c]!;
      const field = byName.get(name);
      const cell: PastedCell = { row: r, col: c, field: name, text };
      if (!field || !editable(field)) cell.problem = 'notEditable';
      else {
        const read = fromText(field, text);
        if ('problem' in read) cell.problem = read.problem;
        else {
          cell.value = read.value;
          values[name] = read.value;
        }
      }
      if (cell.problem) problems += 1;
      cells.push(cell);
    }
    const id = Number(rowKeys[r]);
    if (Object.keys(values).length > 0 && Number.isInteger(id)) {
      const row: PastedRow = { id, values };
      if (shown) row.expect = Object.fromEntries(Object.keys(values).map((name) => [name, shown(rowKeys[r]!, name) ?? null]));
      rows.push(row);
    }
  }
  return { rowKeys: rowKeys.slice(0, usedRows), columns: columns.slice(0, usedCols), cells, rows, cutRows: grid.length - usedRows, cutColumns: width - usedCols, problems };
}
