import ExcelJS from 'exceljs';
import { EditType, type FieldDefinition, type ModelDefinition } from '@fw/core';
import { validateRow, type FormRow, type StorageDialect } from '@fw/row-patch';
import { newRow } from '../write/row-changes.js';
import { columnLetter, columnTitle, toCsvValue, toSheetValue, sheetNumberFormat, type SheetValue, type TransferColumn } from './cells.js';
import { csvLines } from './csv.js';

/** Rows of the template's drop-down lists: enough for a long paste, small enough to stay light. */
const VALIDATED_ROWS = 10_000;

/** Texts tried, in order, against a field's `pattern` rules (an ISBN, a URL, an e-mail, a code…). */
const PATTERN_SAMPLES = ['9780441172719', '0441172717', 'https://example.com', 'user@example.com', 'ABC-123', 'example', 'Example', '12345', 'a1', 'A'];

/** A text example fitted to the field's `length` and `pattern` rules, if one fits. */
function textExample(field: FieldDefinition): string {
  const rules = field.rules ?? [];
  const patterns = rules.flatMap((r) => (r.type === 'pattern' ? [typeof r.pattern === 'string' ? new RegExp(r.pattern) : r.pattern] : []));
  const fits = (text: string) => patterns.every((p) => new RegExp(p.source, p.flags.replace(/[gy]/g, '')).test(text));
  let text = [`Example ${columnTitle(field)}`, ...PATTERN_SAMPLES].find(fits) ?? `Example ${columnTitle(field)}`;
  for (const rule of rules) {
    if (rule.type !== 'length') continue;
    if (rule.max !== undefined && text.length > rule.max) text = text.slice(0, rule.max);
    if (rule.min !== undefined && text.length < rule.min) text = text.padEnd(rule.min, 'x');
  }
  return text;
}

/** A number example inside the field's `range` rules. */
function numberExample(field: FieldDefinition): number {
  let value = field.edit.integer ? 1 : 1.5;
  for (const rule of field.rules ?? []) {
    if (rule.type !== 'range') continue;
    if (typeof rule.min === 'number' && value < rule.min) value = rule.min;
    if (typeof rule.max === 'number' && value > rule.max) value = rule.max;
  }
  return value;
}

/**
 * A plausible value of a field for the template's example row: its default, else one of its
 * type fitted to its rules (length, range, pattern). {@link exampleRow} then checks the whole row
 * against the model's rules.
 */
export function exampleValue(field: FieldDefinition): unknown {
  const fallback = field.edit.defaultValue;
  if (fallback !== undefined && fallback !== null && typeof fallback !== 'function') return fallback;
  switch (field.edit.type) {
    case EditType.NUMBER:
      return numberExample(field);
    case EditType.BOOLEAN:
      return true;
    case EditType.CHOICE:
      return field.edit.choices?.[0]?.value ?? null;
    case EditType.MULTI_CHOICE:
      return (field.edit.choices ?? []).slice(0, 2).map((c) => c.value);
    case EditType.TAGS:
      return ['first', 'second'];
    case EditType.DATE:
      return '2025-01-31';
    case EditType.DATETIME:
      return '2025-01-31T09:30:00.000Z';
    case EditType.REFERENCE_TABLE:
    case EditType.REFERENCE_TREE:
      return 1;
    case EditType.COLLECTION:
      return [1, 2];
    case EditType.HIDDEN:
      return field.edit.integer ? numberExample(field) : textExample(field);
    default:
      return textExample(field);
  }
}

/**
 * The template's example row: {@link exampleValue} per column, then checked against the model's
 * own rules (field rules, dynamic and row rules); a value still refused is left empty when the
 * field may be empty, so the example row imports as it stands.
 */
export async function exampleRow(model: ModelDefinition, columns: readonly TransferColumn[], dialect?: StorageDialect): Promise<FormRow> {
  const row: FormRow = Object.fromEntries(columns.map((c) => [c.name, exampleValue(c.field)]));
  for (let round = 0; round < 3; round += 1) {
    const refused = new Set((await validateRow(model, newRow(model, row), { dialect })).map((e) => e.path ?? ''));
    const emptied = columns.filter((c) => refused.has(c.name) && !c.field.edit.notNull && row[c.name] !== null);
    if (emptied.length === 0) break;
    for (const c of emptied) row[c.name] = null;
  }
  return row;
}

/** The drop-down list of a field's cells, if it has one: choice labels, or TRUE/FALSE. */
function listOf(field: FieldDefinition): string[] | undefined {
  if (field.edit.type === EditType.CHOICE) return (field.edit.choices ?? []).map((c) => c.label ?? String(c.value));
  if (field.edit.type === EditType.BOOLEAN) return ['TRUE', 'FALSE'];
  return undefined;
}

/**
 * The import template as a workbook: the header row of column titles (frozen, filtered) and one
 * example row, with drop-down lists (data validation) on CHOICE and BOOLEAN columns. The lists
 * live on a hidden second sheet, so labels with commas work and no 255-character limit applies.
 */
export async function templateWorkbook(sheetName: string, columns: readonly TransferColumn[], example: FormRow): Promise<Buffer> {
  const workbook = new ExcelJS.Workbook();
  const sheet = workbook.addWorksheet(sheetName.slice(0, 31) || 'Sheet1', { views: [{ state: 'frozen', ySplit: 1 }] });
  const lists = workbook.addWorksheet('Lists', { state: 'hidden' });
  sheet.columns = columns.map((c) => ({ width: Math.min(Math.max(c.title.length + 4, 12), 40) }));
  const header = sheet.addRow(columns.map((c) => c.title));
  header.font = { bold: true };
  const exampleCells = sheet.addRow(columns.map((c) => toSheetValue(c.field, example[c.name]) as SheetValue));
  let listColumn = 0;
  columns.forEach((c, i) => {
    const format = sheetNumberFormat(c.field);
    if (format) exampleCells.getCell(i + 1).numFmt = format;
    const list = listOf(c.field);
    if (!list || list.length === 0) return;
    let source = '"TRUE,FALSE"';
    if (c.field.edit.type === EditType.CHOICE) {
      const letter = columnLetter(listColumn);
      listColumn += 1;
      list.forEach((label, n) => (lists.getCell(`${letter}${n + 1}`).value = label));
      source = `Lists!$${letter}$1:$${letter}$${list.length}`;
    }
    const range = `${columnLetter(i)}2:${columnLetter(i)}${VALIDATED_ROWS + 1}`;
    // exceljs types `dataValidations` as a property of the sheet model, not of the sheet.
    (sheet as unknown as { dataValidations: { add(range: string, rule: ExcelJS.DataValidation): void } }).dataValidations.add(range, {
      type: 'list',
      allowBlank: !c.field.edit.notNull,
      formulae: [source],
      showErrorMessage: true,
      errorStyle: 'stop',
      errorTitle: c.title,
      error: `Pick one of the list: ${list.join(', ')}`.slice(0, 255),
    });
  });
  sheet.autoFilter = { from: { row: 1, column: 1 }, to: { row: 1, column: Math.max(columns.length, 1) } };
  return Buffer.from(await workbook.xlsx.writeBuffer());
}

/** The import template as CSV: the same header and example row as the workbook (choices as labels). */
export function templateCsv(columns: readonly TransferColumn[], example: FormRow): string {
  return csvLines([columns.map((c) => c.title), columns.map((c) => toCsvValue(c.field, example[c.name]))]);
}
