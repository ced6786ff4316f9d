// The saved-view routes (issue 23 §1), declared with @fw/http's route contracts so the OpenAPI
// description can be generated from them: `GET /views/{fw}` (the caller's own views and those
// shared with a role they hold), `POST /views/{fw}` (create, or replace one of their own by id)
// and `DELETE /views/{fw}/{id}` (one of their own). Every route needs `query` on the model.
import type { Context } from 'koa';
import type Router from '@koa/router';
import { FwError, type ModelDefinition, type PowerObject } from '@fw/core';
import { defineRoute, mountRoutes, readJsonBody, shape, type FwRoute, type JsonSchema } from '@fw/http';
import type { DataService } from '../service.js';
import type { Actor } from '../service-types.js';
import type { QueryLimits } from '../read/query.js';
import { VIEW_LIMITS, parseViewSave, sharingRefusal, viewAnswer, type ViewAnswer, type ViewSave } from '../views/saved-views.js';

/** What the view routes need from fwData. */
export interface ViewRouteDeps {
  service: DataService;
  /** The signed-in actor of a request (401 when none). */
  actor(ctx: Context): Promise<Actor>;
}

/** What each view route works on, once the caller may query the model. */
export interface ViewScope {
  model: ModelDefinition;
  power: PowerObject;
  /** The table query's bounds, which a view's conditions, sort and size are held to. */
  limits: QueryLimits;
}

type ViewRoute<Body> = FwRoute<DataService, Body, ViewScope, Actor>;

const fw = { name: 'fw', in: 'path' as const, schema: { type: 'string', maxLength: 64 }, description: 'The model name' };
const conditionsSchema: JsonSchema = { type: 'array', maxItems: 50, description: 'As the table query’s `conditions`: { field, op, value } entries and { or } / { and } groups' };
const viewSchema: JsonSchema = {
  type: 'object',
  properties: {
    id: { type: 'integer', minimum: 1 },
    name: { type: 'string' },
    mine: { type: 'boolean' },
    owner: { type: 'object', properties: { id: { type: 'integer' }, account: { type: 'string' } }, required: ['id'] },
    conditions: conditionsSchema,
    sort: { type: 'array', items: { type: 'object', properties: { field: { type: 'string' }, order: { enum: ['asc', 'desc'] } } } },
    size: { type: ['integer', 'null'] },
    columns: { type: ['array', 'null'], items: { type: 'string' } },
    roles: { type: 'array', items: { type: 'integer' }, description: 'Told to the owner only' },
    broken: { type: 'object', properties: { fields: { type: 'array', items: { type: 'string' } }, message: { type: 'string' } }, required: ['fields', 'message'] },
    createdAt: { type: 'string', format: 'date-time' },
    updatedAt: { type: 'string', format: 'date-time' },
  },
  required: ['id', 'name', 'mine', 'owner', 'conditions', 'sort', 'size', 'columns', 'createdAt', 'updatedAt'],
};

const SAVE = shape<ViewSave, ViewScope>(
  {
    type: 'object',
    properties: {
      id: { type: 'integer', minimum: 1, description: 'Replace this view of yours; absent: create one' },
      name: { type: 'string', minLength: 1, maxLength: VIEW_LIMITS.nameLength },
      conditions: conditionsSchema,
      sort: { description: 'As the table query’s `sort`' },
      size: { type: 'integer', minimum: 1, description: 'The page size; at most the table query’s `limits.maxSize`' },
      columns: { type: ['array', 'null'], maxItems: VIEW_LIMITS.columns, items: { type: 'string' } },
      roles: { type: 'array', maxItems: VIEW_LIMITS.roles, items: { type: 'integer', minimum: 1 }, description: 'Role ids to share with; a non-administrator only roles they hold' },
    },
    required: ['name'],
    additionalProperties: false,
  },
  (value, scope) => parseViewSave(scope.model, value, scope.limits),
);

/** The view routes, as declarations (for `mountRoutes` and `describeRoutes`). */
export const VIEW_ROUTES: ReadonlyArray<ViewRoute<unknown>> = [
  defineRoute<DataService, undefined, ViewScope, Actor>({
    method: 'get',
    path: '/views/{fw}',
    operationId: 'listViews',
    summary: (model) => `Saved views of ${model.name}: your own and those shared with your roles`,
    security: 'token',
    perModel: { describedFor: (model) => model.power.query },
    params: [fw],
    answers: { 200: { description: 'The views, by name', json: { type: 'object', properties: { views: { type: 'array', items: viewSchema } }, required: ['views'] } } },
    errors: [401, 403, 404],
    async handle(ctx, { deps, scope, who }) {
      ctx.set('Cache-Control', 'no-store');
      const views = await deps.store.views.listFor(who.user.id, scope.model.name);
      // Whose each shared view is, so a list can say so: one lookup per owner.
      const accounts = new Map<number, string>([[who.user.id, who.user.account]]);
      for (const owner of new Set(views.map((v) => v.userId))) {
        if (!accounts.has(owner)) {
          const found = await deps.store.users.findById(owner);
          if (found) accounts.set(owner, found.account);
        }
      }
      return { views: views.map((v): ViewAnswer => viewAnswer(scope.model, v, who.user.id, scope.limits, accounts.get(v.userId))) };
    },
  }),
  defineRoute<DataService, ViewSave, ViewScope, Actor>({
    method: 'post',
    path: '/views/{fw}',
    operationId: 'saveView',
    summary: (model) => `Create a saved view of ${model.name}, or replace one of yours`,
    security: 'token',
    perModel: { describedFor: (model) => model.power.query },
    params: [fw],
    body: { shape: SAVE, required: true },
    answers: { 200: { description: 'The view as stored', json: viewSchema } },
    errors: [400, 401, 403, 404, 409, 413, 415],
    async handle(_ctx, { deps, body, scope, who }) {
      const { model } = scope;
      const held = who.user.isAdmin ? new Set<number>() : new Set(await deps.store.users.roleIds(who.user.id));
      const refusal = sharingRefusal(who.user, body.view.roleIds, held);
      if (refusal) throw refusal;
      if (who.user.isAdmin && body.view.roleIds.length > 0) {
        // An administrator may share with any role, but only one that exists.
        const known = new Set((await deps.store.roles.list()).map((r) => r.id));
        const unknown = body.view.roleIds.findIndex((id) => !known.has(id));
        if (unknown >= 0) {
          const message = `No role ${body.view.roleIds[unknown]}`;
          throw new FwError('VALIDATION_FAILED', message, { details: [{ path: `roles[${unknown}]`, type: 'exists', message }] });
        }
      }
      let saved;
      if (body.id !== undefined) {
        // Someone else's view, or one of another model, is not found: the id is no oracle.
        saved = await deps.store.views.update(who.user.id, model.name, body.id, body.view);
        if (!saved) throw new FwError('NOT_FOUND', `You have no view ${body.id} of ${model.name}`);
      } else {
        // Counted and inserted as one step, so concurrent saves cannot pass the limit together.
        const created = await deps.store.views.createWithin(who.user.id, model.name, body.view, VIEW_LIMITS.perUserAndModel);
        if (!created.ok) throw new FwError('CONFLICT', `You keep ${VIEW_LIMITS.perUserAndModel} views of ${model.name} already: delete one before saving another`);
        saved = created.view;
      }
      return viewAnswer(model, saved, who.user.id, scope.limits, who.user.account);
    },
  }),
  defineRoute<DataService, undefined, ViewScope, Actor>({
    method: 'delete',
    path: '/views/{fw}/{id}',
    operationId: 'deleteView',
    summary: (model) => `Delete one of your saved views of ${model.name}`,
    security: 'token',
    perModel: { describedFor: (model) => model.power.query },
    params: [fw, { name: 'id', in: 'path', schema: { type: 'string', pattern: '^[1-9][0-9]{0,9}$' } }],
    answers: { 200: { description: 'Deleted', json: { type: 'object', properties: { id: { type: 'integer' }, deleted: { const: true } }, required: ['id', 'deleted'] } } },
    errors: [401, 403, 404],
    async handle(_ctx, { deps, scope, who, params }) {
      const id = /^[1-9][0-9]{0,9}$/.test(params.id ?? '') ? Number(params.id) : NaN;
      if (!(id <= 2147483647) || !(await deps.store.views.delete(who.user.id, scope.model.name, id))) {
        throw new FwError('NOT_FOUND', `You have no view ${params.id ?? ''} of ${scope.model.name}`);
      }
      return { id, deleted: true };
    },
  }),
] as ReadonlyArray<ViewRoute<unknown>>;

/** Mounts {@link VIEW_ROUTES} on the data router. */
export function mountViewRoutes(router: Router, deps: ViewRouteDeps): void {
  const { service, actor } = deps;
  mountRoutes<DataService, ViewScope, Actor, ViewRoute<unknown>>(router, VIEW_ROUTES, {
    deps: service,
    readJson: (ctx) => readJsonBody(ctx, { limit: VIEW_LIMITS.bodyBytes }),
    who: (ctx) => actor(ctx),
    async scope(ctx, _route, who) {
      const model = service.model((ctx.params as Record<string, string>).fw);
      return { model, power: await service.requirePower(model, who, 'query'), limits: service.limits };
    },
  });
}
