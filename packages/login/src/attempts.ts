import { createHash } from 'node:crypto';
import type { EphemeralStore } from '@fw/token';

/** Settings of the failed-login limiter. */
export interface AttemptPolicy {
  /** Failures (of the account, or from the IP) after which a captcha is required; 0: always. */
  captchaAfter: number;
  /** Failures of one account from one IP that lock that pair out. */
  lockAfter: number;
  /** Failures from one IP, whatever the accounts, that lock the IP out. */
  ipLockAfter: number;
  /** How long a lock lasts, and how long failures are remembered, in milliseconds. */
  windowMs: number;
}

/** Where a login attempt stands before it is checked. */
export interface AttemptState {
  /** Milliseconds until the lock ends, when locked. */
  lockedForMs: number | undefined;
  /** True when the attempt must carry a correct captcha. */
  captchaRequired: boolean;
}

// Accounts are user input of any length: hash them into fixed-size keys.
function keyPart(value: string): string {
  return createHash('sha256').update(value).digest('base64url').slice(0, 22);
}

/**
 * Counts failed logins per account, per IP and per account+IP in an {@link EphemeralStore} (the
 * token store's backend, so the counts hold across app instances sharing Redis or SQL), and
 * decides when a captcha is required and when to lock out.
 */
export class LoginAttempts {
  readonly #store: EphemeralStore;
  readonly #policy: AttemptPolicy;

  constructor(store: EphemeralStore, policy: AttemptPolicy) {
    this.#store = store;
    this.#policy = policy;
  }

  #keys(account: string, ip: string) {
    const a = keyPart(account.toLowerCase());
    const i = keyPart(ip);
    return {
      account: `login-fail:a:${a}`,
      ip: `login-fail:i:${i}`,
      pair: `login-fail:p:${a}:${i}`,
      pairLock: `login-lock:p:${a}:${i}`,
      ipLock: `login-lock:i:${i}`,
    };
  }

  /** Whether the pair is locked out, and whether a captcha is required. */
  async state(account: string, ip: string): Promise<AttemptState> {
    const keys = this.#keys(account, ip);
    const [pairLock, ipLock, accountFails, ipFails] = await Promise.all([
      this.#store.ttl(keys.pairLock),
      this.#store.ttl(keys.ipLock),
      this.#store.get(keys.account),
      this.#store.get(keys.ip),
    ]);
    const lockedForMs = Math.max(pairLock ?? 0, ipLock ?? 0) || undefined;
    const fails = Math.max(Number(accountFails ?? 0), Number(ipFails ?? 0));
    return { lockedForMs, captchaRequired: this.#policy.captchaAfter === 0 || fails >= this.#policy.captchaAfter };
  }

  /** Records a failure; returns the new state (locked when this failure reached a limit). */
  async fail(account: string, ip: string): Promise<AttemptState> {
    const keys = this.#keys(account, ip);
    const { windowMs } = this.#policy;
    const [accountFails, ipFails, pairFails] = await Promise.all([
      this.#store.increment(keys.account, windowMs),
      this.#store.increment(keys.ip, windowMs),
      this.#store.increment(keys.pair, windowMs),
    ]);
    const locks: Promise<void>[] = [];
    if (pairFails >= this.#policy.lockAfter) locks.push(this.#store.set(keys.pairLock, '1', windowMs));
    if (ipFails >= this.#policy.ipLockAfter) locks.push(this.#store.set(keys.ipLock, '1', windowMs));
    await Promise.all(locks);
    return {
      lockedForMs: locks.length > 0 ? windowMs : undefined,
      captchaRequired: this.#policy.captchaAfter === 0 || Math.max(accountFails, ipFails) >= this.#policy.captchaAfter,
    };
  }

  /**
   * Clears the counters of the account and of the account+IP pair after a successful login from
   * `ip`. The IP's own counter stays: one person who owns an account could otherwise spray guesses
   * at every other account from one address, logging into their own between guesses to wipe the
   * count (issue 10 §2). It runs out with its window.
   */
  async succeed(account: string, ip: string): Promise<void> {
    const keys = this.#keys(account, ip);
    await Promise.all([this.#store.delete(keys.account), this.#store.delete(keys.pair)]);
  }
}
