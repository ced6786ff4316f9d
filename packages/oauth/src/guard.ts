import type { Context, Middleware } from 'koa';
import { FwDefinitionError } from '@fw/core';

/** File extensions served without a session, as the reference framework's security rules list them. */
export const STATIC_EXTENSIONS = ['css', 'js', 'png', 'jpg', 'jpeg', 'gif', 'svg', 'ico', 'woff', 'woff2', 'ttf', 'eot', 'csv', 'json', 'xml', 'txt'] as const;

const STATIC_FILE = new RegExp(`\\.(?:${STATIC_EXTENSIONS.join('|')})$`, 'i');
/** Fw's API prefixes, open to every request: they authenticate with tokens themselves. */
export const DEFAULT_API_PREFIXES: readonly string[] = Object.freeze(['/fw-api', '/fw-cloud-api']);
// Anything a later layer could read as another path: dot segments, encoded dots and slashes,
// backslashes, NUL, and path parameters (`;`). Such a path is never open.
const AMBIGUOUS = /(^|\/)\.\.?(\/|$)|%2e|%2f|%5c|%00|\\|;/i;

/**
 * True when the host guard lets `path` through without a signed-in session: Fw's API prefixes
 * (`/fw-api/**`, `/fw-cloud-api/**`, which do their own token authentication), static files by
 * extension, and the extra paths given. The query string never counts: `/admin?x=.css` is not a
 * static file, and neither are `/secret.js.map` or `/x.css/../admin`.
 */
export function isOpenPath(path: string, extra: readonly string[] = [], apiPrefixes: readonly string[] = DEFAULT_API_PREFIXES): boolean {
  if (AMBIGUOUS.test(path)) return false;
  if (apiPrefixes.some((prefix) => path === prefix || path.startsWith(`${prefix}/`))) return true;
  if (extra.some((p) => (p.endsWith('/**') ? path === p.slice(0, -3) || path.startsWith(p.slice(0, -2)) : path === p))) return true;
  return STATIC_FILE.test(path);
}

/** Options of {@link fwHostGuard}. */
export interface FwHostGuardOptions {
  /**
   * Where a browser without a session is sent to sign in (for GET / HEAD); other methods get 401.
   * @example '/connect/github'
   */
  signInPath: string;
  /** Further open paths: exact (`/health`) or a prefix ending in `/**` (`/public/**`). */
  openPaths?: readonly string[];
  /**
   * Whether the request is signed in; may look things up.
   * @default a `fwUser` in the koa-session (fwOAuth's own guard also checks its token is alive)
   */
  isSignedIn?: (ctx: Context) => boolean | Promise<boolean>;
  /** Fw's API prefixes (open). @default ['/fw-api', '/fw-cloud-api'] */
  apiPrefixes?: readonly string[];
}

/**
 * The host guard: Fw's API and static files are open, every other request needs a signed-in
 * browser session, and a browser without one is sent to sign in. It sets no frame-denying header:
 * the built-in pages are framed.
 */
export function fwHostGuard(options: FwHostGuardOptions): Middleware {
  if (typeof options?.signInPath !== 'string' || !options.signInPath.startsWith('/')) {
    throw new FwDefinitionError('fwHostGuard.signInPath', 'must be a path starting with /');
  }
  const openPaths = [...(options.openPaths ?? [])];
  for (const p of openPaths) if (typeof p !== 'string' || !p.startsWith('/')) throw new FwDefinitionError('fwHostGuard.openPaths', `${JSON.stringify(p)} must start with /`);
  const isSignedIn = options.isSignedIn ?? ((ctx: Context) => Boolean((ctx as Context & { session?: { fwUser?: unknown } | null }).session?.fwUser));
  const signIn = options.signInPath;
  const apiPrefixes = [...(options.apiPrefixes ?? DEFAULT_API_PREFIXES)];
  return async function fwHostGuard(ctx, next) {
    if (isOpenPath(ctx.path, openPaths, apiPrefixes) || (await isSignedIn(ctx))) return next();
    if (ctx.method === 'GET' || ctx.method === 'HEAD') {
      ctx.redirect(signIn);
      return;
    }
    ctx.status = 401;
    ctx.body = { error: { code: 'UNAUTHENTICATED', message: 'Sign in first' } };
  };
}
