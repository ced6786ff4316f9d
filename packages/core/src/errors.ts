import { FW_ERROR_CODES, type FwErrorCode } from './error-codes.js';

/** One validation failure, in the shape yup's `ValidationError` reports it. */
export interface FwErrorDetail {
  /** Dotted path of the offending value (a field name for row validation). */
  path?: string;
  /** The rule that failed (`required`, `max`, `matches`, a custom rule name, …). */
  type?: string;
  /** Human-readable reason. */
  message: string;
}

/** The JSON body every Fw route answers an error with. */
export interface FwErrorBody {
  error: { code: FwErrorCode | string; message: string; details?: FwErrorDetail[]; [key: string]: unknown };
}

/**
 * A failed request: carries an HTTP status and a stable code, and becomes the DESIGN error body
 * `{ error: { code, message, details } }` at the Koa edge.
 *
 * @example
 * throw new FwError('ROW_NOT_FOUND', `No Book with id ${id}`);
 */
export class FwError extends Error {
  override readonly name = 'FwError';
  /** The HTTP status this error answers with. */
  readonly status: number;
  /** Stable upper-snake code, one of {@link FW_ERROR_CODES} or a package's own. */
  readonly code: FwErrorCode | string;
  /** Structured failures (validation), passed through to the response body. */
  readonly details: FwErrorDetail[] | undefined;
  /** Extra response headers (for example `Retry-After` on 429). */
  readonly headers: Record<string, string> | undefined;
  /** Extra members of the error body beside code, message and details (for example the current row of a stale save). */
  readonly extra: Record<string, unknown> | undefined;

  /**
   * @param code a code of {@link FW_ERROR_CODES}, or a package's own code with `options.status`.
   * @param message defaults to the code's message.
   */
  constructor(
    code: FwErrorCode | (string & {}),
    message?: string,
    options: { details?: FwErrorDetail[]; headers?: Record<string, string>; cause?: unknown; status?: number; extra?: Record<string, unknown> } = {},
  ) {
    const known = (FW_ERROR_CODES as Record<string, { status: number; message: string } | undefined>)[code];
    super(message ?? known?.message ?? code, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.status = options.status ?? known?.status ?? 500;
    this.details = options.details;
    this.headers = options.headers;
    this.extra = options.extra;
  }

  /** The response body for this error. */
  toBody(): FwErrorBody {
    const body: FwErrorBody = { error: { ...this.extra, code: this.code, message: this.message } };
    if (this.details && this.details.length > 0) body.error.details = this.details;
    return body;
  }
}

/** True when `value` is an {@link FwError} (also across duplicated copies of this package). */
export function isFwError(value: unknown): value is FwError {
  return value instanceof FwError || (value instanceof Error && value.name === 'FwError' && typeof (value as FwError).status === 'number');
}

/**
 * A wrong option or definition found at start-up (a model definition, a config value). These are
 * programming errors: they are thrown when a factory is called, never turned into an HTTP answer.
 * `key` names the offending option, for example `Book.fields.title.edit.type`.
 */
export class FwDefinitionError extends Error {
  override readonly name: string = 'FwDefinitionError';
  /** Dotted path of the offending key. */
  readonly key: string;
  constructor(key: string, message: string) {
    super(`${key}: ${message}`);
    this.key = key;
  }
}

/** A bad configuration value (see `loadConfig`). `key` is the configuration key, e.g. `fw.upms.expireTimeByLogin`. */
export class FwConfigError extends FwDefinitionError {
  override readonly name: string = 'FwConfigError';
}
