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
  /**
   * When the token was last used, epoch milliseconds, as recorded by `touch` (at most about once
   * a minute per token). Only `listByUser` returns it; absent when never recorded.
   */
  lastSeenAt?: number;
}

/** One user with live tokens, as {@link TokenStore.listUsers} reports them. */
export interface TokenUserSummary {
  /** Id of the `fw_user` row. */
  userId: number;
  /** How many live tokens the user holds at `now`. */
  sessions: number;
  /** The latest `lastSeenAt` of those tokens, else their latest `createdAt`, epoch milliseconds. */
  lastSeenAt: number;
  /** The latest expiry among those tokens, epoch milliseconds (the order of the listing). */
  expiresAt: number;
}

/** A page of {@link TokenStore.listUsers}. */
export interface TokenUserPage {
  /** Users with at least one live token, in all pages. */
  total: number;
  /** This page: latest expiry first (ties in an order the store chooses, stable between calls). */
  users: TokenUserSummary[];
}

/**
 * The methods a store adds for listing sessions (issue 19 §6). They are optional, so a custom store
 * written before them keeps working: the token service then answers that session listing is not
 * supported (`FwTokenService.sessionsSupported` is false; the routes answer 501 `SESSIONS_NOT_SUPPORTED`).
 */
export interface TokenSessionStore {
  /**
   * Every live record of a user at `now` (expired ones left out), with `lastSeenAt` where one was
   * recorded, newest `createdAt` first.
   */
  listByUser(userId: number, now: number): Promise<TokenRecord[]>;
  /**
   * Records that the token with this hash was used at `at`: the stored `lastSeenAt` only moves
   * forward, and a missing or expired record is left alone (never recreated). The service calls it
   * at most about once a minute per token, off the request's critical path.
   */
  touch(hash: string, at: number): Promise<void>;
  /**
   * One page of the users holding live tokens at `now`, latest expiry first.
   * @throws {TypeError} for an `offset` below 0 or a `limit` outside 1 to 1000.
   */
  listUsers(now: number, page: { offset: number; limit: number }): Promise<TokenUserPage>;
}

/**
 * Where tokens live. Every method takes the caller's clock reading (`now`, epoch ms) where time
 * matters, so the service's clock is the only clock and a test can move it.
 *
 * Implementations: `MemoryTokenStore`, `KnexTokenStore`, `RedisTokenStore`. A custom store should
 * pass `tokenStoreConformance` from `@fw/token/conformance`.
 */
export interface TokenStore extends Partial<TokenSessionStore> {
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

/** Throws when `page` is not `{ offset, limit }` with a whole `offset` ≥ 0 and a `limit` from 1 to 1000. */
export function checkPage(page: unknown): asserts page is { offset: number; limit: number } {
  const { offset, limit } = (page ?? {}) as { offset?: unknown; limit?: unknown };
  if (typeof offset !== 'number' || !Number.isSafeInteger(offset) || offset < 0) throw new TypeError('page.offset must be a whole number from 0');
  if (typeof limit !== 'number' || !Number.isSafeInteger(limit) || limit < 1 || limit > 1000) throw new TypeError('page.limit must be a whole number from 1 to 1000');
}

/** Sorts summaries the way {@link TokenStore.listUsers} pages them: latest expiry first, then by user id. */
export function compareUserSummaries(a: TokenUserSummary, b: TokenUserSummary): number {
  return b.expiresAt - a.expiresAt || a.userId - b.userId;
}

/** A fresh copy holding only the record's own fields (`admin` only when true). */
export function copyRecord(record: TokenRecord): TokenRecord {
  const copy: TokenRecord = { hash: record.hash, userId: record.userId, expiresAt: record.expiresAt, createdAt: record.createdAt };
  if (record.admin === true) copy.admin = true;
  return copy;
}
