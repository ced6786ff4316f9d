// How the table moves from page to page (issue 21). The server answers each page with two cursors
// (`cursors.prev`, `cursors.next`); the next and previous pages are asked for by cursor (`after` /
// `before`), which the database reads by an index seek whatever the depth, and the last page by
// `last: true`. A page number alone (a typed number, a far page, a reloaded address without a
// cursor) is asked for by offset, the compatibility path, whose cost grows with the depth.
//
// Nothing here knows React or antd: plain data in, plain data out, so the rules are unit-tested
// (packages/ui/src/paging.test.ts) and shared by the table and the first-load prefetch.

/** How a page was reached, beside its number: by cursor, as the final page, or (absent) by offset. */
export type PageMove = { after: string } | { before: string } | { last: true };

/** The paging part of a table answer. `cursors` is absent on servers older than issue 21. */
export interface PagingAnswer {
  total: number;
  /** True when `total` is an estimate (a large table asked with `count: 'auto'`). */
  totalIsEstimate?: boolean;
  cursors?: { prev: string | null; next: string | null };
}

/** Where the table is: the page number shown, its size, and how the page was reached. */
export interface PagePosition {
  page: number;
  size: number;
  move?: PageMove;
}

/** A page to go to: its number (shown, and in the address) and, when there is one, the move. */
export interface PageTarget {
  page: number;
  move?: PageMove;
}

/** The largest page number the address and the server accept. */
export const MAX_PAGE = 1_000_000;

/** Pages of `size` rows needed for `total` rows: at least one, at most {@link MAX_PAGE}. */
export function pageCount(total: number, size: number): number {
  if (!(total > 0) || !(size > 0)) return 1;
  return Math.min(MAX_PAGE, Math.ceil(total / size));
}

/** Whether the answer carries cursors (a server that pages by keyset). */
export function hasCursors(answer: PagingAnswer | undefined): answer is PagingAnswer & { cursors: { prev: string | null; next: string | null } } {
  return answer?.cursors !== undefined && answer.cursors !== null && typeof answer.cursors === 'object';
}

/** Whether a page follows the one on screen: by its cursor when the server gives cursors, else by the total. */
export function canGoNext(at: PagePosition, answer: PagingAnswer | undefined): boolean {
  if (!answer) return false;
  if (hasCursors(answer)) return answer.cursors.next !== null;
  return at.page < pageCount(answer.total, at.size);
}

/** Whether a page precedes the one on screen. */
export function canGoPrev(at: PagePosition, answer: PagingAnswer | undefined): boolean {
  if (hasCursors(answer)) return answer.cursors.prev !== null;
  return at.page > 1;
}

/** The first page: no cursor, so it is the same request as a fresh visit (and its prefetch). */
export function firstPage(): PageTarget {
  return { page: 1 };
}

/** The page after the one on screen: by the answer's `next` cursor, else by offset. */
export function nextPage(at: PagePosition, answer: PagingAnswer | undefined): PageTarget {
  const page = Math.min(MAX_PAGE, at.page + 1);
  if (hasCursors(answer) && answer.cursors.next !== null) return { page, move: { after: answer.cursors.next } };
  return { page };
}

/** The page before the one on screen: by the answer's `prev` cursor, else by offset; page 1 always plainly. */
export function prevPage(at: PagePosition, answer: PagingAnswer | undefined): PageTarget {
  const page = Math.max(1, at.page - 1);
  if (page === 1) return firstPage();
  if (hasCursors(answer) && answer.cursors.prev !== null) return { page, move: { before: answer.cursors.prev } };
  return { page };
}

/**
 * The final page. Its number is the page count from the total (an estimate stays an estimate:
 * the number is then a label, not a position the server checks). A server without cursors gets
 * the offset of that page.
 */
export function lastPage(at: PagePosition, answer: PagingAnswer | undefined): PageTarget {
  const page = answer ? pageCount(answer.total, at.size) : at.page;
  if (hasCursors(answer)) return { page, move: { last: true } };
  return page === 1 ? firstPage() : { page };
}

/**
 * The target of a page number chosen in a pager (antd's numbered pager, or a typed number): one
 * step forward or back is the cursor move, page 1 is plain, the final page of an exact total is
 * `last`, any other number is the offset page.
 */
export function pageNumbered(at: PagePosition, answer: PagingAnswer | undefined, to: number): PageTarget {
  const page = Math.min(MAX_PAGE, Math.max(1, Math.floor(to)));
  if (page === 1) return firstPage();
  if (page === at.page) return at.move ? { page, move: at.move } : { page };
  if (page === at.page + 1 && canGoNext(at, answer)) return nextPage(at, answer);
  if (page === at.page - 1 && canGoPrev(at, answer)) return prevPage(at, answer);
  // "The last page" only when the total is exact: with an estimate the number is a guess, and
  // someone who typed it asked for that offset.
  if (answer && !answer.totalIsEstimate && page === pageCount(answer.total, at.size)) return lastPage(at, answer);
  return { page };
}

/**
 * The total to give antd's numbered pager (exact totals), so that its next button is off exactly
 * when the answer's `cursors.next` is null: rows deleted behind the person's back, or a page number
 * reached by cursor that runs ahead of the offset, would otherwise leave a next page that is empty.
 * The total shown in words stays the answer's.
 */
export function pagerTotal(at: PagePosition, answer: PagingAnswer, rowsShown: number): number {
  if (!hasCursors(answer) || answer.cursors.next !== null) return answer.total;
  return Math.min(answer.total, (at.page - 1) * at.size + rowsShown);
}

/** The move as the request body holds it (nothing for an offset page). */
export function moveBody(move: PageMove | undefined): { after: string } | { before: string } | { last: true } | Record<string, never> {
  if (!move) return {};
  if ('after' in move) return { after: move.after };
  if ('before' in move) return { before: move.before };
  return { last: true };
}

/**
 * The move kept in the address (`after=…`, `before=…` or `last=1`), so a reload or a shared link asks
 * the server exactly what was on screen. A cursor the server refuses later (another sort, a new
 * key) falls back to the offset page of the same number: see {@link isCursorRefusal}.
 */
export function readMove(query: URLSearchParams): PageMove | undefined {
  const after = query.get('after');
  if (after) return { after };
  const before = query.get('before');
  if (before) return { before };
  if (query.get('last') === '1') return { last: true };
  return undefined;
}

/** Writes `move` into an address's query (see {@link readMove}). */
export function writeMove(query: URLSearchParams, move: PageMove | undefined): void {
  if (!move) return;
  if ('after' in move) query.set('after', move.after);
  else if ('before' in move) query.set('before', move.before);
  else query.set('last', '1');
}

/** Whether an error answer refuses the request's cursor (400 `BAD_QUERY` at `after`, `before` or `last`). */
export function isCursorRefusal(error: unknown): boolean {
  if (!error || typeof error !== 'object') return false;
  const e = error as { status?: unknown; code?: unknown; details?: unknown };
  if (e.status !== 400 || e.code !== 'BAD_QUERY' || !Array.isArray(e.details)) return false;
  return e.details.some((d: unknown) => {
    const path = d && typeof d === 'object' ? (d as { path?: unknown }).path : undefined;
    return path === 'after' || path === 'before' || path === 'last';
  });
}

/** The number a total is shown as, in the user's language ("5,000,000", "5.000.000", "5 000 000"). */
export function formatCount(n: number, locale: string): string {
  try {
    return new Intl.NumberFormat(locale, { maximumFractionDigits: 0 }).format(n);
  } catch {
    return String(n);
  }
}
