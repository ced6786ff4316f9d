import { FwDefinitionError, passwordPolicyFromConfig, type FwConfig, type PasswordPolicy, type PasswordPolicyDescription } from '@fw/core';

/**
 * A way to sign in other than the password form (an OAuth provider), shown by the sign-in page
 * as a button. Public by nature: it holds no client id or secret.
 */
export interface LoginProvider {
  /** The registration id, e.g. `github`. */
  id: string;
  /** What the button says, e.g. `GitHub`. */
  name: string;
  /** Where the browser starts the sign-in: a path of this app (`/connect/github`) or an http(s) URL. */
  url: string;
}

/** Providers as `fwLogin` takes them: a list, or a function read on every request (for providers that change). */
export type LoginProvidersInput = readonly LoginProvider[] | (() => readonly LoginProvider[]);

/** The answer of `GET {prefix}/login-settings`: what a sign-in page needs to know before anyone signs in. */
export interface LoginSettings {
  /** The application's name (config `fw-app.title`). */
  title: string;
  /** The password must be sent Base64-encoded three times (config `fw-app.pwdTransferEncrypt`). */
  pwdTransferEncrypt: boolean;
  /** Failed logins after which a captcha is asked for; 0: always (config `fw-app.verifyCodeCount`). */
  verifyCodeCount: number;
  /** The other ways to sign in; empty without OAuth. */
  providers: LoginProvider[];
  /** The password policy every password change is held to (lengths and rule names), so a form can show it before submit. */
  passwordPolicy: PasswordPolicyDescription;
}

const ID_RE = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

function checkProvider(value: unknown, at: string): LoginProvider {
  if (typeof value !== 'object' || value === null) throw new FwDefinitionError(at, 'must be { id, name, url }');
  const { id, name, url } = value as Record<string, unknown>;
  if (typeof id !== 'string' || !ID_RE.test(id)) throw new FwDefinitionError(`${at}.id`, `must be letters, digits, _ and - (1 to 64), got ${JSON.stringify(id)}`);
  if (typeof name !== 'string' || name.trim() === '' || name.length > 100 || /\p{Cc}/u.test(name)) {
    throw new FwDefinitionError(`${at}.name`, `must be a text of 1 to 100 characters without control characters, got ${JSON.stringify(name)}`);
  }
  // A path of this app or an absolute http(s) URL; never `javascript:` or a protocol-relative `//host`.
  const isPath = typeof url === 'string' && url.startsWith('/') && !url.startsWith('//') && !url.includes('\\');
  const isHttp = typeof url === 'string' && /^https?:\/\//i.test(url) && URL.canParse(url);
  if (!isPath && !isHttp) throw new FwDefinitionError(`${at}.url`, `must be a path such as /connect/${String(id)} or an http(s) URL, got ${JSON.stringify(url)}`);
  // Copied field by field: whatever else the object holds is never sent.
  return { id, name, url: url as string };
}

/**
 * Checks the `providers` option of `fwLogin` and returns a reader of the current list. A list is
 * checked at once; a function's answer is checked on each read.
 * @throws {FwDefinitionError} for a provider without a usable id, name or url, or a repeated id.
 */
export function loginProvidersReader(input: LoginProvidersInput | undefined, key = 'fwLogin.providers'): () => LoginProvider[] {
  const check = (list: unknown): LoginProvider[] => {
    if (!Array.isArray(list)) throw new FwDefinitionError(key, 'must be a list of { id, name, url } or a function returning one');
    const out = list.map((p: unknown, i) => checkProvider(p, `${key}[${i}]`));
    const ids = new Set(out.map((p) => p.id));
    if (ids.size !== out.length) throw new FwDefinitionError(key, 'holds the same provider id twice');
    return out;
  };
  if (input === undefined) return () => [];
  if (typeof input === 'function') return () => check(input());
  const fixed = check(input);
  return () => fixed.map((p) => ({ ...p }));
}

/** The public login settings from the configuration, the providers and the password policy (the configuration's by default). */
export function loginSettings(config: FwConfig, providers: LoginProvider[], policy: PasswordPolicy = passwordPolicyFromConfig(config)): LoginSettings {
  return {
    title: config['fw-app.title'],
    pwdTransferEncrypt: config['fw-app.pwdTransferEncrypt'],
    verifyCodeCount: config['fw-app.verifyCodeCount'],
    providers,
    passwordPolicy: policy.describe(),
  };
}
