/** Constants and the raw-storage walker shared by the token-store and ephemeral-store conformance suites. */

export const MINUTE = 60_000;
// A fixed, far-from-now start makes the service's clock visibly independent of the wall clock.
export const START = Date.UTC(2031, 0, 1);

/** Every string reachable from `value` (numbers and buffers as text), for raw-storage searches. */
export function collectStrings(value: unknown): string[] {
  const out: string[] = [];
  const seen = new Set<object>();
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const item = stack.pop();
    if (typeof item === 'string') out.push(item);
    else if (typeof item === 'number' || typeof item === 'bigint') out.push(String(item));
    else if (typeof item === 'object' && item !== null && !seen.has(item)) {
      seen.add(item);
      if (item instanceof Uint8Array) out.push(Buffer.from(item).toString('latin1'), Buffer.from(item).toString('hex'));
      else if (item instanceof Date) out.push(item.toISOString());
      else if (item instanceof Map) for (const [k, v] of item) stack.push(k, v);
      else if (item instanceof Set || Array.isArray(item)) for (const v of item) stack.push(v);
      else for (const key of Reflect.ownKeys(item)) stack.push(typeof key === 'string' ? key : undefined, Reflect.get(item, key));
    }
  }
  return out;
}
