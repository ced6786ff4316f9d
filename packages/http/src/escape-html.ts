/**
 * `&<>"'` as numeric character references (`&#38;`, `&#60;`, …): safe inside element text and
 * inside either kind of quoted attribute. The one copy every Fw package uses for the HTML it
 * writes (sign-on pages, the admin page's shell, print views).
 */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
