// Motion follows the person's system setting `prefers-reduced-motion`: when it asks for less,
// antd opens and closes menus, dialogs and drawers without animating them and buttons draw no
// click wave (ConfigProvider in main.tsx), app.css shortens every CSS transition and animation to
// nothing, and a live table drops a deleted row at once (model/useLiveTable.ts).
import { useSyncExternalStore } from 'react';

const query = '(prefers-reduced-motion: reduce)';
const media = typeof window.matchMedia === 'function' ? window.matchMedia(query) : undefined;

/** True while the system asks for reduced motion. */
export function reducedMotion(): boolean {
  return media?.matches ?? false;
}

function subscribe(listener: () => void): () => void {
  media?.addEventListener('change', listener);
  return () => media?.removeEventListener('change', listener);
}

/** {@link reducedMotion}, re-rendering when the setting changes. */
export function useReducedMotion(): boolean {
  return useSyncExternalStore(subscribe, reducedMotion);
}
