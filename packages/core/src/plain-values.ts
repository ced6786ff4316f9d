// Small value checks and text helpers every Fw package shares, so each is written once.

/** True for a plain object: not null, not an array (what a JSON body's `{ … }` parses to). */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * `value` as a positive whole number: a safe integer of at least 1, or its decimal digits as a
 * string (1 to 15 of them, as a URL or form sends an id); undefined for anything else.
 */
export function positiveInteger(value: unknown): number | undefined {
  const n = typeof value === 'string' && /^\d{1,15}$/.test(value) ? Number(value) : value;
  return typeof n === 'number' && Number.isSafeInteger(n) && n >= 1 ? n : undefined;
}

/**
 * `&<>"'` as numeric character references (`&#38;`, `&#60;`, …): safe inside element text and
 * inside either kind of quoted attribute. The one copy every Fw package uses for the HTML it
 * writes (sign-on pages, the admin page's shell, print views).
 */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
