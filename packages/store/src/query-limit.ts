import { overloadedError } from '@fw/core';
import type { Knex } from 'knex';

// Issue 19 §4: with the database frozen (connections open, nothing coming back), a query must not
// wait for the length of the freeze. A server-side limit (statement_timeout, max_statement_time)
// covers a slow query on a live server and keeps the connection; it cannot help when the network
// holds the traffic, so the client stops waiting too, a little later, and throws the connection
// away: a connection whose query never answered is in an unknown state and must not serve again.

/** Milliseconds the client waits beyond the server-side limit, so a live server's own cancel (which keeps the connection) usually comes first. */
export const CLIENT_GRACE_MS = 250;

/**
 * A query that got no answer within the store's `queryTimeoutMs`. Its code `FW_QUERY_TIMEOUT` is
 * one `isUnavailableError` of `@fw/core` knows: the request answers 503 `UNAVAILABLE`.
 */
export class QueryTimeoutError extends Error {
  override readonly name = 'QueryTimeoutError';
  /** Stable code, for `isUnavailableError`. */
  readonly code = 'FW_QUERY_TIMEOUT';
  /** The limit that passed, in milliseconds. */
  readonly timeoutMs: number;
  constructor(timeoutMs: number) {
    super(`The database did not answer within ${timeoutMs} ms (queryTimeoutMs); the connection was closed`);
    this.timeoutMs = timeoutMs;
  }
}

/**
 * When the database last answered a query, to tell an overload (connections busy, the server
 * answering) from an outage (nothing answers) when the pool has no connection to give.
 */
export class DatabaseHealth {
  #lastAnswerAt = Number.NEGATIVE_INFINITY;
  readonly #alwaysAnswering: boolean;

  /** @param alwaysAnswering true for SQLite: an in-process file is never "unreachable" by waiting for a connection. */
  constructor(alwaysAnswering: boolean) {
    this.#alwaysAnswering = alwaysAnswering;
  }

  /** A query got its answer (a result or a server error: either way the server answered). */
  answered(): void {
    this.#lastAnswerAt = performance.now();
  }

  /** True when the database answered some query after `since` (a `performance.now()` reading). */
  answeredSince(since: number): boolean {
    return this.#alwaysAnswering || this.#lastAnswerAt >= since;
  }
}

// The raw driver connections' query method, as pg's Client and mysql2's Connection have it: the
// callback is the last argument (knex always passes one, except for pg's streaming queries).
type QueryFn = (...args: unknown[]) => unknown;
interface RawConnection {
  query: QueryFn;
  /** mysql2's prepared statements (the session lookups), bounded the same way. */
  execute?: QueryFn;
  __knex__disposed?: unknown;
}

/** How a driver's `query` is called without a callback. */
export type NoCallbackForm =
  /** pg: a promise of the result, unless the argument is a `Submittable` (a cursor or stream). */
  | 'promise'
  /** mysql2: an event emitter (knex's streams), left unbounded. */
  | 'stream';

/**
 * Bounds every query on a raw pg / mysql2 connection to `limitMs` (mysql2's `execute` too): past it
 * the caller gets a {@link QueryTimeoutError} at once, the connection is marked for knex's pool to
 * discard and its socket is destroyed (which also ends what the driver still waits for). A
 * streaming query is left alone: its rows come in pages, each bounded by the server-side limit.
 *
 * @param socketOf the connection's socket, destroyed on a timeout.
 */
export function limitRawQueries(
  connection: RawConnection,
  limitMs: number,
  health: DatabaseHealth,
  socketOf: (connection: RawConnection) => { destroy(): void } | undefined,
  noCallback: NoCallbackForm,
): void {
  connection.query = bounded(connection, connection.query, limitMs, health, socketOf, noCallback);
  if (typeof connection.execute === 'function') connection.execute = bounded(connection, connection.execute, limitMs, health, socketOf, noCallback);
}

/** `query` (a driver connection's `query` or `execute`), bounded as {@link limitRawQueries} says. */
function bounded(
  connection: RawConnection,
  query: QueryFn,
  limitMs: number,
  health: DatabaseHealth,
  socketOf: (connection: RawConnection) => { destroy(): void } | undefined,
  noCallback: NoCallbackForm,
): QueryFn {
  return function limitedQuery(this: unknown, ...args: unknown[]): unknown {
    const last = args.length - 1;
    const callback = args[last];
    if (typeof callback !== 'function') {
      const submittable = typeof (args[0] as { submit?: unknown } | null)?.submit === 'function';
      if (noCallback === 'stream' || submittable) return query.apply(this, args);
      // pg's promise form (the session lookup's prepared statement): the same, through a callback.
      return new Promise((resolve, reject) => {
        limitedQuery.call(this, ...args, (error: Error | null, result: unknown) => (error ? reject(error) : resolve(result)));
      });
    }
    let settled = false;
    const timer = setTimeout(() => {
      if (settled) return;
      settled = true;
      const error = new QueryTimeoutError(limitMs);
      connection.__knex__disposed = error;
      try {
        socketOf(connection)?.destroy();
      } finally {
        (callback as (error: Error) => void)(error);
      }
    }, limitMs);
    timer.unref();
    args[last] = function answered(this: unknown, ...results: unknown[]) {
      if (settled) return; // too late: the caller has its timeout error, the connection is gone
      settled = true;
      clearTimeout(timer);
      // An error that is a connection failure is not an answer; a server error (a constraint, a
      // statement timeout) is: the server is there.
      const error = results[0] as { fatal?: unknown; code?: unknown } | null | undefined;
      if (!error || (error.fatal !== true && typeof error.code === 'string' && !/^E[A-Z]+$/.test(error.code))) health.answered();
      return (callback as (...a: unknown[]) => unknown).apply(this, results);
    };
    try {
      return query.apply(this, args);
    } catch (error) {
      // Refused before anything was sent (mysql2 throws on an undefined value): no answer is
      // coming, so the timer must not later close the connection under its next user.
      settled = true;
      clearTimeout(timer);
      throw error;
    }
  };
}

/**
 * A wait for a connection that ran out of time: knex's pool timeout, or the driver's connect
 * timeout when the pool had to open a connection for this request (pg's "timeout expired",
 * mysql2's `ETIMEDOUT`).
 */
function isConnectionWaitTimeout(error: unknown): boolean {
  const e = error as { name?: unknown; message?: unknown; code?: unknown } | null;
  return e?.name === 'KnexTimeoutError' || e?.message === 'timeout expired' || e?.code === 'ETIMEDOUT';
}

/**
 * Makes a wait for a connection that ran out of time an overload when the database answered
 * while this request waited: the connections were busy, or the server slow to accept one more
 * because it (or this process) is short of CPU, not stuck. Otherwise the error stays as it was
 * (knex's `KnexTimeoutError`, the driver's connect timeout), which `isUnavailableError` reads as
 * an outage.
 */
export function classifyAcquireTimeouts(knex: Knex, health: DatabaseHealth): void {
  const client = knex.client as { acquireConnection(): Promise<unknown> };
  const acquire = client.acquireConnection.bind(client);
  client.acquireConnection = async function acquireConnection() {
    const since = performance.now();
    try {
      return await acquire();
    } catch (error) {
      if (isConnectionWaitTimeout(error) && health.answeredSince(since)) {
        throw overloadedError('Every database connection is busy; try again shortly', { cause: error });
      }
      throw error;
    }
  };
}
