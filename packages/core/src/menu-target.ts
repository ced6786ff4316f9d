/**
 * Where a menu may point (issue 19 §1). Browser-safe: only `URL` and `decodeURIComponent`, so the
 * admin UI imports it (`@fw/core/menu-target`) and re-checks what it is about to frame or open.
 *
 * A `page` menu is framed inside the admin UI, so it runs with the administrator's origin and
 * storage: it must be a path of this site, and never the sign-on hand-off page (`/auth.html`,
 * which stores the `token` of its URL as the browser's session) nor a URL that carries a token.
 * A `link` menu opens in a new tab: a full `http:` or `https:` address, never a token either.
 */

/** The name of the sign-on hand-off page (`@fw/web`), compared case-insensitively. */
const HAND_OFF_PAGE = 'auth.html';

// Two bases of different schemes and hosts: a relative reference resolves onto each base's own
// origin, anything absolute (another scheme, `//host`, `/\host`, `http:host`) leaves at least one.
const BASES = ['http://page.fw-menu.invalid/app/', 'https://other.fw-menu.invalid/app/'] as const;

// Control characters (tabs and newlines included, which URL parsers silently drop, turning
// `java\tscript:` into `javascript:`), and the backslash, which browsers read as a slash.
// eslint-disable-next-line no-control-regex
const UNSAFE_CHARACTERS = /[\u0000-\u001f\u007f\\]/;

/** A parameter, fragment or path parameter named `token` or `_token` (any case, after decoding). */
const TOKEN_PARAMETER = /(?:^|[?&#;/])_?token=/i;

/** How many rounds of percent-decoding are tried before a value counts as too deeply encoded. */
const DECODE_ROUNDS = 5;

/**
 * Every spelling of `value` a server or browser down the line may see: the value itself and each
 * round of percent-decoding until nothing changes. `undefined` when the encoding is malformed or
 * nested deeper than any honest path needs.
 */
function spellings(value: string): string[] | undefined {
  const out = [value];
  let current = value;
  for (let round = 0; round < DECODE_ROUNDS; round += 1) {
    let decoded: string;
    try {
      decoded = decodeURIComponent(current);
    } catch {
      return undefined;
    }
    if (decoded === current) return out;
    out.push(decoded);
    current = decoded;
  }
  return undefined;
}

/** The path segments `spelling` reaches once resolved (dots and duplicate slashes settled), lower-cased. */
function segments(spelling: string, base: string): string[] {
  let path: string;
  try {
    path = new URL(spelling, base).pathname;
  } catch {
    return [];
  }
  return path
    .toLowerCase()
    .split('/')
    .map((s) => s.replace(/[.\s]+$/, ''));
}

/** Why `value` may not be carried by any menu (a token, the hand-off page), if it may not. */
function carriedProblem(value: string, base: string): string | undefined {
  if (UNSAFE_CHARACTERS.test(value)) return 'must not contain backslashes or control characters';
  const all = spellings(value);
  if (!all) return 'has malformed or nested percent-encoding';
  for (const spelling of all) {
    if (UNSAFE_CHARACTERS.test(spelling)) return 'must not contain backslashes or control characters, encoded or not';
    if (TOKEN_PARAMETER.test(spelling)) return 'must not carry a token (token= or _token=)';
    if (segments(spelling, base).includes(HAND_OFF_PAGE)) return `must not open the sign-on hand-off page (${HAND_OFF_PAGE})`;
  }
  return undefined;
}

/**
 * Why `value` is no valid target of a `page` menu, or `undefined` when it is one: a relative
 * reference (such as `/reports` or `reports/summary`) that stays on this site, that is not the
 * sign-on hand-off page in any spelling and carries no `token` / `_token` parameter.
 *
 * @example
 * pageTargetProblem('/reports'); // undefined
 * pageTargetProblem('/auth.html?token=abc'); // 'must not carry a token (token= or _token=)'
 * pageTargetProblem('https://elsewhere.example/'); // 'must be a path on this site …'
 */
export function pageTargetProblem(value: string): string | undefined {
  if (UNSAFE_CHARACTERS.test(value)) return 'must not contain backslashes or control characters';
  if (value.trim() !== value) return 'must not start or end with spaces';
  for (const base of BASES) {
    let resolved: URL;
    try {
      resolved = new URL(value, base);
    } catch {
      return 'is not a valid path';
    }
    if (resolved.origin !== new URL(base).origin) return 'must be a path on this site, such as /reports (an address elsewhere is a link menu)';
  }
  return carriedProblem(value, BASES[0]);
}

/**
 * Why `value` is no valid target of a `link` menu, or `undefined` when it is one: a full `http:`
 * or `https:` address that carries no token and does not open a sign-on hand-off page.
 *
 * @example
 * linkTargetProblem('https://example.org/docs'); // undefined
 * linkTargetProblem('javascript:alert(1)'); // 'must be a full http or https address …'
 */
export function linkTargetProblem(value: string): string | undefined {
  if (UNSAFE_CHARACTERS.test(value)) return 'must not contain backslashes or control characters';
  if (value.trim() !== value) return 'must not start or end with spaces';
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'must be a full http or https address, such as https://example.org/';
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || !/^https?:\/\/[^/]/i.test(value)) return 'must be a full http or https address, such as https://example.org/';
  return carriedProblem(value, value);
}

/**
 * Why a menu of `type` may not point at `value`, or `undefined` when it may. Only `page` and
 * `link` menus are checked; an empty value points nowhere and is fine.
 */
export function menuTargetProblem(type: unknown, value: unknown): string | undefined {
  if (typeof value !== 'string' || value === '') return undefined;
  if (type === 'page') return pageTargetProblem(value);
  if (type === 'link') return linkTargetProblem(value);
  return undefined;
}
