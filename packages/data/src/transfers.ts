// Transfers: exports of visible rows and all-or-nothing imports. Power is checked by the caller;
// rows are read through the row reader (visibility, afterFetch) and written through the audited
// write (hooks, grant rules, one transaction, the operate log).
import { FwError, type FwErrorDetail, type ModelDefinition } from '@fw/core';
import { readEntity, toFormRow, validateRow, type FormRow } from '@fw/row-patch';
import type { FwStore } from '@fw/store';
import { newRow, type AuditedWriter } from './audited-write.js';
import { csvLine, parseCsv, uncsvCell } from './csv.js';
import { dataError } from './error-codes.js';
import { applyConditions, parseTableQuery, type QueryLimits } from './query.js';
import type { RowReader } from './rows.js';
import { isSecret, readColumns } from './secrets.js';
import { hookContext, pkColumn } from './service-util.js';
import type { Actor } from './service-types.js';

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

/** Exports and imports of a model's rows. */
export class Transfers {
  readonly #deps: TransferDeps;

  constructor(deps: TransferDeps) {
    this.#deps = deps;
  }

  /**
   * The visible rows matching the conditions, as CSV lines (header of field names first), for at
   * most `exportMaxRows` rows. The first `next()` reads the first batch of rows, so every failure
   * that can still become an error answer happens there.
   */
  async *exportCsv(model: ModelDefinition, actor: Actor, rawConditions: unknown, rawSort?: unknown): AsyncGenerator<string> {
    const { store, limits, reader, exportMaxRows } = this.#deps;
    const { conditions: asked, sort } = parseTableQuery(model, { conditions: rawConditions, sort: rawSort, size: 1 }, limits);
    const conditions = [...asked, ...(await reader.visibility(model, actor, 'export'))];
    const fields = Object.values(model.fields).filter((f) => f.stored && !isSecret(f));
    const pk = `${model.table}.${pkColumn(model)}`;
    const batch = 1000;
    const read = async (offset: number) => {
      const qb = applyConditions(store.knex(model.table).select(readColumns(model)), model, conditions);
      for (const s of sort) qb.orderBy(`${model.table}.${model.fields[s.field]!.column}`, s.order);
      const rows: Array<Record<string, unknown>> = await qb.orderBy(pk, 'asc').limit(Math.min(batch, exportMaxRows - offset)).offset(offset);
      return { count: rows.length, shown: await reader.afterFetch(model, actor, 'export', rows.map((r) => toFormRow(model, r))) };
    };
    // The first batch is read before the header is given out: the route answers once it has the
    // header, so a failing query is still an error response, not a 200 cut off after one line.
    let page = await read(0);
    yield csvLine(fields.map((f) => f.name));
    for (let offset = 0; ; ) {
      for (const row of page.shown) yield csvLine(fields.map((f) => row[f.name]));
      offset += batch;
      if (page.count < batch || offset >= exportMaxRows) break;
      page = await read(offset);
    }
  }

  /**
   * Imports CSV rows (header = field names), all or nothing: every row is converted and
   * validated, and hooks run, inside one transaction.
   * @param codes the actor's menu codes when grant rules apply to the model.
   */
  async importCsv(model: ModelDefinition, actor: Actor, text: string, codes: ReadonlySet<string> | undefined): Promise<{ imported: number }> {
    const { store, writer, importMaxRows } = this.#deps;
    const importer = { ...actor, source: 'import' as const };
    const context = hookContext(model, importer, 'import');
    return writer.logged(model, importer, 'import', null, { bytes: Buffer.byteLength(text) }, async (log) => {
      const { header, rows } = parseCsv(text, { maxRows: importMaxRows, maxColumns: 500 });
      log.request = { rows: rows.length, columns: header };
      const unknown = header.filter((h) => !Object.hasOwn(model.fields, h));
      if (unknown.length > 0) throw dataError('UNKNOWN_FIELD', `${model.name} has no field ${unknown.join(', ')}`, unknown.map((h) => ({ path: h, type: 'unknownField', message: `unknown column ${h}` })));
      // The key and read-only columns of an exported file are skipped, so an export imports back.
      const columns = header.map((h, i) => ({ name: h, index: i })).filter(({ name }) => !model.fields[name]!.primaryKey && !model.fields[name]!.edit.readonly);
      const sent = new Set(columns.map((c) => c.name));
      const entities: FormRow[] = [];
      const details: FwErrorDetail[] = [];
      rows.forEach((cells, n) => {
        const body: Record<string, unknown> = {};
        for (const { name, index } of columns) body[name] = uncsvCell(cells[index]!);
        const { values, errors } = readEntity(model, body, 'add');
        for (const e of errors) details.push({ path: `rows[${n + 1}].${e.path ?? ''}`, type: e.type, message: e.message });
        entities.push(values);
      });
      // Every row is checked before anything is written, so the answer names all failing rows.
      for (const [n, values] of entities.entries()) {
        if (details.some((d) => d.path?.startsWith(`rows[${n + 1}].`))) continue;
        for (const e of await validateRow(model, newRow(model, values), { dialect: store.dialect })) details.push({ ...e, path: `rows[${n + 1}].${e.path ?? ''}` });
      }
      if (details.length > 0) throw dataError('IMPORT_FAILED', undefined, details.slice(0, 200));
      return writer.transaction(model, log, async (trx) => {
        for (const [n, values] of entities.entries()) {
          try {
            await writer.insert(model, importer, trx, values, context, sent, codes);
          } catch (error) {
            // A refused grant stays a 403 and a taken key a 409; the other failures name the row.
            if (error instanceof FwError && error.details && error.status !== 403) {
              const details = error.details.map((d) => ({ ...d, path: `rows[${n + 1}].${d.path ?? ''}` }));
              if (error.status === 409) throw new FwError(error.code, `Row ${n + 1}: ${error.message}`, { status: 409, details });
              throw dataError('IMPORT_FAILED', `Row ${n + 1}: ${error.message}`, details);
            }
            throw error;
          }
        }
        return { imported: entities.length };
      });
    });
  }
}
