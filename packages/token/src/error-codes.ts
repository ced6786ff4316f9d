/** Error codes of the token package, with their HTTP status and default message. */
export const TOKEN_ERROR_CODES = {
  /** The token store predates session listing (no `listByUser`, `touch`, `listUsers`). */
  SESSIONS_NOT_SUPPORTED: { status: 501, message: 'This token store cannot list sessions (it has no listByUser, touch and listUsers)' },
} as const satisfies Record<string, { status: number; message: string }>;

/** A code of {@link TOKEN_ERROR_CODES}. */
export type TokenErrorCode = keyof typeof TOKEN_ERROR_CODES;
