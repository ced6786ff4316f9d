import { FwDefinitionError } from '@fw/core';
import {
  checkNow,
  checkPage,
  checkRecord,
  checkUserId,
  compareUserSummaries,
  isHashShape,
  type TokenRecord,
  type TokenStore,
  type TokenUserPage,
  type TokenUserSummary,
} from './store.js';

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
  // Kept beside the slots rather than in them: a slot is rewritten on every extension, and most
  // tokens are never listed, so the common path carries no extra field.
  private readonly seen = new Map<string, number>();
  // A min-heap on expiry (the older write first on a tie) with lazy deletion: a delete or an
  // extension leaves the old entry in place and it is skipped when it surfaces, so every write
  // stays O(log n). Held in three parallel arrays rather than one object per entry: numbers in a
  // plain array are stored unboxed, 8 bytes each, where an entry object and its boxed expiry
  // took about 64 bytes per token.
  private heapExpiry: number[] = [];
  private heapVersion: number[] = [];
  private heapHash: string[] = [];
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

  async listByUser(userId: number, now: number): Promise<TokenRecord[]> {
    checkUserId(userId);
    checkNow(now);
    const out: TokenRecord[] = [];
    for (const hash of this.byUser.get(userId) ?? []) {
      const slot = this.records.get(hash);
      if (!slot || slot.expiresAt <= now) continue;
      const record = recordOf(slot);
      const seen = this.seen.get(hash);
      if (seen !== undefined) record.lastSeenAt = seen;
      out.push(record);
    }
    return out.sort((a, b) => b.createdAt - a.createdAt || (a.hash < b.hash ? -1 : 1));
  }

  async touch(hash: string, at: number): Promise<void> {
    checkNow(at);
    const slot = isHashShape(hash) ? this.records.get(hash) : undefined;
    if (!slot || slot.expiresAt <= at) return;
    if ((this.seen.get(hash) ?? -1) < at) this.seen.set(hash, at);
  }

  async listUsers(now: number, page: { offset: number; limit: number }): Promise<TokenUserPage> {
    checkNow(now);
    checkPage(page);
    const users: TokenUserSummary[] = [];
    for (const [userId, hashes] of this.byUser) {
      let sessions = 0;
      let lastSeenAt = 0;
      let expiresAt = 0;
      for (const hash of hashes) {
        const slot = this.records.get(hash);
        if (!slot || slot.expiresAt <= now) continue;
        sessions++;
        lastSeenAt = Math.max(lastSeenAt, this.seen.get(hash) ?? slot.createdAt);
        expiresAt = Math.max(expiresAt, slot.expiresAt);
      }
      if (sessions > 0) users.push({ userId, sessions, lastSeenAt, expiresAt });
    }
    users.sort(compareUserSummaries);
    return { total: users.length, users: users.slice(page.offset, page.offset + page.limit) };
  }

  async purgeExpired(now: number): Promise<number> {
    checkNow(now);
    let count = 0;
    while (this.peekCurrent() && this.heapExpiry[0]! <= now) {
      this.remove(this.heapHash[0]!);
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
    this.push(expiresAt, version, hash);
    // Stale entries pile up under extensions and deletes; rebuilding once they outnumber the
    // live ones keeps the heap within twice the record count at amortised O(1) per write.
    if (this.heapHash.length > 2 * this.records.size + 1024) this.rebuildHeap();
  }

  private remove(hash: string): boolean {
    const slot = this.records.get(hash);
    if (!slot) return false;
    this.records.delete(hash);
    this.seen.delete(hash);
    const hashes = this.byUser.get(slot.userId);
    if (hashes) {
      hashes.delete(hash);
      if (hashes.size === 0) this.byUser.delete(slot.userId);
    }
    return true;
  }

  private evictSoonest(): void {
    if (this.peekCurrent()) this.remove(this.heapHash[0]!);
  }

  /** Whether the heap's first entry describes a stored record, dropping stale ones on the way. */
  private peekCurrent(): boolean {
    while (this.heapHash.length > 0) {
      if (this.records.get(this.heapHash[0]!)?.version === this.heapVersion[0]) return true;
      this.pop();
    }
    return false;
  }

  private rebuildHeap(): void {
    const expiry: number[] = [];
    const version: number[] = [];
    const hash: string[] = [];
    for (const slot of this.records.values()) {
      expiry.push(slot.expiresAt);
      version.push(slot.version);
      hash.push(slot.hash);
    }
    this.heapExpiry = expiry;
    this.heapVersion = version;
    this.heapHash = hash;
    for (let i = (hash.length >> 1) - 1; i >= 0; i--) this.siftDown(i);
  }

  /** Entry `i` comes before entry `j`: it expires sooner, or at the same time from an older write. */
  private before(i: number, j: number): boolean {
    const a = this.heapExpiry[i]!;
    const b = this.heapExpiry[j]!;
    return a < b || (a === b && this.heapVersion[i]! < this.heapVersion[j]!);
  }

  private swap(i: number, j: number): void {
    const e = this.heapExpiry;
    const v = this.heapVersion;
    const h = this.heapHash;
    [e[i], e[j]] = [e[j]!, e[i]!];
    [v[i], v[j]] = [v[j]!, v[i]!];
    [h[i], h[j]] = [h[j]!, h[i]!];
  }

  private push(expiresAt: number, version: number, hash: string): void {
    this.heapExpiry.push(expiresAt);
    this.heapVersion.push(version);
    this.heapHash.push(hash);
    let i = this.heapHash.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.before(i, parent)) break;
      this.swap(i, parent);
      i = parent;
    }
  }

  /** Removes the first entry. */
  private pop(): void {
    const expiry = this.heapExpiry.pop()!;
    const version = this.heapVersion.pop()!;
    const hash = this.heapHash.pop()!;
    if (this.heapHash.length > 0) {
      this.heapExpiry[0] = expiry;
      this.heapVersion[0] = version;
      this.heapHash[0] = hash;
      this.siftDown(0);
    }
  }

  private siftDown(start: number): void {
    const length = this.heapHash.length;
    let i = start;
    for (;;) {
      const left = 2 * i + 1;
      const right = left + 1;
      let smallest = i;
      if (left < length && this.before(left, smallest)) smallest = left;
      if (right < length && this.before(right, smallest)) smallest = right;
      if (smallest === i) return;
      this.swap(i, smallest);
      i = smallest;
    }
  }
}
