// The session token, stored exactly as /auth.html (the sign-on hand-off) stores it, so a person
// who signs on through a provider lands signed in.
import { useSyncExternalStore } from 'react';
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
 * Calls `onChange` whenever the stored token may have changed under the app: a `storage` event
 * (another tab, or a frame such as /auth.html, wrote `_token`), or the window regaining focus or
 * visibility (a change the event did not reach). Returns the unsubscribe function.
 */
export function subscribeToken(onChange: () => void): () => void {
  const onStorage = (event: StorageEvent) => {
    // key null: the whole storage was cleared.
    if (event.key === null || event.key === TOKEN_KEY) onChange();
  };
  window.addEventListener('storage', onStorage);
  window.addEventListener('focus', onChange);
  document.addEventListener('visibilitychange', onChange);
  return () => {
    window.removeEventListener('storage', onStorage);
    window.removeEventListener('focus', onChange);
    document.removeEventListener('visibilitychange', onChange);
  };
}

/**
 * The stored token, re-read whenever it may have changed under the app (see
 * {@link subscribeToken}), so a session swapped from elsewhere cannot go unnoticed (issue 19 §1).
 */
export function useToken(): string | undefined {
  return useSyncExternalStore(subscribeToken, getToken);
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
