import { EditType, type FieldDefinition, type ModelDefinition } from '@fw/core';
import type { FwErrorDetail } from '@fw/core';

/** One column of an export, an import or a template: the field and the title shown above it. */
export interface TransferColumn {
  field: FieldDefinition;
  /** The field's name (the CSV header). */
  name: string;
  /** The column title (the workbook header). */
  title: string;
}

/** The title of a field's column: the table title, else the form title, else the name. */
export function columnTitle(field: FieldDefinition): string {
  return field.views.title || field.edit.title || field.name;
}

/** The columns of a list of fields. */
export function transferColumns(fields: readonly FieldDefinition[]): TransferColumn[] {
  return fields.map((field) => ({ field, name: field.name, title: columnTitle(field) }));
}

/** The spreadsheet letter of a 0-based column index (0 → A, 26 → AA). */
export function columnLetter(index: number): string {
  let n = index + 1;
  let out = '';
  while (n > 0) {
    const rest = (n - 1) % 26;
    out = String.fromCharCode(65 + rest) + out;
    n = Math.floor((n - 1) / 26);
  }
  return out;
}

/** Where a cell is, as a person finds it in a spreadsheet: `row 3, column B (Title)` (the header is row 1). */
export function cellPosition(sheetRow: number, columnIndex: number | undefined, title?: string): string {
  if (columnIndex === undefined || columnIndex < 0) return `row ${sheetRow}`;
  return `row ${sheetRow}, column ${columnLetter(columnIndex)}${title ? ` (${title})` : ''}`;
}

/** One key per text, `null` where two entries share it. */
function uniqueIndex(entries: ReadonlyArray<[string, string]>): Map<string, string | null> {
  const index = new Map<string, string | null>();
  for (const [text, name] of entries) index.set(text, index.has(text) && index.get(text) !== name ? null : name);
  return index;
}

/**
 * Matches a header row to fields, the one convention of CSV and workbook imports: a cell names a
 * field by its name (exactly, then case-insensitively) or, failing that, by its column title
 * (case-insensitively). Trimmed. A name or title two fields share names neither.
 * @returns the field name per header cell (`undefined` for an unknown one)
 */
export function matchHeader(model: ModelDefinition, header: readonly string[]): Array<string | undefined> {
  const fields = Object.values(model.fields);
  const byName = uniqueIndex(fields.map((f) => [f.name.toLowerCase(), f.name]));
  const byTitle = uniqueIndex(fields.map((f) => [columnTitle(f).trim().toLowerCase(), f.name]));
  return header.map((cell) => {
    const text = cell.trim();
    if (Object.hasOwn(model.fields, text)) return text;
    const lower = text.toLowerCase();
    return byName.get(lower) ?? byTitle.get(lower) ?? undefined;
  });
}

/**
 * The header an export and a template write, the same for CSV and workbooks: each column's title,
 * or its field name where the title would not lead back to that field (two columns share it, or
 * it reads as another field's name), so every exported file imports back.
 */
export function headerCells(model: ModelDefinition, columns: readonly TransferColumn[]): string[] {
  return columns.map((c) => (matchHeader(model, [c.title])[0] === c.name ? c.title : c.name));
}

function choiceLabel(field: FieldDefinition, value: unknown): unknown {
  const choice = (field.edit.choices ?? []).find((c) => Object.is(c.value, value));
  return choice ? (choice.label ?? String(choice.value)) : value;
}

/**
 * The choice value a cell names: exports write labels, so a label is looked up first; a cell that
 * is no label but spells a choice's value means that value (hand-written files, older exports).
 */
function choiceValue(field: FieldDefinition, cell: unknown): unknown {
  if (typeof cell !== 'string') return cell;
  const text = cell.trim();
  const choices = field.edit.choices ?? [];
  const byLabel = choices.find((c) => c.label !== undefined && c.label === text);
  if (byLabel) return byLabel.value;
  const byValue = choices.find((c) => String(c.value) === text);
  return byValue ? byValue.value : text;
}


function utcDate(text: string): Date | undefined {
  const date = new Date(/^\d{4}-\d{2}-\d{2}$/.test(text) ? `${text}T00:00:00Z` : text);
  return Number.isNaN(date.getTime()) ? undefined : date;
}

/** A cell value written to a workbook: numbers, booleans and dates typed, choices as labels, lists as JSON. */
export type SheetValue = string | number | boolean | Date | null;

/**
 * A field's form value (what `toFormRow` gives) as a workbook cell. Text stays text whatever it
 * starts with: the writer stores it as a string cell, which a spreadsheet never runs as a formula.
 */
export function toSheetValue(field: FieldDefinition, value: unknown): SheetValue {
  if (value === null || value === undefined) return null;
  switch (field.edit.type) {
    case EditType.DATE:
    case EditType.DATETIME:
      return typeof value === 'string' ? (utcDate(value) ?? value) : value instanceof Date ? value : String(value);
    case EditType.CHOICE:
      return String(choiceLabel(field, value));
    case EditType.MULTI_CHOICE:
      return JSON.stringify(Array.isArray(value) ? value.map((v) => choiceLabel(field, v)) : value);
    default:
      if (Array.isArray(value)) return JSON.stringify(value);
      if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'string') return value;
      return String(value);
  }
}

/**
 * A field's form value as a CSV cell: what the workbook holds ({@link toSheetValue}: choice labels,
 * lists as JSON), with dates as `YYYY-MM-DD` and date-times as ISO text.
 */
export function toCsvValue(field: FieldDefinition, value: unknown): unknown {
  const cell = toSheetValue(field, value);
  if (!(cell instanceof Date)) return cell;
  return field.edit.type === EditType.DATE ? cell.toISOString().slice(0, 10) : cell.toISOString();
}

/** The number format of a typed workbook column, if it has one. */
export function sheetNumberFormat(field: FieldDefinition): string | undefined {
  if (field.edit.type === EditType.DATE) return 'yyyy-mm-dd';
  if (field.edit.type === EditType.DATETIME) return 'yyyy-mm-dd hh:mm:ss';
  return undefined;
}

const pad = (n: number) => String(n).padStart(2, '0');

/**
 * A cell read from a workbook (or a CSV text) as the input `readEntity` converts and checks:
 * dates typed as dates become `YYYY-MM-DD` / ISO text, choice labels become choice values, rich
 * text its plain text. A formula cell is refused, never evaluated nor taken from its cached
 * result (a cached result can be stale or missing, so the import could store a value nobody saw).
 * @returns the input, or the reason the cell is refused
 */
export function fromSheetValue(field: FieldDefinition, cell: unknown): { value: unknown } | { error: string; type: string } {
  if (cell === null || cell === undefined) return { value: null };
  if (typeof cell === 'object' && !(cell instanceof Date)) {
    const object = cell as Record<string, unknown>;
    if ('formula' in object || 'sharedFormula' in object) return { error: 'is a formula; formulas are not imported (paste it as a value)', type: 'formula' };
    if ('error' in object) return { error: `is an error cell (${String(object.error)})`, type: 'typeError' };
    if (Array.isArray(object.richText)) return fromSheetValue(field, (object.richText as Array<{ text?: unknown }>).map((r) => String(r.text ?? '')).join(''));
    if ('text' in object) return fromSheetValue(field, object.text);
    return { error: 'is not a value a cell can hold', type: 'typeError' };
  }
  if (cell instanceof Date) {
    if (Number.isNaN(cell.getTime())) return { error: 'is not a valid date', type: 'typeError' };
    // Workbook dates carry no zone: exceljs reads them as UTC, and so the calendar day is the UTC one.
    if (field.edit.type === EditType.DATE) return { value: `${cell.getUTCFullYear()}-${pad(cell.getUTCMonth() + 1)}-${pad(cell.getUTCDate())}` };
    return { value: cell.toISOString() };
  }
  switch (field.edit.type) {
    case EditType.CHOICE:
      return { value: choiceValue(field, cell) };
    case EditType.MULTI_CHOICE: {
      if (typeof cell !== 'string' || !cell.trim().startsWith('[')) return { value: cell };
      try {
        const list: unknown = JSON.parse(cell);
        return { value: Array.isArray(list) ? list.map((item) => choiceValue(field, item)) : cell };
      } catch {
        return { value: cell };
      }
    }
    default:
      return { value: cell };
  }
}

/**
 * An import error detail with its spreadsheet position: the message starts with it, `row` (the
 * header is row 1) and `column` (a letter) locate the cell; `path` stays what the caller gave.
 */
export function positioned(detail: FwErrorDetail, sheetRow: number, columnIndex: number | undefined, title: string | undefined): FwErrorDetail & { row: number; column?: string } {
  const at = cellPosition(sheetRow, columnIndex, title);
  return {
    ...detail,
    message: `${at}: ${detail.message}`,
    row: sheetRow,
    ...(columnIndex !== undefined && columnIndex >= 0 ? { column: columnLetter(columnIndex) } : {}),
  };
}
