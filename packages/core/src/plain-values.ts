// Small value checks and text helpers every Fw package shares, so each is written once.

/** True for a plain object: not null, not an array (what a JSON body's `{ … }` parses to). */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * `value` as a positive whole number: a safe integer of at least 1, or its decimal digits as a
 * string (1 to 15 of them, as a URL or form sends an id); undefined for anything else.
 *
 * `anySize: true` takes whole numbers of any size too (any number of digits, past the safe
 * range), for a caller that holds the number to a maximum of its own and says so ("at most
 * 200") rather than calling a large number malformed.
 */
export function positiveInteger(value: unknown, options: { anySize?: boolean } = {}): number | undefined {
  const digits = options.anySize ? /^\d+$/ : /^\d{1,15}$/;
  const n = typeof value === 'string' && digits.test(value) ? Number(value) : value;
  if (typeof n !== 'number' || n < 1) return undefined;
  return (options.anySize ? Number.isInteger(n) : Number.isSafeInteger(n)) ? n : undefined;
}

/**
 * `&<>"'` as numeric character references (`&#38;`, `&#60;`, …): safe inside element text and
 * inside either kind of quoted attribute. The one copy every Fw package uses for the HTML it
 * writes (sign-on pages, the admin page's shell, print views).
 */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
