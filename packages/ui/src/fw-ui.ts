import { readFileSync, statSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import { join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import type { Context, Middleware, Next } from 'koa';
import serve from 'koa-static';
import { CONFIG_KEYS, DEFAULT_FRAME_ANCESTORS, FwDefinitionError, checkFrameAncestors, loadConfig, pageContentSecurityPolicy, type FwConfig } from '@fw/core';
import { escapeHtml } from '@fw/http';
import { fwWeb } from '@fw/web';

/**
 * Absolute path of the built admin UI (`packages/ui/dist`, made by `npm run build:app -w @fw/ui`).
 * Resolved from this module's URL, so it is the same folder from `src/` and from `dist-server/`.
 */
export const FW_UI_DIST_DIR: string = fileURLToPath(new URL('../dist', import.meta.url));

/** Options of {@link fwUi}. */
export interface FwUiOptions {
  /**
   * Where the UI lives: `/` or a sub-path such as `/admin` (no trailing slash). Everything under it
   * that is not a file of the build and asks for HTML gets the UI's page, so deep links survive a
   * reload; requests outside it are left to the host.
   * @default '/'
   * @example fwUi({ path: '/admin' })
   */
  path?: string;
  /**
   * The prefix of the Fw API the UI talks to; requests under it are never answered by `fwUi`.
   * @default config `fw-app.apiPrefix` ('/fw-api')
   */
  apiPrefix?: string;
  /**
   * The application's name, shown on the sign-in page and in the browser tab.
   * @default config `fw-app.title` ('Fw admin')
   */
  title?: string;
  /**
   * The folder of the built UI (must hold `index.html`). Tests point it at a fake build.
   * @default {@link FW_UI_DIST_DIR}
   */
  dist?: string;
  /** Configuration the defaults of `apiPrefix` and `title` come from. @default loadConfig() */
  config?: FwConfig;
  /**
   * Who may show the UI (and its `/auth.html`) in a frame: the `frame-ancestors` sources of the
   * page's `Content-Security-Policy`. Only pages of the same origin by default; a host that
   * frames the admin from another origin names it here.
   * @default ["'self'"]
   * @example fwUi({ frameAncestors: ["'self'", 'https://portal.example.com'] })
   */
  frameAncestors?: string[];
}

/** What the UI reads from `<meta name="fw-config">` of its page. */
export interface FwUiConfig {
  /** The API prefix, e.g. `/fw-api`. */
  apiPrefix: string;
  /** The mount path with a trailing slash, e.g. `/admin/` (also the page's `<base href>`). */
  base: string;
  /** The application's name. */
  title: string;
}

const OPTION_KEYS = new Set(['path', 'apiPrefix', 'title', 'dist', 'config', 'frameAncestors']);
const PATH_RE = /^(\/[A-Za-z0-9._~-]+)*$/;
/** Vite puts every content-hashed file here: a new build means new names, so they never change. */
const ASSETS_DIR = 'assets';
const IMMUTABLE = 'public, max-age=31536000, immutable';
/** The precompressed variants the build writes beside its files (build/precompress.ts). */
const ENCODED_VARIANT = /\.(br|gz)$/i;
// The web pages a browser opens from a sign-on: served under the mount path too, so that their
// relative `./` and `auth.js` stay inside the UI.
const WEB_FILES = new Set(['/auth.html', '/auth.js']);

function stringOption(key: string, value: unknown, check: (v: string) => boolean, expected: string): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || !check(value)) throw new FwDefinitionError(key, `must be ${expected}, got ${JSON.stringify(value)}`);
  return value;
}

interface Resolved {
  mount: string;
  base: string;
  apiPrefix: string;
  title: string;
  dist: string;
  frameAncestors: readonly string[];
}

function resolveOptions(options: FwUiOptions | undefined): Resolved {
  if (options !== undefined && (typeof options !== 'object' || options === null)) throw new FwDefinitionError('fwUi', 'options must be an object when given');
  const o = options ?? {};
  for (const key of Object.keys(o)) {
    if (!OPTION_KEYS.has(key)) throw new FwDefinitionError(`fwUi.${key}`, `unknown option (known: ${[...OPTION_KEYS].join(', ')})`);
  }
  const config = o.config ?? loadConfig();
  const rawPath = stringOption('fwUi.path', o.path, (v) => v === '/' || PATH_RE.test(v), "'/' or a path such as '/admin' (no trailing slash)");
  const mount = rawPath === undefined || rawPath === '/' ? '' : rawPath;
  const apiPrefix = stringOption('fwUi.apiPrefix', o.apiPrefix, (v) => CONFIG_KEYS['fw-app.apiPrefix'].pattern.test(v), "a path such as '/fw-api'") ?? config['fw-app.apiPrefix'];
  const title =
    stringOption('fwUi.title', o.title, (v) => CONFIG_KEYS['fw-app.title'].pattern.test(v), 'a text of 1 to 100 characters without control characters') ?? config['fw-app.title'];
  const dist = resolve(stringOption('fwUi.dist', o.dist, (v) => v !== '', 'a folder path') ?? FW_UI_DIST_DIR);
  if (mount !== '' && (mount === apiPrefix || mount.startsWith(`${apiPrefix}/`) || apiPrefix.startsWith(`${mount}/`))) {
    throw new FwDefinitionError('fwUi.path', `${mount} overlaps the API prefix ${apiPrefix}; mount the UI beside it`);
  }
  const frameAncestors = o.frameAncestors === undefined ? DEFAULT_FRAME_ANCESTORS : checkFrameAncestors('fwUi.frameAncestors', o.frameAncestors);
  return { mount, base: `${mount}/`, apiPrefix, title, dist, frameAncestors };
}

/**
 * The UI's page: the build's `index.html` with a `<base href>` (so its relative asset URLs and
 * deep links resolve under the mount path) and the `fw-config` meta tag. Both are markup, not
 * script, so the page runs under `default-src 'self'`.
 */
export function injectUiConfig(html: string, config: FwUiConfig): string {
  const head = /<head(\s[^>]*)?>/i.exec(html);
  if (!head) throw new Error('the UI page has no <head> element');
  const tags = `\n<base href="${escapeHtml(config.base)}">\n<meta name="fw-config" content="${escapeHtml(JSON.stringify(config))}">`;
  const at = head.index + head[0].length;
  // A base of the build's own would come first and win; ours is the one that knows the mount path.
  const rest = html
    .slice(at)
    .replace(/<base\b[^>]*>\s*/gi, '')
    .replace(/<title>[\s\S]*?<\/title>/i, `<title>${escapeHtml(config.title)}</title>`);
  return html.slice(0, at) + tags + rest;
}

/** The page in each encoding fwUi sends it in. */
interface PageBodies {
  html: string;
  br: Buffer;
  gzip: Buffer;
}

/** Reads the page once per change of the file (a rebuild while the server runs is picked up), compressed once too. */
function pageReader(file: string, config: FwUiConfig): () => PageBodies {
  let cached: { mtimeMs: number; size: number; bodies: PageBodies } | undefined;
  return () => {
    const stat = statSync(file);
    if (!cached || cached.mtimeMs !== stat.mtimeMs || cached.size !== stat.size) {
      const html = injectUiConfig(readFileSync(file, 'utf8'), config);
      const br = brotliCompressSync(html, { params: { [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY } });
      cached = { mtimeMs: stat.mtimeMs, size: stat.size, bodies: { html, br, gzip: gzipSync(html, { level: 9 }) } };
    }
    return cached.bodies;
  };
}

function checkBuilt(dist: string): string {
  const index = join(dist, 'index.html');
  let isFile: boolean;
  try {
    isFile = statSync(index).isFile();
  } catch {
    isFile = false;
  }
  if (!isFile) {
    throw new FwDefinitionError(
      'fwUi.dist',
      `${index} does not exist: the admin UI is not built. Run \`npm run build:app -w @fw/ui\` (npm install does it in a clone of the repository), or turn the UI off (fwAdmin: ui: false)`,
    );
  }
  return index;
}

/** True when the request asks for an HTML page by name: a browser's navigation, not a script or image load. */
function wantsHtml(ctx: Context): boolean {
  return /\btext\/html\b|\bapplication\/xhtml\+xml\b/i.test(ctx.get('accept'));
}

/** Runs `middleware` as if the request were for `path` (koa-static and fwWeb read `ctx.path`). */
async function at(ctx: Context, path: string, middleware: Middleware, next: Next): Promise<void> {
  const original = ctx.path;
  ctx.path = path;
  try {
    await middleware(ctx, async () => {
      ctx.path = original;
      await next();
    });
  } finally {
    ctx.path = original;
  }
  // koa-send answers HEAD with a file stream that Koa never reads: its open, still under way,
  // would fail unheard (an uncaught exception) if the file went meanwhile. The headers are set;
  // the stream is not needed.
  const body: unknown = ctx.body;
  if (ctx.method === 'HEAD' && body instanceof Readable) {
    body.on('error', () => undefined);
    body.destroy();
  }
}

/**
 * Serves the built admin UI (`@fw/ui`'s `dist/`) with koa-static under `path` (`/` or a sub-path
 * such as `/admin`):
 * - hashed files under `assets/` with `Cache-Control: public, max-age=31536000, immutable`, other
 *   files `no-cache`;
 * - compressed when the browser accepts it: the build's precompressed `<file>.br` (brotli) or
 *   `<file>.gz` (gzip) with `Content-Encoding` and `Vary: Accept-Encoding`, the original's
 *   `Content-Type`; the page too (compressed once per change of the build); requests for the
 *   `.br`/`.gz` files themselves are not answered;
 * - the page (`index.html`, also at the mount path itself) `no-store`, with `<base href="{path}/">`
 *   and `<meta name="fw-config" content="{apiPrefix, base, title}">` put into its head, and
 *   `Content-Security-Policy: default-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' blob: data:; object-src 'none';
 *   base-uri 'self'; form-action 'self'; frame-ancestors 'self'` (`frameAncestors` changes the last);
 * - every file with `X-Content-Type-Options: nosniff`;
 * - any other GET or HEAD under `path` whose `Accept` names HTML (a deep link such as
 *   `/admin/model/Book`) gets the page too, never under the API prefix; mounted at `/`, only
 *   when nothing after `fwUi` answered, so the host's own routes win;
 * - `{path}/auth.html` and `{path}/auth.js`, the sign-on page of `@fw/web`, so that its `./`
 *   lands on the UI.
 *
 * @throws {FwDefinitionError} at once for a bad option (a `frameAncestors` that is not a list of
 *   frame-ancestors sources among them), a path overlapping the API prefix, or a missing build ("run npm run build:app -w @fw/ui").
 * @example
 * app.use(fwUi({ path: '/admin' })); // http://localhost:3000/admin/
 */
export function fwUi(options?: FwUiOptions): Middleware {
  const o = resolveOptions(options);
  const page = pageReader(checkBuilt(o.dist), { apiPrefix: o.apiPrefix, base: o.base, title: o.title });
  const assets = join(o.dist, ASSETS_DIR) + sep;
  const setHeaders = (res: ServerResponse, file: string) => {
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('Cache-Control', file.startsWith(assets) ? IMMUTABLE : 'no-cache');
    // koa-send picked `<file>.br` or `<file>.gz` by the request's Accept-Encoding: caches must keep them apart.
    res.setHeader('Vary', 'Accept-Encoding');
  };
  const files = serve(o.dist, { index: false, hidden: false, format: false, setHeaders });
  const web = fwWeb({ onWarning: () => undefined, frameAncestors: [...o.frameAncestors] });
  const policy = pageContentSecurityPolicy('ui', o.frameAncestors);

  const sendPage = (ctx: Context) => {
    const bodies = page();
    ctx.status = 200;
    ctx.type = 'html';
    ctx.set('Cache-Control', 'no-store');
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.set('Content-Security-Policy', policy);
    ctx.vary('Accept-Encoding');
    // Brotli first whenever accepted (browsers list it after gzip at the same weight), as koa-send does.
    const encoding = ctx.acceptsEncodings('br', 'identity') === 'br' ? 'br' : ctx.acceptsEncodings('gzip', 'identity') === 'gzip' ? 'gzip' : undefined;
    if (encoding) {
      ctx.set('Content-Encoding', encoding);
      ctx.body = bodies[encoding];
    } else ctx.body = bodies.html;
  };

  return async function fwUi(ctx, next) {
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') return next();
    const path = ctx.path;
    if (path === o.apiPrefix || path.startsWith(`${o.apiPrefix}/`)) return next();
    if (o.mount !== '' && path === o.mount) {
      // Relative URLs of the page resolve against its directory: /admin must become /admin/.
      ctx.status = 301;
      ctx.redirect(`${o.base}${ctx.querystring ? `?${ctx.querystring}` : ''}`);
      return;
    }
    if (!path.startsWith(o.base)) return next();
    const rel = path.slice(o.mount.length);
    if (rel === '/' || rel === '/index.html') return sendPage(ctx);
    if (WEB_FILES.has(rel)) return at(ctx, rel, web, next);
    // Only clean paths reach the file system: no dot segments, nothing undecodable (those stay the
    // host's business rather than becoming koa-send's 400 or 403).
    let decoded: string;
    try {
      decoded = decodeURIComponent(rel);
    } catch {
      return next();
    }
    // The page by any other spelling (`/%69ndex.html`) is the page, never the raw build file
    // koa-send would find for it (no CSP, no base, no config).
    if (decoded === '/index.html') return sendPage(ctx);
    if (decoded.includes('\0') || decoded.split('/').some((s) => s === '..' || s === '.' || s.includes('\\'))) return next();
    // Mounted at `/`, a path that is no file belongs to the host first: the page only answers
    // what nothing else did. The .br and .gz files are encodings of the others, sent only as
    // such: never as files of their own.
    if (ENCODED_VARIANT.test(decoded)) {
      if (o.mount === '') await next();
    } else {
      await at(ctx, rel, files, async () => {
        if (o.mount === '') await next();
      });
    }
    if (ctx.body != null || ctx.status !== 404) return;
    // A deep link of the UI (not a missing asset: the page is no answer for a script or an image).
    if (wantsHtml(ctx) && !rel.startsWith(`/${ASSETS_DIR}/`)) return sendPage(ctx);
    if (o.mount !== '') return next();
  };
}
