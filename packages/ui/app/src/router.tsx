// A small history router. App paths ("/model/Book?page=2") are relative to the base path the
// server gave (config.base), so the app works at "/" and under "/admin/", and a reload on any
// deep link lands on the same screen (fwUi answers index.html for every path under the base).
import { useSyncExternalStore, type AnchorHTMLAttributes, type MouseEvent, type ReactNode } from 'react';
import { config } from './config';

const CHANGE = 'fw:navigate';

/** The current app path with its query string, always starting with "/". */
export function currentPath(): string {
  const { pathname, search } = window.location;
  const base = config.base;
  const inside = pathname.startsWith(base) ? pathname.slice(base.length) : pathname === base.slice(0, -1) ? '' : pathname.replace(/^\/+/, '');
  return `/${inside}${search}`;
}

/** The browser URL of an app path. */
export function href(appPath: string): string {
  return config.base + appPath.replace(/^\/+/, '');
}

/** Goes to an app path; `replace` keeps the current entry out of the history. */
export function navigate(appPath: string, options: { replace?: boolean } = {}): void {
  const url = href(appPath);
  if (options.replace) window.history.replaceState(null, '', url);
  else window.history.pushState(null, '', url);
  window.dispatchEvent(new Event(CHANGE));
}

function subscribe(listener: () => void): () => void {
  window.addEventListener('popstate', listener);
  window.addEventListener(CHANGE, listener);
  return () => {
    window.removeEventListener('popstate', listener);
    window.removeEventListener(CHANGE, listener);
  };
}

/** The current app path, split; re-renders on every navigation. */
export function useLocation(): { path: string; pathname: string; query: URLSearchParams } {
  const path = useSyncExternalStore(subscribe, currentPath);
  const q = path.indexOf('?');
  return { path, pathname: q === -1 ? path : path.slice(0, q), query: new URLSearchParams(q === -1 ? '' : path.slice(q + 1)) };
}

/** An anchor to an app path: a real href (open in a new tab works), client-side on a plain click. */
export function Link({ to, children, ...rest }: { to: string; children: ReactNode } & Omit<AnchorHTMLAttributes<HTMLAnchorElement>, 'href'>) {
  const onClick = (event: MouseEvent<HTMLAnchorElement>) => {
    rest.onClick?.(event);
    if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    event.preventDefault();
    navigate(to);
  };
  return (
    <a {...rest} href={href(to)} onClick={onClick}>
      {children}
    </a>
  );
}
