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
    quietWhenClientLeaves(ctx);
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

// Errors of the connection to a client that went away (a closed tab, a cancelled download).
const CLIENT_GONE = new Set(['ECONNRESET', 'EPIPE', 'ECONNABORTED']);

/**
 * A client that leaves before the answer is complete is not an error of the app: Koa reports
 * its socket error and, for a streamed body (a file, an export), the pipeline's premature close
 * through `ctx.onerror`, which emits them on the app. Those are dropped for this request. A body
 * stream's own error (a storage read that fails) is still reported, and so is a premature close
 * while the client is still there (a body that ended itself early).
 */
function quietWhenClientLeaves(ctx: Context): void {
  let clientLeft = false;
  ctx.res.once('close', () => {
    const body = ctx.body as { destroyed?: unknown } | null | undefined;
    // A body destroyed first is the body failing, not the client leaving.
    if (!ctx.res.writableFinished && body?.destroyed !== true) clientLeft = true;
  });
  const onerror = ctx.onerror;
  ctx.onerror = function (this: Context, error: unknown) {
    const code = (error as { code?: unknown } | null)?.code;
    if (typeof code === 'string' && CLIENT_GONE.has(code)) {
      // The socket's error comes first: the premature close that follows is the same departure.
      clientLeft = true;
      return;
    }
    if (code === 'ERR_STREAM_PREMATURE_CLOSE' && clientLeft) return;
    onerror.call(this, error as Error);
  };
}
