// The total of a table page, without counting the whole table on every request (issue 21 §1).
//
// A page asks for one of three count strategies (`count` in the request body):
// - `auto` (the default): the page's own bounded count reads at most `exactCountLimit + 1`
//   matching rows. At most the limit, and that is the exact total. Beyond it the total is an
//   estimate: a cached exact count of the same model and conditions (counted in the background,
//   kept current by Fw's own inserts and deletes), else the database's statistics, and never less
//   than the rows the bounded count and the page have already seen.
// - `exact`: the bounded count first, then a full count held to `countTimeLimitMs`; out of time,
//   the estimate as above.
// - `none`: no counting query; the cheapest estimate (a cached count, statistics, the rows seen).
// Whatever is not proven exact is answered with `totalIsEstimate: true`; a cached count is never
// passed off as exact, since writes outside Fw (other programs, raw SQL) do not reach it.
import { createHash } from 'node:crypto';
import { isConditionGroup, type ConditionNode, type ModelDefinition } from '@fw/core';
import { exactCount, statisticsEstimate, type CountSource } from './count-sources.js';
import type { CountMode, QueryLimits } from './query.js';

/**
 * A key for a list of conditions (values in stored form) under which cached counts, shared exact
 * counts and page anchors are kept. Plain JSON is not enough: a Date prints as its ISO text, and
 * NaN, ±Infinity and null all print as null, yet each binds differently (a Date on a text column
 * is written the driver's way; `= NULL` is `IS NULL`). Two users whose row visibility differs only
 * so must not share a key, so every value carries its type. A SHA-256 of that, a few dozen characters.
 */
export function conditionsKey(conditions: readonly ConditionNode[]): string {
  const typed = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(typed);
    if (v === null || v === undefined) return v;
    if (v instanceof Date) return `d:${v.getTime()}`;
    if (typeof v === 'number') return `n:${Object.is(v, -0) ? '-0' : String(v)}`;
    if (typeof v === 'string') return `s:${v}`;
    if (typeof v === 'object') return `o:${JSON.stringify(v)}`;
    return `${typeof v}:${String(v)}`;
  };
  // Hashed: a request's conditions may take most of a 1 MB body, and hundreds of keys are kept
  // (cached counts, page anchors and the reads asked for them).
  // Groups keep their place: `a or b` and `a and b` hold the same conditions yet other rows.
  const typedTree = (nodes: readonly ConditionNode[]): unknown[] =>
    nodes.map((c) => (isConditionGroup(c) ? (c.or ? { or: typedTree(c.or) } : { and: typedTree(c.and ?? []) }) : { ...c, value: typed(c.value) }));
  return createHash('sha256').update(JSON.stringify(typedTree(conditions))).digest('base64url');
}



/**
 * A cached count is used as it stands for this long, then counted again in the background; a
 * count that took long is counted again later still (FRESH_FACTOR times what it took, so a table
 * whose count takes a second is counted every five minutes, not every minute).
 */
const FRESH_MS = 60_000;
const FRESH_FACTOR = 300;
/** …and served as an estimate, while it is counted again, for at most this long. */
const KEEP_MS = 15 * 60_000;
/**
 * A count made dirty by writes is counted again at most this often, and no sooner than
 * RECOUNT_FACTOR times what it took: a busy table is not counted without pause.
 */
const RECOUNT_MS = 5000;
const RECOUNT_FACTOR = 30;
/** Most cached counts (model and conditions), and most counts running in the background at once. */
const MAX_CACHED = 1000;
const MAX_BACKGROUND = 2;
/**
 * Most full counts that `count: 'exact'` requests run at once (per data service). A request past
 * it shares a running count of the same model and conditions, or is answered with the estimate:
 * a user who asks for exact counts in a loop holds at most this many of the database's workers.
 */
const MAX_EXACT = 2;
/**
 * Time a background count may take (at least; `countTimeLimitMs` when longer). It runs off the
 * request path (on SQLite on a worker thread) and only ever serves as an estimate, so a large table gets
 * its count rather than failing the request's limit again every minute.
 */
const BACKGROUND_MS = 30_000;


/** What a page knows when it asks for its total. */
export interface PageCount {
  model: ModelDefinition;
  mode: CountMode;
  /** Every condition of the page (visibility included), values in stored form (`storedConditions`). */
  conditions: readonly ConditionNode[];
  /** The answer of the page's bounded count (at most `exactCountLimit + 1`); undefined when it did not run (`none`). */
  bounded: number | undefined;
  /** Rows before the page, when known (an offset page); undefined for a page read by cursor. */
  offset: number | undefined;
  /** Rows the page query returned (before `afterFetch`). */
  rows: number;
  /** The page size asked for. */
  size: number;
  /** {@link conditionsKey} of `conditions`, when the caller has it already (worked out otherwise). */
  key?: string;
}

/** A page's total and whether it is an estimate. */
export interface CountAnswer {
  total: number;
  totalIsEstimate: boolean;
}

interface CachedCount {
  /** The count as counted. */
  count: number;
  /** Rows Fw added (+) and deleted (−) since, for a count without conditions. */
  delta: number;
  at: number;
  /** How long counting it took, in milliseconds (0 when not known). */
  took: number;
  /** True when a write of the model may have changed it in ways `delta` does not follow. */
  dirty: boolean;
  filtered: boolean;
}

/**
 * Counts up to this are close enough to the exact-count limit that writes from outside Fw could
 * have brought the total under it: a page with such a cached count still runs its bounded count.
 */
function nearLimit(limit: number): number {
  return limit + Math.max(1, Math.ceil(limit / 10));
}

/** How long a cached count stands as it is before it is counted again (see FRESH_MS). */
function freshFor(entry: CachedCount): number {
  return Math.min(Math.max(FRESH_MS, FRESH_FACTOR * entry.took), KEEP_MS / 2);
}

// The write generations of each store (by its knex instance), model by model. A host may run more
// than one data service on a store (fwData's, and an MCP server given a DataService of its own):
// a write through either must drop the page anchors of both (page-anchors.ts).
const GENERATIONS = new WeakMap<object, Map<string, number>>();

function generationsOf(knex: unknown): Map<string, number> {
  if ((typeof knex !== 'object' && typeof knex !== 'function') || knex === null) return new Map();
  let generations = GENERATIONS.get(knex);
  if (!generations) GENERATIONS.set(knex, (generations = new Map()));
  return generations;
}

/** Picks and computes the totals of table pages; keeps the cached counts. One per data service. */
export class Counts {
  readonly #source: CountSource;
  readonly #limits: QueryLimits;
  readonly #now: () => number;
  // Cached counts by model name, then by conditions.
  readonly #cache = new Map<string, Map<string, CachedCount>>();
  #cached = 0;
  // Bumped by every Fw write of a model: a count that spans a write is not trusted to be current.
  // Shared by every data service of the same store (see generationsOf).
  readonly #generation: Map<string, number>;
  readonly #running = new Map<string, Promise<void>>();
  // Full counts of `count: 'exact'` requests running now, by key, with the write generation they started at.
  readonly #exact = new Map<string, { generation: number; count: Promise<number | undefined> }>();
  // When a background count last ran out of time or failed, by key: not tried again at once.
  readonly #failed = new Map<string, number>();

  constructor(source: CountSource, limits: QueryLimits, now: () => number = Date.now) {
    this.#source = source;
    this.#limits = limits;
    this.#now = now;
    this.#generation = generationsOf(source.knex);
  }

  /**
   * Whether a page needs its bounded count: not for `none`, and not for `auto` while a fresh
   * cached count of the same conditions stands above the limit by more than a tenth — the bounded count would
   * only confirm "more than the limit" and the answer is that cached estimate anyway. A page
   * with room to spare still proves a small total exact (see {@link total}).
   */
  needsBounded(model: ModelDefinition, mode: CountMode, conditions: readonly ConditionNode[], key?: string): boolean {
    if (mode === 'none') return false;
    if (mode === 'exact') return true;
    const entry = this.#cache.get(model.name)?.get(key ?? conditionsKey(conditions));
    return !entry || entry.dirty || this.#now() - entry.at > freshFor(entry) || entry.count + entry.delta <= nearLimit(this.#limits.exactCountLimit);
  }

  /** The total of a page, following its count strategy (see the top of this file). */
  async total(page: PageCount): Promise<CountAnswer> {
    const limit = this.#limits.exactCountLimit;
    // Rows known to exist: the page's and those before it (an empty page past the end proves none).
    const seen = page.rows > 0 ? (page.offset ?? 0) + page.rows : 0;
    if (page.bounded !== undefined && page.bounded <= limit) return { total: page.bounded, totalIsEstimate: false };
    // A page with room to spare proves the total when its offset is known: no matching row follows it.
    if (page.offset !== undefined && page.rows < page.size && (page.rows > 0 || page.offset === 0)) return { total: (page.offset ?? 0) + page.rows, totalIsEstimate: false };
    const key = page.key ?? conditionsKey(page.conditions);
    if (page.mode === 'exact') {
      const generation = this.generationOf(page.model);
      const counted = await this.#exactCount(page, key, generation);
      if (counted !== undefined) {
        this.#store(page.model, key, page.conditions.length > 0, counted, generation);
        return { total: counted, totalIsEstimate: false };
      }
    } else if (page.mode === 'auto') {
      this.#refresh(page.model, key, page.conditions);
    }
    const estimate = this.#cachedEstimate(page.model, key) ?? (await statisticsEstimate(this.#source, page.model, page.conditions)) ?? 0;
    return { total: Math.max(estimate, seen, page.bounded ?? 0), totalIsEstimate: true };
  }

  /**
   * The full count of an `'exact'` request: a running one of the same model and conditions when
   * no Fw write of the model has committed since it started (it began a moment before this
   * request, over the rows Fw knows of), else a new one while fewer than MAX_EXACT run;
   * undefined past that limit.
   */
  #exactCount(page: PageCount, key: string, generation: number): Promise<number | undefined> {
    const id = `${page.model.name}\u0000${key}`;
    const running = this.#exact.get(id);
    if (running && running.generation === generation) return running.count;
    if (running || this.#exact.size >= MAX_EXACT) return Promise.resolve(undefined);
    const count = exactCount(this.#source, page.model, page.conditions, this.#limits.countTimeLimitMs).finally(() => this.#exact.delete(id));
    this.#exact.set(id, { generation, count });
    return count;
  }

  /** Resolves once the background counts running now have finished (for tests, and before closing a store). */
  async settled(): Promise<void> {
    while (this.#running.size > 0) await Promise.all(this.#running.values());
  }

  /** Fw committed `rows` new rows (positive) or deleted rows (negative) of `model`. */
  changed(model: ModelDefinition, rows: number): void {
    this.#bump(model);
    for (const entry of this.#cache.get(model.name)?.values() ?? []) {
      if (entry.filtered) entry.dirty = true;
      else entry.delta += rows;
    }
  }

  /** Fw committed an update of a row of `model`: counts with conditions may no longer hold. */
  updated(model: ModelDefinition): void {
    this.#bump(model);
    for (const entry of this.#cache.get(model.name)?.values() ?? []) if (entry.filtered) entry.dirty = true;
  }

  #bump(model: ModelDefinition): void {
    this.#generation.set(model.name, this.generationOf(model) + 1);
  }

  /** How many times Fw has committed a write of `model` through any data service of this store (from 0 when the first started). */
  generationOf(model: ModelDefinition): number {
    return this.#generation.get(model.name) ?? 0;
  }

  #cachedEstimate(model: ModelDefinition, key: string): number | undefined {
    const entry = this.#cache.get(model.name)?.get(key);
    if (!entry || this.#now() - entry.at > KEEP_MS) return undefined;
    return Math.max(0, entry.count + entry.delta);
  }

  #store(model: ModelDefinition, key: string, filtered: boolean, count: number, generation: number, took = 0): void {
    let entries = this.#cache.get(model.name);
    if (!entries?.has(key) && this.#cached >= MAX_CACHED) {
      this.#cache.clear();
      this.#cached = 0;
      entries = undefined;
    }
    if (!entries) this.#cache.set(model.name, (entries = new Map()));
    if (!entries.has(key)) this.#cached++;
    // Counted across a write of the model: whether the write is in the count is unknown, so the
    // entry is used (it is an estimate anyway) but counted again on the next chance.
    entries.set(key, { count, delta: 0, at: this.#now(), took, dirty: generation !== this.generationOf(model), filtered });
  }

  /** Counts `conditions` in the background when the cached count is missing, old or dirty: one count per key at a time. */
  #refresh(model: ModelDefinition, key: string, conditions: readonly ConditionNode[]): void {
    const now = this.#now();
    const entry = this.#cache.get(model.name)?.get(key);
    if (entry && now - entry.at < (entry.dirty ? Math.max(RECOUNT_MS, RECOUNT_FACTOR * entry.took) : freshFor(entry))) return;
    const id = `${model.name}\u0000${key}`;
    const failed = this.#failed.get(id);
    if (this.#running.has(id) || this.#running.size >= MAX_BACKGROUND || (failed !== undefined && now - failed < FRESH_MS)) return;
    const generation = this.generationOf(model);
    const fail = () => {
      if (this.#failed.size >= MAX_CACHED) this.#failed.clear();
      this.#failed.set(id, this.#now());
    };
    let started = now;
    // Off the request path: the request that asked answers with what is known now.
    const running = new Promise<void>((resolve) => setImmediate(resolve))
      .then(() => ((started = this.#now()), exactCount(this.#source, model, conditions, Math.max(this.#limits.countTimeLimitMs, BACKGROUND_MS))))
      .then((counted) => {
        if (counted === undefined) return fail();
        this.#failed.delete(id);
        this.#store(model, key, conditions.length > 0, counted, generation, this.#now() - started);
      })
      // A background count that fails (a closed store, a lock) leaves the estimates to the
      // statistics; it is no request's error, so nothing is reported.
      .catch(fail)
      .finally(() => this.#running.delete(id));
    this.#running.set(id, running);
  }
}
