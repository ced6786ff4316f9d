import { createHash } from 'node:crypto';
import { FwDefinitionError, LOGIN_FAILURE_REASON, accountProblem, loadConfig, type FwConfig, type LoginFailureReason } from '@fw/core';
import type { FwStore } from '@fw/store';
import type { EphemeralStore } from '@fw/token';
import { LOGIN_REASONS } from './user-service.js';

// Issue 19 §6: failed sign-ins are written to the login log for the administrator, at a bounded
// rate. Every write of a failure first passes two counters in the ephemeral store (shared by every
// instance): one per client address and one for all addresses together, each per window of a
// minute. Beyond either cap the attempt is only counted, in memory, into one summary row per
// instance and window (reason `rate-limited`, `attempts` = the count), written when the window
// ends. So whatever arrives — 10,000 guesses from one address, or one from each of 10,000 — the
// table grows by at most `perMinute` rows plus one summary per instance each minute.

/** One failed sign-in, as the routes report it. Holds no password: there is no field for one. */
export interface FailedSignIn {
  /** The account (or app id) as the client sent it; cleaned by the store before it is written. */
  account: string;
  reason: LoginFailureReason;
  /** `password`, `open-api`, `oauth:<provider>`. */
  method: string;
  ip: string | null;
  userAgent: string | null;
  /**
   * The stored user the attempt names, when the route knows it; `null` when it knows there is
   * none (or `account` is no account name, such as an app id); `undefined` to look the account up
   * among stored users when the row is written.
   */
  user?: { id: number; account: string } | null;
}

/** Options of {@link FailedLoginLog}. */
export interface FailedLoginLogOptions {
  /** Where the rows go (`store.loginLogs`) and whose users an account is looked up in. */
  store: FwStore;
  /** Where the caps' counters live: the one shared by every instance (memory, SQL or Redis). */
  ephemeral: EphemeralStore;
  /** `fw-app.failedLoginLogIpPerMinute` and `fw-app.failedLoginLogPerMinute` are read. @default loadConfig() */
  config?: FwConfig;
  /** Length of a window, in milliseconds; for tests. @default 60000 */
  windowMs?: number;
}

/** What {@link FailedLoginLog.record} did with an attempt. */
export type FailedSignInOutcome = 'written' | 'counted' | 'off';

/** Reports an error of a write that must not change the answer (Koa's `app.emit('error', …)`). */
export type FailedLoginErrorSink = (error: Error) => void;

// Accounts and addresses are user input of any length: hash them into fixed-size keys.
function keyPart(value: string): string {
  return createHash('sha256').update(value).digest('base64url').slice(0, 22);
}

/** The most addresses a window's summary keeps apart to name the busiest one; more are only counted. */
const SUMMARY_ADDRESSES = 1000;

interface Summary {
  startedAt: Date;
  attempts: number;
  byIp: Map<string, number>;
  timer: NodeJS.Timeout;
  onError: FailedLoginErrorSink;
}

/**
 * Failure reason class of a refusal's text: the built-in reasons by their fixed wording, anything
 * else a hook said as `refused-by-hook` (its text is shown to the client, never logged).
 */
export function failureReasonOf(reason: string): LoginFailureReason {
  switch (reason) {
    case LOGIN_REASONS.BAD_CREDENTIALS:
      return LOGIN_FAILURE_REASON.BAD_CREDENTIALS;
    case LOGIN_REASONS.LOCKED:
      return LOGIN_FAILURE_REASON.LOCKED;
    case LOGIN_REASONS.EXPIRED:
      return LOGIN_FAILURE_REASON.EXPIRED;
    case LOGIN_REASONS.IP_NOT_ALLOWED:
      return LOGIN_FAILURE_REASON.IP_NOT_ALLOWED;
    case LOGIN_REASONS.NOT_STORED:
      return LOGIN_FAILURE_REASON.NOT_STORED;
    default:
      return LOGIN_FAILURE_REASON.REFUSED_BY_HOOK;
  }
}

/**
 * Writes failed sign-ins to `fw_login_log` under the two caps of `fw-app.failedLoginLogIpPerMinute`
 * and `fw-app.failedLoginLogPerMinute`; attempts beyond them go into a summary row. One instance
 * serves `fwLogin` and `fwOAuth` alike (`fwAdmin` shares one); `fwLogin` makes its own when given
 * none.
 *
 * @throws {FwDefinitionError} for a missing store or ephemeral store, or a bad `windowMs`.
 * @example
 * const failedLogins = new FailedLoginLog({ store, ephemeral, config });
 * app.use(fwLogin({ store, tokens, ephemeral, config, failedLogins }));
 */
export class FailedLoginLog {
  readonly #store: FwStore;
  readonly #ephemeral: EphemeralStore;
  readonly #perIp: number;
  readonly #perWindow: number;
  readonly #windowMs: number;
  #summary: Summary | undefined;

  constructor(options: FailedLoginLogOptions) {
    if (!options?.store?.loginLogs) throw new FwDefinitionError('FailedLoginLog.store', 'an FwStore is required');
    if (!options.ephemeral || typeof options.ephemeral.increment !== 'function') throw new FwDefinitionError('FailedLoginLog.ephemeral', 'an EphemeralStore is required');
    const windowMs = options.windowMs ?? 60_000;
    if (!Number.isSafeInteger(windowMs) || windowMs <= 0)
      throw new FwDefinitionError('FailedLoginLog.windowMs', `must be a positive whole number of milliseconds, got ${String(windowMs)}`);
    const config = options.config ?? loadConfig();
    this.#store = options.store;
    this.#ephemeral = options.ephemeral;
    this.#perIp = config['fw-app.failedLoginLogIpPerMinute'];
    this.#perWindow = config['fw-app.failedLoginLogPerMinute'];
    this.#windowMs = windowMs;
  }

  /**
   * Records one failed sign-in: a row when both caps allow, else a count in this window's
   * summary. Never throws and never changes the answer: a failing write goes to `onError`. The
   * work is the same whether the account exists or not (the same counters, the same lookup, the
   * same insert), so the time it adds does not tell them apart.
   */
  async record(attempt: FailedSignIn, onError: FailedLoginErrorSink): Promise<FailedSignInOutcome> {
    if (this.#perIp === 0 || this.#perWindow === 0) return 'off';
    try {
      const ip = attempt.ip ?? '';
      // The address's counter first: a flood from one address then never touches the shared
      // budget, so it cannot crowd everybody else's failures out of the log.
      if (!(await this.#take(`login-log:i:${keyPart(ip)}`, this.#perIp))) return this.#count(ip, onError);
      if (!(await this.#take('login-log:all', this.#perWindow))) return this.#count(ip, onError);
      await this.#write(attempt);
      return 'written';
    } catch (error) {
      onError(asError(error));
      return 'counted';
    }
  }

  /** Writes the pending summary row now (also done by a timer when its window ends). Never throws. */
  async flush(): Promise<void> {
    const summary = this.#summary;
    if (!summary) return;
    this.#summary = undefined;
    clearTimeout(summary.timer);
    let busiest: string | null = null;
    let most = 0;
    for (const [ip, n] of summary.byIp) if (n > most) [busiest, most] = [ip, n];
    try {
      await this.#store.loginLogs.insert({
        userId: null,
        account: '*',
        method: '*',
        ip: busiest === '' ? null : busiest,
        success: false,
        reason: LOGIN_FAILURE_REASON.RATE_LIMITED,
        attempts: summary.attempts,
        loginTime: summary.startedAt,
      });
    } catch (error) {
      summary.onError(asError(error));
    }
  }

  /**
   * Takes one write from the budget under `key`; false once it is spent. A spent budget is seen by
   * a read, so a flood past the cap costs one read per attempt, not a write on one hot row (on
   * SQL backends a counter is a row every increment locks). The increment decides: of concurrent
   * callers that all read "not yet spent", only those whose increment stays within the cap write.
   */
  async #take(key: string, cap: number): Promise<boolean> {
    if (Number(await this.#ephemeral.get(key)) >= cap) return false;
    return (await this.#ephemeral.increment(key, this.#windowMs)) <= cap;
  }

  #count(ip: string, onError: FailedLoginErrorSink): FailedSignInOutcome {
    if (!this.#summary) {
      const timer = setTimeout(() => void this.flush(), this.#windowMs);
      // A pending summary must not keep a process alive that is otherwise done.
      timer.unref();
      this.#summary = { startedAt: new Date(), attempts: 0, byIp: new Map(), timer, onError };
    }
    const summary = this.#summary;
    summary.attempts += 1;
    const known = summary.byIp.get(ip);
    if (known !== undefined || summary.byIp.size < SUMMARY_ADDRESSES) summary.byIp.set(ip, (known ?? 0) + 1);
    return 'counted';
  }

  async #write(attempt: FailedSignIn): Promise<void> {
    let user = attempt.user;
    if (user === undefined) {
      const typed = attempt.account;
      // An account that cannot exist (a NUL, a zero-width space) is never sent to the database.
      user = accountProblem(typed) === undefined && typed !== '' ? ((await this.#store.users.findByAccount(typed)) ?? null) : null;
    }
    // The stored account when the attempt names a user; else what was typed, cleaned by the store.
    const account = user?.account ?? attempt.account;
    await this.#store.loginLogs.insert({
      userId: user?.id ?? null,
      // A blank account still needs a value in a not-null column.
      account: account.trim() === '' ? '?' : account,
      accountTyped: attempt.account,
      method: attempt.method,
      ip: attempt.ip,
      userAgent: attempt.userAgent,
      success: false,
      reason: attempt.reason,
    });
  }
}

function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error('A failed sign-in could not be logged', { cause: error });
}
