import { FwError, type FwErrorDetail } from '@fw/core';

/** Error codes of the data API beyond the core ones, with status and default message. */
export const DATA_ERROR_CODES = {
  UNKNOWN_FIELD: { status: 400, message: 'The request names a field the model does not declare' },
  BAD_QUERY: { status: 400, message: 'The query is malformed' },
  BAD_ID: { status: 400, message: 'A row id must be a positive whole number' },
  READONLY_FIELD: { status: 400, message: 'A read-only field cannot be changed' },
  GRANT_DENIED: { status: 403, message: 'You may not grant what you do not hold' },
  IMPORT_FAILED: { status: 422, message: 'The import was refused; nothing was written' },
  TOO_MANY_ROWS: { status: 413, message: 'Too many rows in one request' },
  // Issue 23 §2: a bulk edit is all or nothing; the details name every failing row and field.
  BULK_EDIT_FAILED: { status: 422, message: 'The bulk edit was refused; nothing was written' },
  // Issue 19 §5: the per-user bound on uploads not yet saved in a row (see upload-quota.ts).
  UPLOAD_QUOTA_FILES: { status: 429, message: 'Too many uploaded files not yet saved in a row; save the rows they belong to or wait until they expire' },
  UPLOAD_QUOTA_BYTES: { status: 413, message: 'Uploaded files not yet saved in a row take too much space; save the rows they belong to or wait until they expire' },
  // Issue 24 §4: the per-user bounds on presence (entries held at once, posts per minute).
  TOO_MANY_PRESENCE: { status: 429, message: 'Too many presence entries or posts; slow down' },
} as const satisfies Record<string, { status: number; message: string }>;

/** A code of {@link DATA_ERROR_CODES}. */
export type DataErrorCode = keyof typeof DATA_ERROR_CODES;

/** An {@link FwError} with one of the data API's codes. */
export function dataError(code: DataErrorCode, message?: string, details?: FwErrorDetail[]): FwError {
  return new FwError(code, message ?? DATA_ERROR_CODES[code].message, { status: DATA_ERROR_CODES[code].status, ...(details ? { details } : {}) });
}
