// Pages by number without the long skip. A page asked by number (`page: n`) is an OFFSET: the
// database reads and throws away every row before it, so page 2,500 of a 100,000-row table costs
// 2,500 times page 1. For deep pages Fw keeps anchors: the sort key of every `step`-th row of the
// same order and conditions, read in the background by one statement (`ROW_NUMBER()` over the
// page's order, keyset-page.ts anchorQuery). Page n then seeks past the nearest anchor before it,
// along the same index a cursor page uses, and skips fewer than `step` rows.
//
// Anchors are positions, so they are used only while they hold:
// - none of Fw's own writes of the model has committed since they were read (the write
//   generation that counts.ts keeps): an insert, delete or update through Fw drops them at once;
// - they are younger than ANCHOR_TTL_MS: writes that bypass Fw (another instance, a script, raw
//   SQL) are not seen, and may shift a page by number by the rows they added or removed before it
//   for at most that long. That is what OFFSET paging does anyway while rows come and go between
//   two page requests; a page never fails or repeats a row within itself (the seek is by value,
//   so an anchor whose row was deleted still marks its place), and a page placed by an anchor
//   never proves an exact total (rows.ts passes no offset to the counts).
// Tables larger than ANCHOR_MAX_ROWS keep the plain OFFSET: one pass over them costs more than the
// pages it would save. Builds run one at a time under a time limit (count-sources.ts readWithin;
// on SQLite on the count worker's thread), a key is read again no sooner than ten times its
// last read took (at least a second), and all reads together take a tenth of the time at most
// (beyond a first burst of a few seconds): neither a table written all the time nor pages asked
// under ever new conditions (each a new key) keep the database reading anchors.

/** Anchors are read again after this long, since writes outside Fw do not reach them. */
export const ANCHOR_TTL_MS = 30_000;
/** A key is read again no sooner than this, and than REBUILD_FACTOR times its last read took. */
const REBUILD_MS = 1000;
const REBUILD_FACTOR = 10;
/** Reading time the anchors may take at once before reads are held to a tenth of the time (see PageAnchors). */
const READ_BURST_MS = 5000;
/** No page shallower than this many rows is placed by an anchor; it is also the smallest step. */
export const MIN_ANCHOR_STEP = 1000;
/** Most anchors in one set: the step grows with the table beyond MIN_ANCHOR_STEP × this. */
const MAX_ANCHORS = 1000;
/** Largest number of matching rows anchors are read for. */
export const ANCHOR_MAX_ROWS = 2_000_000;
/** Most anchor sets kept (each order and set of conditions of each model is one; each at most 256 KB of keys, rows.ts). */
const MAX_SETS = 100;

/**
 * Tables Fw writes outside the data service, which therefore never hears of those writes: the
 * login log (@fw/login records every sign-in, failed ones included, so anyone can add rows) and
 * the users (@fw/login's password change sets `resetPwdTime` and `updatedAt`). Their pages by
 * number keep the plain OFFSET: an anchor would place them by rows before the writes.
 */
export const WRITTEN_ELSEWHERE: ReadonlySet<string> = new Set(['fw_login_log', 'fw_user']);

/** Most characters (as JSON) the key values of one set of anchors may take. */
export const MAX_ANCHOR_CHARS = 256 * 1024;

/**
 * The key values of the rows an anchor read returned (`keyOf` gives a row's, or undefined when
 * one cannot be bound); undefined when one cannot, or when together they take more than
 * `maxChars` (long texts in the sort: a set that large is not worth its memory).
 */
export function anchorKeys(rows: ReadonlyArray<Record<string, unknown>>, keyOf: (row: Record<string, unknown>) => unknown[] | undefined, maxChars = MAX_ANCHOR_CHARS): unknown[][] | undefined {
  const keys: unknown[][] = [];
  let chars = 0;
  for (const row of rows) {
    const key = keyOf(row);
    if (!key) return undefined;
    chars += JSON.stringify(key).length;
    if (chars > maxChars) return undefined;
    keys.push(key);
  }
  return keys;
}

/** Where a page by number starts: after the row whose key is `values`, skipping `skip` rows more. */
export interface Anchor {
  values: unknown[];
  skip: number;
}

interface AnchorSet {
  step: number;
  /** The key values of rows step, 2 × step, … (1-based positions) in the page's order. */
  values: unknown[][];
  generation: number;
  at: number;
}

/**
 * Reads the key values of every `step`-th matching row in order; undefined when it could not
 * (out of time, a key that cannot be bound).
 */
export type AnchorRead = (step: number) => Promise<unknown[][] | undefined>;

/** The anchors of one data service's table pages. */
export class PageAnchors {
  readonly #now: () => number;
  readonly #sets = new Map<string, AnchorSet>();
  // When each key's anchors were last asked to be read, and how long that read took.
  readonly #asked = new Map<string, { at: number; took: number }>();
  #running: Promise<void> | undefined;
  // Reading time at hand, in milliseconds: a tenth of the time that passes accrues (at most
  // READ_BURST_MS), each read spends what it took, and none starts while it is spent. Requests under
  // ever new keys (a condition varied on each) so keep the database reading anchors a tenth of
  // the time at most, beyond a first burst.
  #budget = READ_BURST_MS;
  #budgetAt: number;
  /** Pages placed by an anchor so far (for tests and metrics). */
  placed = 0;

  constructor(now: () => number = Date.now) {
    this.#now = now;
    this.#budgetAt = now();
  }

  /**
   * Where the page at `offset` starts, when anchors of `key` read at write generation
   * `generation` are at hand and still hold; undefined otherwise (the caller skips by OFFSET).
   */
  locate(key: string, offset: number, generation: number): Anchor | undefined {
    if (offset < MIN_ANCHOR_STEP) return undefined;
    const set = this.#sets.get(key);
    if (!set) return undefined;
    if (set.generation !== generation || this.#now() - set.at > ANCHOR_TTL_MS) {
      this.#sets.delete(key);
      return undefined;
    }
    // Anchor k (1-based) is the row at 0-based position k × step − 1: the rows after it start at k × step.
    const k = Math.min(Math.floor(offset / set.step), set.values.length);
    if (k === 0) return undefined;
    this.placed++;
    return { values: set.values[k - 1]!, skip: offset - k * set.step };
  }

  /**
   * Asks for the anchors of `key` to be read in the background, when a page at `offset` of about
   * `rows` matching rows would use them and none are at hand, being read or read too recently.
   * `generation` is the model's write generation now; `current` tells it when the read ends.
   */
  want(key: string, offset: number, rows: number, generation: number, current: () => number, read: AnchorRead): void {
    if (offset < MIN_ANCHOR_STEP || rows < MIN_ANCHOR_STEP || rows > ANCHOR_MAX_ROWS || this.#running) return;
    const now = this.#now();
    this.#budget = Math.min(READ_BURST_MS, this.#budget + (now - this.#budgetAt) / REBUILD_FACTOR);
    this.#budgetAt = now;
    if (this.#budget <= 0) return;
    const asked = this.#asked.get(key);
    if (asked !== undefined && now - asked.at < Math.max(REBUILD_MS, REBUILD_FACTOR * asked.took)) return;
    if (this.#asked.size >= MAX_SETS * 4) this.#asked.clear();
    const record = { at: now, took: 0 };
    this.#asked.set(key, record);
    const step = Math.max(MIN_ANCHOR_STEP, Math.ceil(rows / MAX_ANCHORS));
    // Off the request path: the page that asked is answered by OFFSET.
    this.#running = new Promise<void>((resolve) => setImmediate(resolve))
      .then(() => read(step))
      .then((values) => {
        // Read across a write of the model: whether the write is in it is unknown, so it is not kept.
        if (!values || current() !== generation) return;
        if (!this.#sets.has(key) && this.#sets.size >= MAX_SETS) this.#sets.clear();
        this.#sets.set(key, { step, values, generation, at: now });
      })
      // A read that fails (a closed store, a database without window functions) leaves pages to
      // OFFSET; it is no request's error, so nothing is reported.
      .catch(() => undefined)
      .finally(() => {
        // Failed or not: it took the database's time.
        record.took = this.#now() - now;
        this.#budget -= record.took;
        this.#running = undefined;
      });
  }

  /** Resolves once the anchors being read now are in (for tests, and before closing a store). */
  async settled(): Promise<void> {
    while (this.#running) await this.#running;
  }
}
