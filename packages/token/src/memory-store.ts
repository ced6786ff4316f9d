import { FwDefinitionError } from '@fw/core';
import { checkNow, checkRecord, checkUserId, isHashShape, type TokenRecord, type TokenStore } from './store.js';

/** Options of {@link MemoryTokenStore}. */
export interface MemoryTokenStoreOptions {
  /**
   * Most records held at once. When a new token arrives at a full store, the records that
   * expire soonest are dropped first (expired ones, then live ones, oldest first on a tie), so
   * memory stays bounded whatever the login rate.
   * @default 100_000
   */
  maxEntries?: number;
}

/**
 * A stored record and its write version in one object (one allocation per token instead of a
 * record wrapped in a slot: this is most of the store's heap).
 */
interface Slot {
  readonly hash: string;
  readonly userId: number;
  readonly expiresAt: number;
  readonly createdAt: number;
  readonly admin: boolean;
  /** Increases on every write of this hash; tells a current heap entry from a stale one. */
  readonly version: number;
}

/** The record a slot holds, as a fresh object (`admin` only when true). */
function recordOf(slot: Slot): TokenRecord {
  const record: TokenRecord = { hash: slot.hash, userId: slot.userId, expiresAt: slot.expiresAt, createdAt: slot.createdAt };
  if (slot.admin) record.admin = true;
  return record;
}

interface HeapEntry {
  expiresAt: number;
  version: number;
  hash: string;
}

function before(a: HeapEntry, b: HeapEntry): boolean {
  return a.expiresAt < b.expiresAt || (a.expiresAt === b.expiresAt && a.version < b.version);
}

/**
 * Tokens in the process's memory: for a single instance, tests and development. Records are
 * bounded by `maxEntries` and expire at their `expiresAt`; a per-user index makes revoking all
 * of a user's tokens proportional to their count.
 *
 * @throws {FwDefinitionError} for a `maxEntries` that is not a positive whole number.
 * @example
 * const service = createTokenService({ store: new MemoryTokenStore({ maxEntries: 10_000 }) });
 */
export class MemoryTokenStore implements TokenStore {
  /** Most records held at once. */
  readonly maxEntries: number;
  private readonly records = new Map<string, Slot>();
  private readonly byUser = new Map<number, Set<string>>();
  // A min-heap on expiry with lazy deletion: a delete or an extension leaves the old entry in
  // place and it is skipped when it surfaces, so every write stays O(log n).
  private heap: HeapEntry[] = [];
  private version = 0;

  constructor(options: MemoryTokenStoreOptions = {}) {
    if (typeof options !== 'object' || options === null) throw new FwDefinitionError('MemoryTokenStore', 'options must be an object');
    const maxEntries = options.maxEntries ?? 100_000;
    if (typeof maxEntries !== 'number' || !Number.isSafeInteger(maxEntries) || maxEntries < 1) {
      throw new FwDefinitionError('MemoryTokenStore.maxEntries', `must be a positive whole number, got ${String(maxEntries)}`);
    }
    this.maxEntries = maxEntries;
  }

  /** Number of records held, expired ones not yet removed included. */
  get size(): number {
    return this.records.size;
  }

  async save(record: TokenRecord, now: number): Promise<boolean> {
    checkRecord(record, now);
    const existing = this.records.get(record.hash);
    if (existing) {
      if (existing.expiresAt > now) return false;
      this.remove(record.hash);
    }
    while (this.records.size >= this.maxEntries) this.evictSoonest();
    this.write(record.hash, record.userId, record.expiresAt, record.createdAt, record.admin === true);
    return true;
  }

  async find(hash: string, now: number): Promise<TokenRecord | undefined> {
    checkNow(now);
    const slot = isHashShape(hash) ? this.records.get(hash) : undefined;
    if (!slot) return undefined;
    if (slot.expiresAt <= now) {
      this.remove(hash);
      return undefined;
    }
    return recordOf(slot);
  }

  async delete(hash: string): Promise<boolean> {
    return this.remove(hash);
  }

  async deleteByUser(userId: number, keepHash?: string): Promise<number> {
    checkUserId(userId);
    const hashes = this.byUser.get(userId);
    if (!hashes) return 0;
    let count = 0;
    for (const hash of [...hashes]) if (hash !== keepHash && this.remove(hash)) count++;
    return count;
  }

  async extend(hash: string, expiresAt: number, now: number): Promise<boolean> {
    checkNow(now);
    if (!Number.isSafeInteger(expiresAt)) throw new TypeError('expiresAt must be a whole number of epoch milliseconds');
    const slot = isHashShape(hash) ? this.records.get(hash) : undefined;
    if (!slot || slot.expiresAt <= now) return false;
    if (expiresAt > slot.expiresAt) this.write(slot.hash, slot.userId, expiresAt, slot.createdAt, slot.admin);
    return true;
  }

  async purgeExpired(now: number): Promise<number> {
    checkNow(now);
    let count = 0;
    for (;;) {
      const top = this.peekCurrent();
      if (!top || top.expiresAt > now) break;
      this.remove(top.hash);
      count++;
    }
    return count;
  }

  private write(hash: string, userId: number, expiresAt: number, createdAt: number, admin: boolean): void {
    const version = ++this.version;
    this.records.set(hash, { hash, userId, expiresAt, createdAt, admin, version });
    let hashes = this.byUser.get(userId);
    if (!hashes) this.byUser.set(userId, (hashes = new Set()));
    hashes.add(hash);
    this.push({ expiresAt, version, hash });
    // Stale entries pile up under extensions and deletes; rebuilding once they outnumber the
    // live ones keeps the heap within twice the record count at amortised O(1) per write.
    if (this.heap.length > 2 * this.records.size + 1024) this.rebuildHeap();
  }

  private remove(hash: string): boolean {
    const slot = this.records.get(hash);
    if (!slot) return false;
    this.records.delete(hash);
    const hashes = this.byUser.get(slot.userId);
    if (hashes) {
      hashes.delete(hash);
      if (hashes.size === 0) this.byUser.delete(slot.userId);
    }
    return true;
  }

  private evictSoonest(): void {
    const top = this.peekCurrent();
    if (top) this.remove(top.hash);
  }

  /** The heap's first entry that still describes a stored record, dropping stale ones on the way. */
  private peekCurrent(): HeapEntry | undefined {
    for (;;) {
      const top = this.heap[0];
      if (!top) return undefined;
      if (this.records.get(top.hash)?.version === top.version) return top;
      this.pop();
    }
  }

  private rebuildHeap(): void {
    this.heap = [...this.records.entries()].map(([hash, slot]) => ({ expiresAt: slot.expiresAt, version: slot.version, hash }));
    for (let i = (this.heap.length >> 1) - 1; i >= 0; i--) this.siftDown(i);
  }

  private push(entry: HeapEntry): void {
    const heap = this.heap;
    heap.push(entry);
    let i = heap.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!before(heap[i]!, heap[parent]!)) break;
      [heap[i], heap[parent]] = [heap[parent]!, heap[i]!];
      i = parent;
    }
  }

  private pop(): void {
    const heap = this.heap;
    const last = heap.pop();
    if (last && heap.length > 0) {
      heap[0] = last;
      this.siftDown(0);
    }
  }

  private siftDown(start: number): void {
    const heap = this.heap;
    let i = start;
    for (;;) {
      const left = 2 * i + 1;
      const right = left + 1;
      let smallest = i;
      if (left < heap.length && before(heap[left]!, heap[smallest]!)) smallest = left;
      if (right < heap.length && before(heap[right]!, heap[smallest]!)) smallest = right;
      if (smallest === i) return;
      [heap[i], heap[smallest]] = [heap[smallest]!, heap[i]!];
      i = smallest;
    }
  }
}
