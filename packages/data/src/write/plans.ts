// Statement plans: a query compiled once per shape with a marker in place of each value, then
// run many times with the values put back. The SQLite and PostgreSQL writers and the table
// reader all keep their statements this way.

/** A statement compiled once per shape: its SQL, and for each binding either a slot number (a value given per call) or a constant. */
export interface Plan {
  sql: string;
  bindings: Array<{ slot: number } | { value: unknown }>;
}

// Stands for the i-th value while a statement is compiled (unlikely to be a real value).
export const slot = (i: number) => `\u0000fw-slot-${i}\u0000`;
// eslint-disable-next-line no-control-regex -- the NUL marks a slot, as in slot()
const SLOT = /^\u0000fw-slot-(\d+)\u0000$/;

/** The plan of a query compiled with `slot(i)` in place of its values. */
export function planOf(query: { sql: string; bindings: readonly unknown[] }): Plan {
  return {
    sql: query.sql,
    bindings: query.bindings.map((b) => {
      const m = typeof b === 'string' ? SLOT.exec(b) : null;
      return m ? { slot: Number(m[1]) } : { value: b };
    }),
  };
}

/** The bindings of `plan` with `values` in its slots. */
export function bindingsOf(plan: Plan, values: readonly unknown[]): unknown[] {
  return plan.bindings.map((b) => ('slot' in b ? values[b.slot] : b.value));
}
