import { CONFIG_KEYS, FwDefinitionError, FwError, type FwConfig, type FwUser } from '@fw/core';
import { TOKEN_ERROR_CODES } from './error-codes.js';
import { generateToken, hashToken, isTokenShape } from './generate.js';
import { SeenThrottle, isSessionId, sessionIdOf, type OnlineUsersPage, type TokenSession } from './sessions.js';
import { checkPage, checkUserId, isHashShape, type TokenSessionStore, type TokenStore } from './store.js';

/** Options of {@link FwTokenService} / {@link createTokenService}. */
export interface FwTokenServiceOptions {
  /** Where token records live: `MemoryTokenStore`, `KnexTokenStore`, `RedisTokenStore` or your own. */
  store: TokenStore;
  /**
   * Token lifetime in minutes, a whole number from 1 to 527,040 (366 days).
   * @default config['fw.upms.expireTimeByLogin'] when `config` is given, else 120
   */
  expireMinutes?: number;
  /**
   * Resolved Fw configuration (`loadConfig()`); supplies `expireMinutes` and `sliding` when they
   * are not given here.
   */
  config?: FwConfig;
  /**
   * Sliding expiration: a token in use gets a full lifetime again, so only idle tokens expire.
   * @default config['fw.upms.slidingExpiration'] when `config` is given, else false
   */
  sliding?: boolean;
  /**
   * With `sliding`, the fraction of the lifetime that must have passed since the token was
   * issued or last renewed before `resolve` writes a new expiry. Renewing on every request
   * would turn each read into a write; at 0.5 a token used all day is written about twice per
   * lifetime and always has at least half of it left. From 0 (every call) to below 1.
   * @default 0.5
   */
  renewAfter?: number;
  /**
   * The clock, epoch milliseconds. Inject one to test expiry without waiting.
   * @default Date.now
   */
  now?: () => number;
  /**
   * Least time between two "last seen" writes of one token by this instance ({@link
   * FwTokenService.markSeen}), in milliseconds: a token used on every request is written about
   * once per interval, never once per request. 0 writes on every call (tests).
   * @default 60_000
   */
  seenIntervalMs?: number;
}

/** A token just issued by {@link FwTokenService.loginToken}. */
export interface IssuedToken {
  /** The token to hand to the client; the only moment it exists in clear on the server. */
  token: string;
  /** When it stops being valid (unless renewed by sliding expiration). */
  expiresAt: Date;
}

/** What a valid token stands for. */
export interface ResolvedToken {
  /** Id of the `fw_user` row the token was issued to. */
  userId: number;
  /** When the token stops being valid, after any renewal this call made. */
  expiresAt: Date;
  /**
   * The sign-in that issued the token made the user an administrator (see
   * {@link FwTokenService.loginToken}'s `admin`); the stored user's own flag is separate.
   */
  admin: boolean;
}

/** Options of {@link FwTokenService.loginToken}. */
export interface LoginTokenOptions {
  /**
   * The token makes its user an administrator for its whole life, on every instance, whatever
   * the stored `fw_user.is_admin` says: for a login hook that decides administrators itself
   * (an LDAP group, say). `user.isAdmin` is not read: a token records admin power only when asked.
   * @default false
   */
  admin?: boolean;
}

const EXPIRE = CONFIG_KEYS['fw.upms.expireTimeByLogin'];

function checkMinutes(value: unknown, key: string): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < EXPIRE.min || value > EXPIRE.max) {
    throw new FwDefinitionError(key, `must be a whole number of minutes from ${EXPIRE.min} to ${EXPIRE.max}, got ${String(value)}`);
  }
  return value;
}

const STORE_METHODS = ['save', 'find', 'delete', 'deleteByUser', 'extend', 'purgeExpired'] as const;

// A freshly generated token colliding with a live one has probability ~n / 62^16; a few retries
// only guard against a broken random source turning into a silent session takeover.
const GENERATE_ATTEMPTS = 3;

/**
 * Issues, resolves and revokes Fw login tokens. Tokens are 16 characters from `[A-Za-z0-9]`;
 * the store only ever sees their SHA-256, and nothing here logs them.
 *
 * @throws {FwDefinitionError} (from the constructor) for a missing store, a lifetime out of
 * range, a non-boolean `sliding`, a `renewAfter` outside [0, 1) or a `now` that is not a function.
 * @example
 * const tokens = new FwTokenService({ store: new MemoryTokenStore(), config: loadConfig() });
 * const { token, expiresAt } = await tokens.loginToken(user);
 * const session = await tokens.resolve(ctx.get('token')); // { userId, expiresAt } | undefined
 */
export class FwTokenService {
  /** The store in use. */
  readonly store: TokenStore;
  /** Token lifetime in minutes. */
  readonly expireMinutes: number;
  /** Whether `resolve` renews tokens in use. */
  readonly sliding: boolean;
  /** Fraction of the lifetime after which a sliding renewal is written. */
  readonly renewAfter: number;
  /** The clock every expiry is computed with (injectable for tests). */
  readonly now: () => number;
  /** Least time between two "last seen" writes of one token by this instance. */
  readonly seenIntervalMs: number;
  private readonly lifetimeMs: number;
  private readonly seen: SeenThrottle;

  constructor(options: FwTokenServiceOptions) {
    if (typeof options !== 'object' || options === null) throw new FwDefinitionError('FwTokenService', 'options must be an object');
    const { store, config, now = Date.now, renewAfter = 0.5 } = options;
    if (typeof store !== 'object' || store === null || STORE_METHODS.some((m) => typeof store[m] !== 'function')) {
      throw new FwDefinitionError('FwTokenService.store', `must implement TokenStore (${STORE_METHODS.join(', ')})`);
    }
    if (config !== undefined && (typeof config !== 'object' || config === null)) {
      throw new FwDefinitionError('FwTokenService.config', 'must be the object returned by loadConfig()');
    }
    const expireMinutes =
      options.expireMinutes !== undefined
        ? checkMinutes(options.expireMinutes, 'FwTokenService.expireMinutes')
        : config !== undefined
          ? checkMinutes(config['fw.upms.expireTimeByLogin'], 'fw.upms.expireTimeByLogin')
          : EXPIRE.default;
    const sliding = options.sliding ?? (config !== undefined ? config['fw.upms.slidingExpiration'] : false);
    if (typeof sliding !== 'boolean') {
      const key = options.sliding !== undefined ? 'FwTokenService.sliding' : 'fw.upms.slidingExpiration';
      throw new FwDefinitionError(key, `must be true or false, got ${String(sliding)}`);
    }
    if (typeof renewAfter !== 'number' || !(renewAfter >= 0 && renewAfter < 1)) {
      throw new FwDefinitionError('FwTokenService.renewAfter', `must be a number from 0 to below 1, got ${String(renewAfter)}`);
    }
    if (typeof now !== 'function') throw new FwDefinitionError('FwTokenService.now', 'must be a function returning epoch milliseconds');
    const seenIntervalMs = options.seenIntervalMs ?? 60_000;
    if (typeof seenIntervalMs !== 'number' || !Number.isSafeInteger(seenIntervalMs) || seenIntervalMs < 0) {
      throw new FwDefinitionError('FwTokenService.seenIntervalMs', `must be a whole number of milliseconds from 0, got ${String(seenIntervalMs)}`);
    }
    this.store = store;
    this.expireMinutes = expireMinutes;
    this.sliding = sliding;
    this.renewAfter = renewAfter;
    this.now = now;
    this.lifetimeMs = expireMinutes * 60_000;
    this.seenIntervalMs = seenIntervalMs;
    this.seen = new SeenThrottle(seenIntervalMs);
  }

  /**
   * Whether the store lists and touches sessions (`listByUser`, `touch`, `listUsers`): true for
   * the built-in stores; a custom store written before session listing answers false, and the
   * session methods below then throw `SESSIONS_NOT_SUPPORTED` (501).
   */
  get sessionsSupported(): boolean {
    const store = this.store as Partial<TokenSessionStore>;
    return typeof store.listByUser === 'function' && typeof store.touch === 'function' && typeof store.listUsers === 'function';
  }

  /**
   * Records that a token was used now, for its session's "last seen": at most one store write per
   * token per `seenIntervalMs` on this instance, never for a malformed token, and never failing
   * (a lost "last seen" must not fail the request it came with). Callers need not await it.
   * @param tokenOrHash the token, or its hash when the caller already computed it.
   */
  async markSeen(tokenOrHash: string): Promise<void> {
    const hash = isHashShape(tokenOrHash) ? tokenOrHash : isTokenShape(tokenOrHash) ? hashToken(tokenOrHash) : undefined;
    if (hash !== undefined) await this.seenHash(hash);
  }

  /**
   * {@link markSeen} for a hash the caller computed from a token itself (`fwAuth` does, once per
   * request): no shape check, and when no write is due (nearly always) it returns at once,
   * without a promise, so the request pays a map lookup.
   * @internal
   */
  seenHash(hash: string): Promise<void> | undefined {
    const store = this.store as Partial<TokenSessionStore>;
    if (typeof store.touch !== 'function') return undefined;
    const now = this.readClock();
    if (!this.seen.due(hash, now)) return undefined;
    return store.touch(hash, now).catch(() => {
      // The next use after the interval writes it again.
      this.seen.forget(hash);
    });
  }

  /**
   * The live sessions of a user, newest first: an opaque `id` each (derived from the token hash,
   * useless as a token or to find one), when it was created, last seen and expires, and whether it
   * is `current` (the token given).
   * @throws {FwError} `SESSIONS_NOT_SUPPORTED` (501) when the store cannot list sessions.
   * @throws {TypeError} when `userId` is not a 32-bit whole number.
   */
  async listSessions(userId: number, current?: string): Promise<TokenSession[]> {
    checkUserId(userId);
    const store = this.sessionStore();
    const currentHash = current !== undefined && isTokenShape(current) ? hashToken(current) : undefined;
    const records = await store.listByUser(userId, this.readClock());
    return records.map((record) => ({
      id: sessionIdOf(record.hash),
      hash: record.hash,
      userId: record.userId,
      createdAt: new Date(record.createdAt),
      lastSeenAt: new Date(Math.max(record.lastSeenAt ?? 0, record.createdAt)),
      expiresAt: new Date(record.expiresAt),
      admin: record.admin === true,
      current: record.hash === currentHash,
    }));
  }

  /**
   * Ends the session with this id if it is one of `userId`'s live sessions; `false` otherwise (an
   * id of another user's session, an unknown or malformed id: all alike, so the answer tells
   * nothing about other users).
   * @throws {FwError} `SESSIONS_NOT_SUPPORTED` (501) when the store cannot list sessions.
   */
  async revokeSession(userId: number, id: unknown): Promise<boolean> {
    checkUserId(userId);
    if (!isSessionId(id)) return false;
    const store = this.sessionStore();
    const match = (await store.listByUser(userId, this.readClock())).find((record) => sessionIdOf(record.hash) === id);
    return match ? this.store.delete(match.hash) : false;
  }

  /**
   * One page of the users holding live sessions, latest expiry first.
   * @throws {FwError} `SESSIONS_NOT_SUPPORTED` (501) when the store cannot list sessions.
   * @throws {TypeError} for an `offset` below 0 or a `limit` outside 1 to 1000.
   */
  async onlineUsers(page: { offset: number; limit: number }): Promise<OnlineUsersPage> {
    checkPage(page);
    const { total, users } = await this.sessionStore().listUsers(this.readClock(), page);
    return { total, users: users.map((u) => ({ userId: u.userId, sessions: u.sessions, lastSeenAt: new Date(u.lastSeenAt), expiresAt: new Date(u.expiresAt) })) };
  }

  private sessionStore(): TokenSessionStore {
    if (!this.sessionsSupported) {
      const { status, message } = TOKEN_ERROR_CODES.SESSIONS_NOT_SUPPORTED;
      throw new FwError('SESSIONS_NOT_SUPPORTED', message, { status });
    }
    return this.store as TokenSessionStore;
  }

  /** A new random token (16 characters from `[A-Za-z0-9]`), not yet registered. */
  generateToken(): string {
    return generateToken();
  }

  /**
   * Registers a token for `user` and returns it with its expiry. Without `token`, a new one is
   * generated; a given token (for example one the sign-on bridge generated) is registered as is.
   *
   * @throws {TypeError} when `user.id` is not a whole number, `token` is given but does not
   * have the 16-character shape (the message never contains the token), or `options.admin` is
   * not a boolean.
   * @throws {FwError} `CONFLICT` when the given token is already registered.
   * @example
   * await tokens.loginToken(user);                             // a new token, the stored flag decides
   * await tokens.loginToken(user, undefined, { admin: true }); // an administrator for this token's life
   */
  async loginToken(user: FwUser, token?: string, options: LoginTokenOptions = {}): Promise<IssuedToken> {
    if (typeof user !== 'object' || user === null) throw new TypeError('loginToken: user must be an FwUser');
    checkUserId(user.id);
    if (token !== undefined && !isTokenShape(token)) {
      throw new TypeError('loginToken: token must be 16 characters from [A-Za-z0-9]');
    }
    const admin = options?.admin ?? false;
    if (typeof admin !== 'boolean') throw new TypeError('loginToken: options.admin must be true or false');
    for (let attempt = 1; ; attempt++) {
      const candidate = token ?? generateToken();
      const now = this.readClock();
      const expiresAt = now + this.lifetimeMs;
      const record = { hash: hashToken(candidate), userId: user.id, expiresAt, createdAt: now, ...(admin ? { admin: true } : {}) };
      if (await this.store.save(record, now)) {
        return { token: candidate, expiresAt: new Date(expiresAt) };
      }
      if (token !== undefined || attempt >= GENERATE_ATTEMPTS) {
        throw new FwError('CONFLICT', 'This token is already registered');
      }
    }
  }

  /**
   * The user a token stands for (and whether it was issued with `admin`), or `undefined` when it
   * is malformed (rejected without a store lookup), unknown, revoked or expired. With sliding
   * expiration, renews the token once the `renewAfter` part of its lifetime has passed.
   */
  async resolve(token: unknown): Promise<ResolvedToken | undefined> {
    if (!isTokenShape(token)) return undefined;
    const hash = hashToken(token);
    const now = this.readClock();
    const record = await this.store.find(hash, now);
    if (!record) return undefined;
    let expiresAt = record.expiresAt;
    if (this.sliding && record.expiresAt - now < this.lifetimeMs * (1 - this.renewAfter)) {
      const renewed = now + this.lifetimeMs;
      // A revoke on another instance between the read and this write wins: the token is not
      // brought back and this request is treated as unauthenticated.
      if (!(await this.store.extend(hash, renewed, now))) return undefined;
      expiresAt = Math.max(renewed, record.expiresAt);
    }
    return { userId: record.userId, expiresAt: new Date(expiresAt), admin: record.admin === true };
  }

  /** Revokes one token (logout); `true` when it was registered. Malformed tokens resolve `false`. */
  async revoke(token: unknown): Promise<boolean> {
    if (!isTokenShape(token)) return false;
    return this.store.delete(hashToken(token));
  }

  /**
   * Revokes one token by its hash (`hashToken(token)`, as the login log records it), for callers
   * that never held the token itself; `true` when it was registered. A malformed hash resolves `false`.
   * @example await tokens.revokeHash(loginLogRow.tokenHash);
   */
  async revokeHash(hash: unknown): Promise<boolean> {
    if (!isHashShape(hash)) return false;
    return this.store.delete(hash);
  }

  /**
   * Revokes every token of a user (password change, account locked, administrator flag taken
   * away); resolves how many were removed. With `except`, that one token stays valid: the session
   * that changed its own password keeps working while every other one ends. An `except` that is
   * not a token's shape names no stored token, so then nothing is kept.
   * @throws {TypeError} when `userId` is not a 32-bit whole number.
   * @example
   * await tokens.revokeUser(user.id, { except: ctx.state.fw.token }); // after a password change
   */
  async revokeUser(userId: number, options?: { except?: string }): Promise<number> {
    checkUserId(userId);
    const except = options?.except;
    return except !== undefined && isTokenShape(except) ? this.store.deleteByUser(userId, hashToken(except)) : this.store.deleteByUser(userId);
  }

  /** Removes expired records from the store (call it from a timer or a job); resolves how many. */
  async purgeExpired(): Promise<number> {
    return this.store.purgeExpired(this.readClock());
  }

  private readClock(): number {
    const now = this.now();
    if (typeof now !== 'number' || !Number.isFinite(now) || now < 0) {
      throw new TypeError('FwTokenService: the clock (options.now) must return epoch milliseconds');
    }
    // Stores keep whole milliseconds; a clock with sub-millisecond precision is truncated.
    return Math.floor(now);
  }
}

/**
 * Creates a {@link FwTokenService}; options are checked now, so a bad one fails at start-up.
 *
 * @throws {FwDefinitionError} for a bad option (see {@link FwTokenService}).
 * @example
 * const tokens = createTokenService({ store: new RedisTokenStore({ redis }), expireMinutes: 60, sliding: true });
 */
export function createTokenService(options: FwTokenServiceOptions): FwTokenService {
  return new FwTokenService(options);
}
