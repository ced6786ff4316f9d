// Small helpers the data service's modules share: request ids, plain-object checks, value
// comparison, the validation error and the hook context.
import { FwError, type DataHookContext, type FwErrorDetail, type ModelDefinition } from '@fw/core';
import { integerBounds } from '@fw/row-patch';
import { dataError } from './error-codes.js';
import type { Actor } from './service-types.js';

function positiveId(value: unknown, path = 'id'): number {
  const n = typeof value === 'string' && /^\d{1,15}$/.test(value) ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < 1) throw dataError('BAD_ID', undefined, [{ path, type: 'typeError', message: 'must be a positive whole number' }]);
  return n;
}

/** A row id of `model`: a positive whole number (else 400); one beyond the key column is a row that cannot exist (404). */
export function rowId(model: ModelDefinition, value: unknown, path = 'id'): number {
  const id = positiveId(value, path);
  const bounds = integerBounds(model.fields[model.primaryKey]!);
  if (bounds && id > bounds.max) throw rowNotFound(model, id);
  return id;
}

/** 404 `ROW_NOT_FOUND` for `id` of `model`: also the answer for a row the actor may not see. */
export function rowNotFound(model: ModelDefinition, id: number): FwError {
  return new FwError('ROW_NOT_FOUND', `No ${model.name} with id ${id}`, { extra: { model: model.name, id } });
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function validationError(details: FwErrorDetail[], message = 'The row is not valid'): FwError {
  return new FwError('VALIDATION_FAILED', message, { details });
}

export function sameValue(a: unknown, b: unknown): boolean {
  return JSON.stringify(a ?? null) === JSON.stringify(b ?? null);
}

/** The context every data hook receives (the write modules add the transaction). */
export function hookContext(model: ModelDefinition, actor: Actor, action: DataHookContext['action']): DataHookContext {
  return { user: actor.user, model: model.name, action, source: actor.source };
}

/** The key column of `model`. */
export function pkColumn(model: ModelDefinition): string {
  return model.fields[model.primaryKey]!.column;
}
