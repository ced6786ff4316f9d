/**
 * One issued token as a store keeps it. The token itself is never part of it: only its
 * SHA-256 (see `hashToken`).
 */
export interface TokenRecord {
  /** SHA-256 of the token, 64 lowercase hex characters. */
  hash: string;
  /** Id of the `fw_user` row the token belongs to. */
  userId: number;
  /** End of validity, epoch milliseconds: the record is expired from this instant on. */
  expiresAt: number;
  /** When the token was issued, epoch milliseconds. */
  createdAt: number;
  /**
   * The sign-in made the user an administrator for this token's life (a login hook said so),
   * whatever the stored user's own flag. Stores return it only when true.
   * @default false
   */
  admin?: boolean;
}

/**
 * Where tokens live. Every method takes the caller's clock reading (`now`, epoch ms) where time
 * matters, so the service's clock is the only clock and a test can move it.
 *
 * Implementations: `MemoryTokenStore`, `KnexTokenStore`, `RedisTokenStore`. A custom store should
 * pass `tokenStoreConformance` from `@fw/token/conformance`.
 */
export interface TokenStore {
  /**
   * Stores a new record. Resolves `false`, changing nothing, when a live record with the same
   * hash exists (an expired one is replaced).
   * @throws {TypeError} when the record is malformed, for example a `hash` that is not 64 hex
   * characters: a clear token handed over by mistake is refused, never stored.
   */
  save(record: TokenRecord, now: number): Promise<boolean>;
  /** The record with this hash, unless there is none or it has expired at `now`. */
  find(hash: string, now: number): Promise<TokenRecord | undefined>;
  /** Removes the record with this hash; `true` when there was one. */
  delete(hash: string): Promise<boolean>;
  /**
   * Removes every record of a user, except the one whose hash is `keepHash` when given (the token
   * that changed its own password stays); resolves how many were removed.
   */
  deleteByUser(userId: number, keepHash?: string): Promise<number>;
  /**
   * Moves the expiry of a live record to `expiresAt` (never earlier than it already is).
   * Resolves `false` when the record is gone or expired at `now`: a revoked token is never
   * brought back.
   */
  extend(hash: string, expiresAt: number, now: number): Promise<boolean>;
  /** Removes every record expired at `now`; resolves how many were removed. */
  purgeExpired(now: number): Promise<number>;
}

const HASH_SHAPE = /^[0-9a-f]{64}$/;

/** True when `hash` has the shape of a token hash. */
export function isHashShape(hash: unknown): hash is string {
  return typeof hash === 'string' && HASH_SHAPE.test(hash);
}

function checkTime(value: unknown, name: string): void {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
    throw new TypeError(`${name} must be a non-negative whole number of epoch milliseconds`);
  }
}

/** Throws when `now` is not a usable clock reading. */
export function checkNow(now: unknown): void {
  checkTime(now, 'now');
}

/** Throws when `userId` cannot be a `fw_user` id (the column is a 32-bit integer). */
export function checkUserId(userId: unknown): void {
  if (typeof userId !== 'number' || !Number.isInteger(userId) || userId < -2147483648 || userId > 2147483647) {
    throw new TypeError('userId must be a 32-bit whole number');
  }
}

/** Throws a TypeError naming the field when `record` cannot be stored at `now`. */
export function checkRecord(record: TokenRecord, now: number): void {
  if (typeof record !== 'object' || record === null) throw new TypeError('the token record must be an object');
  // The message never echoes the value: it may be a clear token passed in the wrong place.
  if (!isHashShape(record.hash)) throw new TypeError('record.hash must be the SHA-256 of the token (64 lowercase hex characters)');
  checkUserId(record.userId);
  checkTime(record.expiresAt, 'record.expiresAt');
  checkTime(record.createdAt, 'record.createdAt');
  if (record.admin !== undefined && typeof record.admin !== 'boolean') throw new TypeError('record.admin must be true or false');
  checkNow(now);
  if (record.expiresAt <= now) throw new RangeError('record.expiresAt must be later than now');
}

/** A fresh copy holding only the record's own fields (`admin` only when true). */
export function copyRecord(record: TokenRecord): TokenRecord {
  const copy: TokenRecord = { hash: record.hash, userId: record.userId, expiresAt: record.expiresAt, createdAt: record.createdAt };
  if (record.admin === true) copy.admin = true;
  return copy;
}
