import { FwError, isFwError } from './errors.js';

// Error codes that drivers give when the server cannot be reached or went away mid-request
// (Node's socket errors, PostgreSQL's admin-shutdown and connection classes, MySQL's lost
// connection), as opposed to errors about the request itself.
const CONNECTION_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EPIPE',
  'PROTOCOL_CONNECTION_LOST',
  'PROTOCOL_SEQUENCE_TIMEOUT',
  'ER_CON_COUNT_ERROR',
  'ER_SERVER_SHUTDOWN',
  'ER_BAD_DB_ERROR', // the database is gone (dropped, or never created)
  '57P01', // admin_shutdown
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now
  '08000', // connection_exception
  '08001', // unable to establish
  '08003', // connection does not exist
  '08004', // server rejected the connection
  '08006', // connection failure
  '3D000', // database does not exist (dropped under a running app)
  // A query past its time limit (issue 19 §4): the server did not answer in time, whatever the
  // request asked. Fw's own client-side limit, PostgreSQL's statement_timeout (query_canceled),
  // MariaDB's max_statement_time and MySQL's max_execution_time.
  'FW_QUERY_TIMEOUT',
  '57014',
  'ER_STATEMENT_TIMEOUT',
  'ER_QUERY_TIMEOUT',
]);

// SQLite (better-sqlite3) has no server to lose, but its file can be held by another process past
// the busy timeout, or fail underneath: a full disk, an I/O error, a file that cannot be opened or
// written. None of these can come from a request's content.
const SQLITE_UNAVAILABLE = /^SQLITE_(?:BUSY|IOERR|FULL|CANTOPEN|READONLY|PROTOCOL|NOLFS)(?:_[A-Z]+)*$/;

const CONNECTION_MESSAGES = [
  /Knex: Timeout acquiring a connection/i,
  // pg's own connect timeout (connectionTimeoutMillis): the socket is destroyed with exactly this.
  /^timeout expired$/,
  /Connection terminated/i,
  /Connection is closed/i,
  /connect ECONNREFUSED/i,
  /Command timed out/i,
  /Stream isn't writeable/i,
  /enableOfflineQueue options is false/i,
  /Reached the max retries per request limit/i,
  // Redis Cluster (ioredis Cluster): slots without a reachable master, a cluster marked down, or a
  // client that could not reach any node. Each is about the servers, never about the request.
  /CLUSTERDOWN/,
  /Too many Cluster redirections/i,
  /Cluster isn't ready/i,
  /Failed to refresh slots cache/i,
  /None of startup nodes is available/i,
  /Client has encountered a connection error/i,
  /Cannot enqueue .* after fatal error/i,
  /database .* does not exist/i,
  /Unknown database/i,
  // MariaDB's max_statement_time (errno 1969), which mysql2 knows no code name for.
  /max_statement_time exceeded/i,
];

/** Seconds a client is asked to wait before trying again after a 503. */
export const UNAVAILABLE_RETRY_AFTER = 5;

/**
 * True when `error` says a backend (the database, Redis) cannot be reached, rather than that the
 * request was wrong. Such failures answer 503 `UNAVAILABLE`: the request is refused, never let
 * through as if a check had passed.
 */
export function isUnavailableError(error: unknown): boolean {
  for (let e: unknown = error, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    if (isFwError(e)) return e.status === 503;
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && (CONNECTION_CODES.has(code) || SQLITE_UNAVAILABLE.test(code))) return true;
    if (e instanceof Error && CONNECTION_MESSAGES.some((re) => re.test(e.message))) return true;
    if ((e as { name?: unknown }).name === 'KnexTimeoutError' || (e as { name?: unknown }).name === 'MaxRetriesPerRequestError') return true;
  }
  return false;
}

/**
 * The 503 answer for an unreachable backend, with `Retry-After`; the cause is kept for logs, never
 * shown. A cause that is, or wraps, a 503 `FwError` (an `OVERLOADED` from the pool) gives that
 * error back, so an overload is never reported as an outage.
 */
export function unavailableError(cause?: unknown): FwError {
  for (let e: unknown = cause, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    if (isFwError(e) && e.status === 503) return e;
  }
  return new FwError('UNAVAILABLE', undefined, { headers: { 'Retry-After': String(UNAVAILABLE_RETRY_AFTER) }, cause });
}

/** Seconds a client is asked to wait before trying again after a 503 `OVERLOADED`: load passes quicker than an outage. */
export const OVERLOADED_RETRY_AFTER = 2;

/**
 * The 503 answer for too much load (issue 19 §4): the request was shed before its work started,
 * or waited too long for a database connection while the database itself was answering. Never an
 * outage: monitoring and clients can tell the two apart by the code.
 * @param retryAfter seconds for `Retry-After`. @default 2
 */
export function overloadedError(message?: string, options: { retryAfter?: number; cause?: unknown } = {}): FwError {
  const retryAfter = options.retryAfter ?? OVERLOADED_RETRY_AFTER;
  return new FwError('OVERLOADED', message, { headers: { 'Retry-After': String(retryAfter) }, cause: options.cause });
}

/**
 * A driver's reason for a failed connection, in one line: Node's AggregateError (a refused
 * dual-stack host) has no message of its own, and a pool or connect timeout says only "timeout".
 */
export function connectionReason(error: unknown): string {
  const inner = error instanceof AggregateError && error.errors.length > 0 ? error.errors[0] : error;
  const message = inner instanceof Error ? inner.message : String(inner);
  const code = (inner as { code?: unknown } | null)?.code;
  const text = message.trim() || (typeof code === 'string' ? code : 'unknown error');
  if (text === 'timeout expired' || (inner as { name?: unknown } | null)?.name === 'KnexTimeoutError') return 'the server did not answer in time';
  return text.split('\n')[0]!;
}
