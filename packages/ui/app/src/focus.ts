// Focus goes back where it came from (issue 20 §3): a drawer or dialog that closes returns the
// focus to the control that opened it, not to <body>.
import { useEffect, useRef } from 'react';

/** Focuses `opener` again if it is still on the page; else the main content. */
function restore(opener: Element | null): void {
  if (opener instanceof HTMLElement && opener.isConnected && opener !== document.body) opener.focus();
  else document.getElementById('fw-main')?.focus();
}

/**
 * Remembers the element that had the focus when `open` became true (or when the component
 * mounted, for a drawer rendered only while open) and focuses it again when `open` turns false
 * or the component unmounts.
 */
export function useReturnFocus(open = true): void {
  const opener = useRef<Element | null>(null);
  // Read while rendering: by the time effects run, the drawer has taken the focus.
  if (open && opener.current === null) opener.current = document.activeElement;
  useEffect(() => {
    if (!open) return;
    return () => {
      const element = opener.current;
      opener.current = null;
      // After the closing drawer gave up its focus trap.
      setTimeout(() => restore(element));
    };
  }, [open]);
}
