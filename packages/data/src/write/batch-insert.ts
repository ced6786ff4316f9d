// Added rows of an import written by multi-row INSERTs (issue 21 §4): each row is still built,
// validated (schema, password policy, the model's `validate` hook) and checked one by one, but its
// references are looked up once per batch and the rows reach the database a few hundred per
// statement. Only for models where nothing has to happen per written row: no `beforeAdd` or
// `afterAdd` hook, no grant rules on the import, no collections or attachments (they need each
// new row's id), no reference to the model itself (a row could name one added in the same batch).
// The others take the single-row path of `AuditedWriter.insert`.
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
}

// SQLite (better-sqlite3) binds at most 32,766 values per statement and knex writes a multi-row
// insert there as a compound SELECT, at most 500 terms; the other databases allow 65,535 values.
const MAX_VALUES = 30_000;
const MAX_ROWS = 500;

/** True when the added rows of an import to `model` may be written by {@link insertBatch}. */
export function batchInsertable(model: ModelDefinition, codes: ReadonlySet<string> | undefined): boolean {
  if (codes || model.dataProxy.beforeAdd || model.dataProxy.afterAdd) return false;
  return Object.values(model.fields).every((f) => f.edit.collection === undefined && (f.edit.type as string) !== 'ATTACHMENT' && f.edit.reference?.model !== model.name);
}

/**
 * Inserts `rows` (form values, as the single-row insert takes them) inside `trx`, all or none.
 * `sent` names the fields the file gave: other fields left empty are not written, so the
 * database's defaults apply, as on a single add.
 * @throws {BatchRowError} naming the first row that failed (validation, references, a constraint).
 */
export async function insertBatch(deps: BatchInsertDeps, model: ModelDefinition, trx: Knex.Transaction, rows: readonly FormRow[], context: DataHookContext, sent: ReadonlySet<string>): Promise<void> {
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
  // Rows with the same written columns go in one statement (an absent column keeps its default).
  for (let start = 0; start < prepared.length; ) {
    const shape = Object.keys(prepared[start]!.columns).join('\0');
    const width = Math.max(1, shape.split('\0').length);
    const most = Math.max(1, Math.min(MAX_ROWS, Math.floor(MAX_VALUES / width)));
    let end = start + 1;
    while (end < prepared.length && end - start < most && Object.keys(prepared[end]!.columns).join('\0') === shape) end += 1;
    await insertChunk(model, trx, prepared.slice(start, end), start);
    start = end;
  }
}

/**
 * One multi-row INSERT, under a savepoint: when the database refuses it (a taken unique value, a
 * value the column cannot hold), the rows are written again one at a time to find the one at
 * fault, so the error names its row as a single-row import would.
 */
async function insertChunk(model: ModelDefinition, trx: Knex.Transaction, chunk: Array<{ row: FormRow; columns: Record<string, unknown> }>, offset: number): Promise<void> {
  try {
    await trx.transaction((sp) => sp(model.table).insert(chunk.map((c) => c.columns)));
    return;
  } catch (error) {
    for (const [i, { row, columns }] of chunk.entries()) {
      try {
        await trx.transaction((sp) => writing(model, row, () => sp(model.table).insert(columns)));
      } catch (rowError) {
        throw new BatchRowError(offset + i, rowError);
      }
    }
    // Every row went in on its own: the refusal was the statement's, not a row's.
    throw error;
  }
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
