/**
 * Short-lived strings and counters shared by every app instance on the same backend: failed-login
 * counts, lockouts and captcha answers in `@fw/login`. Every entry has a lifetime; an expired
 * entry is invisible to every method, as if it had never been written.
 *
 * Keys are 1–191 printable ASCII characters without spaces (`[!-~]`): SQL Server and MySQL
 * ignore trailing spaces when comparing, and collations may fold other characters, so anything
 * wider would not name the same entry on every backend. Hash user input into a key (as
 * `@fw/login` does with accounts). Values are strings of at most 1024 characters, without NUL
 * (PostgreSQL cannot store it) or unpaired surrogates (they do not survive UTF-8), so a value
 * comes back exactly as it was written. Lifetimes (`ttlMs`) are positive whole milliseconds.
 *
 * Implementations: `MemoryEphemeralStore`, `KnexEphemeralStore`, `RedisEphemeralStore`. A custom
 * store should pass `ephemeralStoreConformance` from `@fw/token/conformance`.
 *
 * @throws {TypeError} from every method, as a rejected promise, for a malformed key or value or a
 * `ttlMs` that is not a whole number; {RangeError} for a `ttlMs` of 0 or less.
 */
export interface EphemeralStore {
  /**
   * Adds 1 to the counter under `key` and resolves the new count. A missing or expired key
   * starts at 1 and lives `ttlMs` from now; a live key keeps its expiry, so a counter covers a
   * fixed window from its first increment. Atomic: concurrent increments, from any number of
   * instances, each get a different count and none is lost.
   *
   * Use a key either as a counter or for `set`: incrementing a value that is not a whole number
   * rejects on most backends, and the outcome is not specified.
   */
  increment(key: string, ttlMs: number): Promise<number>;
  /** The value under `key`, or `undefined` when there is none or it has expired. Counters read as decimal strings (`'3'`). */
  get(key: string): Promise<string | undefined>;
  /** Stores `value` under `key` for `ttlMs`, replacing any value and expiry it had. */
  set(key: string, value: string, ttlMs: number): Promise<void>;
  /**
   * Removes the value under `key` and resolves it (`undefined` when there was none or it had
   * expired). Atomic: of concurrent takes of one value, exactly one receives it, which makes
   * single-use secrets such as captcha answers safe across instances.
   */
  take(key: string): Promise<string | undefined>;
  /** Removes `key`; nothing happens when it does not exist. */
  delete(key: string): Promise<void>;
  /** Milliseconds `key` has left to live, or `undefined` when it is missing or expired. */
  ttl(key: string): Promise<number | undefined>;
  /**
   * Removes every expired entry and resolves how many were removed. Present on stores whose
   * backend keeps expired entries until asked (memory, SQL); Redis drops them by itself.
   */
  purgeExpired?(): Promise<number>;
}

/** Longest key, in characters: fits a `varchar(191)` primary key under MySQL's utf8mb4 index limit. */
export const EPHEMERAL_KEY_MAX = 191;
/** Longest value, in characters (`varchar(1024)`). */
export const EPHEMERAL_VALUE_MAX = 1024;

const KEY_SHAPE = /^[!-~]+$/;
// With the u flag a well-formed surrogate pair is one code point; only unpaired halves match.
const UNSTORABLE = /[\0\p{Cs}]/u;

/** Throws a TypeError when `key` is not 1–191 printable ASCII characters without spaces. */
export function checkEphemeralKey(key: unknown): asserts key is string {
  if (typeof key !== 'string' || key.length === 0 || key.length > EPHEMERAL_KEY_MAX || !KEY_SHAPE.test(key)) {
    throw new TypeError(`an ephemeral key must be 1 to ${EPHEMERAL_KEY_MAX} printable ASCII characters without spaces`);
  }
}

/** Throws a TypeError when `value` is not a storable string of at most 1024 characters. */
export function checkEphemeralValue(value: unknown): asserts value is string {
  if (typeof value !== 'string' || value.length > EPHEMERAL_VALUE_MAX || UNSTORABLE.test(value)) {
    throw new TypeError(`an ephemeral value must be a string of at most ${EPHEMERAL_VALUE_MAX} characters, without NUL or unpaired surrogates`);
  }
}

/** Throws unless `ttlMs` is a positive whole number of milliseconds. */
export function checkTtl(ttlMs: unknown): asserts ttlMs is number {
  if (typeof ttlMs !== 'number' || !Number.isSafeInteger(ttlMs)) throw new TypeError('ttlMs must be a whole number of milliseconds');
  if (ttlMs <= 0) throw new RangeError('ttlMs must be greater than 0');
}

/** The expiry of an entry written at `now` for `ttlMs`. */
export function expiryOf(now: number, ttlMs: number): number {
  const expiresAt = now + ttlMs;
  if (!Number.isSafeInteger(expiresAt)) throw new RangeError('ttlMs is too large');
  return expiresAt;
}

/** Reads `now()`, whole milliseconds. */
export function readClock(now: () => number): number {
  const t = now();
  if (typeof t !== 'number' || !Number.isFinite(t) || t < 0) throw new TypeError('the clock (options.now) must return epoch milliseconds');
  return Math.floor(t);
}

const COUNT_SHAPE = /^-?\d{1,15}$/;

/** The count a counter's value holds. @throws {TypeError} when the value is not a whole number. */
export function parseCount(value: unknown): number {
  const text = typeof value === 'number' ? String(value) : value;
  if (typeof text !== 'string' || !COUNT_SHAPE.test(text)) throw new TypeError('the value under this key is not a counter (a whole number)');
  return Number(text);
}
