import { FwDefinitionError } from './errors.js';
import { describe, isPlainObject } from './definition-checks.js';
import type { FieldDefinition } from './model-types.js';

/** One key of a model's default sort: the same `{ field, order }` a table query's `sort` takes. */
export interface OrderByEntry {
  /** A sortable field of the model. */
  field: string;
  /** @default 'asc' */
  order?: 'asc' | 'desc';
}

/** The most keys a default sort may have: the table query takes no more (see `parseTableQuery`). */
export const ORDER_BY_MAX = 5;

/**
 * Checks `defineModel({ orderBy })` against the model's checked fields: a list of `{ field, order }`
 * naming distinct sortable fields, at most {@link ORDER_BY_MAX}. `order` defaults to `asc`.
 * @throws {FwDefinitionError} naming the offending entry.
 * @example checkOrderBy('FwLoginLog', [{ field: 'loginTime', order: 'desc' }], fields)
 */
export function checkOrderBy(model: string, value: unknown, fields: Readonly<Record<string, FieldDefinition>>): ReadonlyArray<Readonly<Required<OrderByEntry>>> {
  const key = `${model}.orderBy`;
  if (value === undefined) return Object.freeze([]);
  if (!Array.isArray(value) || value.length > ORDER_BY_MAX)
    throw new FwDefinitionError(key, `must be a list of at most ${ORDER_BY_MAX} { field, order } entries, got ${describe(value)}`);
  const seen = new Set<string>();
  return Object.freeze(
    value.map((entry: unknown, i) => {
      const at = `${key}[${i}]`;
      if (!isPlainObject(entry)) throw new FwDefinitionError(at, `must be { field, order }, got ${describe(entry)}`);
      for (const k of Object.keys(entry)) if (k !== 'field' && k !== 'order') throw new FwDefinitionError(`${at}.${k}`, 'unknown option (known: field, order)');
      const field = typeof entry.field === 'string' ? fields[entry.field] : undefined;
      if (!field) throw new FwDefinitionError(`${at}.field`, `names no field of this model: ${describe(entry.field)}`);
      if (!field.views.sortable) throw new FwDefinitionError(`${at}.field`, `${field.name} is not sortable`);
      if (seen.has(field.name)) throw new FwDefinitionError(`${at}.field`, `${field.name} is already in the sort`);
      seen.add(field.name);
      const order = entry.order ?? 'asc';
      if (order !== 'asc' && order !== 'desc') throw new FwDefinitionError(`${at}.order`, `must be 'asc' or 'desc', got ${describe(order)}`);
      return Object.freeze({ field: field.name, order });
    }),
  );
}
