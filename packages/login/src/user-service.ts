import { BlockList, isIP } from 'node:net';
import { FwError, USER_STATUS, hashPassword, toFwUser, verifyPassword, type FwUser, type PasswordHash, type StoredUserLike } from '@fw/core';
import type { FwStore, FwUserRecord } from '@fw/store';
import { currentLoginRequest } from './request-context.js';

export { toFwUser, type StoredUserLike };

/**
 * The outcome of a credential check. On success `stored` is the `fw_user` row the check read
 * after the password matched, and `user` its public view ({@link toFwUser}); a refusal is data
 * too, its `reason` worded for the person signing in.
 */
export type LoginResult = { pass: true; user: FwUser; stored: FwUserRecord } | { pass: false; reason: string };

/** True when the user holds a local password that an administrator set and the user has not changed since (`resetPwd`). */
export function needsPasswordReset(stored: { hasPassword: boolean; resetPwdTime: Date | null } | undefined): boolean {
  return stored !== undefined && stored.hasPassword && stored.resetPwdTime === null;
}

/** Failure reasons of the built-in check, worded for the person logging in. */
export const LOGIN_REASONS = {
  /** Unknown account and wrong password share this text on purpose. */
  BAD_CREDENTIALS: 'Incorrect account or password',
  LOCKED: 'This account is locked',
  EXPIRED: 'This account has expired',
  IP_NOT_ALLOWED: 'Logins to this account are not allowed from this address',
  NOT_STORED: 'No stored user matches this login',
} as const;

/**
 * The IP allowlist check: `list` holds comma- or whitespace-separated addresses and CIDR ranges,
 * IPv4 or IPv6. An empty list allows every address; an unparsable entry allows nothing, so a
 * typo never opens an account.
 */
export function ipAllowed(list: string | null | undefined, ip: string): boolean {
  const entries = (list ?? '').split(/[\s,;]+/).filter(Boolean);
  if (entries.length === 0) return true;
  const address = ip.startsWith('::ffff:') && isIP(ip.slice(7)) === 4 ? ip.slice(7) : ip;
  const family = isIP(address);
  if (family === 0) return false;
  const allowed = new BlockList();
  for (const entry of entries) {
    const [base, bits] = entry.split('/');
    const kind = isIP(base ?? '');
    if (kind === 0) return false;
    const type = kind === 4 ? 'ipv4' : 'ipv6';
    if (bits === undefined) allowed.addAddress(base!, type);
    else {
      const prefix = Number(bits);
      if (!Number.isInteger(prefix) || prefix < 0 || prefix > (kind === 4 ? 32 : 128)) return false;
      allowed.addSubnet(base!, prefix, type);
    }
  }
  return allowed.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

/**
 * The built-in user service: password checks against `fw_user`, account status, expiry and IP
 * allowlist, and password changes.
 */
export class UserService {
  readonly #store: FwStore;
  // Hashed once; unknown accounts are checked against it so they cost the same scrypt work.
  #dummy: Promise<PasswordHash> | undefined;

  constructor(store: FwStore) {
    this.#store = store;
  }

  #dummyHash(): Promise<PasswordHash> {
    this.#dummy ??= hashPassword('fw-dummy-password-for-timing');
    return this.#dummy;
  }

  /**
   * Checks `account` / `pwd` (plain text). Unknown account and wrong password give the same
   * reason after the same scrypt work; status, expiry and IP are only reported once the password
   * is right, so they reveal nothing to a guesser. Returns the stored row it read, so the caller
   * needs no second read of it.
   * @param ip the client address, for the allowlist; defaults to the current login request's.
   */
  async login(account: string, pwd: string, ip?: string): Promise<LoginResult> {
    const credentials = await this.#store.users.getCredentials(account);
    if (!credentials || !credentials.hash || !credentials.salt) {
      await verifyPassword(pwd, await this.#dummyHash());
      return { pass: false, reason: LOGIN_REASONS.BAD_CREDENTIALS };
    }
    if (!(await verifyPassword(pwd, { hash: credentials.hash, salt: credentials.salt }))) {
      return { pass: false, reason: LOGIN_REASONS.BAD_CREDENTIALS };
    }
    const user = await this.#store.users.findById(credentials.id);
    if (!user) return { pass: false, reason: LOGIN_REASONS.BAD_CREDENTIALS };
    const refusal = this.refusal(user, ip ?? currentLoginRequest()?.ip);
    if (refusal) return { pass: false, reason: refusal };
    return { pass: true, user: toFwUser(user), stored: user };
  }

  /**
   * Why a stored user may not sign in now (locked, expired, address not allowed), or undefined.
   * Used by every login path, custom proxies and sign-on included, and on every request.
   */
  refusal(user: StoredUserLike, ip: string | undefined): string | undefined {
    if (user.status === USER_STATUS.LOCKED) return LOGIN_REASONS.LOCKED;
    if (user.status !== USER_STATUS.NORMAL) return LOGIN_REASONS.LOCKED;
    if (user.expireDate && user.expireDate.getTime() <= Date.now()) return LOGIN_REASONS.EXPIRED;
    if (ip !== undefined && !ipAllowed(user.whiteIp, ip)) return LOGIN_REASONS.IP_NOT_ALLOWED;
    return undefined;
  }

  /** The stored user with this id (status, expiry and allowlist included), or undefined. */
  async findStored(id: number): Promise<StoredUserLike | undefined> {
    return (await this.#store.users.findById(id)) ?? undefined;
  }

  /** The stored user with this id, as an {@link FwUser}, or undefined. */
  async findUser(id: number): Promise<FwUser | undefined> {
    const user = await this.#store.users.findById(id);
    return user ? toFwUser(user) : undefined;
  }

  /**
   * The stored user of `account`, for proxies that check credentials elsewhere.
   * @throws {Error} with {@link LOGIN_REASONS.NOT_STORED} when there is none.
   */
  async requireStoredUser(account: string): Promise<FwUser> {
    const user = await this.#store.users.findByAccount(account);
    if (!user) throw new Error(LOGIN_REASONS.NOT_STORED);
    return toFwUser(user);
  }

  /** True when `pwd` is the user's current local password (false when the user has none). */
  async checkPassword(userId: number, pwd: string): Promise<boolean> {
    const user = await this.#store.users.findById(userId);
    const credentials = user ? await this.#store.users.getCredentials(user.account) : undefined;
    if (!credentials?.hash || !credentials.salt) {
      await verifyPassword(pwd, await this.#dummyHash());
      return false;
    }
    return verifyPassword(pwd, { hash: credentials.hash, salt: credentials.salt });
  }

  /** Saves a new local password (and its reset time). */
  async setPassword(userId: number, pwd: string): Promise<void> {
    if (typeof pwd !== 'string' || pwd.length === 0) throw new FwError('VALIDATION_FAILED', 'The new password is empty');
    await this.#store.users.setPassword(userId, pwd);
  }
}
