// The page before its first screen: the spinner index.html shows, drawn again by React while the
// language pack or a screen's code loads (React's first render replaces index.html's copy).

/** Milliseconds after navigation before the spinner shows, so a fast load never flashes it. */
const SHOW_AFTER_MS = 400;

/** A centred spinner with `label` for screen readers (`role="status"`). */
export function BootSpinner({ label }: { label: string }) {
  // index.html's copy fades in 0.4 s after navigation. This one takes its place: it waits only what
  // is left of those 0.4 s, and once they are past it is there at once (no blink as React takes over).
  const left = SHOW_AFTER_MS - performance.now();
  return (
    <div className="fw-boot" role="status" style={left > 0 ? { animationDelay: `${Math.round(left)}ms` } : { animation: 'none' }}>
      <span className="fw-boot-spin" aria-hidden="true" />
      <span className="fw-boot-text">{label}</span>
    </div>
  );
}
