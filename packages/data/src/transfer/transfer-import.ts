// An import, all or nothing: the rows of a CSV file or a workbook's first sheet, in one of three
// modes — `add` (every row a new row), `update` (every row names a visible row by its key) or
// `upsert` (a row with a key updates that row, a row without one is added). Every row takes the
// write path of a single add or edit (grant rules, hooks, references) inside one transaction; a row
// whose key matches no row the importer may edit is an error, never a new row. Added rows of a
// model without per-row hooks are written by multi-row INSERTs in the same transaction. Every
// written row gets its operate-log row (add or update, source `import`) in that transaction, all
// carrying the import's batch id, as does the one summary row (action `import`) of the file.
import { randomUUID } from 'node:crypto';
import { FwError, type FieldDefinition, type FwErrorDetail, type ModelDefinition, type PowerObject } from '@fw/core';
import { assertPower } from '@fw/power';
import { readEntity, toFormRow, validateRow, type FormRow } from '@fw/row-patch';
import type { FwStore } from '@fw/store';
import { newRow, type AuditedWriter, type LogNotes } from '../write/audited-write.js';
import type { OperateLogEntry } from '../write/operate-log.js';
import { BatchRowError, batchInsertable } from '../write/batch-insert.js';
import { dataError } from '../error-codes.js';
import type { UpdateState } from '../write/update-recipe.js';
import { checkGrants } from '../write/grant-rules.js';
import { applyConditions } from '../read/query.js';
import type { RowReader } from '../read/rows.js';
import { readColumns } from '../write/secrets.js';
import { hookContext } from '../service-types.js';
import { pkColumn } from '../read/row-keys.js';
import type { Actor } from '../service-types.js';
import { columnLetter, fromSheetValue, matchHeader, positioned } from './cells.js';
import { uncsvCell } from './csv.js';

/** How an import treats its rows. */
export type ImportMode = 'add' | 'update' | 'upsert';

/** The import modes, the first the default. */
export const IMPORT_MODES: readonly ImportMode[] = ['add', 'update', 'upsert'];

/** What an import did: every row written, how many of them were added and updated, and its batch id. */
export interface ImportResult {
  imported: number;
  added: number;
  updated: number;
  /** The batch id of the import's operate-log rows: one per written row, and the file's summary row. */
  batch: string;
}

/** A table read from an import file: the header cells and the data rows' cells. */
export interface ImportTable {
  header: string[];
  rows: unknown[][];
  /** The sheet row of each data row (a workbook's empty rows are skipped); else the header is row 1 and data rows follow. */
  rowNumbers?: number[];
}

/** What an import needs. */
export interface ImportDeps {
  store: FwStore;
  reader: RowReader;
  writer: AuditedWriter;
  /** Added rows per multi-row INSERT. @default 500 */
  importBatchRows?: number;
}

const IMPORT_BATCH = 500;

/** What one import is asked to do. */
export interface ImportRequest {
  model: ModelDefinition;
  actor: Actor;
  /** The actor's power on the model: `add` for added rows, `edit` for updated ones. */
  power: PowerObject;
  mode: ImportMode;
  format: 'csv' | 'xlsx';
  bytes: number;
  read: () => Promise<ImportTable>;
  /** The actor's menu codes when grant rules apply to the model. */
  codes: ReadonlySet<string> | undefined;
}

/** The import mode a request names (`add` when none); 400 for another. */
export function importMode(raw: unknown): ImportMode {
  if (raw === undefined || raw === '') return 'add';
  if (typeof raw === 'string' && (IMPORT_MODES as readonly string[]).includes(raw)) return raw as ImportMode;
  throw new FwError('BAD_REQUEST', `mode must be one of ${IMPORT_MODES.join(', ')}`, { details: [{ path: 'mode', type: 'oneOf', message: `must be one of ${IMPORT_MODES.join(', ')}` }] });
}

function isAttachment(field: FieldDefinition): boolean {
  return (field.edit.type as string) === 'ATTACHMENT';
}

const blank = (cell: unknown) => cell === null || cell === undefined || (typeof cell === 'string' && cell.trim() === '');

/** The key a cell names: a positive safe integer (a number or its digits), else undefined. */
function keyOf(cell: unknown): number | undefined {
  const text = typeof cell === 'number' ? String(cell) : typeof cell === 'string' ? cell.trim() : '';
  if (!/^\d{1,16}$/.test(text)) return undefined;
  const id = Number(text);
  return Number.isSafeInteger(id) && id > 0 ? id : undefined;
}

/** A column letter's order: A < B < … < Z < AA. */
const columnOrder = (column: string | undefined) => (column === undefined ? -1 : column.length * 1000 + column.localeCompare('A'));

/** Import errors sorted by row, then column; errors without a row (the header's) first. */
export function sortDetails(details: FwErrorDetail[]): FwErrorDetail[] {
  const place = (d: FwErrorDetail) => d as FwErrorDetail & { row?: number; column?: string };
  return details
    .map((d, i) => ({ d, i }))
    .sort((a, b) => (place(a.d).row ?? 0) - (place(b.d).row ?? 0) || columnOrder(place(a.d).column) - columnOrder(place(b.d).column) || a.i - b.i)
    .map(({ d }) => d);
}

/** The visible rows (for update) of `ids`, with their collections, keyed by id. */
async function visibleRows(deps: ImportDeps, model: ModelDefinition, actor: Actor, ids: number[]): Promise<Map<number, FormRow>> {
  const conditions = await deps.reader.visibility(model, actor, 'update');
  const found = new Map<number, FormRow>();
  for (let i = 0; i < ids.length; i += 500) {
    const chunk = ids.slice(i, i + 500);
    const qb = applyConditions(deps.store.knex(model.table).select(readColumns(model)).whereIn(`${model.table}.${pkColumn(model)}`, chunk), model, conditions);
    const rows = (await qb) as Array<Record<string, unknown>>;
    const form = rows.map((r) => toFormRow(model, r));
    const links = await deps.reader.collections(model, deps.store.knex, form.map((r) => Number(r[model.primaryKey])));
    for (const row of form) found.set(Number(row[model.primaryKey]), { ...row, ...links.get(Number(row[model.primaryKey])) });
  }
  return found;
}

/** One data row of the file as the import writes it. */
interface PlannedRow {
  /** 1-based data row. */
  n: number;
  values: FormRow;
  /** The row it updates; absent for an added row. */
  id?: number;
  stored?: FormRow;
}

/**
 * Runs an import: header, keys, cells and rules are all checked before anything is written, so the
 * answer names every failing cell (`rows[n].field` paths with the spreadsheet's `row` and
 * `column`, sorted by row then column); then every row is written through the audited write in
 * one transaction, each with its operate-log row (action `add` or `update`, source `import`), and
 * the file's summary row (action `import`); all of them carry the answered batch id.
 */
export async function runImport(deps: ImportDeps, request: ImportRequest): Promise<ImportResult> {
  const { store, writer } = deps;
  const { model, actor, power, mode, format, bytes, read, codes } = request;
  const importer = { ...actor, source: 'import' as const };
  const context = hookContext(model, importer, 'import');
  const batch = randomUUID();
  return writer.logged(model, importer, 'import', null, { format, bytes, mode }, async (log) => {
    log.batch = batch;
    const { header, rows, rowNumbers } = await read();
    log.request = { format, mode, rows: rows.length, columns: header };
    const names = matchHeader(model, header);
    // A column without a header (a blank header cell, the tail of a merged one) is skipped when empty.
    const stray = header.map((h, i) => ({ h, i })).filter(({ h, i }) => h === '' && rows.some((cells) => !blank(cells[i])));
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
    const keyIndex = names.indexOf(model.primaryKey);
    if (mode === 'update' && keyIndex < 0) {
      throw dataError('BAD_QUERY', `mode update matches rows by ${model.primaryKey}: the file has no ${model.primaryKey} column`, [{ path: model.primaryKey, type: 'required', message: `the ${model.primaryKey} column is required in mode update` }]);
    }
    // The key (unless it matches rows), read-only and attachment columns of an exported file are skipped, so an export imports back.
    const columns = names
      .flatMap((name, index) => (name === undefined ? [] : [{ field: model.fields[name]!, index }]))
      .filter(({ field }) => !field.primaryKey && !field.edit.readonly && !isAttachment(field));
    const indexOf = new Map(columns.map((c) => [c.field.name, c.index]));
    if (keyIndex >= 0) indexOf.set(model.primaryKey, keyIndex);
    const at = (n: number, detail: FwErrorDetail) => {
      const field = detail.path !== undefined ? model.fields[detail.path] : undefined;
      const index = field ? indexOf.get(field.name) : undefined;
      return positioned({ ...detail, path: `rows[${n}].${detail.path ?? ''}` }, rowNumbers?.[n - 1] ?? n + 1, index, index === undefined ? undefined : header[index]);
    };
    const sent = new Set(columns.map((c) => c.field.name));
    const details: FwErrorDetail[] = [];
    const plan: PlannedRow[] = [];

    // Keys first: which rows update which stored row.
    const keys = rows.map((cells, i) => {
      if (mode === 'add' || keyIndex < 0 || (mode === 'upsert' && blank(cells[keyIndex]))) return undefined;
      const id = keyOf(cells[keyIndex]);
      if (id === undefined) {
        const message = blank(cells[keyIndex]) ? `${model.primaryKey} is required in mode update` : `${model.primaryKey} must be a positive whole number`;
        details.push(at(i + 1, { path: model.primaryKey, type: blank(cells[keyIndex]) ? 'required' : 'typeError', message }));
        return null;
      }
      return id;
    });
    const wanted = [...new Set(keys.filter((k): k is number => typeof k === 'number'))];
    const stored = wanted.length > 0 ? await visibleRows(deps, model, actor, wanted) : new Map<number, FormRow>();
    const seen = new Set<number>();
    keys.forEach((id, i) => {
      if (typeof id !== 'number') return;
      // A key the importer cannot edit reads as a key that does not exist, as a single edit does.
      if (!stored.has(id)) details.push(at(i + 1, { path: model.primaryKey, type: 'notFound', message: `no ${model.name} with ${model.primaryKey} ${id} that you may edit` }));
      else if (seen.has(id)) details.push(at(i + 1, { path: model.primaryKey, type: 'duplicate', message: `${model.primaryKey} ${id} is given on an earlier row too` }));
      seen.add(id);
    });
    // Power per row: an added row needs `add`, an updated one `edit`.
    if (keys.some((k) => k === undefined) && rows.length > 0) assertPower(power, 'add', model.name);
    if (keys.some((k) => typeof k === 'number')) assertPower(power, 'edit', model.name);

    rows.forEach((cells, i) => {
      const n = i + 1;
      const body: Record<string, unknown> = {};
      for (const { field, index } of columns) {
        const raw = cells[index];
        const cell = fromSheetValue(field, format === 'csv' && typeof raw === 'string' ? uncsvCell(raw) : raw);
        if ('error' in cell) details.push(at(n, { path: field.name, type: cell.type, message: `${field.edit.title} ${cell.error}` }));
        else body[field.name] = cell.value;
      }
      const id = keys[i];
      const { values, errors } = readEntity(model, body, typeof id === 'number' ? 'update' : 'add');
      for (const e of errors) details.push(at(n, { path: e.path ?? '', type: e.type, message: e.message }));
      plan.push(typeof id === 'number' ? { n, values, id, stored: stored.get(id) } : { n, values });
    });
    const next = (row: PlannedRow) => (row.stored ? { ...row.stored, ...row.values } : newRow(model, row.values));
    // What a non-administrator may not grant is refused as such (403) before the values are
    // judged, as a single write is; the transaction below checks each row again as it is written.
    if (codes) {
      for (const row of plan) {
        if (row.id !== undefined && !row.stored) continue;
        await checkGrants({ model, actorId: actor.user.id, codes, db: store.knex, op: row.stored ? 'update' : 'add', stored: row.stored, next: next(row) });
      }
    }
    for (const row of plan) {
      if (row.id !== undefined && !row.stored) continue;
      // A row whose cells did not convert is still checked, so the answer names all its failing
      // cells; a cell already named is not named again (its value is missing, not empty).
      const named = new Set(details.filter((d) => d.path?.startsWith(`rows[${row.n}].`)).map((d) => d.path));
      for (const e of await validateRow(model, next(row), { dialect: store.dialect })) {
        const detail = at(row.n, { ...e });
        if (!named.has(detail.path)) details.push(detail);
      }
    }
    if (details.length > 0) throw dataError('IMPORT_FAILED', undefined, sortDetails(details).slice(0, 200));
    const updates: Array<{ id: number; state: UpdateState }> = [];
    // A refused grant stays a 403 and a taken key a 409; the other failures name the row.
    const rowError = (row: PlannedRow, error: unknown): unknown => {
      if (error instanceof FwError && error.status === 404) return dataError('IMPORT_FAILED', `Row ${row.n}: ${error.message}`, [at(row.n, { path: model.primaryKey, type: 'notFound', message: error.message })]);
      if (error instanceof FwError && error.details && error.status !== 403) {
        const placed = error.details.map((d) => at(row.n, d));
        if (error.status === 409) return new FwError(error.code, `Row ${row.n}: ${error.message}`, { status: 409, details: placed });
        return dataError('IMPORT_FAILED', `Row ${row.n}: ${error.message}`, placed);
      }
      return error;
    };
    // Added rows go in by multi-row INSERTs where nothing must run per written row (batch-insert.ts);
    // all batches share the one transaction, so a refused row still leaves nothing written.
    const batched = batchInsertable(model, codes);
    const batchRows = deps.importBatchRows ?? IMPORT_BATCH;
    const result = await writer.transaction(model, log, async (trx) => {
      // The written rows' log rows, as a single add or a bulk edit logs each row; they go in a few
      // hundred at a time (logRowsIn: 100 per statement), inside the transaction.
      const entries: OperateLogEntry[] = [];
      const logRow = async (action: 'add' | 'update', id: number, before: unknown, request: unknown, startedAt: number) => {
        entries.push({ model, action, source: importer.source, user: actor.user, ip: actor.ip, targetId: String(id), before, request, error: undefined, startedAt, batch });
        if (entries.length >= 500) await writer.logRowsIn(trx, entries.splice(0));
      };
      let pending: PlannedRow[] = [];
      const flush = async () => {
        const chunk = pending;
        pending = [];
        if (chunk.length === 0) return;
        const startedAt = performance.now();
        let ids: number[];
        try {
          ids = await writer.insertMany(model, trx, chunk.map((r) => r.values), context, sent);
        } catch (error) {
          if (error instanceof BatchRowError) throw rowError(chunk[error.index]!, error.cause);
          throw error;
        }
        // The values as read from the file: what a single add logs as its request.
        for (const [i, row] of chunk.entries()) await logRow('add', ids[i]!, undefined, row.values, startedAt);
      };
      for (const row of plan) {
        if (batched && row.id === undefined) {
          pending.push(row);
          if (pending.length >= batchRows) await flush();
          continue;
        }
        await flush();
        const startedAt = performance.now();
        try {
          if (row.id === undefined) {
            const id = await writer.insert(model, importer, trx, row.values, context, sent, codes);
            await logRow('add', id, undefined, row.values, startedAt);
          } else {
            const state: UpdateState = { endSessions: false };
            // The row before and the changed fields, as a bulk edit logs each of its rows.
            const notes: LogNotes = {};
            await writer.updateIn(model, importer, trx, row.id, (current) => ({ ...current, ...row.values }), {}, codes, context, state, notes);
            state.logRef = { batch };
            updates.push({ id: row.id, state });
            await logRow('update', row.id, notes.before, notes.request, startedAt);
          }
        } catch (error) {
          throw rowError(row, error);
        }
      }
      await flush();
      await writer.logRowsIn(trx, entries);
      return { imported: plan.length, added: plan.length - updates.length, updated: updates.length, batch };
    });
    for (const { id, state } of updates) await writer.afterUpdate(model, importer, id, state);
    return result;
  });
}
