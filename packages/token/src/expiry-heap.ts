/** One write of a key, as the heap orders it. */
export interface ExpiryHeapEntry {
  key: string;
  expiresAt: number;
  /** Increases on every write; tells the current write of a key from a stale one. */
  version: number;
}

function before(a: ExpiryHeapEntry, b: ExpiryHeapEntry): boolean {
  return a.expiresAt < b.expiresAt || (a.expiresAt === b.expiresAt && a.version < b.version);
}

/**
 * A min-heap on expiry (the oldest write first on a tie) with lazy deletion: an overwrite or a
 * delete leaves the old entry in place, and `peek` drops it when it surfaces, so every write
 * stays O(log n). The owner says which entries are current and calls `rebuild` once stale ones
 * pile up.
 */
export class ExpiryHeap {
  private items: ExpiryHeapEntry[] = [];

  /** Entries held, stale ones included. */
  get length(): number {
    return this.items.length;
  }

  push(entry: ExpiryHeapEntry): void {
    const items = this.items;
    items.push(entry);
    let i = items.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!before(items[i]!, items[parent]!)) break;
      [items[i], items[parent]] = [items[parent]!, items[i]!];
      i = parent;
    }
  }

  /** The soonest-expiring entry for which `isCurrent` holds, dropping stale ones on the way. */
  peek(isCurrent: (entry: ExpiryHeapEntry) => boolean): ExpiryHeapEntry | undefined {
    for (;;) {
      const top = this.items[0];
      if (!top || isCurrent(top)) return top;
      this.pop();
    }
  }

  /** Removes the first entry. */
  pop(): void {
    const items = this.items;
    const last = items.pop();
    if (last && items.length > 0) {
      items[0] = last;
      this.siftDown(0);
    }
  }

  /** Replaces the content with `entries` (the current writes only), in O(n). */
  rebuild(entries: ExpiryHeapEntry[]): void {
    this.items = entries;
    for (let i = (entries.length >> 1) - 1; i >= 0; i--) this.siftDown(i);
  }

  private siftDown(start: number): void {
    const items = this.items;
    let i = start;
    for (;;) {
      const left = 2 * i + 1;
      const right = left + 1;
      let smallest = i;
      if (left < items.length && before(items[left]!, items[smallest]!)) smallest = left;
      if (right < items.length && before(items[right]!, items[smallest]!)) smallest = right;
      if (smallest === i) return;
      [items[i], items[smallest]] = [items[smallest]!, items[i]!];
      i = smallest;
    }
  }
}
