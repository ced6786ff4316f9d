// A row's key: the key column of a model, a row id from a request, and the answer for a row that
// is not there (or that the actor may not see).
import { FwError, positiveInteger, type ModelDefinition } from '@fw/core';
import { integerBounds } from '@fw/row-patch';
import { dataError } from '../error-codes.js';

/** The key column of `model`. */
export function pkColumn(model: ModelDefinition): string {
  return model.fields[model.primaryKey]!.column;
}

/** A row id of `model`: a positive whole number (else 400); one beyond the key column is a row that cannot exist (404). */
export function rowId(model: ModelDefinition, value: unknown, path = 'id'): number {
  const id = positiveInteger(value);
  if (id === undefined) throw dataError('BAD_ID', undefined, [{ path, type: 'typeError', message: 'must be a positive whole number' }]);
  const bounds = integerBounds(model.fields[model.primaryKey]!);
  if (bounds && id > bounds.max) throw rowNotFound(model, id);
  return id;
}

/** 404 `ROW_NOT_FOUND` for `id` of `model`: also the answer for a row the actor may not see. */
export function rowNotFound(model: ModelDefinition, id: number): FwError {
  return new FwError('ROW_NOT_FOUND', `No ${model.name} with id ${id}`, { extra: { model: model.name, id } });
}
