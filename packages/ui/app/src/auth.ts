// The session token, stored exactly as /auth.html (the sign-on hand-off) stores it, so a person
// who signs on through a provider lands signed in.
import { currentPath } from './router';

const TOKEN_KEY = '_token';
const RETURN_KEY = 'fw-return-to';

/** The stored token, if any. */
export function getToken(): string | undefined {
  try {
    const raw = window.localStorage.getItem(TOKEN_KEY);
    if (!raw) return undefined;
    const parsed: unknown = JSON.parse(raw);
    if (parsed && typeof parsed === 'object' && typeof (parsed as { token?: unknown }).token === 'string') return (parsed as { token: string }).token;
  } catch {
    // A value another app left there: treat as signed out.
  }
  return undefined;
}

/** Stores the token as `{"token": "…"}` under `_token`. */
export function setToken(token: string): void {
  window.localStorage.setItem(TOKEN_KEY, JSON.stringify({ token }));
}

/** Forgets the token. */
export function clearToken(): void {
  window.localStorage.removeItem(TOKEN_KEY);
}

/**
 * Remembers where the person was, so that sign-in (also through a provider, which comes back
 * to the app's root through /auth.html) returns there.
 */
export function rememberReturn(path: string = currentPath()): void {
  if (path.startsWith('/login')) return;
  window.sessionStorage.setItem(RETURN_KEY, path);
}

/** Takes the remembered place (once). */
export function takeReturn(): string | undefined {
  const path = window.sessionStorage.getItem(RETURN_KEY) ?? undefined;
  window.sessionStorage.removeItem(RETURN_KEY);
  return path && path.startsWith('/') && !path.startsWith('//') ? path : undefined;
}
