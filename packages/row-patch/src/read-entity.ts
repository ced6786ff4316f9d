import { EditType, type FieldDefinition, type FwErrorDetail, type ModelDefinition } from '@fw/core';
import { coerceValue, isEmptyInput } from './coerce.js';
import type { RowPatchErrorCode } from './error-codes.js';
import type { FormRow } from './storage.js';
import { hasOwn, isPlainObject, setOwn, show } from './values.js';

/** Which write a body is read for. */
export type ReadEntityMode = 'add' | 'update';

/** One problem of a body, with the code a caller answers with (see `ROW_PATCH_ERROR_CODES`). */
export interface EntityIssue extends FwErrorDetail {
  code: Extract<RowPatchErrorCode, 'UNKNOWN_FIELD' | 'READONLY_FIELD' | 'INVALID_VALUE' | 'INVALID_BODY'>;
}

/** What {@link readEntity} returns. */
export interface ReadEntityResult {
  /** The converted values by field name (see {@link readEntity} for what is in it). */
  values: FormRow;
  /** Every problem found, in body order; empty when the body can be used. */
  errors: EntityIssue[];
  /** update only: the primary-key value of the body, converted, when it holds one. */
  key?: unknown;
}

function issue(code: EntityIssue['code'], path: string, type: string, message: string): EntityIssue {
  return { code, path, type, message };
}

/**
 * Reads the JSON body of an add or an edit-form update into form values. It never throws: every
 * problem is returned in `errors`, each with its code, so the caller picks the status (all are
 * 400 in `ROW_PATCH_ERROR_CODES`).
 *
 * - A name that is not a field: `UNKNOWN_FIELD` (type `unknownField`).
 * - Every present field is converted with `coerceValue`; a failure is `INVALID_VALUE` (type
 *   `typeError`, message about the field's title).
 * - The primary key is never a value: dropped on add; on update it is returned converted as
 *   `key` (to find the row), not in `values`.
 * - A read-only field: `READONLY_FIELD` (type `readonly`) when present with a non-empty value on
 *   add, and when present at all on update.
 * - add: every field absent from the body gets its `edit.defaultValue` (converted) or null, so
 *   `values` is a complete new row and a missing required field fails validation.
 * - update: a PASSWORD field sent empty (null or `''`) is left out, meaning "keep the stored
 *   password" (a form cannot resend what it was never given). The caller merges `values` onto
 *   the stored form row.
 *
 * @example
 * const { values, errors } = readEntity(Book, ctx.request.body, 'add');
 * if (errors.length) throw rowPatchError(errors[0].code, errors[0].message, errors);
 */
export function readEntity(model: ModelDefinition, body: unknown, mode: ReadEntityMode): ReadEntityResult {
  const values: FormRow = {};
  const errors: EntityIssue[] = [];
  const result: ReadEntityResult = { values, errors };
  if (!isPlainObject(body)) {
    errors.push({ code: 'INVALID_BODY', type: 'typeError', message: `the body must be an object of field values, got ${show(body)}` });
    return result;
  }
  for (const [name, raw] of Object.entries(body)) {
    if (!hasOwn(model.fields, name)) {
      errors.push(issue('UNKNOWN_FIELD', name, 'unknownField', `${model.name} has no field ${show(name)}`));
      continue;
    }
    const field = model.fields[name] as FieldDefinition;
    if (field.primaryKey) {
      if (mode === 'update' && !isEmptyInput(raw)) {
        const key = coerceValue(field, raw);
        if (key.ok) result.key = key.value;
        else errors.push(issue('INVALID_VALUE', name, 'typeError', `${field.edit.title} ${key.message}`));
      }
      continue;
    }
    if (field.edit.readonly && (mode === 'update' || !isEmptyInput(raw))) {
      errors.push(issue('READONLY_FIELD', name, 'readonly', `${field.edit.title} is read-only`));
      continue;
    }
    if (mode === 'update' && field.edit.type === EditType.PASSWORD && isEmptyInput(raw)) continue;
    const converted = coerceValue(field, raw);
    if (converted.ok) setOwn(values, name, converted.value);
    else errors.push(issue('INVALID_VALUE', name, 'typeError', `${field.edit.title} ${converted.message}`));
  }
  if (mode === 'add') {
    for (const name of model.fieldNames) {
      const field = model.fields[name];
      if (!field || field.primaryKey || hasOwn(values, name) || errors.some((e) => e.path === name)) continue;
      const fallback = field.edit.defaultValue === undefined ? { ok: true as const, value: null } : coerceValue(field, field.edit.defaultValue);
      if (fallback.ok) setOwn(values, name, fallback.value);
      else errors.push(issue('INVALID_VALUE', name, 'typeError', `${field.edit.title} default value ${fallback.message}`));
    }
  }
  return result;
}
