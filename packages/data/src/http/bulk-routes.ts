// The routes of issue 23 §2–3 (server side): bulk edit, a row's history, restoring a version.
// Declared with their contracts (`defineRoute`) and mounted by `mountRoutes`: the caller first,
// then the body, then the model and the caller's power (the scope), then the body's shape, then
// the handler with typed input.
import type { Context } from 'koa';
import type Router from '@koa/router';
import { type ModelDefinition, type PowerObject } from '@fw/core';
import { assertPower } from '@fw/power';
import { defineRoute, mountRoutes, shape, type FwRoute, type JsonSchema } from '@fw/http';
import type { QueryLimits } from '../read/query.js';
import { historyPaging } from '../read/history.js';
import type { Actor, DataService } from '../service.js';
import { parseUpdateMany, type UpdateManyInput } from '../write/update-many.js';
import { parseRestore } from '../write/restore.js';

/** What the bulk routes run with. */
export interface BulkDeps {
  service: DataService;
}

/** The model a route names, the caller's power on it, and the bounds its body is held to. */
export interface BulkScope {
  model: ModelDefinition;
  power: PowerObject;
  limits: QueryLimits;
  maxRows: number;
}

/** A bulk route: its contract, its handler, and the power it needs before its body is judged. */
type BulkRoute = FwRoute<BulkDeps, unknown, BulkScope, Actor> & { needs(power: PowerObject, model: ModelDefinition): void };

const ID = { type: 'integer', minimum: 1 } as const;
const UUID = { type: 'string', format: 'uuid' } as const;
const FW_PARAM = { name: 'fw', in: 'path' as const, schema: { type: 'string' } };
const ID_PARAM = { name: 'id', in: 'path' as const, schema: ID };

const updateManyBody: JsonSchema = {
  type: 'object',
  properties: {
    ids: { type: 'array', minItems: 1, items: ID },
    conditions: { type: 'array', items: { type: 'object' } },
    values: { type: 'object', minProperties: 1 },
    rows: {
      type: 'array',
      minItems: 1,
      description: 'Rows each with values of their own (a block pasted from a spreadsheet), instead of ids or conditions with values',
      items: {
        type: 'object',
        properties: {
          id: ID,
          values: { type: 'object', minProperties: 1 },
          expect: { type: 'object', description: 'What the grid showed in the cells pasted over (fields of `values`): a cell that now shows another value refuses the request (422, detail type `stale` with `current`)' },
        },
        required: ['id', 'values'],
      },
    },
    dryRun: { type: 'boolean', description: 'Check every row as the edit would, write nothing' },
  },
  oneOf: [{ required: ['ids', 'values'] }, { required: ['conditions', 'values'] }, { required: ['rows'] }],
};

const historyAnswer: JsonSchema = {
  type: 'object',
  properties: {
    rows: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          id: ID,
          at: { type: 'string', format: 'date-time' },
          user: { type: 'object', properties: { id: { type: ['integer', 'null'] }, account: { type: ['string', 'null'] }, name: { type: ['string', 'null'] } } },
          source: { type: 'string' },
          action: { type: 'string' },
          batch: { type: ['string', 'null'] },
          changes: { type: 'array', items: { type: 'object', properties: { field: { type: 'string' }, before: {}, after: {} }, required: ['field', 'before', 'after'] } },
          truncated: { const: true },
        },
        required: ['id', 'at', 'user', 'source', 'action', 'batch', 'changes'],
      },
    },
    total: { type: 'integer', minimum: 0 },
    page: { type: 'integer', minimum: 1 },
    size: { type: 'integer', minimum: 1 },
  },
  required: ['rows', 'total', 'page', 'size'],
};

/** The routes, in mount order. */
export const bulkRoutes: readonly BulkRoute[] = [
  {
    ...defineRoute<BulkDeps, UpdateManyInput, BulkScope, Actor>({
      method: 'post',
      path: '/data/modify/{fw}/update-many',
      operationId: 'updateMany',
      summary: (model) => `Set field values on many ${model.name} rows, all or none`,
      description: 'Each row takes the cell editor’s path (switches, conversion, whole-row validation, hooks); one operate-log row per row, all with the answered batch id.',
      security: 'token',
      perModel: { describedFor: (model) => model.power.edit && model.power.cellEdit },
      params: [FW_PARAM],
      body: { shape: shape<UpdateManyInput, BulkScope>(updateManyBody, (value, scope) => parseUpdateMany(scope.model, scope.power, value, scope.limits, scope.maxRows)), required: true },
      answers: {
        200: {
          description: 'The rows gone through, the rows changed, and the batch id (null when no row matched)',
          json: { type: 'object', properties: { updated: { type: 'integer', minimum: 0 }, changed: { type: 'integer', minimum: 0 }, batch: { type: ['string', 'null'] }, dryRun: { const: true } }, required: ['updated', 'changed', 'batch'] },
        },
      },
      errors: [400, 401, 403, 404, 409, 413, 415, 422],
      handle: (_ctx, { deps, body, who, scope }) => deps.service.updateMany(scope.model.name, who, body),
    }),
    needs: (power, model) => assertPower(power, 'edit', model.name),
  } as BulkRoute,
  {
    ...defineRoute<BulkDeps, undefined, BulkScope, Actor>({
      method: 'get',
      path: '/data/{fw}/{id}/history',
      operationId: 'rowHistory',
      summary: (model) => `The history of one ${model.name} row, newest first`,
      security: 'token',
      perModel: { describedFor: (model) => model.power.viewDetails || model.power.edit },
      params: [
        FW_PARAM,
        ID_PARAM,
        { name: 'page', in: 'query', schema: { type: 'integer', minimum: 1, default: 1 } },
        { name: 'size', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 100, default: 20 } },
      ],
      answers: { 200: { description: 'One page of the row’s history', json: historyAnswer } },
      errors: [400, 401, 403, 404],
      handle: (ctx, { deps, who, scope, params }) => deps.service.history(scope.model.name, who, params.id, historyPaging(ctx.query)),
    }),
    // As the row's details: viewDetails, or edit (whose form shows the row).
    needs: (power, model) => {
      if (!power.viewDetails && !power.edit) assertPower(power, 'viewDetails', model.name);
    },
  } as BulkRoute,
  {
    ...defineRoute<BulkDeps, { entry: number }, BulkScope, Actor>({
      method: 'post',
      path: '/data/{fw}/{id}/restore',
      operationId: 'restoreRow',
      summary: (model) => `Put a ${model.name} row back to how it was before a history entry`,
      description: 'Fields the caller does not see in the row’s details (taken out by `afterFetch`) are neither put back nor named in the answer, nor in a 409’s details.',
      security: 'token',
      perModel: { describedFor: (model) => model.power.edit },
      params: [FW_PARAM, ID_PARAM],
      body: { shape: shape<{ entry: number }, BulkScope>({ type: 'object', properties: { entry: ID }, required: ['entry'] }, (value) => parseRestore(value)), required: true },
      answers: {
        200: {
          description: 'The row as written, the fields put back, the fields skipped with their reasons, and the batch id',
          json: {
            type: 'object',
            properties: {
              row: { type: 'object' },
              restored: { type: 'array', items: { type: 'string' } },
              skipped: { type: 'array', items: { type: 'object', properties: { field: { type: 'string' }, reason: { type: 'string' }, message: { type: 'string' } }, required: ['field', 'reason'] } },
              batch: UUID,
            },
            required: ['row', 'restored', 'skipped', 'batch'],
          },
        },
      },
      errors: [400, 401, 403, 404, 409, 415, 422],
      handle: (_ctx, { deps, body, who, scope, params }) => deps.service.restore(scope.model.name, who, params.id, body.entry),
    }),
    needs: (power, model) => assertPower(power, 'edit', model.name),
  } as BulkRoute,
];

/** Mounts {@link bulkRoutes} on the data router: `actor` finds the caller, `readJson` reads a body with the data API's limit. */
export function mountBulkRoutes(router: Router, options: { service: DataService; actor: (ctx: Context) => Promise<Actor>; readJson: (ctx: Context) => Promise<unknown> }): void {
  const { service } = options;
  mountRoutes(router, bulkRoutes, {
    deps: { service },
    readJson: options.readJson,
    who: (ctx) => options.actor(ctx),
    scope: async (ctx, route, who) => {
      const model = service.model((ctx.params as Record<string, string>).fw);
      const power = await service.power(model, who.user, who.grantsVersion);
      route.needs(power, model);
      return { model, power, limits: service.limits, maxRows: service.bulkMaxRows };
    },
  });
}
