// Added rows of an import written by multi-row INSERTs (issue 21 §4): each row is still built,
// validated (schema, password policy, the model's `validate` hook) and checked one by one, but its
// references are looked up once per batch and the rows reach the database a few hundred per
// statement. Only for models where nothing has to happen per written row: no `beforeAdd` or
// `afterAdd` hook, no grant rules on the import, no collections or attachments (they need each
// new row's id), no reference to the model itself (a row could name one added in the same batch).
// The others take the single-row path of `AuditedWriter.insert`. The new rows' ids come back in
// row order, for their operate-log rows (issue 23).
import { type DataHookContext, type FwErrorDetail, type ModelDefinition, type ModelRegistry, type PasswordPolicy } from '@fw/core';
import { toDbValues, type FormRow, type StorageDialect } from '@fw/row-patch';
import type { Knex } from 'knex';
import { newRow } from './row-changes.js';
import { secretsForStorage } from './secrets.js';
import { pkColumn } from '../read/row-keys.js';
import { validateWholeRow, validationError, writing } from './write-checks.js';

/** A write of a batch failed at one of its rows: the row's place in the batch and the error it met. */
export class BatchRowError extends Error {
  constructor(
    /** 0-based place of the failing row in the batch. */
    readonly index: number,
    /** What the row met (an `FwError` for a refused value or a taken key). */
    override readonly cause: unknown,
  ) {
    super(cause instanceof Error ? cause.message : String(cause));
  }
}

/** What {@link insertBatch} needs. */
export interface BatchInsertDeps {
  registry: ModelRegistry;
  dialect: StorageDialect;
  passwordPolicy: PasswordPolicy | undefined;
  /** The store's knex: what MySQL's id settings are remembered by (read once per instance). */
  knex: Knex;
}

// SQLite (better-sqlite3) binds at most 32,766 values per statement and knex writes a multi-row
// insert there as a compound SELECT, at most 500 terms; the other databases allow 65,535 values.
const MAX_VALUES = 30_000;
// SQL Server binds at most 2,100 values per statement.
const MSSQL_MAX_VALUES = 2_000;
const MAX_ROWS = 500;

/** True when the added rows of an import to `model` may be written by {@link insertBatch}. */
export function batchInsertable(model: ModelDefinition, codes: ReadonlySet<string> | undefined): boolean {
  if (codes || model.dataProxy.beforeAdd || model.dataProxy.afterAdd) return false;
  return Object.values(model.fields).every((f) => f.edit.collection === undefined && (f.edit.type as string) !== 'ATTACHMENT' && f.edit.reference?.model !== model.name);
}

// MySQL and MariaDB answer a multi-row INSERT with its first id only. The other rows' ids follow
// from it (first, first + step, …) only when InnoDB hands a statement whose row count is known its
// ids in one run: `innodb_autoinc_lock_mode` 0 or 1 (MariaDB's default is 1). In mode 2 (MySQL
// 8's default) concurrent inserts may take ids in between, so the rows go in one at a time.
// `auto_increment_increment` is the step (a Galera cluster sets it to its size).
const mysqlSteps = new WeakMap<object, Promise<number | null>>();

/** The step between the ids of one multi-row INSERT on MySQL, or null when they may not be consecutive. */
function mysqlIdStep(knex: Knex, trx: Knex.Transaction): Promise<number | null> {
  let known = mysqlSteps.get(knex);
  if (!known) {
    known = trx.raw('select @@innodb_autoinc_lock_mode as mode, @@auto_increment_increment as step').then(
      (result: unknown) => {
        const [row] = (result as [Array<{ mode: unknown; step: unknown }>])[0];
        const mode = Number(row?.mode);
        const step = Number(row?.step);
        return (mode === 0 || mode === 1) && Number.isSafeInteger(step) && step >= 1 ? step : null;
      },
      () => {
        // Not InnoDB's setting to read (another engine, a server that hides it): row by row, and
        // asked again next time rather than remembered.
        mysqlSteps.delete(knex);
        return null;
      },
    );
    mysqlSteps.set(knex, known);
  }
  return known;
}

/**
 * Makes MySQL's id step for `knex` read as `step` (null: ids may not be consecutive, as on a server
 * in mode 2), or read from the server again (undefined): for tests.
 */
export function assumeMysqlIdStep(knex: Knex, step: number | null | undefined): void {
  if (step === undefined) mysqlSteps.delete(knex);
  else mysqlSteps.set(knex, Promise.resolve(step));
}

/**
 * Inserts `rows` (form values, as the single-row insert takes them) inside `trx`, all or none.
 * `sent` names the fields the file gave: other fields left empty are not written, so the
 * database's defaults apply, as on a single add.
 * @returns the new rows' ids, in the order of `rows`.
 * @throws {BatchRowError} naming the first row that failed (validation, references, a constraint).
 */
export async function insertBatch(deps: BatchInsertDeps, model: ModelDefinition, trx: Knex.Transaction, rows: readonly FormRow[], context: DataHookContext, sent: ReadonlySet<string>): Promise<number[]> {
  const prepared: Array<{ row: FormRow; columns: Record<string, unknown> }> = [];
  for (const [index, values] of rows.entries()) {
    const row = newRow(model, values);
    try {
      await validateWholeRow(model, row, context, deps.dialect, deps.passwordPolicy);
    } catch (error) {
      throw new BatchRowError(index, error);
    }
    const written: FormRow = {};
    for (const [key, value] of Object.entries(row)) {
      if (value !== null || sent.has(key)) written[key] = value;
    }
    const { row: stored, extraColumns } = await secretsForStorage(model, written);
    prepared.push({ row, columns: { ...toDbValues(model, stored), ...extraColumns } });
  }
  await checkBatchReferences(deps.registry, model, trx, prepared.map((p) => p.row));
  const ids: number[] = [];
  const way: InsertWay = deps.dialect !== 'mysql' ? { dialect: deps.dialect } : { dialect: 'mysql', step: prepared.length > 1 ? await mysqlIdStep(deps.knex, trx) : null };
  // Rows with the same written columns go in one statement (an absent column keeps its default).
  for (let start = 0; start < prepared.length; ) {
    const shape = Object.keys(prepared[start]!.columns).join('\0');
    const width = Math.max(1, shape.split('\0').length);
    const most = Math.max(1, Math.min(MAX_ROWS, Math.floor((deps.dialect === 'mssql' ? MSSQL_MAX_VALUES : MAX_VALUES) / width)));
    let end = start + 1;
    while (end < prepared.length && end - start < most && Object.keys(prepared[end]!.columns).join('\0') === shape) end += 1;
    ids.push(...(await insertChunk(model, trx, prepared.slice(start, end), start, way)));
    start = end;
  }
  return ids;
}

/** How a dialect tells the new ids: RETURNING (OUTPUT on SQL Server), or MySQL's first id and step. */
type InsertWay = { dialect: Exclude<StorageDialect, 'mysql'> } | { dialect: 'mysql'; step: number | null };

/** An id as a driver gives it (a number, a bigint's digits, a row holding the key). */
function idOf(model: ModelDefinition, value: unknown, pk: string): number {
  const id = Number(typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[pk] : value);
  if (!Number.isSafeInteger(id) || id < 1) throw new Error(`${model.name}: the insert returned no id`);
  return id;
}

/** Inserts one row inside `db`; its new id. */
async function insertOne(model: ModelDefinition, db: Knex.Transaction, columns: Record<string, unknown>, way: InsertWay): Promise<number> {
  const pk = pkColumn(model);
  // MySQL has no RETURNING (knex warns and gives the insert id instead).
  const result: unknown[] = way.dialect === 'mysql' ? await db(model.table).insert(columns) : await db(model.table).insert(columns, [pk]);
  return idOf(model, result[0], pk);
}

/** Inserts the rows of `chunk` by one statement inside `db`; their new ids in row order. */
async function insertMany(model: ModelDefinition, db: Knex.Transaction, chunk: ReadonlyArray<{ columns: Record<string, unknown> }>, way: InsertWay): Promise<number[]> {
  const pk = pkColumn(model);
  const values = chunk.map((c) => c.columns);
  if (way.dialect === 'mysql') {
    const step = way.step;
    if (step === null) throw new Error('a multi-row INSERT on MySQL needs consecutive ids');
    const [first] = (await db(model.table).insert(values)) as unknown[];
    const start = idOf(model, first, pk);
    return chunk.map((_, i) => start + i * step);
  }
  const returned: unknown[] = await db(model.table).insert(values, [pk]);
  // Ids are handed out in row order within one statement, but the order of the RETURNING (OUTPUT)
  // rows is not promised (SQLite says so): ascending, they are the rows' ids in row order.
  const ids = returned.map((r) => idOf(model, r, pk)).sort((a, b) => a - b);
  if (ids.length !== chunk.length) throw new Error(`${model.name}: ${chunk.length} rows inserted, ${ids.length} ids returned`);
  return ids;
}

/**
 * One multi-row INSERT, under a savepoint: when the database refuses it (a taken unique value, a
 * value the column cannot hold), the rows are written again one at a time to find the one at
 * fault, so the error names its row as a single-row import would. On MySQL whose ids may not be
 * consecutive, the rows go in one at a time from the start.
 * @returns the new rows' ids, in row order.
 */
async function insertChunk(model: ModelDefinition, trx: Knex.Transaction, chunk: Array<{ row: FormRow; columns: Record<string, unknown> }>, offset: number, way: InsertWay): Promise<number[]> {
  let refusal: unknown;
  if (chunk.length > 1 && (way.dialect !== 'mysql' || way.step !== null)) {
    try {
      return await trx.transaction((sp) => insertMany(model, sp, chunk, way));
    } catch (error) {
      refusal = error;
    }
  }
  // Row by row: the first row refused ends the import (no savepoint needed to go on after it).
  const ids: number[] = [];
  for (const [i, { row, columns }] of chunk.entries()) {
    try {
      ids.push(await writing(model, row, () => insertOne(model, trx, columns, way)));
    } catch (rowError) {
      throw new BatchRowError(offset + i, rowError);
    }
  }
  // Every row went in on its own: the refusal was the statement's, not a row's.
  if (refusal !== undefined) throw refusal;
  return ids;
}

/**
 * References of the batch's rows must name existing rows (as `checkReferences` does for one
 * row), with one lookup per field and 500 ids.
 * @throws {BatchRowError} at the first row naming a missing row.
 */
async function checkBatchReferences(registry: ModelRegistry, model: ModelDefinition, db: Knex, rows: readonly FormRow[]): Promise<void> {
  for (const field of Object.values(model.fields)) {
    const target = field.edit.reference ? registry.get(field.edit.reference.model) : undefined;
    if (!target) continue;
    const asked = [...new Set(rows.map((r) => r[field.name]).filter((v): v is number => typeof v === 'number'))];
    const key = pkColumn(target);
    const found = new Set<number>();
    for (let i = 0; i < asked.length; i += 500) {
      const hits: Array<Record<string, unknown>> = await db(target.table).whereIn(key, asked.slice(i, i + 500)).select(key);
      for (const r of hits) found.add(Number(r[key]));
    }
    const index = rows.findIndex((r) => typeof r[field.name] === 'number' && !found.has(r[field.name] as number));
    if (index < 0) continue;
    const detail: FwErrorDetail = { path: field.name, type: 'reference', message: `${field.edit.title} names no existing ${target.name}: ${String(rows[index]![field.name])}` };
    throw new BatchRowError(index, validationError([detail]));
  }
}
