import { readdirSync, statSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Middleware } from 'koa';
import serve from 'koa-static';
import { DEFAULT_FRAME_ANCESTORS, FwDefinitionError, checkFrameAncestors, pageContentSecurityPolicy } from '@fw/core';

/**
 * Absolute path of the package's `public/` folder (`auth.html`, `auth.js`). Resolved from this
 * module's URL, so it is the same folder whether the package runs from `src/` or `dist/`.
 */
export const FW_WEB_PUBLIC_DIR: string = fileURLToPath(new URL('../public', import.meta.url));

/** Options of {@link fwWeb}. */
export interface FwWebOptions {
  /**
   * The host's own static folder (the root it hands to its own `koa-static`). When it holds a
   * file with the name of a built-in page, `fwWeb` reports it once through `onWarning`: a host
   * static middleware that runs first would serve that file instead of ours.
   * @default none (no check)
   * @example fwWeb({ hostStaticRoot: new URL('./public', import.meta.url).pathname })
   */
  hostStaticRoot?: string;
  /**
   * Receives the start-up warning about shadowing files (see `hostStaticRoot`).
   * @default console.warn
   */
  onWarning?: (message: string) => void;
  /**
   * Who may show the built-in pages in a frame: the `frame-ancestors` sources of their
   * `Content-Security-Policy`. Give the origin of a host page that frames the admin.
   * @default ["'self'"]
   * @example fwWeb({ frameAncestors: ["'self'", 'https://portal.example.com'] })
   */
  frameAncestors?: string[];
}

/** A host file that would be served in place of a built-in page (see {@link findShadowingFiles}). */
export interface ShadowingFile {
  /** The file name, e.g. `auth.html`. */
  name: string;
  /** Absolute path of the host's file. */
  hostPath: string;
  /** Absolute path of the built-in file it shadows. */
  builtinPath: string;
}

const OPTION_KEYS = new Set(['hostStaticRoot', 'onWarning', 'frameAncestors']);

/** The files `fwWeb` serves: every visible regular file directly in `public/`. */
function builtinFiles(): string[] {
  let names: string[];
  try {
    names = readdirSync(FW_WEB_PUBLIC_DIR);
  } catch (err) {
    throw new Error(`@fw/web: the built-in pages folder ${FW_WEB_PUBLIC_DIR} cannot be read (${(err as Error).message}); is the package installed completely?`, { cause: err });
  }
  const files = names.filter((name) => !name.startsWith('.') && isFile(join(FW_WEB_PUBLIC_DIR, name))).sort();
  if (!files.includes('auth.html')) throw new Error(`@fw/web: ${join(FW_WEB_PUBLIC_DIR, 'auth.html')} is missing; is the package installed completely?`);
  return files;
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/**
 * Lists the host files that would shadow a built-in page: for each file `fwWeb` serves
 * (`auth.html`, `auth.js`), whether `<hostStaticRoot>/<name>` exists as a file. A missing or
 * unreadable `hostStaticRoot` yields an empty list.
 *
 * @example
 * for (const f of findShadowingFiles('./public')) console.log(`${f.hostPath} shadows ${f.builtinPath}`);
 */
export function findShadowingFiles(hostStaticRoot: string): ShadowingFile[] {
  const root = resolve(hostStaticRoot);
  return builtinFiles()
    .map((name) => ({ name, hostPath: join(root, name), builtinPath: join(FW_WEB_PUBLIC_DIR, name) }))
    .filter((file) => isFile(file.hostPath));
}

function shadowWarning(files: readonly ShadowingFile[]): string {
  const lines = files.map((f) => `  ${f.hostPath} shadows the built-in ${f.builtinPath}`);
  return [
    `@fw/web: the host static folder holds ${files.length === 1 ? 'a file' : 'files'} with the name of a built-in page:`,
    ...lines,
    'When the host static middleware runs before fwWeb(), the host file is served instead of the built-in page',
    '(and /auth.html no longer stores the sign-on token). Remove or rename it: a customised copy belongs on another path.',
  ].join('\n');
}

interface Resolved {
  hostStaticRoot?: string;
  onWarning: (message: string) => void;
  frameAncestors: readonly string[];
}

function checkOptions(options: FwWebOptions | undefined): Resolved {
  if (options === undefined) return { onWarning: (message) => console.warn(message), frameAncestors: DEFAULT_FRAME_ANCESTORS };
  if (typeof options !== 'object' || options === null) throw new FwDefinitionError('fwWeb', 'options must be an object when given');
  for (const key of Object.keys(options)) {
    if (!OPTION_KEYS.has(key)) throw new FwDefinitionError(`fwWeb.${key}`, `unknown option (known: ${[...OPTION_KEYS].join(', ')})`);
  }
  const { hostStaticRoot, onWarning, frameAncestors } = options;
  if (hostStaticRoot !== undefined && (typeof hostStaticRoot !== 'string' || hostStaticRoot === '')) {
    throw new FwDefinitionError('fwWeb.hostStaticRoot', 'must be a non-empty path string');
  }
  if (onWarning !== undefined && typeof onWarning !== 'function') throw new FwDefinitionError('fwWeb.onWarning', 'must be a function');
  return {
    ...(hostStaticRoot !== undefined && { hostStaticRoot }),
    onWarning: onWarning ?? ((message) => console.warn(message)),
    frameAncestors: frameAncestors === undefined ? DEFAULT_FRAME_ANCESTORS : checkFrameAncestors('fwWeb.frameAncestors', frameAncestors),
  };
}

function headerSetter(frameAncestors: readonly string[]): (res: ServerResponse, path: string) => void {
  const policy = pageContentSecurityPolicy('auth', frameAncestors);
  return (res, path) => {
    res.setHeader('X-Content-Type-Options', 'nosniff');
    if (path.endsWith('.html')) {
      // The page's URL carries a live token: no cache may keep the response or the URL.
      res.setHeader('Cache-Control', 'no-store');
      res.setHeader('Referrer-Policy', 'no-referrer');
      res.setHeader('Content-Security-Policy', policy);
    } else {
      res.setHeader('Cache-Control', 'no-cache');
    }
  };
}

/**
 * Serves Fw's built-in static pages from the package's `public/` folder with `koa-static`:
 * `GET /auth.html?token=<t>` stores `{"token":"<t>"}` under localStorage `_token` and opens `./`
 * (the sign-on hand-off, see docs/web.md), with its script `/auth.js`. Only GET and HEAD of those
 * exact paths are answered; every other request goes to the next middleware. The page carries
 * `Content-Security-Policy: default-src 'self'; …; frame-ancestors 'self'` (other framing hosts
 * through `frameAncestors`), `Referrer-Policy: no-referrer` and `X-Content-Type-Options: nosniff`.
 *
 * Mount it before the host's own static middleware, and pass `hostStaticRoot` so a host file
 * that would shadow a built-in page is reported at start-up.
 *
 * @example
 * app.use(fwWeb({ hostStaticRoot: './public' }));
 * app.use(serve('./public'));
 * @throws {FwDefinitionError} at once for an unknown option, an empty or non-string
 *   `hostStaticRoot`, a non-function `onWarning`, or a `frameAncestors` that is not a list of
 *   frame-ancestors sources.
 */
export function fwWeb(options?: FwWebOptions): Middleware {
  const config = checkOptions(options);
  const paths = new Set(builtinFiles().map((name) => `/${name}`));
  if (config.hostStaticRoot !== undefined) {
    const shadowing = findShadowingFiles(config.hostStaticRoot);
    if (shadowing.length > 0) config.onWarning(shadowWarning(shadowing));
  }
  const send = serve(FW_WEB_PUBLIC_DIR, { index: false, hidden: false, gzip: false, brotli: false, format: false, setHeaders: headerSetter(config.frameAncestors) });
  return async function fwWeb(ctx, next) {
    // Exact paths only: other URLs never reach the file system here (and an undecodable path
    // stays the host's business instead of becoming a 400 from koa-send).
    if ((ctx.method !== 'GET' && ctx.method !== 'HEAD') || !paths.has(ctx.path)) return next();
    return send(ctx, next);
  };
}
