// The model and viewers of bench/live.bench.ts: rows in ten buckets; viewer `lv-<k>` sees two of
// them through a row filter (beforeFetch), so the 50 viewers see 50 different-but-overlapping
// subsets; administrators see all.
import { defineModel, type Condition } from '@fw/core';

export const BUCKETS = 10;

/** The buckets viewer number `k` sees. */
export function bucketsOf(k: number): number[] {
  return [k % BUCKETS, (k + 1 + Math.floor(k / BUCKETS)) % BUCKETS];
}

export const LiveRow = defineModel({
  name: 'LiveRow',
  table: 'bench_live_row',
  fields: {
    bucket: { edit: { type: 'NUMBER', integer: true, notNull: true } },
    note: { rules: [{ type: 'length', max: 100 }] },
  },
  dataProxy: {
    beforeFetch: ({ user }): Condition[] => {
      if (user.isAdmin) return [];
      const k = /^lv-(\d+)$/.exec(user.account);
      return [{ field: 'bucket', op: 'in', value: k ? bucketsOf(Number(k[1])) : [] }];
    },
  },
});
