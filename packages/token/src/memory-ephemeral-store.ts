import { FwDefinitionError } from '@fw/core';
import { checkEphemeralKey, checkEphemeralValue, checkTtl, expiryOf, parseCount, readClock, type EphemeralStore } from './ephemeral-store.js';
import { ExpiryHeap, type ExpiryHeapEntry } from './expiry-heap.js';

/** Options of {@link MemoryEphemeralStore}. */
export interface MemoryEphemeralStoreOptions {
  /**
   * Most entries held at once. When a new key arrives at a full store, the entries that expire
   * soonest are dropped first (expired ones, then live ones, the oldest write first on a tie), so
   * memory stays bounded however many accounts and addresses an attacker tries.
   * @default 100_000
   */
  maxEntries?: number;
  /**
   * The clock, epoch milliseconds; inject one to move time in tests.
   * @default Date.now
   */
  now?: () => number;
}

interface Entry {
  value: string;
  expiresAt: number;
  version: number;
}

/**
 * Counters and short-lived values in the process's memory: for a single instance, tests and
 * development (behind a load balancer, each instance would count on its own). Bounded by
 * `maxEntries`. Every method does its work in one synchronous step, so increments and takes are
 * atomic without locks.
 *
 * @throws {FwDefinitionError} for a `maxEntries` that is not a positive whole number or a `now`
 * that is not a function.
 * @example
 * app.use(fwLogin({ store, tokens, ephemeral: new MemoryEphemeralStore({ maxEntries: 10_000 }) }));
 */
export class MemoryEphemeralStore implements EphemeralStore {
  /** Most entries held at once. */
  readonly maxEntries: number;
  private readonly now: () => number;
  private readonly entries = new Map<string, Entry>();
  private readonly heap = new ExpiryHeap();
  private version = 0;

  constructor(options: MemoryEphemeralStoreOptions = {}) {
    if (typeof options !== 'object' || options === null) throw new FwDefinitionError('MemoryEphemeralStore', 'options must be an object');
    const { maxEntries = 100_000, now = Date.now } = options;
    if (typeof maxEntries !== 'number' || !Number.isSafeInteger(maxEntries) || maxEntries < 1) {
      throw new FwDefinitionError('MemoryEphemeralStore.maxEntries', `must be a positive whole number, got ${String(maxEntries)}`);
    }
    if (typeof now !== 'function') throw new FwDefinitionError('MemoryEphemeralStore.now', 'must be a function returning epoch milliseconds');
    this.maxEntries = maxEntries;
    this.now = now;
  }

  /** Number of entries held, expired ones not yet removed included. */
  get size(): number {
    return this.entries.size;
  }

  async increment(key: string, ttlMs: number): Promise<number> {
    checkEphemeralKey(key);
    checkTtl(ttlMs);
    const now = readClock(this.now);
    const entry = this.live(key, now);
    if (!entry) {
      this.write(key, '1', expiryOf(now, ttlMs));
      return 1;
    }
    const count = parseCount(entry.value) + 1;
    // Same expiry, same version: the heap entry stays current.
    entry.value = String(count);
    return count;
  }

  async get(key: string): Promise<string | undefined> {
    checkEphemeralKey(key);
    return this.live(key, readClock(this.now))?.value;
  }

  async set(key: string, value: string, ttlMs: number): Promise<void> {
    checkEphemeralKey(key);
    checkEphemeralValue(value);
    checkTtl(ttlMs);
    this.write(key, value, expiryOf(readClock(this.now), ttlMs));
  }

  async take(key: string): Promise<string | undefined> {
    checkEphemeralKey(key);
    const entry = this.live(key, readClock(this.now));
    if (!entry) return undefined;
    this.entries.delete(key);
    return entry.value;
  }

  async delete(key: string): Promise<void> {
    checkEphemeralKey(key);
    this.entries.delete(key);
  }

  async ttl(key: string): Promise<number | undefined> {
    checkEphemeralKey(key);
    const now = readClock(this.now);
    const entry = this.live(key, now);
    return entry ? entry.expiresAt - now : undefined;
  }

  async purgeExpired(): Promise<number> {
    const now = readClock(this.now);
    let count = 0;
    for (;;) {
      const top = this.heap.peek(this.isCurrent);
      if (!top || top.expiresAt > now) return count;
      this.entries.delete(top.key);
      count++;
    }
  }

  /** The entry under `key` unless it is missing or expired at `now` (an expired one is removed). */
  private live(key: string, now: number): Entry | undefined {
    const entry = this.entries.get(key);
    if (entry && entry.expiresAt <= now) {
      this.entries.delete(key);
      return undefined;
    }
    return entry;
  }

  private write(key: string, value: string, expiresAt: number): void {
    if (!this.entries.has(key)) {
      while (this.entries.size >= this.maxEntries) {
        const soonest = this.heap.peek(this.isCurrent);
        if (!soonest) break;
        this.entries.delete(soonest.key);
      }
    }
    const version = ++this.version;
    this.entries.set(key, { value, expiresAt, version });
    this.heap.push({ key, expiresAt, version });
    // Overwrites and deletes leave stale heap entries behind; rebuilding once they outnumber the
    // live ones keeps the heap within twice the entry count at amortised O(1) per write.
    if (this.heap.length > 2 * this.entries.size + 1024) {
      this.heap.rebuild([...this.entries].map(([k, e]) => ({ key: k, expiresAt: e.expiresAt, version: e.version })));
    }
  }

  private readonly isCurrent = (entry: ExpiryHeapEntry): boolean => this.entries.get(entry.key)?.version === entry.version;
}
