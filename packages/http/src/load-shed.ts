import type { Context, Middleware } from 'koa';
import { FwDefinitionError, OVERLOADED_RETRY_AFTER, overloadedError } from '@fw/core';
import { renderError } from './errors.js';

/** Options of {@link fwLoadShed}. */
export interface FwLoadShedOptions {
  /**
   * Most requests this process works on at once (every counted request). One more is answered 503
   * `OVERLOADED` with `Retry-After` at once, before any of its work (body parsing, token lookup,
   * database) starts.
   * @default 256
   */
  maxInFlight?: number;
  /**
   * Most requests at once of the public, costly kind ({@link FwLoadShedOptions.isPublic}: sign-in,
   * captcha, open-API token, OAuth sign-on), within {@link FwLoadShedOptions.maxInFlight}. Smaller,
   * so a flood of anonymous sign-in attempts can take only this share and signed-in users' requests
   * keep the rest. Must not exceed `maxInFlight`.
   * @default 32
   */
  maxPublicInFlight?: number;
  /**
   * Which requests count at all; the others pass untouched (static files, the host's own routes).
   * @default every request
   */
  applies?: (ctx: Context) => boolean;
  /**
   * Which counted requests are public and costly. Decided by route, never by a token header, which
   * anyone can add to a flood.
   * @default none
   */
  isPublic?: (ctx: Context) => boolean;
  /** Seconds in the `Retry-After` of a shed request. @default 2 */
  retryAfterSeconds?: number;
}

/** What {@link FwLoadShedMiddleware.stats} reports. */
export interface FwLoadShedStats {
  /** Requests being worked on now. */
  inFlight: number;
  /** Public requests being worked on now. */
  publicInFlight: number;
  /** The most requests in flight at once since start. */
  peakInFlight: number;
  /** Requests admitted since start. */
  admitted: number;
  /** Requests answered 503 `OVERLOADED` since start, because all of `maxInFlight` was taken. */
  shed: number;
  /** Of those, public ones refused because all of `maxPublicInFlight` was taken. */
  shedPublic: number;
}

/** The middleware of {@link fwLoadShed}, with its counters. */
export type FwLoadShedMiddleware = Middleware & {
  /** The counters, for metrics and benchmarks (a fresh object per call). */
  stats(): FwLoadShedStats;
};

function checkCount(key: string, value: unknown, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1) throw new FwDefinitionError(key, `must be a positive whole number, got ${String(value)}`);
  return value;
}

/**
 * Sheds overload (issue 19 §4): bounds the requests one process works on at once, and answers the
 * excess 503 `OVERLOADED` with `Retry-After` before its work starts, so a burst costs a few bytes
 * per refused request instead of a pool wait that ends as a misleading "database unavailable".
 * Public sign-in routes get a smaller budget of their own inside the total, so a login flood cannot
 * starve signed-in users. A request counts until its handler returns (a streamed download's
 * transfer after that is not counted).
 *
 * Mount it first, before anything that reads the body or the database.
 * @throws {FwDefinitionError} at once for a bound that is not a positive whole number, or
 *   `maxPublicInFlight` above `maxInFlight`.
 * @example
 * app.use(fwLoadShed({ maxInFlight: 128, isPublic: (ctx) => ctx.path === '/fw-api/login' }));
 */
export function fwLoadShed(options: FwLoadShedOptions = {}): FwLoadShedMiddleware {
  const maxInFlight = checkCount('fwLoadShed.maxInFlight', options.maxInFlight, 256);
  const maxPublicInFlight = checkCount('fwLoadShed.maxPublicInFlight', options.maxPublicInFlight, Math.min(32, maxInFlight));
  if (maxPublicInFlight > maxInFlight) throw new FwDefinitionError('fwLoadShed.maxPublicInFlight', `must not exceed maxInFlight (${maxInFlight}), got ${maxPublicInFlight}`);
  const retryAfter = checkCount('fwLoadShed.retryAfterSeconds', options.retryAfterSeconds, OVERLOADED_RETRY_AFTER);
  for (const key of ['applies', 'isPublic'] as const) {
    if (options[key] !== undefined && typeof options[key] !== 'function') throw new FwDefinitionError(`fwLoadShed.${key}`, 'must be a function (ctx) => boolean');
  }
  const applies = options.applies ?? (() => true);
  const isPublic = options.isPublic ?? (() => false);
  const counters: FwLoadShedStats = { inFlight: 0, publicInFlight: 0, peakInFlight: 0, admitted: 0, shed: 0, shedPublic: 0 };

  const middleware = async function fwLoadShed(ctx: Context, next: () => Promise<unknown>) {
    if (!applies(ctx)) return next();
    const costly = isPublic(ctx);
    if (counters.inFlight >= maxInFlight || (costly && counters.publicInFlight >= maxPublicInFlight)) {
      counters.shed++;
      if (costly && counters.publicInFlight >= maxPublicInFlight) counters.shedPublic++;
      // Not reported to app.on('error'): a flood would write a stack trace per refused request.
      renderError(ctx, overloadedError(undefined, { retryAfter }), () => undefined);
      return;
    }
    counters.inFlight++;
    counters.admitted++;
    if (costly) counters.publicInFlight++;
    if (counters.inFlight > counters.peakInFlight) counters.peakInFlight = counters.inFlight;
    try {
      await next();
    } finally {
      counters.inFlight--;
      if (costly) counters.publicInFlight--;
    }
  };
  return Object.assign(middleware, { stats: (): FwLoadShedStats => ({ ...counters }) });
}
