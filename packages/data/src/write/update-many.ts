// Bulk edit (issue 23 §2): one or more field values set on many rows, every row taking the cell
// editor's path — the same switches, the same value conversion, the general update (visibility,
// whole-row validation with row rules, hooks, grant rules, only changed columns) — inside one
// transaction, so either every row is written or none. Each row gets its operate-log row, all of
// them carrying one batch id; edit events follow the commit.
import { randomUUID } from 'node:crypto';
import { FwError, isObject, type ConditionNode, type FieldDefinition, type FwErrorDetail, type ModelDefinition, type PowerObject } from '@fw/core';
import { assertPower } from '@fw/power';
import { cellEditRefusal, coerceValue, rowPatchError, type FormRow } from '@fw/row-patch';
import type { FwStore } from '@fw/store';
import type { Knex } from 'knex';
import { dataError } from '../error-codes.js';
import { applyConditions, parseTableQuery, type QueryLimits } from '../read/query.js';
import { pkColumn, rowId } from '../read/row-keys.js';
import type { RowReader } from '../read/rows.js';
import { hookContext, type Actor, type CellExpectation } from '../service-types.js';
import type { AuditedWriter } from './audited-write.js';
import type { OperateLogEntry } from './operate-log.js';
import type { LogNotes, UpdateState } from './update-recipe.js';

/** The most rows one bulk edit changes unless `bulkMaxRows` says otherwise. */
export const BULK_MAX_ROWS = 10_000;

/** A checked bulk-edit request: which rows, and the values (converted) to put in each. */
export interface UpdateManyInput {
  /** The rows named by id, in the request's order (duplicates dropped); or the rows matching `conditions`. */
  ids?: number[];
  conditions?: ConditionNode[];
  /** Field → value, converted as the cell editor converts a cell (with `ids` or `conditions`). */
  values?: FormRow;
  /**
   * Rows each with values of their own (a block pasted from a spreadsheet), instead of ids and one
   * set of values; `expect` holds what the grid showed in the cells pasted over (issue 24 §1).
   */
  rows?: Array<{ id: number; values: FormRow; expect?: Record<string, unknown> }>;
  /** Check every row as the edit would, write nothing (the answer says what would be). */
  dryRun?: boolean;
}

/** What a bulk edit answers. */
export interface UpdateManyResult {
  /** The rows the edit went through (every one selected). */
  updated: number;
  /** Of those, the rows whose stored values changed (each got an edit event). */
  changed: number;
  /** The batch id of the edit's operate-log rows; null when no row was selected, or on a dry run. */
  batch: string | null;
  /** Present (true) on a dry run: nothing was written. */
  dryRun?: true;
}

/** Thrown inside a dry run's transaction to roll it back once every row passed. */
const DRY_RUN = Symbol('fw.bulk-dry-run');

const bad = (message: string, path?: string) => new FwError('BAD_REQUEST', message, path === undefined ? {} : { details: [{ path, type: 'typeError', message }] });

/**
 * Checks a bulk-edit body `{ ids: [...] } | { conditions: [...] }` with `values: { field: value }`,
 * in the cell editor's order: each field's switches (`cellEditRefusal`: model and field open to
 * cell edits, not read-only, declared), then the `cellEdit` power, then the rows, then each value
 * converted by the field's type (`INVALID_VALUE` naming `values.<field>`).
 * @throws {FwError} 400 for a malformed body, 403 when cell edits are off, 413 `TOO_MANY_ROWS` for more ids than `maxRows`.
 */
export function parseUpdateMany(model: ModelDefinition, power: PowerObject, body: unknown, limits: QueryLimits, maxRows: number): UpdateManyInput {
  if (!isObject(body)) throw bad('The body must be { ids | conditions, values } or { rows }');
  if (body.dryRun !== undefined && typeof body.dryRun !== 'boolean') throw bad('dryRun must be true or false', 'dryRun');
  const dryRun = body.dryRun === true ? { dryRun: true } : {};
  if (body.rows !== undefined) return { ...parseRows(model, power, body, maxRows), ...dryRun };
  const values = body.values;
  if (!isObject(values) || Object.keys(values).length === 0) throw bad('values must be an object of at least one field and its value', 'values');
  const fields: FieldDefinition[] = [];
  for (const name of Object.keys(values)) {
    const refusal = cellEditRefusal(model, name);
    if (refusal) {
      const details = (refusal.details ?? []).map((d) => ({ ...d, path: `values.${d.path ?? name}` }));
      throw new FwError(refusal.code, refusal.message, { status: refusal.status, extra: { model: model.name, field: name }, ...(details.length > 0 ? { details } : {}) });
    }
    fields.push(model.fields[name]!);
  }
  assertPower(power, 'cellEdit', model.name);
  const hasIds = body.ids !== undefined;
  const hasConditions = body.conditions !== undefined;
  if (hasIds === hasConditions) throw bad('The body names the rows by ids or by conditions (one of them)');
  let ids: number[] | undefined;
  let conditions: ConditionNode[] | undefined;
  if (hasIds) {
    if (!Array.isArray(body.ids) || body.ids.length === 0) throw bad('ids must be a list of at least one row id', 'ids');
    if (body.ids.length > maxRows) throw dataError('TOO_MANY_ROWS', `A bulk edit changes at most ${maxRows} rows; ${body.ids.length} ids were given`);
    ids = [...new Set(body.ids.map((id, i) => rowId(model, id, `ids[${i}]`)))];
  } else {
    // The table query's own parser: the rows are those the table shows for the same conditions.
    conditions = parseTableQuery(model, { conditions: body.conditions }, limits).conditions;
  }
  const converted: FormRow = {};
  for (const field of fields) {
    const result = coerceValue(field, values[field.name]);
    if (!result.ok) {
      const message = `${field.edit.title} ${result.message}`;
      throw rowPatchError('INVALID_VALUE', message, [{ path: `values.${field.name}`, type: 'typeError', message }]);
    }
    Object.defineProperty(converted, field.name, { value: result.value, enumerable: true, writable: true, configurable: true });
  }
  return { ...(ids ? { ids } : {}), ...(conditions ? { conditions } : {}), values: converted, ...dryRun };
}

/** Field → value of one row, each field open to cell edits and each value converted; paths under `at`. */
function rowValues(model: ModelDefinition, values: unknown, at: string): FormRow {
  if (!isObject(values) || Object.keys(values).length === 0) throw bad(`${at}.values must be an object of at least one field and its value`, `${at}.values`);
  const converted: FormRow = {};
  for (const name of Object.keys(values)) {
    const refusal = cellEditRefusal(model, name);
    if (refusal) {
      const details = (refusal.details ?? []).map((d) => ({ ...d, path: `${at}.${d.path ?? name}` }));
      throw new FwError(refusal.code, refusal.message, { status: refusal.status, extra: { model: model.name, field: name }, ...(details.length > 0 ? { details } : {}) });
    }
    const field = model.fields[name]!;
    const result = coerceValue(field, values[name]);
    if (!result.ok) {
      const message = `${field.edit.title} ${result.message}`;
      throw rowPatchError('INVALID_VALUE', message, [{ path: `${at}.${name}`, type: 'typeError', message }]);
    }
    Object.defineProperty(converted, name, { value: result.value, enumerable: true, writable: true, configurable: true });
  }
  return converted;
}

/** `{ rows: [{ id, values }] }`: each row its own values (a paste), the switches checked per field, then the `cellEdit` power. */
function parseRows(model: ModelDefinition, power: PowerObject, body: Record<string, unknown>, maxRows: number): UpdateManyInput {
  if (body.ids !== undefined || body.conditions !== undefined || body.values !== undefined) throw bad('The body names the rows by { rows } alone, or by ids or conditions with values');
  const list = body.rows;
  if (!Array.isArray(list) || list.length === 0) throw bad('rows must be a list of at least one { id, values }', 'rows');
  if (list.length > maxRows) throw dataError('TOO_MANY_ROWS', `A bulk edit changes at most ${maxRows} rows; ${list.length} were given`);
  const seen = new Set<number>();
  const rows = list.map((entry, i) => {
    const at = `rows[${i}]`;
    if (!isObject(entry)) throw bad(`${at} must be { id, values }`, at);
    const id = rowId(model, entry.id, `${at}.id`);
    if (seen.has(id)) throw bad(`${at}.id names row ${id} a second time`, `${at}.id`);
    seen.add(id);
    const values = rowValues(model, entry.values, at);
    if (entry.expect === undefined) return { id, values };
    if (!isObject(entry.expect)) throw bad(`${at}.expect must be an object of field and value shown`, `${at}.expect`);
    for (const name of Object.keys(entry.expect)) {
      if (!Object.hasOwn(values, name)) throw bad(`${at}.expect names ${JSON.stringify(name)}, which ${at}.values does not set`, `${at}.expect.${name}`);
    }
    return { id, values, expect: entry.expect };
  });
  assertPower(power, 'cellEdit', model.name);
  return { rows };
}

/** What a bulk edit needs. */
export interface UpdateManyDeps {
  store: FwStore;
  reader: RowReader;
  writer: AuditedWriter;
  maxRows: number;
  /** The check of the cells a pasted row expects (`DataService.cellExpectation`). */
  expectation(model: ModelDefinition, actor: Actor, expected: Readonly<Record<string, unknown>>): CellExpectation;
}

/** One selected row: its id and where the request named it (`ids[3]`, or `rows[3]` for the 4th row matched by the conditions). */
interface Target {
  id: number;
  at: string;
  /** The row's own values (rows mode); else the request's one set. */
  values?: FormRow;
  /** What the grid showed in the cells pasted over (rows mode). */
  expect?: Record<string, unknown>;
}

/** The rows a bulk edit goes through, each one visible to the actor for both the table and an edit. */
async function selectTargets(deps: UpdateManyDeps, model: ModelDefinition, actor: Actor, input: UpdateManyInput): Promise<Target[]> {
  const knex = deps.store.knex;
  const pk = `${model.table}.${pkColumn(model)}`;
  const visible = async (qb: Knex.QueryBuilder) => {
    applyConditions(qb, model, await deps.reader.visibility(model, actor, 'query'));
    return applyConditions(qb, model, await deps.reader.visibility(model, actor, 'update'));
  };
  if (input.conditions) {
    const qb = applyConditions(knex(model.table).select(pk).orderBy(pk).limit(deps.maxRows + 1), model, input.conditions);
    const rows = (await visible(qb)) as Array<Record<string, unknown>>;
    if (rows.length > deps.maxRows) throw dataError('TOO_MANY_ROWS', `The conditions match more than ${deps.maxRows} rows; a bulk edit changes at most ${deps.maxRows}`);
    return rows.map((r, i) => ({ id: Number(Object.values(r)[0]), at: `rows[${i}]` }));
  }
  const ids = input.rows ? input.rows.map((r) => r.id) : (input.ids ?? []);
  const at = input.rows ? 'rows' : 'ids';
  const found = new Set<number>();
  for (let i = 0; i < ids.length; i += 500) {
    const rows = (await visible(knex(model.table).select(pk).whereIn(pk, ids.slice(i, i + 500)))) as Array<Record<string, unknown>>;
    for (const r of rows) found.add(Number(Object.values(r)[0]));
  }
  // A row the actor cannot see (or edit) is a row that does not exist, and the whole request is
  // refused: an edit of "these rows" must not quietly become an edit of some of them.
  const missing = ids.map((id, i) => ({ id, i })).filter(({ id }) => !found.has(id));
  if (missing.length > 0) {
    const details = missing.slice(0, 200).map(({ id, i }) => ({ path: `${at}[${i}]`, type: 'notFound', message: `no ${model.name} with id ${id} that you may edit` }));
    throw new FwError('ROW_NOT_FOUND', `${missing.length} of the rows do not exist or are not yours to edit; nothing was written`, { details, extra: { model: model.name } });
  }
  return ids.map((id, i) => ({ id, at: `${at}[${i}]`, ...(input.rows ? { values: input.rows[i]!.values, ...(input.rows[i]!.expect ? { expect: input.rows[i]!.expect } : {}) } : {}) }));
}

/** A copy of the stored row with the bulk values put in (own data properties, as the cell editor's patch). */
function patched(stored: FormRow, values: FormRow): FormRow {
  const row: FormRow = {};
  const put = (key: string, v: unknown) => Object.defineProperty(row, key, { value: v, enumerable: true, writable: true, configurable: true });
  for (const [key, v] of Object.entries(stored)) put(key, Array.isArray(v) ? [...(v as unknown[])] : v);
  for (const [key, v] of Object.entries(values)) put(key, Array.isArray(v) ? [...(v as unknown[])] : v);
  return row;
}

/** True for a refusal of one row's values that left nothing written: the run goes on to name the other rows' failures. */
function isRowRefusal(error: unknown, state: UpdateState): error is FwError {
  return !state.writeBegun && error instanceof FwError && (error.status === 400 || error.status === 422) && (error.details?.length ?? 0) > 0;
}

/**
 * Runs a bulk edit (power, switches and values already checked by {@link parseUpdateMany}). Every
 * selected row goes through `AuditedWriter.updateIn` inside one transaction; a row whose values
 * are refused (validation, a hook's refusal before the write) is noted and the next rows are still
 * checked; any other failure ends the run. If any row failed, nothing is written and the answer is
 * 422 `BULK_EDIT_FAILED` naming each failing row and field (`ids[3].price`, `rows[0].endDate`).
 */
export async function runUpdateMany(deps: UpdateManyDeps, model: ModelDefinition, actor: Actor, input: UpdateManyInput, codes: ReadonlySet<string> | undefined): Promise<UpdateManyResult> {
  const { writer } = deps;
  // The switches again, for a caller that built the input by hand: no field closed to cell edits is written.
  const names = new Set([...Object.keys(input.values ?? {}), ...(input.rows ?? []).flatMap((r) => Object.keys(r.values))]);
  for (const name of names) {
    const refusal = cellEditRefusal(model, name);
    if (refusal) throw new FwError(refusal.code, refusal.message, { status: refusal.status, extra: { model: model.name, field: name } });
  }
  const bulk: Actor = { ...actor, source: 'bulk' };
  const batch = randomUUID();
  const startedAt = performance.now();
  const request = input.rows ? { rows: input.rows.length } : { ...(input.ids ? { ids: input.ids.length } : { conditions: input.conditions }), values: input.values };
  try {
    const targets = await selectTargets(deps, model, actor, input);
    if (targets.length === 0) return { updated: 0, changed: 0, batch: null };
    const context = hookContext(model, bulk, 'update');
    const done: Array<{ id: number; state: UpdateState }> = [];
    await writer.transaction(model, undefined, async (trx) => {
      const entries: OperateLogEntry[] = [];
      const details: FwErrorDetail[] = [];
      let failed = 0;
      for (const target of targets) {
        const state: UpdateState = { endSessions: false };
        const log: LogNotes = {};
        const rowStarted = performance.now();
        const options = target.expect ? { expect: deps.expectation(model, actor, target.expect) } : {};
        try {
          await writer.updateIn(model, bulk, trx, target.id, (stored) => patched(stored, target.values ?? input.values ?? {}), options, codes, context, state, log);
        } catch (error) {
          if (state.staleCells) {
            // A cell pasted over that changed since the grid showed it: named with its value now.
            failed += 1;
            const [shown] = await deps.reader.afterFetch(model, actor, 'query', [{ ...state.staleCells.row }]);
            for (const field of state.staleCells.fields) {
              const message = `${model.fields[field]?.edit.title ?? field} changed since it was shown`;
              if (details.length < 200) details.push({ path: `${target.at}.${field}`, type: 'stale', message, id: target.id, current: (shown ?? state.staleCells.row)[field] ?? null } as FwErrorDetail);
            }
            continue;
          }
          if (!isRowRefusal(error, state)) throw placeError(error, target);
          failed += 1;
          if (details.length < 200) details.push(...error.details!.map((d) => placed(d, target)));
          continue;
        }
        if (failed > 0) continue;
        state.logRef = { batch };
        done.push({ id: target.id, state });
        entries.push({ model, action: 'update', source: 'bulk', user: actor.user, ip: actor.ip, targetId: String(target.id), before: log.before, request: log.request, error: undefined, startedAt: rowStarted, batch });
      }
      if (failed > 0) throw dataError('BULK_EDIT_FAILED', `${failed} of ${targets.length} rows were refused; nothing was written`, details.slice(0, 200));
      // A dry run went through every row as the edit would: now it takes it all back.
      if (input.dryRun) throw DRY_RUN;
      await writer.logRowsIn(trx, entries);
    }).catch((error: unknown) => {
      if (error !== DRY_RUN) throw error;
    });
    if (input.dryRun) return { updated: targets.length, changed: done.filter(({ state }) => (state.event?.changed.length ?? 0) > 0).length, batch: null, dryRun: true };
    // Committed: the sessions the changes end, and one edit event per changed row.
    for (const { id, state } of done) await writer.afterUpdate(model, bulk, id, state);
    return { updated: targets.length, changed: done.filter(({ state }) => (state.event?.changed.length ?? 0) > 0).length, batch };
  } catch (error) {
    // A dry run's refusal is an answer, not an attempt to record.
    if (input.dryRun) throw error;
    // The transaction rolled back: one failure row, with the batch id, records the attempt.
    await writer.logFailure({ model, action: 'update', source: 'bulk', user: actor.user, ip: actor.ip, targetId: null, before: undefined, request, error, startedAt, batch });
    throw error;
  }
}

function placed(detail: FwErrorDetail, target: Target): FwErrorDetail {
  return { ...detail, path: detail.path ? `${target.at}.${detail.path}` : target.at, id: target.id } as FwErrorDetail;
}

/**
 * A refusal that ends the run (a taken unique value, a hook's refusal after the write, a grant
 * the actor does not hold) keeps its code and status and names its row; server errors pass as they are.
 */
function placeError(error: unknown, target: Target): unknown {
  if (!(error instanceof FwError) || error.status >= 500) return error;
  const details = error.details?.map((d) => placed(d, target));
  return new FwError(error.code, `Row ${target.at} (id ${target.id}): ${error.message}`, { status: error.status, ...(details ? { details } : {}), cause: error });
}
