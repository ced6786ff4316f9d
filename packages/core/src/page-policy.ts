// The security headers of the HTML pages Fw serves (the admin UI, the print page, /auth.html):
// one content security policy per kind of page, and the check of the one thing a host may change
// in it, who may frame the page (issue 19 §5). Plain strings in and out; each page's middleware sets them.
import { FwDefinitionError } from './errors.js';

/**
 * The pages that may frame Fw's pages when the host says nothing: only pages of the same origin
 * (the admin UI showing its own `page` menus). A foreign site framing the admin could dress it up
 * and trick clicks (clickjacking).
 */
export const DEFAULT_FRAME_ANCESTORS: readonly string[] = Object.freeze(["'self'"]);

/** The kind of page a policy is for: what each needs beyond `default-src 'self'`. */
export type FwPageKind = 'ui' | 'print' | 'auth';

// A source of `frame-ancestors` (CSP Level 3, §2.3.1): a scheme (`https:`), or a host with an
// optional scheme, port and path. No quotes, spaces, commas or semicolons, so a value can never
// end the directive and smuggle in another one.
const SCHEME_SOURCE = /^[a-z][a-z0-9+.-]*:$/i;
const HOST_SOURCE = /^(?:[a-z][a-z0-9+.-]*:\/\/)?(?:\*|(?:\*\.)?[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)*)(?::(?:[0-9]{1,5}|\*))?(?:\/[^\s;,'"\\]*)?$/i;
const KEYWORDS = new Set(["'self'", "'none'"]);

/**
 * Checks the `frameAncestors` option of a page (who may show it in a frame) and returns a frozen
 * copy: `'self'`, `'none'` (alone), schemes such as `https:` and hosts such as
 * `https://intranet.example.com` or `https://*.example.com:8443`, as `frame-ancestors` of a
 * content security policy takes them.
 * @param key the option's name, for the error (e.g. `fwUi.frameAncestors`)
 * @throws {FwDefinitionError} for anything else: not an array, empty, a value with spaces, quotes,
 *   `;` or `,`, `'none'` beside another source, an unknown keyword.
 * @example checkFrameAncestors('fwUi.frameAncestors', ["'self'", 'https://portal.example.com'])
 */
export function checkFrameAncestors(key: string, value: unknown): readonly string[] {
  if (!Array.isArray(value) || value.length === 0) {
    throw new FwDefinitionError(key, `must be a non-empty array of frame-ancestors sources, such as ["'self'", "https://portal.example.com"], got ${JSON.stringify(value)}`);
  }
  for (const source of value) {
    const ok = typeof source === 'string' && (KEYWORDS.has(source) || SCHEME_SOURCE.test(source) || HOST_SOURCE.test(source));
    if (!ok) {
      throw new FwDefinitionError(
        key,
        `${JSON.stringify(source)} is not a frame-ancestors source: use 'self', 'none', a scheme such as https: or an origin such as https://portal.example.com (no spaces, quotes, ; or ,)`,
      );
    }
  }
  if (value.includes("'none'") && value.length > 1) throw new FwDefinitionError(key, "'none' must be the only source when given");
  return Object.freeze([...(value as string[])]);
}

/**
 * The `Content-Security-Policy` of one of Fw's pages. Every page gets `default-src 'self'` (its
 * scripts, stylesheets, fonts, frames and API calls come from its own origin; no inline or
 * evaluated script runs), `object-src 'none'`, `base-uri 'self'`, `form-action 'self'` and
 * `frame-ancestors` from `frameAncestors`. The admin UI also needs:
 * - `img-src 'self' blob: data:`: thumbnails and previews of attachments are fetched with the
 *   token header and shown as object URLs; antd's stylesheet draws the image placeholder as an
 *   inline SVG;
 * - `style-src 'self' 'unsafe-inline'`: antd's own styles come from its stylesheet (no CSS-in-JS
 *   at run time, see packages/ui/app/src/main.tsx), but its rc-component parts write `<style>`
 *   elements that take no nonce: the scroll lock of drawers and modals, the scrollbar measure of
 *   tables, and the static message API. Refused, the page behind an open drawer scrolls and the
 *   console fills with violations. Inline style cannot run code, and with every other source
 *   limited to the page's own origin it cannot send anything elsewhere either.
 * Scripts stay strict on every page: `'self'` only, never `'unsafe-inline'` or `'unsafe-eval'`.
 * @param frameAncestors checked sources ({@link checkFrameAncestors}) @default {@link DEFAULT_FRAME_ANCESTORS}
 * @example pageContentSecurityPolicy('print') // "default-src 'self'; object-src 'none'; … frame-ancestors 'self'"
 */
export function pageContentSecurityPolicy(kind: FwPageKind, frameAncestors: readonly string[] = DEFAULT_FRAME_ANCESTORS): string {
  const directives = ["default-src 'self'"];
  if (kind === 'ui') directives.push("style-src 'self' 'unsafe-inline'", "img-src 'self' blob: data:");
  directives.push("object-src 'none'", "base-uri 'self'", "form-action 'self'", `frame-ancestors ${frameAncestors.join(' ')}`);
  return directives.join('; ');
}
