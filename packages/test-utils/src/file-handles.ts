import { readdirSync, readlinkSync } from 'node:fs';

/** How many descriptors this process holds open on `file` (Linux `/proc`): for tests that check a connection was closed. */
export function fileHandles(file: string): number {
  let n = 0;
  for (const fd of readdirSync('/proc/self/fd')) {
    try {
      if (readlinkSync(`/proc/self/fd/${fd}`) === file) n += 1;
    } catch {
      // closed while listing
    }
  }
  return n;
}
