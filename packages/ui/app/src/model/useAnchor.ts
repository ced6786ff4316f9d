// Keeps a floating box on an element of the page (issue 20 §2: the cell editor stays on its cell).
// The box is absolutely placed inside `container`, an ancestor of the anchor inside the scrolling
// area, so it scrolls with the page by itself; it is placed again when anything scrolls (the
// table's own horizontal scroll), the window resizes or the anchor changes size.
import { useLayoutEffect, useState } from 'react';

/** The box's place in `container`'s coordinates, and the anchor's size. */
export interface Anchored {
  top: number;
  left: number;
  width: number;
  height: number;
}

function measure(anchor: HTMLElement, container: HTMLElement): Anchored {
  const a = anchor.getBoundingClientRect();
  const c = container.getBoundingClientRect();
  return { top: a.top - c.top + container.scrollTop, left: a.left - c.left + container.scrollLeft, width: a.width, height: a.height };
}

/** Where the element `anchorId` is inside `container`, kept up to date; undefined until it is first found. */
export function useAnchor(anchorId: string, container: HTMLElement | null): Anchored | undefined {
  const find = () => {
    const anchor = document.getElementById(anchorId);
    return anchor && container ? measure(anchor, container) : undefined;
  };
  // Measured at once: the box is never drawn anywhere else first.
  const [place, setPlace] = useState<Anchored | undefined>(find);
  useLayoutEffect(() => {
    if (!container) return;
    let frame = 0;
    const update = () => {
      cancelAnimationFrame(frame);
      frame = requestAnimationFrame(() => {
        // A cell briefly gone (the table drawing again) leaves the box where it was.
        const next = find();
        setPlace((old) => (next === undefined || JSON.stringify(old) === JSON.stringify(next) ? old : next));
      });
    };
    update();
    const anchor = document.getElementById(anchorId);
    const resize = new ResizeObserver(update);
    if (anchor) resize.observe(anchor);
    resize.observe(container);
    document.addEventListener('scroll', update, true);
    window.addEventListener('resize', update);
    return () => {
      cancelAnimationFrame(frame);
      resize.disconnect();
      document.removeEventListener('scroll', update, true);
      window.removeEventListener('resize', update);
    };
    // find reads only anchorId and container.
  }, [anchorId, container]);
  return place;
}
