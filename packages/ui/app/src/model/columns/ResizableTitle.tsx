// A table header cell with a drag handle on its right edge (issue 20 §5): drag it with the
// pointer, or focus it and press the arrow keys. The cell reports widths while dragging and the
// final one when the drag ends, so only that one is stored.
import { useRef, type KeyboardEvent, type PointerEvent, type ThHTMLAttributes } from 'react';
import { clampWidth } from './tablePrefs';

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

/** antd's `components.header.cell`: a plain `<th>` unless the column is resizable. */
export function ResizableTitle({ onResize, onResizeEnd, onResizeStep, resizeLabel, children, ...th }: ThHTMLAttributes<HTMLTableCellElement> & ResizeProps) {
  const cell = useRef<HTMLTableCellElement>(null);
  const drag = useRef<{ x: number; width: number; last: number }>(undefined);
  if (!onResize || !onResizeEnd || !onResizeStep) return <th {...th}>{children}</th>;

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
  const width = Math.round(current());
  return (
    <th {...th} ref={cell}>
      {children}
      <span
        role="separator"
        aria-orientation="vertical"
        aria-label={resizeLabel}
        aria-valuenow={width || undefined}
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
