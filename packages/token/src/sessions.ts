import { createHash } from 'node:crypto';

/** One live session (token) of a user, as {@link FwTokenService.listSessions} reports it. */
export interface TokenSession {
  /**
   * Opaque id of the session: 24 hex characters of a SHA-256 over the token hash. It names the
   * session in `DELETE /sessions/{id}` and cannot be turned back into the token or its hash.
   */
  id: string;
  /**
   * The token hash, for server-side joins (the login log's `token_hash`). Never send it to a
   * client: it is what the stores key tokens by.
   */
  hash: string;
  userId: number;
  createdAt: Date;
  /** When the token was last used (recorded at most about once a minute), else `createdAt`. */
  lastSeenAt: Date;
  expiresAt: Date;
  /** The sign-in made the user an administrator for this token's life. */
  admin: boolean;
  /** This is the token the caller passed as `current`. */
  current: boolean;
}

/** One user with live sessions, as {@link FwTokenService.onlineUsers} reports them. */
export interface OnlineUser {
  userId: number;
  /** How many live sessions the user holds. */
  sessions: number;
  /** The latest use (or creation) among them. */
  lastSeenAt: Date;
  /** The latest expiry among them. */
  expiresAt: Date;
}

/** A page of {@link FwTokenService.onlineUsers}. */
export interface OnlineUsersPage {
  /** Users with live sessions, in all pages. */
  total: number;
  users: OnlineUser[];
}

const SESSION_ID = /^[0-9a-f]{24}$/;

/** The opaque session id of a token hash (see {@link TokenSession.id}). */
export function sessionIdOf(hash: string): string {
  // A domain prefix, so the id is no hash that appears anywhere else (a token hash is SHA-256 of
  // the token; this is SHA-256 of a different string), and 96 bits: unique among a user's tokens.
  return createHash('sha256').update(`fw-session:${hash}`).digest('hex').slice(0, 24);
}

/** True when `id` has the shape of a session id. */
export function isSessionId(id: unknown): id is string {
  return typeof id === 'string' && SESSION_ID.test(id);
}

/**
 * Remembers, per token hash, when this instance last wrote "last seen", so a busy token is written
 * once per interval. Bounded: past `max` hashes it starts afresh (a few early writes, no growth).
 */
export class SeenThrottle {
  readonly #interval: number;
  readonly #max: number;
  #written = new Map<string, number>();

  constructor(intervalMs: number, max = 50_000) {
    this.#interval = intervalMs;
    this.#max = max;
  }

  /** True (and noted) when a write for `hash` is due at `now`. */
  due(hash: string, now: number): boolean {
    const last = this.#written.get(hash);
    if (last !== undefined && now - last < this.#interval && now >= last) return false;
    if (this.#written.size >= this.#max) this.#written = new Map();
    this.#written.set(hash, now);
    return true;
  }

  /** Forgets `hash`, so its next use writes again. */
  forget(hash: string): void {
    this.#written.delete(hash);
  }
}
