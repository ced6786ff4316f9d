import type { FieldDefinition, FwErrorDetail, ModelDefinition } from '@fw/core';
import { coerceValue } from './coerce.js';
import { ROW_PATCH_ERROR_CODES, type RowPatchErrorCode } from './error-codes.js';
import { validateRow } from './schema.js';
import type { StorageDialect } from './storable.js';
import type { FormRow } from './storage.js';
import { formValuesEqual, hasOwn, setOwn, show } from './values.js';

/** A refused cell edit: a stable code, its HTTP status, a message, and details for failures. */
export interface RowPatchRejection {
  ok: false;
  code: RowPatchErrorCode;
  status: number;
  message: string;
  details?: FwErrorDetail[];
}

/** An accepted cell edit. */
export interface RowPatchSuccess {
  ok: true;
  /** The complete entity: the stored form row with the one value replaced (a new object). */
  row: FormRow;
  /** Whether the new value differs from the stored one. */
  changed: boolean;
}

/** What {@link patchRow} returns. */
export type RowPatchResult = RowPatchSuccess | RowPatchRejection;

function reject(code: RowPatchErrorCode, message: string, details?: FwErrorDetail[]): RowPatchRejection {
  return { ok: false, code, status: ROW_PATCH_ERROR_CODES[code].status, message, ...(details ? { details } : {}) };
}

/**
 * The cell-edit checks that need no row, in this order (the route calls it before reading the
 * row, so a refused request touches nothing):
 *
 * 1. model `power.cellEdit === false` → `CELL_EDIT_DISABLED` (403), read from the definition
 *    itself so no role, handler or admin status reopens it;
 * 2. `field` is not a field of the model → `UNKNOWN_FIELD` (400);
 * 3. field `edit.cellEdit === false` → `FIELD_CELL_EDIT_DISABLED` (403);
 * 4. the primary key → `PRIMARY_KEY_FIELD` (400);
 * 5. a COLLECTION (many-to-many) field → `COLLECTION_FIELD` (400);
 * 6. a PASSWORD field → `PASSWORD_FIELD` (400);
 * 7. a read-only field → `READONLY_FIELD` (400).
 *
 * It does not check the user's `edit` power: that is the policy engine's job.
 *
 * @param field the field name as the client sent it (anything that is not a field name is
 *   `UNKNOWN_FIELD`).
 * @returns the rejection, or `undefined` when the field may be edited in a cell.
 */
export function cellEditRefusal(model: ModelDefinition, field: unknown): RowPatchRejection | undefined {
  // The answers themselves are decided once, by defineModel (core's field-capabilities.ts).
  const closed = model.capabilities.cellEdit;
  if (!closed.ok) return reject(closed.code, closed.reason);
  const definition = typeof field === 'string' && hasOwn(model.fields, field) ? model.fields[field] : undefined;
  if (!definition) return reject('UNKNOWN_FIELD', `${model.name} has no field ${show(field)}`);
  const answer = definition.capabilities.cellEdit;
  return answer.ok ? undefined : reject(answer.code, answer.reason);
}

/**
 * A single-cell edit, exactly as safe as the edit form: after the checks of
 * {@link cellEditRefusal}, the value is converted (`INVALID_VALUE`, 400, with a detail on the
 * field when the type cannot take it), the complete entity is built (the stored form row with
 * the one value replaced) and validated with `validateRow(model, row)`, the very call the edit
 * form makes. So every field's rules run, a cross-field invariant cannot be broken one cell at
 * a time, and a dynamic rule reading another field sees that field's stored value.
 *
 * Nothing is validated when a check refuses, and `storedFormRow` is never changed.
 *
 * @param storedFormRow the stored row in form shape (`toFormRow` of the database row; add the
 *   COLLECTION fields if rules read them).
 * @returns `{ ok: true, row, changed }`, or a rejection; a failed validation is
 *   `{ ok: false, code: 'VALIDATION_FAILED', status: 422, details }`.
 * `options.validate: false` skips the final whole-row validation, for a caller that runs the
 * very same validation itself on a path it shares with the edit form; `options.dialect` names the
 * database, for its date bounds (see `validateRow`).
 * @example
 * const refused = cellEditRefusal(Project, body.field); // before loading the row
 * const result = await patchRow(Project, toFormRow(Project, dbRow), body.field, body.value);
 * if (result.ok && result.changed) await db(Project.table).where({ id }).update(changedColumns(Project, stored, result.row));
 */
export async function patchRow(
  model: ModelDefinition,
  storedFormRow: Readonly<FormRow>,
  field: unknown,
  value: unknown,
  options: { validate?: boolean; dialect?: StorageDialect } = {},
): Promise<RowPatchResult> {
  const result = patchRowValues(model, storedFormRow, field, value);
  // A caller that validates the patched row on its own shared path (the data API, so the cell and
  // the form go through one call) turns this off; by default the whole row is validated here.
  if (result.ok && options.validate !== false) {
    const details = await validateRow(model, result.row, options.dialect === undefined ? {} : { dialect: options.dialect });
    if (details.length > 0) return reject('VALIDATION_FAILED', ROW_PATCH_ERROR_CODES.VALIDATION_FAILED.message, details);
  }
  return result;
}

/**
 * {@link patchRow} without the whole-row validation, synchronously: the switches, the field and
 * the value's conversion, and the patched copy of the row. For a caller that validates the row
 * itself (the data API's write path).
 */
export function patchRowValues(model: ModelDefinition, storedFormRow: Readonly<FormRow>, field: unknown, value: unknown): RowPatchResult {
  const refusal = cellEditRefusal(model, field);
  if (refusal) return refusal;
  const definition = typeof field === 'string' && hasOwn(model.fields, field) ? model.fields[field] : undefined;
  if (typeof field !== 'string' || !definition) return reject('UNKNOWN_FIELD', `${model.name} has no field ${show(field)}`);
  return putCell(definition, storedFormRow, value);
}

/**
 * The last step of {@link patchRowValues}, with no switch checks: `value` converted for `field`
 * (`INVALID_VALUE` when its type cannot take it) and put into a copy of the stored row. For a
 * caller that checked the switches before reading the row (the data API's cell route).
 */
export function putCell(field: FieldDefinition, storedFormRow: Readonly<FormRow>, value: unknown): RowPatchResult {
  const converted = coerceValue(field, value);
  if (!converted.ok) {
    const message = `${field.edit.title} ${converted.message}`;
    return reject('INVALID_VALUE', message, [{ path: field.name, type: 'typeError', message }]);
  }
  const row: FormRow = {};
  // Own data properties, also for a key such as `__proto__` that an assignment would not make.
  for (const [key, stored] of Object.entries(storedFormRow)) setOwn(row, key, Array.isArray(stored) ? [...stored] : stored);
  setOwn(row, field.name, converted.value);
  const before = hasOwn(storedFormRow, field.name) ? storedFormRow[field.name] : undefined;
  return { ok: true, row, changed: !formValuesEqual(before, converted.value) };
}
