// Focus goes back where it came from (issue 20 §3): a drawer or dialog that closes returns the
// focus to the control that opened it, not to <body>.
import { useEffect, useRef } from 'react';

/** The id of the main content (the shell's Layout.Content), where the skip link leads. */
export const MAIN_ID = 'fw-main';

/**
 * Moves the focus to the main content. It is focusable only meanwhile (tabindex -1 until it
 * loses the focus), so a click in the page does not focus it.
 */
export function focusMain(): void {
  const main = document.getElementById(MAIN_ID);
  if (!main) return;
  main.tabIndex = -1;
  main.addEventListener('blur', () => main.removeAttribute('tabindex'), { once: true });
  main.focus();
}

/** Focuses `opener` again if it is still on the page; else the main content. */
function restore(opener: Element | null): void {
  if (opener instanceof HTMLElement && opener.isConnected && opener !== document.body) opener.focus();
  else focusMain();
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

/** antd's popups and dialogs, which render at the end of the body. */
const OVERLAYS = '.ant-popover, .ant-modal-root, .ant-modal-wrap, .ant-drawer, .ant-dropdown, .ant-message, .ant-notification';

/** Whether nothing has the focus (it fell to <body>). */
const lost = () => document.activeElement === document.body || document.activeElement === null;

/**
 * Keeps the focus from falling to <body>. For popups that do not give the focus back themselves
 * (a Popconfirm answered with a click, a confirm dialog): when the focus falls to <body> as one of
 * them goes away, it goes back to the last element focused outside them. And when the focused
 * element itself leaves the page (the row a confirmed Delete removed, with its button), the focus
 * goes to the main content. Call once, in the shell.
 */
export function useFocusRescue(): void {
  useEffect(() => {
    let opener: HTMLElement | undefined;
    let last: Element | undefined;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let pending = false;
    const onFocusIn = (event: FocusEvent) => {
      if (!(event.target instanceof HTMLElement) || event.target === document.body) return;
      last = event.target;
      if (!event.target.closest(OVERLAYS)) opener = event.target;
    };
    const onFocusOut = (event: FocusEvent) => {
      if (event.relatedTarget !== null || !(event.target instanceof Element) || !event.target.closest(OVERLAYS)) return;
      clearTimeout(timer);
      // Let the popup finish closing (and anything else that takes the focus on purpose) first.
      timer = setTimeout(() => {
        if (lost()) restore(opener ?? null);
      }, 50);
    };
    // Checked a little later, after whoever closed a drawer or an editor has put the focus back.
    const removed = new MutationObserver(() => {
      if (pending || !last || last.isConnected) return;
      pending = true;
      setTimeout(() => {
        pending = false;
        if (last && !last.isConnected && lost()) focusMain();
      }, 80);
    });
    removed.observe(document.body, { childList: true, subtree: true });
    document.addEventListener('focusin', onFocusIn);
    document.addEventListener('focusout', onFocusOut);
    return () => {
      clearTimeout(timer);
      removed.disconnect();
      document.removeEventListener('focusin', onFocusIn);
      document.removeEventListener('focusout', onFocusOut);
    };
  }, []);
}
