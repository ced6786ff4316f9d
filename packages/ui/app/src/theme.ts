// Light or dark: the person's choice (system, light or dark, kept in localStorage `fw-theme`),
// following the system's `prefers-color-scheme` by default. The choice shows as
// `<html data-theme="light|dark">`, which the build's dark stylesheet (virtual:fw-antd/dark.css,
// antd's dark algorithm as CSS variables) and app.css key on; antd's JavaScript gets the same
// algorithm through ConfigProvider (main.tsx). Applied when this module loads, before the first render.
import { useSyncExternalStore } from 'react';

/** What a person can choose. */
export type ThemeMode = 'system' | 'light' | 'dark';
/** The modes in the order the switch offers them. */
export const THEME_MODES: readonly ThemeMode[] = ['system', 'light', 'dark'];

const STORAGE_KEY = 'fw-theme';
const CHANGE = 'fw:theme';
const media = window.matchMedia('(prefers-color-scheme: dark)');

/** The stored choice; `system` when none (or an unknown value) is stored. */
export function themeMode(): ThemeMode {
  let stored: string | null = null;
  try {
    stored = window.localStorage.getItem(STORAGE_KEY);
  } catch {
    // Storage refused (privacy settings): the system decides.
  }
  return stored === 'light' || stored === 'dark' ? stored : 'system';
}

/** True when the page is dark now (the choice, or the system's for `system`). */
export function isDark(): boolean {
  const mode = themeMode();
  return mode === 'dark' || (mode === 'system' && media.matches);
}

function apply(): void {
  document.documentElement.dataset.theme = isDark() ? 'dark' : 'light';
}

/** Stores `mode` (`system` forgets the choice) and applies it at once. */
export function setThemeMode(mode: ThemeMode): void {
  try {
    if (mode === 'system') window.localStorage.removeItem(STORAGE_KEY);
    else window.localStorage.setItem(STORAGE_KEY, mode);
  } catch {
    // Not kept across reloads, applied all the same.
  }
  apply();
  window.dispatchEvent(new Event(CHANGE));
}

function subscribe(listener: () => void): () => void {
  const onChange = () => {
    apply();
    listener();
  };
  const onStorage = (event: StorageEvent) => {
    if (event.key === null || event.key === STORAGE_KEY) onChange();
  };
  media.addEventListener('change', onChange);
  window.addEventListener(CHANGE, listener);
  window.addEventListener('storage', onStorage);
  return () => {
    media.removeEventListener('change', onChange);
    window.removeEventListener(CHANGE, listener);
    window.removeEventListener('storage', onStorage);
  };
}

/** The choice and whether the page is dark; re-renders when either changes (also from another tab or the system). */
export function useTheme(): { mode: ThemeMode; dark: boolean } {
  const mode = useSyncExternalStore(subscribe, themeMode);
  const dark = useSyncExternalStore(subscribe, isDark);
  return { mode, dark };
}

apply();
