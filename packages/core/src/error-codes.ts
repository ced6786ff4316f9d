/**
 * Stable error codes of the Fw HTTP contract, with the HTTP status each one answers with and
 * a default message. Codes are part of the public contract: clients may switch on them, so a
 * code is never renamed, only added.
 */
export const FW_ERROR_CODES = {
  BAD_REQUEST: { status: 400, message: 'The request is malformed' },
  INVALID_JSON: { status: 400, message: 'The request body is not valid JSON' },
  UNAUTHENTICATED: { status: 401, message: 'A valid token is required' },
  TOKEN_EXPIRED: { status: 401, message: 'The token has expired or was revoked' },
  FORBIDDEN: { status: 403, message: 'You are not permitted to do this' },
  POWER_DENIED: { status: 403, message: 'This operation is not permitted on this model' },
  AI_DISABLED: { status: 403, message: 'AI access is disabled for this model' },
  CELL_EDIT_DISABLED: { status: 403, message: 'Cell editing is disabled for this field' },
  PASSWORD_CHANGE_REQUIRED: { status: 403, message: 'The password must be changed before anything else' },
  MODEL_NOT_FOUND: { status: 404, message: 'Unknown model' },
  ROW_NOT_FOUND: { status: 404, message: 'No such row' },
  NOT_FOUND: { status: 404, message: 'Not found' },
  METHOD_NOT_ALLOWED: { status: 405, message: 'This route does not answer this method' },
  CONFLICT: { status: 409, message: 'The request conflicts with the stored data' },
  STALE_ROW: { status: 409, message: 'The row was changed by someone else since it was read' },
  STALE_CELL: { status: 409, message: 'The cell was changed by someone else since it was shown' },
  PAYLOAD_TOO_LARGE: { status: 413, message: 'The request body is too large' },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, message: 'Unsupported content type' },
  VALIDATION_FAILED: { status: 422, message: 'Validation failed' },
  TOO_MANY_ATTEMPTS: { status: 429, message: 'Too many attempts; try again later' },
  TOO_MANY_STREAMS: { status: 429, message: 'Too many open live streams; close one and try again' },
  INTERNAL: { status: 500, message: 'Internal server error' },
  UNAVAILABLE: { status: 503, message: 'A service Fw depends on is unavailable; try again shortly' },
  OVERLOADED: { status: 503, message: 'The server is busy; try again shortly' },
} as const satisfies Record<string, { status: number; message: string }>;

/** One of the stable error codes in {@link FW_ERROR_CODES}. */
export type FwErrorCode = keyof typeof FW_ERROR_CODES;
