// The JSON bodies of the data routes (issue 22 §5): for each, the schema the description publishes
// and the one parser that holds a request to it. The routes parse at the edge (mountRoutes, after
// the gate); DataService's untyped methods, which the AI tools and hosts call, run the same
// parsers, so a body is refused with the same code, message and details whichever way it came.
// Each parser takes the data scope, since the checks of today depend on the model and the caller's
// power, and keeps the order the service always had.
import { FwError, isObject, type FieldDefinition, type ModelDefinition, type PowerObject } from '@fw/core';
import { shape, type Shape } from '@fw/http';
import { assertPower } from '@fw/power';
import { cellEditRefusal } from '@fw/row-patch';
import { ref } from './http/field-schemas.js';
import { parseTableRequest, type QueryLimits, type TableRequest } from './read/query.js';
import { rowId } from './read/row-keys.js';
import { readCandidatesBody, type CandidatesQuery, type ReferenceTarget } from './read/references.js';

/** What a gated data route knows once the caller passed its gate: the model, their power on it, and the query bounds. */
export interface DataScope {
  readonly model: ModelDefinition;
  readonly power: PowerObject;
  readonly limits: QueryLimits;
}

/**
 * The add body: a JSON object of field values (converted in the service). A body that is no
 * object is refused inside the logged write, as before, so the operate log keeps the request.
 */
export interface AddInput {
  /** The body as sent, for the operate log. */
  readonly raw: unknown;
  /** The field values, when the body is an object. */
  readonly entity?: Record<string, unknown>;
  /** The 400 to answer when it is not. */
  readonly refusal?: FwError;
}

/** The edit form: the row's id (from the primary-key field) and the whole entity. */
export interface UpdateInput {
  readonly id: number;
  readonly entity: Record<string, unknown>;
}

/** One cell: the row, the field (declared and open to cell edits) and the value sent. */
export interface CellInput {
  readonly id: number;
  readonly field: FieldDefinition;
  readonly value: unknown;
  /** What the editor was seeded with, as the table showed it (`expect`; absent: no check). */
  readonly expect?: { readonly value: unknown };
  /** The body as sent, for the operate log. */
  readonly raw: Record<string, unknown>;
}

/** The rows to delete, each id once. */
export interface DeleteInput {
  readonly ids: number[];
}

/** The row to copy, and the values that replace copied ones (checked after the row is read). */
export interface CopyInput {
  readonly id: number;
  readonly values: unknown;
}

/** `POST /data/table/{fw}`: page, size, sort, conditions, cursors and count (absent: all defaults). */
export const TABLE_BODY: Shape<TableRequest, DataScope> = shape((model) => ref(`${model.name}TableQuery`), (value, scope) => parseTableRequest(scope.model, value, scope.limits));

/** The scope of the reference route: also what its path's field points at (checked after the gate, before the body). */
export interface ReferenceScope extends DataScope {
  readonly reference: ReferenceTarget;
}

/** `POST /data/reference/{fw}/{field}`: `{ search?, page?, size?, ids? }`, bounds by whether the target is a tree (absent: all defaults). */
export const REFERENCE_BODY: Shape<CandidatesQuery, ReferenceScope> = shape(ref('FwReferenceQuery'), (value, scope) =>
  readCandidatesBody(value === undefined ? {} : value, scope.reference.tree, scope.limits),
);

/** `POST /data/modify/{fw}`. */
export const ADD_BODY: Shape<AddInput, DataScope> = shape((model) => ref(`${model.name}Input`), (value) =>
  isObject(value) ? { raw: value, entity: value } : { raw: value, refusal: new FwError('BAD_REQUEST', 'The body must be a JSON object') },
);

/** `POST /data/modify/{fw}/update`. */
export const UPDATE_BODY: Shape<UpdateInput, DataScope> = shape((model) => ref(`${model.name}Update`), (value, { model }) => {
  if (!isObject(value)) throw new FwError('BAD_REQUEST', 'The body must be a JSON object');
  return { id: rowId(model, value[model.primaryKey], model.primaryKey), entity: value };
});

/**
 * `POST /data/modify/{fw}/update-cell`: `{ id, field, value }`. The declared switches and the
 * field first (their refusals name the model and field), then the caller's `cellEdit`, the id,
 * and a value (null clears the cell).
 */
export const CELL_BODY: Shape<CellInput, DataScope> = shape((model) => ref(`${model.name}Cell`), (body, { model, power }) => {
  if (!isObject(body)) throw new FwError('BAD_REQUEST', 'The body must be { id, field, value }');
  const refusal = cellEditRefusal(model, body.field);
  if (refusal) {
    const extra = { model: model.name, ...(typeof body.field === 'string' ? { field: body.field } : {}) };
    throw new FwError(refusal.code, refusal.message, { status: refusal.status, extra, ...(refusal.details ? { details: refusal.details } : {}) });
  }
  assertPower(power, 'cellEdit', model.name);
  const id = rowId(model, body.id);
  if (!('value' in body)) throw new FwError('BAD_REQUEST', 'The body must carry a value (null clears the cell)');
  // The refusal above found the field declared and open to cell edits.
  const expect = Object.hasOwn(body, 'expect') ? { expect: { value: body.expect } } : {};
  return { id, field: model.fields[body.field as string]!, value: body.value, raw: body, ...expect };
});

/** `POST /data/modify/{fw}/delete`: `{ ids }`, 1 to 1000 of them. */
export const DELETE_BODY: Shape<DeleteInput, DataScope> = shape(
  {
    type: 'object',
    properties: { ids: { type: 'array', minItems: 1, maxItems: 1000, items: ref('FwId') } },
    required: ['ids'],
    additionalProperties: false,
  },
  (body, { model }) => {
    const rawIds = isObject(body) ? body.ids : undefined;
    if (!Array.isArray(rawIds) || rawIds.length === 0 || rawIds.length > 1000) throw new FwError('BAD_REQUEST', 'The body must be { ids: [...] } with 1 to 1000 ids');
    return { ids: [...new Set(rawIds.map((id, i) => rowId(model, id, `ids[${i}]`)))] };
  },
);

/** `POST /data/modify/{fw}/copy`: `{ id, values? }`. */
export const COPY_BODY: Shape<CopyInput, DataScope> = shape((model) => ref(`${model.name}Copy`), (body, { model }) => ({
  id: rowId(model, isObject(body) ? body.id : undefined),
  values: isObject(body) ? body.values : undefined,
}));
