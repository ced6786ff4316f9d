import { FwDefinitionError } from './errors.js';
import { isObject } from './plain-values.js';

/** An identifier: a field or column name. */
export const IDENT_RE = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** A plain object (not null, not an array): the definition checks' name for `isObject`. */
export const isPlainObject = isObject;

export function optionalBoolean(key: string, value: unknown, fallback: boolean): boolean {
  if (value === undefined) return fallback;
  if (typeof value !== 'boolean') throw new FwDefinitionError(key, `must be a boolean, got ${describe(value)}`);
  return value;
}

export function optionalString(key: string, value: unknown, fallback: string): string {
  if (value === undefined) return fallback;
  if (typeof value !== 'string' || value.length === 0) throw new FwDefinitionError(key, `must be a non-empty string, got ${describe(value)}`);
  return value;
}

/** `{ labelField }` when one is given (a non-empty string; the registry checks it names a field). */
export function labelFieldOption(key: string, value: unknown): { labelField?: string } {
  if (value === undefined) return {};
  return { labelField: optionalString(key, value, '') };
}

export function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  return typeof value === 'object' ? 'an object' : `${typeof value} ${String(value)}`;
}
