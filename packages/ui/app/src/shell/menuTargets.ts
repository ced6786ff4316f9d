// Where a page or link menu may take the person, checked again in the browser (issue 19 §1). The
// server already refuses anything else when a menu is saved; this is defence in depth for rows
// written before that rule, or straight into the database: a page is framed only when it is a
// same-origin path that is not the sign-on hand-off page and carries no token, and a link opens
// only an http(s) address, in a new tab.
import { linkTargetProblem, pageTargetProblem } from '@fw/core/menu-target';

/**
 * The URL a `page` menu frames, or undefined when it may not be framed: the server's rule, then
 * the browser's own resolution against the document's base, which must stay on this origin.
 */
export function pageSrc(value: string | null | undefined): string | undefined {
  if (!value || pageTargetProblem(value) !== undefined) return undefined;
  let url: URL;
  try {
    url = new URL(value, document.baseURI);
  } catch {
    return undefined;
  }
  return url.origin === window.location.origin ? value : undefined;
}

/** The address a `link` menu opens in a new tab, or undefined when it is no http(s) address. */
export function linkHref(value: string | null | undefined): string | undefined {
  if (!value || linkTargetProblem(value) !== undefined) return undefined;
  return value;
}
