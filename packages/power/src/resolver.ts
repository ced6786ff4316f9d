import { FwDefinitionError, type PowerFlag, type PowerFlags, type PowerObject } from '@fw/core';
import { applyPowerHandler, applyPowerHandlerNow, grantedPower, type PowerModel, type PowerUser } from './engine.js';

/** Options of {@link PowerResolver}. */
export interface PowerResolverOptions {
  /**
   * Most cached entries, one per (model definition, user id) pair, holding the latest admin flag
   * and grants version seen. When the cache is full, the least recently used entries (5% of this
   * number, at least one) are dropped to make room. An entry is a small frozen object of eleven
   * booleans; it also keeps its model definition alive until it is dropped or `clear()` runs.
   * @default 10_000
   */
  maxEntries?: number;
}

/**
 * A user's menu grants with the version that identifies them. The version must change whenever
 * the codes could (a role gains or loses a menu, a user's roles change, a menu is disabled or
 * deleted); the store bumps it, the resolver only keys on it. A version may be global or per
 * user; equal versions must mean equal codes for a given user.
 */
export interface VersionedGrants {
  /** Codes of the user's granted menus, disabled menus left out. */
  readonly codes: ReadonlySet<string>;
  /** Changes whenever `codes` may have changed. */
  readonly version: string | number;
}

interface Entry {
  readonly admin: boolean;
  readonly version: string | number;
  readonly power: Readonly<PowerFlags>;
  /** Value of the resolver's clock at the last use: the LRU order. */
  used: number;
}

/** Share of the capacity dropped at once when the cache is full (at least one entry). */
const EVICT_SHARE = 0.05;

/**
 * Resolves effective power with a bounded LRU cache of the part that depends only on the
 * definition and the grants ({@link grantedPower}), keyed by model definition, user id, admin
 * flag and grants version. The model's `powerHandler` is NOT cached: it runs on a fresh copy on
 * every call, because handlers may depend on the time of day, on data, or on anything else that
 * the grants version does not capture.
 *
 * A role or menu change reaches live tokens on the next request because the caller passes the
 * new grants version, which misses the cache and replaces the user's entry for that model.
 *
 * @example
 * const resolver = new PowerResolver();
 * const power = await resolver.resolve(Book, user, { codes, version: grantsVersion });
 */
export class PowerResolver {
  readonly #maxEntries: number;
  // user id → model definition → the entry of the latest (admin flag, grants version) seen. One
  // entry per (user, model) is enough: an older version is never asked for again, and a miss only
  // costs one grantedPower. Keys are numbers and objects, so no key string is built per check.
  readonly #cache = new Map<number, Map<PowerModel, Entry>>();
  // The last user's map: a request asks about one user many times, so most checks skip a lookup.
  #lastId = Number.NaN; // no id is equal to NaN: nothing memoised
  #lastModels: Map<PowerModel, Entry> | undefined;
  #size = 0;
  #clock = 0;

  /** @throws {FwDefinitionError} when `maxEntries` is not a positive integer. */
  constructor(options: PowerResolverOptions = {}) {
    const maxEntries = options.maxEntries ?? 10_000;
    if (typeof maxEntries !== 'number' || !Number.isInteger(maxEntries) || maxEntries < 1) {
      throw new FwDefinitionError('maxEntries', `must be a positive integer, got ${String(maxEntries)}`);
    }
    this.#maxEntries = maxEntries;
  }

  /** Number of cached entries. */
  get size(): number {
    return this.#size;
  }

  /** Drops every cached entry (the next resolve of each key recomputes it). */
  clear(): void {
    this.#cache.clear();
    this.#size = 0;
    this.#lastId = Number.NaN;
    this.#lastModels = undefined;
  }

  /**
   * The effective power of `user` on `model`, as {@link resolvePower} computes it: the grant part
   * comes from the cache when (user id, admin flag, `grants.version`, model) was seen before, then
   * the handler runs on a copy. The caller owns the returned object.
   *
   * @throws whatever the model's handler throws.
   */
  resolve(model: PowerModel, user: PowerUser, grants: VersionedGrants): Promise<PowerObject> {
    // Not an async method (one promise less per call on the hot path), so failures are turned
    // into a rejection by hand.
    try {
      return applyPowerHandler(model, user, this.#granted(model, user, grants));
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /**
   * One flag of the effective power, as `(await resolve(...))[flag]` gives it, without a promise
   * where none is needed: a `boolean` at once when the model has no handler or its handler
   * returned without a promise, a `Promise<boolean>` only when the handler returned one. The
   * grant part comes from the same cache as {@link resolve}; the handler still runs on every
   * call, on a fresh copy. `await` the result when the model may have an async handler.
   *
   * @throws whatever the handler throws synchronously (a rejected promise when it rejects).
   * @example
   * const edit = resolver.check(Book, user, { codes, version }, 'edit');
   * if (!(edit === true || (edit !== false && (await edit)))) throw new FwError('POWER_DENIED');
   */
  check(model: PowerModel, user: PowerUser, grants: VersionedGrants, flag: PowerFlag): boolean | Promise<boolean> {
    const granted = this.#granted(model, user, grants);
    // No handler: the cached flags are the effective power (grantedPower applied the switches).
    if (model.powerHandler === undefined) return granted[flag];
    const power = applyPowerHandlerNow(model, user, granted);
    return power instanceof Promise ? power.then((p) => p[flag]) : power[flag];
  }

  /**
   * {@link resolve} without a promise where none is needed: the effective power at once when the
   * model has no handler or its handler returned without a promise, else a promise of it.
   *
   * @throws whatever the handler throws synchronously (a rejected promise when it rejects).
   */
  resolveNow(model: PowerModel, user: PowerUser, grants: VersionedGrants): PowerObject | Promise<PowerObject> {
    return applyPowerHandlerNow(model, user, this.#granted(model, user, grants));
  }

  #granted(model: PowerModel, user: PowerUser, grants: VersionedGrants): Readonly<PowerFlags> {
    const admin = user.isAdmin === true;
    const version = grants.version;
    const id = user.id;
    const byModel = id === this.#lastId ? this.#lastModels : this.#cache.get(id);
    const hit = byModel?.get(model);
    if (hit !== undefined && hit.admin === admin && hit.version === version) {
      hit.used = ++this.#clock;
      if (id !== this.#lastId) {
        this.#lastId = id;
        this.#lastModels = byModel;
      }
      return hit.power;
    }
    // Kept out of this method so the hit path stays small enough to be inlined into callers.
    return this.#miss(model, user, grants, byModel, hit);
  }

  #miss(model: PowerModel, user: PowerUser, grants: VersionedGrants, byModel: Map<PowerModel, Entry> | undefined, hit: Entry | undefined): Readonly<PowerFlags> {
    const admin = user.isAdmin === true;
    const version = grants.version;
    const id = user.id;
    const power = Object.freeze(grantedPower(model, user, grants.codes));
    if (hit === undefined) {
      if (this.#size >= this.#maxEntries) {
        this.#evict();
        byModel = this.#cache.get(id);
      }
      if (byModel === undefined) {
        byModel = new Map();
        this.#cache.set(id, byModel);
      }
      this.#size += 1;
    }
    // A hit with a stale version came from this map, so it is defined here too.
    byModel!.set(model, { admin, version, power, used: ++this.#clock });
    this.#lastId = id;
    this.#lastModels = byModel;
    return power;
  }

  /** Drops the least recently used entries: 5% of the capacity (at least one) in one pass. */
  #evict(): void {
    const count = Math.max(1, Math.ceil(this.#maxEntries * EVICT_SHARE));
    const stamps = new Float64Array(this.#size);
    let i = 0;
    for (const byModel of this.#cache.values()) for (const entry of byModel.values()) stamps[i++] = entry.used;
    stamps.sort();
    // Stamps are unique, so exactly `count` entries are at or below the threshold.
    const threshold = stamps[count - 1] ?? Number.POSITIVE_INFINITY;
    for (const [id, byModel] of this.#cache) {
      for (const [model, entry] of byModel) {
        if (entry.used <= threshold) {
          byModel.delete(model);
          this.#size -= 1;
        }
      }
      if (byModel.size === 0) this.#cache.delete(id);
    }
    // The memo may point at a map just dropped from the cache.
    this.#lastId = Number.NaN;
    this.#lastModels = undefined;
  }
}
