// Motion follows the person's system setting `prefers-reduced-motion`: when it asks for less,
// antd opens and closes menus, dialogs and drawers without animating them and buttons draw no
// click wave (ConfigProvider in main.tsx, as the page loads), app.css shortens every CSS
// transition and animation to nothing (at once), and a live table drops a deleted row at once
// (model/useLiveTable.ts).
const query = '(prefers-reduced-motion: reduce)';
const media = typeof window.matchMedia === 'function' ? window.matchMedia(query) : undefined;

/** True while the system asks for reduced motion. */
export function reducedMotion(): boolean {
  return media?.matches ?? false;
}
