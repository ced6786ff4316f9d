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

/**
 * Matches a header row to fields: a cell names a field by its name or, failing that, by its
 * column title (what the workbook export and the template write). Case-sensitive, trimmed.
 * @returns the field name per header cell (`undefined` for an unknown one)
 */
export function matchHeader(model: ModelDefinition, header: readonly string[]): Array<string | undefined> {
  const byTitle = new Map<string, string | null>();
  for (const field of Object.values(model.fields)) {
    const title = columnTitle(field);
    // A title two fields share names neither: the header must then use the field name.
    byTitle.set(title, byTitle.has(title) ? null : field.name);
  }
  return header.map((cell) => {
    const text = cell.trim();
    if (Object.hasOwn(model.fields, text)) return text;
    return byTitle.get(text) ?? undefined;
  });
}

function choiceLabel(field: FieldDefinition, value: unknown): unknown {
  const choice = (field.edit.choices ?? []).find((c) => Object.is(c.value, value));
  return choice ? (choice.label ?? String(choice.value)) : value;
}

/**
 * The choice value a cell names. A workbook writes labels, so a label is looked up first there; a
 * CSV file writes values, so a value wins there (a label that spells another choice's value then
 * still means that value, and the export imports back).
 */
function choiceValue(field: FieldDefinition, cell: unknown, prefer: CellSource): unknown {
  if (typeof cell !== 'string') return cell;
  const text = cell.trim();
  const choices = field.edit.choices ?? [];
  if (prefer === 'csv' && choices.some((c) => String(c.value) === text)) return text;
  const byLabel = choices.find((c) => c.label !== undefined && c.label === text);
  return byLabel ? byLabel.value : text;
}

/** Where a cell comes from: a workbook (choices as labels) or a CSV file (choices as values). */
export type CellSource = 'xlsx' | 'csv';

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
export function fromSheetValue(field: FieldDefinition, cell: unknown, source: CellSource = 'xlsx'): { value: unknown } | { error: string; type: string } {
  if (cell === null || cell === undefined) return { value: null };
  if (typeof cell === 'object' && !(cell instanceof Date)) {
    const object = cell as Record<string, unknown>;
    if ('formula' in object || 'sharedFormula' in object) return { error: 'is a formula; formulas are not imported (paste it as a value)', type: 'formula' };
    if ('error' in object) return { error: `is an error cell (${String(object.error)})`, type: 'typeError' };
    if (Array.isArray(object.richText)) return fromSheetValue(field, (object.richText as Array<{ text?: unknown }>).map((r) => String(r.text ?? '')).join(''), source);
    if ('text' in object) return fromSheetValue(field, object.text, source);
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
      return { value: choiceValue(field, cell, source) };
    case EditType.MULTI_CHOICE: {
      if (typeof cell !== 'string' || !cell.trim().startsWith('[')) return { value: cell };
      try {
        const list: unknown = JSON.parse(cell);
        return { value: Array.isArray(list) ? list.map((item) => choiceValue(field, item, source)) : cell };
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
