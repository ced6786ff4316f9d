import ExcelJS from 'exceljs';
import { EditType, type FieldDefinition } from '@fw/core';
import { columnLetter, columnTitle, toSheetValue, sheetNumberFormat, type SheetValue, type TransferColumn } from './cells.js';
import { csvLines } from './csv.js';

/** Rows of the template's drop-down lists: enough for a long paste, small enough to stay light. */
const VALIDATED_ROWS = 10_000;

/** A plausible value of a field for the template's example row: its default, else one of its type. */
export function exampleValue(field: FieldDefinition): unknown {
  const fallback = field.edit.defaultValue;
  if (fallback !== undefined && fallback !== null && typeof fallback !== 'function') return fallback;
  switch (field.edit.type) {
    case EditType.NUMBER:
      return field.edit.integer ? 1 : 1.5;
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
      return field.edit.integer ? 1 : 'text';
    default:
      return `Example ${columnTitle(field)}`;
  }
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
export async function templateWorkbook(sheetName: string, columns: readonly TransferColumn[]): Promise<Buffer> {
  const workbook = new ExcelJS.Workbook();
  const sheet = workbook.addWorksheet(sheetName.slice(0, 31) || 'Sheet1', { views: [{ state: 'frozen', ySplit: 1 }] });
  const lists = workbook.addWorksheet('Lists', { state: 'hidden' });
  sheet.columns = columns.map((c) => ({ width: Math.min(Math.max(c.title.length + 4, 12), 40) }));
  const header = sheet.addRow(columns.map((c) => c.title));
  header.font = { bold: true };
  const example = sheet.addRow(columns.map((c) => toSheetValue(c.field, exampleValue(c.field)) as SheetValue));
  let listColumn = 0;
  columns.forEach((c, i) => {
    const format = sheetNumberFormat(c.field);
    if (format) example.getCell(i + 1).numFmt = format;
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

/** The import template as CSV: the header of field names and the example row. */
export function templateCsv(columns: readonly TransferColumn[]): string {
  return csvLines([columns.map((c) => c.name), columns.map((c) => exampleValue(c.field))]);
}
