// A table header cell with a drag handle on its right edge (issue 20 §5): drag it with the
// pointer, or focus it and press the arrow keys. The cell reports widths while dragging and the
// final one when the drag ends, so only that one is stored.
import { useEffect, useRef, useState, type KeyboardEvent, type PointerEvent, type ThHTMLAttributes } from 'react';
import { WIDTH_MAX, WIDTH_MIN, clampWidth } from './tablePrefs';

/** What `onHeaderCell` passes to a resizable column's header cell. */
export interface ResizeProps {
  /** The width while dragging. */
  onResize?: (width: number) => void;
  /** The width to keep, once the drag is over. */
  onResizeEnd?: (width: number) => void;
  /**
   * An arrow key moved the edge by `by` pixels from the stored width (or, with none stored, from
   * `measured`): presses quicker than a render add up.
   */
  onResizeStep?: (by: number, measured: number) => void;
  /** The handle's accessible name. */
  resizeLabel?: string;
}

/** Pixels one arrow-key press moves the edge. */
const KEY_STEP = 16;

type HeaderCellProps = ThHTMLAttributes<HTMLTableCellElement> & ResizeProps;

/** antd's `components.header.cell`: a plain `<th>` unless the column is resizable. */
export function ResizableTitle({ onResize, onResizeEnd, onResizeStep, resizeLabel, ...th }: HeaderCellProps) {
  if (!onResize || !onResizeEnd || !onResizeStep) return <th {...th} />;
  return <ResizableTh {...th} onResize={onResize} onResizeEnd={onResizeEnd} onResizeStep={onResizeStep} resizeLabel={resizeLabel} />;
}

function ResizableTh({
  onResize,
  onResizeEnd,
  onResizeStep,
  resizeLabel,
  children,
  ...th
}: HeaderCellProps & Required<Pick<ResizeProps, 'onResize' | 'onResizeEnd' | 'onResizeStep'>>) {
  const cell = useRef<HTMLTableCellElement>(null);
  const drag = useRef<{ x: number; width: number; last: number }>(undefined);
  // The width the handle announces, as the browser reports it (no layout read while rendering).
  const [width, setWidth] = useState<number>();
  useEffect(() => {
    const element = cell.current;
    if (!element || typeof ResizeObserver === 'undefined') return;
    const observer = new ResizeObserver(([entry]) => setWidth(Math.round(entry?.borderBoxSize?.[0]?.inlineSize ?? entry?.contentRect.width ?? 0)));
    observer.observe(element);
    return () => observer.disconnect();
  }, []);

  const current = () => cell.current?.getBoundingClientRect().width ?? 0;
  const down = (event: PointerEvent<HTMLSpanElement>) => {
    event.preventDefault();
    event.stopPropagation();
    event.currentTarget.setPointerCapture(event.pointerId);
    const width = current();
    drag.current = { x: event.clientX, width, last: width };
  };
  const move = (event: PointerEvent<HTMLSpanElement>) => {
    if (!drag.current) return;
    drag.current.last = clampWidth(drag.current.width + event.clientX - drag.current.x);
    onResize(drag.current.last);
  };
  const up = (event: PointerEvent<HTMLSpanElement>) => {
    if (!drag.current) return;
    event.currentTarget.releasePointerCapture(event.pointerId);
    const { last } = drag.current;
    drag.current = undefined;
    onResizeEnd(last);
  };
  const key = (event: KeyboardEvent<HTMLSpanElement>) => {
    const by = event.key === 'ArrowRight' ? KEY_STEP : event.key === 'ArrowLeft' ? -KEY_STEP : 0;
    if (!by) return;
    event.preventDefault();
    event.stopPropagation();
    onResizeStep(by, current());
  };
  return (
    <th {...th} ref={cell}>
      {children}
      <span
        role="separator"
        aria-orientation="vertical"
        aria-label={resizeLabel}
        aria-valuenow={width}
        aria-valuemin={WIDTH_MIN}
        aria-valuemax={WIDTH_MAX}
        tabIndex={0}
        className="fw-col-resize"
        onPointerDown={down}
        onPointerMove={move}
        onPointerUp={up}
        onPointerCancel={up}
        onKeyDown={key}
        // The header's own click sorts; a click on the handle is a resize, not a sort.
        onClick={(event) => event.stopPropagation()}
      />
    </th>
  );
}
