// One password policy for every path that sets a sign-in password: the FwUser forms, import and AI
// writes of the data API, change-pwd and the forced first change, the first administrator and the
// CLI (issue 19 §2). The checks are pure and return their refusals as data, in order, like
// row-patch's `cellEditRefusal`; each caller turns them into its own answer (a 422, a start-up
// error, a CLI message).
import { COMMON_PASSWORDS_TEXT } from './common-passwords.js';
import type { FwConfig } from './config.js';
import { FwDefinitionError } from './errors.js';

/** The rules of the policy, in the order they are checked; the `type` of a refusal. */
export const PASSWORD_RULES = ['minLength', 'maxLength', 'notAccount', 'notCommon'] as const;

/** A rule of the password policy. */
export type PasswordRule = (typeof PASSWORD_RULES)[number];

/** A rule a password breaks, shaped like a validation detail (`path`, `type`, `message`). */
export interface PasswordRefusal {
  /** The field the password was given in (`newPwd`, `password`, …). */
  path: string;
  /** The rule broken. */
  type: PasswordRule;
  /** A sentence for a person. */
  message: string;
}

/** Options of {@link passwordPolicy}. */
export interface PasswordPolicyOptions {
  /** Fewest characters (Unicode code points). @default 10 (config `fw-app.passwordMinLength`) */
  minLength?: number;
  /**
   * Most characters. The FwUser form always bounded passwords at 200; the 4096 of the login body
   * is a transport limit only, so a password set before this policy still signs in.
   * @default 200
   */
  maxLength?: number;
  /** Refuse the 10,000 most common passwords (compared lower-cased). @default true */
  refuseCommon?: boolean;
}

/** What a sign-in page or a form shows before submit (`GET /login-settings` carries it). */
export interface PasswordPolicyDescription {
  minLength: number;
  maxLength: number;
  /** The rules checked, in order. */
  rules: PasswordRule[];
}

/** What a check may know besides the password. */
export interface PasswordCheckInput {
  /** The account the password is for: a password equal to it, or containing it, is refused. */
  account?: string | null;
  /** The field named by refusals. @default 'password' */
  path?: string;
}

/** A resolved password policy. */
export interface PasswordPolicy {
  readonly minLength: number;
  readonly maxLength: number;
  readonly refuseCommon: boolean;
  /** The rules a password breaks, in {@link PASSWORD_RULES} order; empty when it passes. */
  check(password: string, input?: PasswordCheckInput): PasswordRefusal[];
  /** The public description of the policy, for the UI. */
  describe(): PasswordPolicyDescription;
}

/** The policy's longest allowed maximum: the login body's transport limit. */
export const PASSWORD_TRANSPORT_MAX = 4096;

/**
 * Accounts shorter than this are compared for equality only: a two-letter account would otherwise
 * refuse every passphrase that happens to hold those two letters.
 */
const ACCOUNT_CONTAINED_MIN = 4;

let common: ReadonlySet<string> | undefined;

/** The common-password list as a set, built on the first check (never on the login path). */
function commonPasswords(): ReadonlySet<string> {
  common ??= new Set(COMMON_PASSWORDS_TEXT.split('\n'));
  return common;
}

/** True when `password` (lower-cased) is one of the 10,000 most common passwords. */
export function isCommonPassword(password: string): boolean {
  return commonPasswords().has(password.normalize('NFC').toLowerCase());
}

function whole(key: string, value: unknown, fallback: number, min: number, max: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw new FwDefinitionError(key, `must be a whole number from ${min} to ${max}, got ${String(value)}`);
  }
  return value;
}

/**
 * Resolves a password policy. Options are checked at once.
 * @throws {FwDefinitionError} for a length that is not a whole number in range, or a minimum above the maximum.
 * @example
 * const policy = passwordPolicy({ minLength: 12 });
 * policy.check('password123', { account: 'alice', path: 'newPwd' });
 * // [{ path: 'newPwd', type: 'minLength', … }, { path: 'newPwd', type: 'notCommon', … }]
 */
export function passwordPolicy(options: PasswordPolicyOptions = {}): PasswordPolicy {
  if (typeof options !== 'object' || options === null) throw new FwDefinitionError('passwordPolicy', 'options must be an object');
  const maxLength = whole('passwordPolicy.maxLength', options.maxLength, 200, 1, PASSWORD_TRANSPORT_MAX);
  const minLength = whole('passwordPolicy.minLength', options.minLength, 10, 1, PASSWORD_TRANSPORT_MAX);
  if (minLength > maxLength) throw new FwDefinitionError('passwordPolicy.minLength', `must not exceed maxLength (${maxLength}), got ${minLength}`);
  if (options.refuseCommon !== undefined && typeof options.refuseCommon !== 'boolean') throw new FwDefinitionError('passwordPolicy.refuseCommon', 'must be true or false');
  const refuseCommon = options.refuseCommon !== false;
  const rules: PasswordRule[] = PASSWORD_RULES.filter((rule) => rule !== 'notCommon' || refuseCommon);
  return Object.freeze({
    minLength,
    maxLength,
    refuseCommon,
    check(password: string, input: PasswordCheckInput = {}): PasswordRefusal[] {
      const path = input.path ?? 'password';
      const refusals: PasswordRefusal[] = [];
      const length = [...password].length;
      if (length < minLength) refusals.push({ path, type: 'minLength', message: `The password must have at least ${minLength} characters` });
      if (length > maxLength) {
        // Nothing that long is on the list or worth comparing; one refusal says it all.
        refusals.push({ path, type: 'maxLength', message: `The password must have at most ${maxLength} characters` });
        return refusals;
      }
      const lower = password.normalize('NFC').toLowerCase();
      const account = typeof input.account === 'string' ? input.account.normalize('NFC').toLowerCase().trim() : '';
      if (account !== '' && (lower === account || (account.length >= ACCOUNT_CONTAINED_MIN && lower.includes(account)))) {
        refusals.push({ path, type: 'notAccount', message: 'The password must not be or contain the account name' });
      }
      if (refuseCommon && commonPasswords().has(lower)) refusals.push({ path, type: 'notCommon', message: 'The password is one of the most common passwords' });
      return refusals;
    },
    describe(): PasswordPolicyDescription {
      return { minLength, maxLength, rules: [...rules] };
    },
  });
}

/** The policy of a configuration (`fw-app.passwordMinLength`), with `options` taking precedence. */
export function passwordPolicyFromConfig(config: FwConfig, options: PasswordPolicyOptions = {}): PasswordPolicy {
  return passwordPolicy({ ...options, minLength: options.minLength ?? config['fw-app.passwordMinLength'] });
}

/**
 * A policy given as an option (`fwLogin`, `fwData`, `fwAdmin`): a resolved policy as it is, options
 * resolved over the configuration's minimum, nothing: the configuration's policy.
 * @throws {FwDefinitionError} for a bad option.
 */
export function resolvePasswordPolicy(config: FwConfig, input: PasswordPolicy | PasswordPolicyOptions | undefined): PasswordPolicy {
  if (input !== undefined && typeof (input as Partial<PasswordPolicy>).check === 'function') return input as PasswordPolicy;
  return passwordPolicyFromConfig(config, (input as PasswordPolicyOptions | undefined) ?? {});
}
