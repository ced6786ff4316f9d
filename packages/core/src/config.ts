import { readFileSync } from 'node:fs';
import { FwConfigError } from './errors.js';

type KeySpec =
  | { type: 'integer'; default: number; min: number; max: number; doc: string }
  | { type: 'boolean'; default: boolean; doc: string }
  | { type: 'string'; default: string; pattern: RegExp; doc: string };

/**
 * Every configuration key Fw reads, with its type, default and bounds. Keys keep the reference
 * framework's names (`fw.upms.*`, `fw-app.*`).
 */
export const CONFIG_KEYS = {
  'fw.upms.expireTimeByLogin': {
    type: 'integer',
    default: 120,
    min: 1,
    max: 60 * 24 * 366,
    doc: 'Lifetime of a login token, in minutes.',
  },
  'fw.upms.slidingExpiration': {
    type: 'boolean',
    default: false,
    doc: 'Renew a token’s expiry each time it is used.',
  },
  'fw-app.pwdTransferEncrypt': {
    type: 'boolean',
    default: true,
    doc: 'Clients send pwd Base64-encoded three times; the server decodes it before the login hook.',
  },
  'fw-app.verifyCodeCount': {
    type: 'integer',
    default: 2,
    min: 0,
    max: 1000,
    doc: 'Failed logins after which a captcha is required (0: always).',
  },
  'fw-app.loginLockCount': {
    type: 'integer',
    default: 5,
    min: 1,
    max: 1000,
    doc: 'Failed logins of one account from one IP address that lock that pair out.',
  },
  'fw-app.loginIpLockCount': {
    type: 'integer',
    default: 50,
    min: 1,
    max: 100000,
    doc: 'Failed logins from one IP address, whatever the accounts, that lock the address out.',
  },
  'fw-app.loginLockMinutes': {
    type: 'integer',
    default: 15,
    min: 1,
    max: 60 * 24 * 30,
    doc: 'How long a lockout lasts, and how long failed logins are remembered, in minutes.',
  },
  // Issue 19 §6: failed sign-ins go to the login log, at a bounded rate so a flood cannot fill the disk.
  'fw-app.failedLoginLogIpPerMinute': {
    type: 'integer',
    default: 10,
    min: 0,
    max: 100000,
    doc: 'Failed sign-ins from one IP address written to the login log per minute; beyond, they are only counted into a summary row (0: failed sign-ins are not logged).',
  },
  'fw-app.failedLoginLogPerMinute': {
    type: 'integer',
    default: 60,
    min: 0,
    max: 1000000,
    doc: 'Failed sign-ins written to the login log per minute, all addresses together (every instance sharing the store); beyond, they are only counted into a summary row (0: failed sign-ins are not logged).',
  },
  'fw-app.passwordMinLength': {
    type: 'integer',
    default: 10,
    min: 1,
    max: 200,
    doc: 'Fewest characters of a password set through any path (forms, change-pwd, import, the first administrator, the CLI).',
  },
  'fw-app.apiPrefix': {
    type: 'string',
    default: '/fw-api',
    pattern: /^(\/[A-Za-z0-9._~-]+)+$/,
    doc: 'Path prefix of every Fw route.',
  },
  'fw-app.title': {
    type: 'string',
    default: 'Fw admin',
    // Shown as text by the UI (sign-in page, browser tab); control characters have no place there.
    pattern: /^[^\p{Cc}]{1,100}$/u,
    doc: 'Name of the application shown by the admin UI (sign-in page, browser tab) and in GET /login-settings.',
  },
} as const satisfies Record<string, KeySpec>;

/** A configuration key. */
export type FwConfigKey = keyof typeof CONFIG_KEYS;

type ValueOf<K extends FwConfigKey> = (typeof CONFIG_KEYS)[K]['default'] extends boolean ? boolean : (typeof CONFIG_KEYS)[K]['default'] extends number ? number : string;

/** Resolved configuration: every key with its value. */
export type FwConfig = { readonly [K in FwConfigKey]: ValueOf<K> };

/** Where {@link loadConfig} reads from; later sources win: defaults, then `file`, then `values`, then `env`. */
export interface LoadConfigOptions {
  /**
   * Values in code, nested (`{ fw: { upms: { expireTimeByLogin: 60 } }, 'fw-app': { … } }`) or
   * flat (`{ 'fw.upms.expireTimeByLogin': 60 }`); kebab-case last segments are accepted too.
   */
  values?: Record<string, unknown>;
  /** Path of a JSON file of the same shape as `values`. */
  file?: string;
  /**
   * Environment to read `FW_UPMS_EXPIRE_TIME_BY_LOGIN`-style variables from (the relaxed
   * `FW_UPMS_EXPIRETIMEBYLOGIN` / `FWAPP_VERIFYCODECOUNT` forms are read too); `false` ignores
   * the environment. @default process.env
   */
  env?: Record<string, string | undefined> | false;
}

function normalizeSegment(segment: string): string {
  return segment.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
}

const KEY_BY_CANONICAL = new Map<string, FwConfigKey>(
  (Object.keys(CONFIG_KEYS) as FwConfigKey[]).map((key) => {
    const dot = key.lastIndexOf('.');
    return [`${key.slice(0, dot)}.${normalizeSegment(key.slice(dot + 1))}`.toLowerCase(), key];
  }),
);

/** Environment variable names of a key: `FW_APP_VERIFY_CODE_COUNT` and Spring's relaxed `FWAPP_VERIFYCODECOUNT`. */
export function envNames(key: FwConfigKey): [string, string] {
  const spaced = key
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/[.-]/g, '_')
    .toUpperCase();
  const relaxed = key.replace(/-/g, '').replace(/\./g, '_').toUpperCase();
  return [spaced, relaxed];
}

function flatten(source: Record<string, unknown>, origin: string, prefix = ''): Array<[string, unknown]> {
  const out: Array<[string, unknown]> = [];
  for (const [k, v] of Object.entries(source)) {
    const path = prefix ? `${prefix}.${k}` : k;
    if (typeof v === 'object' && v !== null && !Array.isArray(v)) out.push(...flatten(v as Record<string, unknown>, origin, path));
    else out.push([path, v]);
  }
  return out;
}

function resolveKey(path: string, origin: string): FwConfigKey | undefined {
  const dot = path.lastIndexOf('.');
  const canonical = dot < 0 ? path : `${path.slice(0, dot)}.${normalizeSegment(path.slice(dot + 1))}`;
  const key = KEY_BY_CANONICAL.get(canonical.toLowerCase());
  if (key) return key;
  // Only Fw's own namespaces are checked; a shared config file may hold other sections.
  if (/^fw(-app)?\./i.test(path)) {
    throw new FwConfigError(path, `unknown configuration key (from ${origin}); known keys: ${Object.keys(CONFIG_KEYS).join(', ')}`);
  }
  return undefined;
}

function parseValue(key: FwConfigKey, raw: unknown, origin: string): number | boolean | string {
  const spec: KeySpec = CONFIG_KEYS[key];
  const bad = (what: string): never => {
    throw new FwConfigError(key, `${what} (from ${origin}), got ${JSON.stringify(raw)}`);
  };
  switch (spec.type) {
    case 'boolean':
      if (typeof raw === 'boolean') return raw;
      if (typeof raw === 'string' && /^(true|false|1|0)$/i.test(raw.trim())) return /^(true|1)$/i.test(raw.trim());
      return bad('must be true or false');
    case 'integer': {
      const n = typeof raw === 'number' ? raw : typeof raw === 'string' && /^\s*-?\d+\s*$/.test(raw) ? Number(raw) : NaN;
      if (!Number.isInteger(n)) return bad('must be a whole number');
      if (n < spec.min || n > spec.max) return bad(`must be between ${spec.min} and ${spec.max}`);
      return n;
    }
    case 'string':
      if (typeof raw !== 'string' || !spec.pattern.test(raw)) return bad(`must match ${spec.pattern}`);
      return raw;
  }
}

/**
 * Resolves Fw's configuration from defaults, a JSON file, values in code and the environment.
 *
 * @throws {FwConfigError} naming the key, for an unknown `fw.*` / `fw-app.*` key, a value of the
 * wrong type or out of range, and an unreadable or malformed file.
 * @example
 * const config = loadConfig({ values: { 'fw.upms.expireTimeByLogin': 60 } });
 * config['fw-app.verifyCodeCount']; // 2
 */
export function loadConfig(options: LoadConfigOptions = {}): FwConfig {
  const result: Record<string, unknown> = {};
  for (const [key, spec] of Object.entries(CONFIG_KEYS)) result[key] = spec.default;

  const apply = (source: Record<string, unknown>, origin: string): void => {
    for (const [path, raw] of flatten(source, origin)) {
      const key = resolveKey(path, origin);
      if (key) result[key] = parseValue(key, raw, origin);
    }
  };
  if (options.file !== undefined) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(readFileSync(options.file, 'utf8'));
    } catch (error) {
      throw new FwConfigError(options.file, `cannot read the configuration file: ${(error as Error).message}`);
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
      throw new FwConfigError(options.file, 'the configuration file must hold a JSON object');
    }
    apply(parsed as Record<string, unknown>, `file ${options.file}`);
  }
  if (options.values !== undefined) apply(options.values, 'values');
  const env = options.env === undefined ? process.env : options.env;
  if (env !== false) {
    for (const key of Object.keys(CONFIG_KEYS) as FwConfigKey[]) {
      for (const name of envNames(key)) {
        const raw = env[name];
        if (raw !== undefined && raw !== '') result[key] = parseValue(key, raw, `environment variable ${name}`);
      }
    }
  }
  return Object.freeze(result) as FwConfig;
}
