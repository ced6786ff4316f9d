// Conflict-safe cell edits (issue 24 §1): a cell edit may say what the editor was seeded with
// (`expect`, the value as the table showed it). When the stored value, shown the same way, differs,
// nothing is written: the answer is 409 STALE_CELL with the value now shown, who last changed it
// and when. Only the cells expected are compared, so two people editing different cells of one row
// both succeed (the update writes only the changed columns).
import { FwError, type FieldDefinition, type ModelDefinition } from '@fw/core';
import { coerceValue, formValuesEqual, type FormRow } from '@fw/row-patch';
import type { FwStore } from '@fw/store';
import { entryChanges, nameLoggedUsers, type LoggedUser } from '../read/history.js';
import { rowVersion, versionKeyOf } from '../read/row-version.js';
import type { CellExpectation } from '../service-types.js';
import { OPERATE_LOG_TABLE } from './operate-log.js';

/** One expected cell that no longer shows what the editor was seeded with. */
export interface StaleCell {
  field: string;
  /** The value the table shows now. */
  current: unknown;
  /**
   * Who last changed the field, from the operate log (null when the log does not say): the account
   * the log holds and the user's name now (null when the user is gone or has none), the name the
   * live events and presence show for the same person.
   */
  changedBy: LoggedUser | null;
  changedAt: string | null;
}

// Log entries of the row read back to find who changed a field last.
const LOOK_BACK = 200;

/** True when `shown` (a value as the table shows it) is what the editor expected. */
function shows(field: FieldDefinition, shown: unknown, expected: unknown): boolean {
  if (formValuesEqual(shown ?? null, expected ?? null)) return true;
  // The client's JSON of the same value (a number as text, a date with its time, "" for empty):
  // compared once both are read as the field's type reads input.
  const a = coerceValue(field, expected);
  const b = coerceValue(field, shown);
  return a.ok && b.ok && formValuesEqual(a.value ?? null, b.value ?? null);
}

/**
 * The expectation of cells `expected` (field → value as shown): `shown` turns a stored row into
 * what the table shows (the model's `afterFetch`, or the row itself when there is none, so the
 * check stays synchronous and the fast write paths keep it).
 */
export function cellExpectation(model: ModelDefinition, expected: Readonly<Record<string, unknown>>, shown: ((stored: FormRow) => Promise<FormRow>) | undefined): CellExpectation {
  const fields = Object.keys(expected).filter((name) => Object.hasOwn(model.fields, name));
  const stale = (row: FormRow) => fields.filter((name) => !shows(model.fields[name]!, row[name], expected[name]));
  return {
    fields,
    check: (stored) => (shown ? shown({ ...stored }).then(stale) : stale(stored)),
  };
}

/** Who last changed each of `fields` on row `id`, and when, from the newest log entries of the row. */
async function lastChanges(store: FwStore, model: ModelDefinition, id: number, fields: readonly string[]): Promise<Map<string, Pick<StaleCell, 'changedBy' | 'changedAt'>>> {
  const rows = (await store
    .knex(OPERATE_LOG_TABLE)
    .where('model', model.name)
    .where('target_id', String(id))
    .where('status', 'success')
    .orderBy('id', 'desc')
    .limit(LOOK_BACK)
    .select('action', 'user_id', 'account', 'created_at', 'before_data', 'request')) as Array<Record<string, unknown>>;
  const found = new Map<string, Pick<StaleCell, 'changedBy' | 'changedAt'>>();
  for (const row of rows) {
    const changed = entryChanges(model, id, { action: String(row.action), before_data: row.before_data, request: row.request }) ?? [];
    for (const { field } of changed) {
      if (!fields.includes(field) || found.has(field)) continue;
      const raw = row.created_at;
      const at = raw instanceof Date ? raw : new Date(typeof raw === 'string' && !/^\d+$/.test(raw) ? raw : Number(raw));
      found.set(field, { changedBy: { id: row.user_id == null ? null : Number(row.user_id), account: row.account == null ? null : String(row.account), name: null }, changedAt: Number.isNaN(at.getTime()) ? null : at.toISOString() });
    }
    if (found.size === fields.length) break;
  }
  // The person is best known by the name the table's live notes use: one read for the names.
  // A failed read leaves the names null: the 409 must not become a 500 for a nicety.
  await nameLoggedUsers(store, [...found.values()].flatMap((f) => (f.changedBy ? [f.changedBy] : []))).catch(() => undefined);
  return found;
}

/**
 * The 409 `STALE_CELL` answer for the stored row `stored` and the expected `fields` that differ:
 * `cells` lists each with the value shown now (`shown`: the row as the table shows it), who last
 * changed it and when; for a single cell the same is at the top (`field`, `current`, `changedBy`,
 * `changedAt`). The row's version goes in the `ETag` header and `version`.
 */
export async function staleCellError(store: FwStore, model: ModelDefinition, id: number, stored: FormRow, shown: FormRow, fields: readonly string[], message: string): Promise<FwError> {
  const last = await lastChanges(store, model, id, fields);
  const cells: StaleCell[] = fields.map((field) => ({ field, current: shown[field] ?? null, changedBy: last.get(field)?.changedBy ?? null, changedAt: last.get(field)?.changedAt ?? null }));
  const version = rowVersion(model, stored, await versionKeyOf(store));
  return new FwError('STALE_CELL', message, { headers: { ETag: version }, extra: { ...cells[0], cells, version } });
}
