// Transfers: exports of visible rows (CSV, XLSX) and all-or-nothing imports (CSV, XLSX), and the
// import template. Power is checked by the caller; rows are read through the row reader
// (visibility, afterFetch) and written through the audited write (hooks, grant rules, one
// transaction, the operate log). The file formats live in ./transfer/.
import type { Readable } from 'node:stream';
import { EditType, type FieldDefinition, type ModelDefinition } from '@fw/core';
import { toFormRow, type FormRow, type StorageDialect } from '@fw/row-patch';
import type { FwStore } from '@fw/store';
import type { AuditedWriter } from '../write/audited-write.js';
import { seekBatches } from '../read/export-reads.js';
import { applyConditions, parseTableQuery, type QueryLimits } from '../read/query.js';
import type { RowReader } from '../read/rows.js';
import { isSecret, readColumns } from '../write/secrets.js';
import type { Actor } from '../service-types.js';
import { headerCells, sheetNumberFormat, toCsvValue, toSheetValue, transferColumns, type TransferColumn } from './cells.js';
import { csvLines, parseCsv } from './csv.js';
import { exampleRow, exampleValue, templateCsv, templateWorkbook } from './template.js';
import { runImport, type ImportRequest, type ImportResult } from './transfer-import.js';
import { readWorkbook, workbookStream } from './xlsx.js';

/** What {@link Transfers} need. */
export interface TransferDeps {
  store: FwStore;
  limits: QueryLimits;
  reader: RowReader;
  writer: AuditedWriter;
  /** Most rows one export writes. */
  exportMaxRows: number;
  /** Most rows one import reads. */
  importMaxRows: number;
  /** Rows per export read. @default 1000 */
  exportBatchRows?: number;
  /** Rows per multi-row INSERT of an import. @default 500 */
  importBatchRows?: number;
}

/** A file format of exports, imports and the template. */
export type TransferFormat = 'csv' | 'xlsx';

/** How an import runs: its mode, the actor's power and grant codes. */
export type ImportOptions = Pick<ImportRequest, 'mode' | 'power' | 'codes'>;

const MAX_COLUMNS = 500;
const EXPORT_BATCH = 1000;

/** An ATTACHMENT value as file names (exports show names; the files themselves are not exported). */
function attachmentNames(value: unknown): string | null {
  if (!Array.isArray(value)) return value === null || value === undefined ? null : String(value);
  return value.map((file) => (file && typeof file === 'object' ? String((file as { name?: unknown }).name ?? '') : String(file))).join(', ');
}

/** Exports and imports of a model's rows, and the import template. */
export class Transfers {
  readonly #deps: TransferDeps;

  constructor(deps: TransferDeps) {
    this.#deps = deps;
  }

  /** The exported columns: stored fields and collections, never secrets. */
  exportColumns(model: ModelDefinition): TransferColumn[] {
    return exportColumnsOf(model);
  }

  /** The columns of the import template: what an import writes (no key, read-only, secret or attachment field). */
  templateColumns(model: ModelDefinition): TransferColumn[] {
    return templateColumnsOf(model);
  }

  /**
   * The visible rows matching the conditions, a batch of at most `exportBatchRows` form rows at a
   * time (with their collections), for at most `exportMaxRows` rows, in the sort's order then the
   * key's. Each batch after the first is read by a keyset seek past the previous batch's last row
   * (see export-reads.ts), never by OFFSET. The first `next()` reads the first batch, so every
   * failure that can still become an error answer happens there.
   */
  async *exportRows(model: ModelDefinition, actor: Actor, rawConditions: unknown, rawSort?: unknown): AsyncGenerator<FormRow[]> {
    const { store, limits, reader, exportMaxRows } = this.#deps;
    const { conditions: asked, sort } = parseTableQuery(model, { conditions: rawConditions, sort: rawSort, size: 1 }, limits);
    const conditions = [...asked, ...(await reader.visibility(model, actor, 'export'))];
    const key = Object.values(model.fields).find((f) => f.primaryKey)!.name;
    const collected = Object.values(model.fields).some((f) => f.edit.type === EditType.COLLECTION);
    const batches = seekBatches({
      knex: store.knex,
      dialect: store.dialect,
      model,
      query: () => applyConditions(store.knex(model.table).select(readColumns(model)), model, conditions),
      sort,
      batchRows: this.#deps.exportBatchRows ?? EXPORT_BATCH,
      maxRows: exportMaxRows,
    });
    for await (const rows of batches) {
      const form = rows.map((r) => toFormRow(model, r));
      if (collected && form.length > 0) {
        const links = await reader.collections(model, store.knex, form.map((r) => Number(r[key])));
        for (const row of form) Object.assign(row, links.get(Number(row[key])));
      }
      yield await reader.afterFetch(model, actor, 'export', form);
    }
  }

  /**
   * The visible rows as CSV text chunks: the header first (the workbook's: column titles, see
   * `headerCells`), then a chunk per batch, choices as labels (as the workbook writes them).
   * Formula-looking text is disarmed with an apostrophe that the import removes again.
   */
  async *exportCsv(model: ModelDefinition, actor: Actor, rawConditions: unknown, rawSort?: unknown): AsyncGenerator<string> {
    const columns = this.exportColumns(model);
    const batches = this.exportRows(model, actor, rawConditions, rawSort);
    // The first batch is read before the header is given out: the route answers once it has the
    // header, so a failing query is still an error response, not a 200 cut off after one line.
    const first = await batches.next();
    yield csvLines([headerCells(model, columns)]);
    const cell = (c: TransferColumn, row: FormRow) => (isAttachment(c.field) ? attachmentNames(row[c.name]) : toCsvValue(c.field, row[c.name]));
    if (!first.done) yield csvLines(first.value.map((row) => columns.map((c) => cell(c, row))));
    for await (const batch of batches) yield csvLines(batch.map((row) => columns.map((c) => cell(c, row))));
  }

  /**
   * The visible rows as an `.xlsx` workbook, streamed: typed cells (numbers, dates, booleans,
   * choice labels), the column titles as a frozen, filtered header. Text is written as text
   * cells, so a value starting with `=` stays text. Resolves once the first batch is read.
   */
  async exportXlsx(model: ModelDefinition, actor: Actor, rawConditions: unknown, rawSort?: unknown): Promise<Readable> {
    const columns = this.exportColumns(model);
    const batches = this.exportRows(model, actor, rawConditions, rawSort);
    const first = await batches.next();
    const titles = headerCells(model, columns);
    const cells = (rows: FormRow[]) => rows.map((row) => columns.map((c) => (isAttachment(c.field) ? attachmentNames(row[c.name]) : toSheetValue(c.field, row[c.name]))));
    return workbookStream(
      model.name,
      columns.map((c, i) => ({ title: titles[i]!, numFmt: sheetNumberFormat(c.field) })),
      (async function* () {
        if (first.done) return;
        yield cells(first.value);
        for await (const batch of batches) yield cells(batch);
      })(),
    );
  }

  /**
   * The import template: the header (as exports write it) and one example row that passes the
   * model's rules; a workbook with drop-down lists, or CSV.
   */
  async template(model: ModelDefinition, format: TransferFormat): Promise<Buffer | string> {
    const columns = this.templateColumns(model);
    const titles = headerCells(model, columns);
    const titled = columns.map((c, i) => ({ ...c, title: titles[i]! }));
    const example = await exampleRow(model, columns, this.#deps.store.dialect);
    return format === 'csv' ? templateCsv(titled, example) : templateWorkbook(model.name, titled, example);
  }

  /**
   * Imports CSV rows (header = field names or column titles, any case), all or nothing, in `mode`
   * (see {@link runImport}).
   * @param power the actor's power on the model (`add` for added rows, `edit` for updated ones).
   * @param codes the actor's menu codes when grant rules apply to the model.
   */
  async importCsv(model: ModelDefinition, actor: Actor, text: string, options: ImportOptions): Promise<ImportResult> {
    const read = async () => parseCsv(text, { maxRows: this.#deps.importMaxRows, maxColumns: MAX_COLUMNS });
    return runImport(this.#deps, { model, actor, format: 'csv', bytes: Buffer.byteLength(text), read, ...options });
  }

  /**
   * Imports the first worksheet of an `.xlsx` workbook (header = field names or column titles),
   * all or nothing, like {@link importCsv}. Formula cells are refused (see `fromSheetValue`).
   */
  async importXlsx(model: ModelDefinition, actor: Actor, file: Buffer, options: ImportOptions): Promise<ImportResult> {
    const read = () => readWorkbook(file, { maxRows: this.#deps.importMaxRows, maxColumns: MAX_COLUMNS });
    return runImport(this.#deps, { model, actor, format: 'xlsx', bytes: file.length, read, ...options });
  }
}

function exportColumnsOf(model: ModelDefinition): TransferColumn[] {
  return transferColumns(Object.values(model.fields).filter((f) => (f.stored || f.edit.type === EditType.COLLECTION) && !isSecret(f)));
}

function templateColumnsOf(model: ModelDefinition): TransferColumn[] {
  return exportColumnsOf(model).filter((c) => !c.field.primaryKey && !c.field.edit.readonly && !isAttachment(c.field));
}

/**
 * The example row of a model's import template (form values by field name) and the fields whose
 * example the model's rules refused, so the template leaves them empty (a test keeps that list
 * empty for the built-in and demo models).
 */
export async function templateExample(model: ModelDefinition, dialect?: StorageDialect): Promise<{ row: FormRow; emptied: string[] }> {
  const columns = templateColumnsOf(model);
  const row = await exampleRow(model, columns, dialect);
  return { row, emptied: columns.filter((c) => row[c.name] === null && exampleValue(c.field) !== null).map((c) => c.name) };
}

function isAttachment(field: FieldDefinition): boolean {
  return (field.edit.type as string) === 'ATTACHMENT';
}
