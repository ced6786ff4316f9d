// Where the app lives and where the API is. fwUi serves index.html with `<base href="{path}/">`
// and `<meta name="fw-config" content='{"apiPrefix","base","title"}'>`; nothing is inlined as a
// script, so the app runs under `Content-Security-Policy: default-src 'self'`.

/** What the server told the page about itself. */
export interface FwUiConfig {
  /** The API prefix, e.g. `/fw-api`. */
  apiPrefix: string;
  /** The app's own path, always ending in `/`, e.g. `/` or `/admin/`. */
  base: string;
  /** The title shown in the header and the browser tab. */
  title: string;
}

function readMeta(): Partial<FwUiConfig> {
  const content = document.querySelector('meta[name="fw-config"]')?.getAttribute('content');
  if (!content) return {};
  try {
    const parsed: unknown = JSON.parse(content);
    return parsed && typeof parsed === 'object' ? (parsed as Partial<FwUiConfig>) : {};
  } catch {
    return {};
  }
}

function withSlash(path: string): string {
  return path.endsWith('/') ? path : `${path}/`;
}

function readConfig(): FwUiConfig {
  const meta = readMeta();
  // Without fwUi (vite preview, a static copy), <base href> is the next best witness; without
  // that either, the app is at the root.
  const baseElement = document.querySelector('base[href]');
  const fromBase = baseElement ? new URL(baseElement.getAttribute('href') ?? '/', window.location.href).pathname : '/';
  return {
    apiPrefix: (meta.apiPrefix ?? '/fw-api').replace(/\/+$/, ''),
    base: withSlash(typeof meta.base === 'string' && meta.base.startsWith('/') ? meta.base : fromBase),
    title: typeof meta.title === 'string' && meta.title ? meta.title : 'Fw admin',
  };
}

/** The configuration of this page, read once. */
export const config: FwUiConfig = readConfig();
