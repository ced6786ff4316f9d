import type { Context, Middleware } from 'koa';
import { FwError, isFwError, isUnavailableError, unavailableError } from '@fw/core';

/** Options of {@link fwErrorHandler}. */
export interface FwErrorHandlerOptions {
  /**
   * Called with every unexpected error (a 500) before the generic body is sent.
   * @default emits the error on the Koa app, so `app.on('error')` sees it
   */
  onUnexpected?: (error: unknown, ctx: Context) => void;
}

/**
 * Turns errors thrown below it into the Fw error body `{ error: { code, message, details } }`
 * with their status. `FwError`s keep their code; Koa's own `ctx.throw(4xx)` errors keep their
 * status; anything else is a 500 whose text is not shown to the client.
 */
export function fwErrorHandler(options: FwErrorHandlerOptions = {}): Middleware {
  const onUnexpected = options.onUnexpected ?? ((error: unknown, ctx: Context) => ctx.app.emit('error', error, ctx));
  return async function fwErrorHandler(ctx, next) {
    try {
      await next();
    } catch (error) {
      renderError(ctx, error, onUnexpected);
    }
  };
}

/**
 * Sets the headers every Fw API answer carries: `Cache-Control: no-store` (answers hold tokens,
 * user data and per-user power, which no shared or browser cache may keep) and
 * `X-Content-Type-Options: nosniff` (a JSON or CSV answer is never run as a script or page).
 * `fwRoute` and `renderError` call it; call it in a route that answers by other means.
 */
export function setFwApiHeaders(ctx: Context): void {
  ctx.set('Cache-Control', 'no-store');
  ctx.set('X-Content-Type-Options', 'nosniff');
}

/** Answers `error` in the Fw error shape (with the Fw API headers); unexpected ones (500) are reported first. */
export function renderError(ctx: Context, error: unknown, onUnexpected: (error: unknown, ctx: Context) => void = (e, c) => c.app.emit('error', e, c)): void {
  const fw = toFwError(error);
  if (fw.status >= 500) onUnexpected(error, ctx);
  setFwApiHeaders(ctx);
  ctx.status = fw.status;
  if (fw.headers) ctx.set(fw.headers);
  ctx.body = fw.toBody();
}

/**
 * Wraps a route handler so its errors are answered in the Fw error shape, and every answer
 * carries the Fw API headers ({@link setFwApiHeaders}). Unlike {@link fwErrorHandler} it covers
 * only that route, never the host's own middleware.
 */
export function fwRoute(handler: (ctx: Context) => Promise<void> | void): Middleware {
  return async function fwRouteHandler(ctx) {
    setFwApiHeaders(ctx);
    try {
      await handler(ctx);
    } catch (error) {
      renderError(ctx, error);
    }
  };
}

/** Maps any thrown value to an {@link FwError}; unknown errors become an opaque 500. */
export function toFwError(error: unknown): FwError {
  if (isFwError(error)) return error;
  // A backend that cannot be reached fails closed, and says so.
  if (isUnavailableError(error)) return unavailableError(error);
  const status = typeof (error as { status?: unknown })?.status === 'number' ? (error as { status: number }).status : 500;
  if (status === 413) return new FwError('PAYLOAD_TOO_LARGE');
  if (status >= 400 && status < 500 && (error as { expose?: boolean }).expose !== false) {
    const code = status === 401 ? 'UNAUTHENTICATED' : status === 403 ? 'FORBIDDEN' : status === 404 ? 'NOT_FOUND' : 'BAD_REQUEST';
    return new FwError(code, (error as Error).message || undefined, { status });
  }
  return new FwError('INTERNAL', undefined, { cause: error });
}

/** Options of {@link readJsonBody}. */
export interface ReadJsonOptions {
  /** Largest body accepted, in bytes; a larger one is a 413 and is not read to the end. @default 1 MiB */
  limit?: number;
}

const JSON_TYPE = /^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i;
// Fatal: bytes that are not UTF-8 would otherwise become U+FFFD and be stored as text nobody sent
// (issue 10 §4 refused lone surrogates for the same reason). The BOM stays in the text, as before.
const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** The body's bytes as UTF-8 text, or undefined when they are not UTF-8. */
function utf8Text(raw: Buffer): string | undefined {
  try {
    return UTF8.decode(raw);
  } catch {
    return undefined;
  }
}

/**
 * Reads and parses a JSON request body, bounded by `limit`. A body already parsed by a body
 * parser the host mounted is used as it is (its own limits then apply).
 * @throws {FwError} 415 for a non-JSON content type, 413 beyond the limit, 400 for broken JSON or
 * bytes that are not UTF-8.
 */
export async function readJsonBody(ctx: Context, options: ReadJsonOptions = {}): Promise<unknown> {
  const parsed = (ctx.request as { body?: unknown }).body;
  if (parsed !== undefined) return parsed;
  const limit = options.limit ?? 1024 * 1024;
  const type = ctx.get('content-type');
  const declared = Number(ctx.get('content-length') || NaN);
  if (declared === 0 || (!type && !ctx.req.readable)) throw new FwError('BAD_REQUEST', 'A JSON request body is required');
  if (!JSON_TYPE.test(type)) throw new FwError('UNSUPPORTED_MEDIA_TYPE', 'The request body must be JSON (Content-Type: application/json)');
  if (Number.isFinite(declared) && declared > limit) {
    ctx.req.resume(); // drain without buffering, so the connection can still answer
    throw new FwError('PAYLOAD_TOO_LARGE', `The request body is larger than ${limit} bytes`);
  }
  const text = utf8Text(await readLimited(ctx, limit));
  if (text === undefined) throw new FwError('INVALID_JSON', 'The request body is not valid UTF-8');
  if (text.trim() === '') throw new FwError('BAD_REQUEST', 'A JSON request body is required');
  try {
    const body: unknown = JSON.parse(text);
    (ctx.request as { body?: unknown }).body = body;
    return body;
  } catch {
    throw new FwError('INVALID_JSON');
  }
}

/**
 * Reads a text request body of an accepted content type, bounded by `limit` bytes.
 * @throws {FwError} 415 for another content type, 413 beyond the limit, 400 when empty or not UTF-8.
 */
export async function readTextBody(ctx: Context, options: { limit: number; type: RegExp; typeName: string }): Promise<string> {
  const declared = Number(ctx.get('content-length') || NaN);
  if (!options.type.test(ctx.get('content-type'))) throw new FwError('UNSUPPORTED_MEDIA_TYPE', `The request body must be ${options.typeName}`);
  if (Number.isFinite(declared) && declared > options.limit) {
    ctx.req.resume();
    throw new FwError('PAYLOAD_TOO_LARGE', `The request body is larger than ${options.limit} bytes`);
  }
  const text = utf8Text(await readLimited(ctx, options.limit));
  if (text === undefined) throw new FwError('BAD_REQUEST', 'The request body is not valid UTF-8');
  if (text.trim() === '') throw new FwError('BAD_REQUEST', 'The request body is empty');
  return text;
}

/**
 * Buffers the request body up to `limit` bytes. Past the limit the rest is drained, not
 * destroyed, so the client still receives the 413 instead of a reset connection.
 */
function readLimited(ctx: Context, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const req = ctx.req;
    const chunks: Buffer[] = [];
    let size = 0;
    const cleanup = () => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        cleanup();
        req.resume();
        reject(new FwError('PAYLOAD_TOO_LARGE', `The request body is larger than ${limit} bytes`));
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      cleanup();
      resolve(Buffer.concat(chunks));
    };
    const onError = (error: Error) => {
      cleanup();
      reject(new FwError('BAD_REQUEST', 'The request body could not be read', { cause: error }));
    };
    req.on('data', onData);
    req.once('end', onEnd);
    req.once('error', onError);
  });
}

/** True for a plain JSON object (not an array, not null). */
export function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
