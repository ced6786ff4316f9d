// Transfers: exports of visible rows (CSV, XLSX) and all-or-nothing imports (CSV, XLSX), and the
// import template. Power is checked by the caller; rows are read through the row reader
// (visibility, afterFetch) and written through the audited write (hooks, grant rules, one
// transaction, the operate log). The file formats live in ./transfer/.
import type { Readable } from 'node:stream';
import { EditType, FwError, type FieldDefinition, type FwErrorDetail, type ModelDefinition } from '@fw/core';
import { readEntity, toFormRow, validateRow, type FormRow } from '@fw/row-patch';
import type { FwStore } from '@fw/store';
import { newRow, type AuditedWriter } from './audited-write.js';
import { dataError } from './error-codes.js';
import { checkGrants } from './grant-rules.js';
import { applyConditions, parseTableQuery, type QueryLimits } from './query.js';
import type { RowReader } from './rows.js';
import { isSecret, readColumns } from './secrets.js';
import { hookContext, pkColumn } from './service-util.js';
import type { Actor } from './service-types.js';
import { columnLetter, fromSheetValue, matchHeader, positioned, sheetNumberFormat, toSheetValue, transferColumns, type TransferColumn } from './transfer/cells.js';
import { csvLines, parseCsv, uncsvCell } from './transfer/csv.js';
import { templateCsv, templateWorkbook } from './transfer/template.js';
import { readWorkbook, workbookStream } from './transfer/xlsx.js';

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
}

/** A file format of exports, imports and the template. */
export type TransferFormat = 'csv' | 'xlsx';

/** A table read from an import file: the header cells and the data rows' cells. */
interface ImportTable {
  header: string[];
  rows: unknown[][];
  /** The sheet row of each data row (a workbook's empty rows are skipped); else the header is row 1 and data rows follow. */
  rowNumbers?: number[];
}

const MAX_COLUMNS = 500;
const BATCH = 1000;

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
    return transferColumns(Object.values(model.fields).filter((f) => (f.stored || f.edit.type === EditType.COLLECTION) && !isSecret(f)));
  }

  /** The columns of the import template: what an import writes (no key, read-only, secret or attachment field). */
  templateColumns(model: ModelDefinition): TransferColumn[] {
    return this.exportColumns(model).filter((c) => !c.field.primaryKey && !c.field.edit.readonly && !isAttachment(c.field));
  }

  /**
   * The visible rows matching the conditions, a batch of at most 1000 form rows at a time (with
   * their collections), for at most `exportMaxRows` rows. The first `next()` reads the first
   * batch, so every failure that can still become an error answer happens there.
   */
  async *exportRows(model: ModelDefinition, actor: Actor, rawConditions: unknown, rawSort?: unknown): AsyncGenerator<FormRow[]> {
    const { store, limits, reader, exportMaxRows } = this.#deps;
    const { conditions: asked, sort } = parseTableQuery(model, { conditions: rawConditions, sort: rawSort, size: 1 }, limits);
    const conditions = [...asked, ...(await reader.visibility(model, actor, 'export'))];
    const pk = `${model.table}.${pkColumn(model)}`;
    const key = Object.values(model.fields).find((f) => f.primaryKey)!.name;
    const collected = Object.values(model.fields).some((f) => f.edit.type === EditType.COLLECTION);
    const read = async (offset: number) => {
      const qb = applyConditions(store.knex(model.table).select(readColumns(model)), model, conditions);
      for (const s of sort) qb.orderBy(`${model.table}.${model.fields[s.field]!.column}`, s.order);
      const rows: Array<Record<string, unknown>> = await qb.orderBy(pk, 'asc').limit(Math.min(BATCH, exportMaxRows - offset)).offset(offset);
      const form = rows.map((r) => toFormRow(model, r));
      if (collected && form.length > 0) {
        const links = await reader.collections(model, store.knex, form.map((r) => Number(r[key])));
        for (const row of form) Object.assign(row, links.get(Number(row[key])));
      }
      return { count: rows.length, shown: await reader.afterFetch(model, actor, 'export', form) };
    };
    let page = await read(0);
    for (let offset = 0; ; ) {
      yield page.shown;
      offset += BATCH;
      if (page.count < BATCH || offset >= exportMaxRows) break;
      page = await read(offset);
    }
  }

  /**
   * The visible rows as CSV text chunks: the header of field names first, then a chunk per batch.
   * Formula-looking text is disarmed with an apostrophe that the import removes again.
   */
  async *exportCsv(model: ModelDefinition, actor: Actor, rawConditions: unknown, rawSort?: unknown): AsyncGenerator<string> {
    const columns = this.exportColumns(model);
    const batches = this.exportRows(model, actor, rawConditions, rawSort);
    // The first batch is read before the header is given out: the route answers once it has the
    // header, so a failing query is still an error response, not a 200 cut off after one line.
    const first = await batches.next();
    yield csvLines([columns.map((c) => c.name)]);
    const cell = (c: TransferColumn, row: FormRow) => (isAttachment(c.field) ? attachmentNames(row[c.name]) : row[c.name]);
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
    const titles = headerTitles(columns);
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

  /** The import template: the header and one example row; a workbook with drop-down lists, or CSV. */
  async template(model: ModelDefinition, format: TransferFormat): Promise<Buffer | string> {
    const columns = this.templateColumns(model);
    if (format === 'csv') return templateCsv(columns);
    const titles = headerTitles(columns);
    return templateWorkbook(
      model.name,
      columns.map((c, i) => ({ ...c, title: titles[i]! })),
    );
  }

  /**
   * Imports CSV rows (header = field names or column titles), all or nothing.
   * @param codes the actor's menu codes when grant rules apply to the model.
   */
  async importCsv(model: ModelDefinition, actor: Actor, text: string, codes: ReadonlySet<string> | undefined): Promise<{ imported: number }> {
    const read = async () => parseCsv(text, { maxRows: this.#deps.importMaxRows, maxColumns: MAX_COLUMNS });
    return this.#import(model, actor, 'csv', Buffer.byteLength(text), read, codes);
  }

  /**
   * Imports the first worksheet of an `.xlsx` workbook (header = column titles or field names),
   * all or nothing. Formula cells are refused (see `fromSheetValue`).
   */
  async importXlsx(model: ModelDefinition, actor: Actor, file: Buffer, codes: ReadonlySet<string> | undefined): Promise<{ imported: number }> {
    const read = () => readWorkbook(file, { maxRows: this.#deps.importMaxRows, maxColumns: MAX_COLUMNS });
    return this.#import(model, actor, 'xlsx', file.length, read, codes);
  }

  /**
   * Every row is converted and validated before anything is written, so the answer names all
   * failing cells (`rows[n].field` paths, with `row` and `column` of the spreadsheet); then hooks
   * run and rows are inserted inside one transaction.
   */
  async #import(model: ModelDefinition, actor: Actor, format: TransferFormat, bytes: number, read: () => Promise<ImportTable>, codes: ReadonlySet<string> | undefined): Promise<{ imported: number }> {
    const { store, writer } = this.#deps;
    const importer = { ...actor, source: 'import' as const };
    const context = hookContext(model, importer, 'import');
    return writer.logged(model, importer, 'import', null, { format, bytes }, async (log) => {
      const { header, rows, rowNumbers } = await read();
      log.request = { format, rows: rows.length, columns: header };
      const names = matchHeader(model, header);
      // A column without a header (a blank header cell, the tail of a merged one) is skipped when empty.
      const blank = header.map((h, i) => ({ h, i })).filter(({ h }) => h === '');
      const stray = blank.filter(({ i }) => rows.some((cells) => cells[i] !== null && cells[i] !== undefined && cells[i] !== ''));
      if (stray.length > 0) {
        const details = stray.map(({ i }) => ({ path: '', type: 'noHeader', message: `column ${columnLetter(i)} has values but no header`, column: columnLetter(i) }));
        throw dataError('BAD_QUERY', details.map((d) => d.message).join('; '), details);
      }
      const unknown = header.map((h, i) => ({ h, i })).filter(({ h, i }) => names[i] === undefined && h !== '');
      if (unknown.length > 0) {
        const details = unknown.map(({ h, i }) => ({ path: h, type: 'unknownField', message: `column ${columnLetter(i)}: unknown column ${h}`, column: columnLetter(i) }));
        throw dataError('UNKNOWN_FIELD', `${model.name} has no field ${unknown.map((u) => u.h).join(', ')}`, details);
      }
      const twice = names.filter((n, i) => n !== undefined && names.indexOf(n) !== i);
      if (twice.length > 0) throw dataError('BAD_QUERY', `the column of ${[...new Set(twice)].join(', ')} is given twice`);
      // The key, read-only and attachment columns of an exported file are skipped, so an export imports back.
      const columns = names
        .flatMap((name, index) => (name === undefined ? [] : [{ field: model.fields[name]!, index }]))
        .filter(({ field }) => !field.primaryKey && !field.edit.readonly && !isAttachment(field));
      const indexOf = new Map(columns.map((c) => [c.field.name, c.index]));
      const at = (n: number, detail: FwErrorDetail) => {
        const field = detail.path !== undefined ? model.fields[detail.path] : undefined;
        return positioned({ ...detail, path: `rows[${n}].${detail.path ?? ''}` }, rowNumbers?.[n - 1] ?? n + 1, field ? indexOf.get(field.name) : undefined, field ? header[indexOf.get(field.name) ?? -1] : undefined);
      };
      const sent = new Set(columns.map((c) => c.field.name));
      const entities: FormRow[] = [];
      const details: FwErrorDetail[] = [];
      rows.forEach((cells, i) => {
        const n = i + 1;
        const body: Record<string, unknown> = {};
        for (const { field, index } of columns) {
          const raw = cells[index];
          const cell = fromSheetValue(field, format === 'csv' && typeof raw === 'string' ? uncsvCell(raw) : raw, format);
          if ('error' in cell) {
            details.push(at(n, { path: field.name, type: cell.type, message: `${field.edit.title} ${cell.error}` }));
          } else body[field.name] = cell.value;
        }
        const { values, errors } = readEntity(model, body, 'add');
        for (const e of errors) details.push(at(n, { path: e.path ?? '', type: e.type, message: e.message }));
        entities.push(values);
      });
      // What a non-administrator may not grant is refused as such (403) before the values are
      // judged, as a single add is; the transaction below checks each row again as it is written.
      if (codes) for (const values of entities) await checkGrants({ model, actorId: actor.user.id, codes, db: store.knex, op: 'add', next: newRow(model, values) });
      for (const [i, values] of entities.entries()) {
        // A row whose cells did not convert is still checked, so the answer names all its failing
        // cells; a cell already named is not named again (its value is missing, not empty).
        const named = new Set(details.filter((d) => d.path?.startsWith(`rows[${i + 1}].`)).map((d) => d.path));
        for (const e of await validateRow(model, newRow(model, values), { dialect: store.dialect })) {
          const detail = at(i + 1, { ...e });
          if (!named.has(detail.path)) details.push(detail);
        }
      }
      if (details.length > 0) throw dataError('IMPORT_FAILED', undefined, details.slice(0, 200));
      return writer.transaction(model, log, async (trx) => {
        for (const [i, values] of entities.entries()) {
          try {
            await writer.insert(model, importer, trx, values, context, sent, codes);
          } catch (error) {
            // A refused grant stays a 403 and a taken key a 409; the other failures name the row.
            if (error instanceof FwError && error.details && error.status !== 403) {
              const placed = error.details.map((d) => at(i + 1, d));
              if (error.status === 409) throw new FwError(error.code, `Row ${i + 1}: ${error.message}`, { status: 409, details: placed });
              throw dataError('IMPORT_FAILED', `Row ${i + 1}: ${error.message}`, placed);
            }
            throw error;
          }
        }
        return { imported: entities.length };
      });
    });
  }
}

function isAttachment(field: FieldDefinition): boolean {
  return (field.edit.type as string) === 'ATTACHMENT';
}

/** The workbook header: each column's title, or its field name where two columns share a title. */
function headerTitles(columns: readonly TransferColumn[]): string[] {
  return columns.map((c) => (columns.filter((o) => o.title === c.title).length > 1 ? c.name : c.title));
}
