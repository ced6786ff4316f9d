import { FwError, type FwErrorDetail } from '@fw/core';

/**
 * Error codes of `@fw/row-patch`, with the HTTP status each answers with and a default message.
 * Codes are part of the public contract: a client may switch on them, so a code is never renamed.
 * `CELL_EDIT_DISABLED` and `VALIDATION_FAILED` carry the same status as in `@fw/core`.
 */
export const ROW_PATCH_ERROR_CODES = {
  /** The model declares `power.cellEdit: false`. */
  CELL_EDIT_DISABLED: { status: 403, message: 'Cell editing is disabled for this model' },
  /** The field declares `edit.cellEdit: false`. */
  FIELD_CELL_EDIT_DISABLED: { status: 403, message: 'Cell editing is disabled for this field' },
  /** The name is not a field of the model. */
  UNKNOWN_FIELD: { status: 400, message: 'The model has no such field' },
  /** The primary key is never written by a client. */
  PRIMARY_KEY_FIELD: { status: 400, message: 'The primary key cannot be edited' },
  /** Many-to-many fields live in a join table and are not edited one cell at a time. */
  COLLECTION_FIELD: { status: 400, message: 'A collection field cannot be edited in a cell' },
  /** Passwords are never returned to a client, so a cell editor has nothing to edit. */
  PASSWORD_FIELD: { status: 400, message: 'A password field cannot be edited in a cell' },
  /** The field is read-only. */
  READONLY_FIELD: { status: 400, message: 'The field is read-only' },
  /** The value cannot be converted to the field's edit type. */
  INVALID_VALUE: { status: 400, message: 'The value does not fit the field' },
  /** The body of an add or edit is not a JSON object. */
  INVALID_BODY: { status: 400, message: 'The body must be a JSON object of field values' },
  /** The complete row fails the model's rules; details hold every failure. */
  VALIDATION_FAILED: { status: 422, message: 'Validation failed' },
} as const satisfies Record<string, { status: number; message: string }>;

/** A code of {@link ROW_PATCH_ERROR_CODES}. */
export type RowPatchErrorCode = keyof typeof ROW_PATCH_ERROR_CODES;

/**
 * An {@link FwError} with one of this package's codes, for a Koa layer that throws rejections.
 *
 * @example
 * const result = await patchRow(model, stored, field, value);
 * if (!result.ok) throw rowPatchError(result.code, result.message, result.details);
 */
export function rowPatchError(code: RowPatchErrorCode, message?: string, details?: FwErrorDetail[]): FwError {
  return new FwError(code, message ?? ROW_PATCH_ERROR_CODES[code].message, {
    status: ROW_PATCH_ERROR_CODES[code].status,
    ...(details ? { details } : {}),
  });
}
