// The trash routes (issue 23 §3), declared with their contracts (route-contract.ts of @fw/http):
// the page of a model's trashed rows, undelete, and an administrator's purge. Per request: the
// caller, the body, the model and the caller's power (404/403), the body's shape, the handler.
import type { Context } from 'koa';
import type Router from '@koa/router';
import { FwError, isObject, type ModelDefinition } from '@fw/core';
import { defineRoute, mountRoutes, shape, type FwRoute, type JsonSchema } from '@fw/http';
import { parseTableQuery, type TableQuery } from '../read/query.js';
import { rowId } from '../read/row-keys.js';
import type { Actor, DataService } from '../service.js';

/** What the trash routes' bodies are parsed against: the model named by `{fw}`, the query bounds. */
interface TrashScope {
  model: ModelDefinition;
  service: DataService;
}

/** A trash route, with the use of the trash it checks before its body's shape. */
type TrashRoute = FwRoute<DataService, unknown, TrashScope, Actor> & { use: 'page' | 'undelete' | 'purge' };

const ID_LIST: JsonSchema = { type: 'array', items: { type: 'integer', minimum: 1 }, minItems: 1, maxItems: 1000 };

/** `ids`: 1 to 1000 row ids, each checked like a path id (400 `BAD_ID`), duplicates dropped. */
function rowIds(model: ModelDefinition, raw: unknown): number[] {
  if (!Array.isArray(raw) || raw.length === 0 || raw.length > 1000) throw new FwError('BAD_REQUEST', 'The body must be { ids: [...] } with 1 to 1000 ids');
  return [...new Set(raw.map((id, i) => rowId(model, id, `ids[${i}]`)))];
}

const PAGE_BODY = shape<TableQuery, TrashScope>({ type: 'object', description: 'A table query: page, size and conditions (sort and cursors do not apply).' }, (value, scope) =>
  parseTableQuery(scope.model, value ?? {}, scope.service.limits),
);

const IDS_BODY = shape<number[], TrashScope>({ type: 'object', properties: { ids: ID_LIST }, required: ['ids'] }, (value, scope) => rowIds(scope.model, isObject(value) ? value.ids : undefined));

const OPTIONAL_IDS_BODY = shape<number[] | undefined, TrashScope>({ type: 'object', properties: { ids: ID_LIST } }, (value, scope) => {
  if (value === undefined) return undefined;
  if (!isObject(value)) throw new FwError('BAD_REQUEST', 'The body must be { ids?: [...] }');
  return value.ids === undefined ? undefined : rowIds(scope.model, value.ids);
});

const TRASH_ENTRY: JsonSchema = {
  type: 'object',
  properties: {
    trashId: { type: 'integer' },
    id: { type: 'integer' },
    deletedAt: { type: 'string', format: 'date-time' },
    deletedBy: { type: 'object', properties: { id: { type: ['integer', 'null'] }, account: { type: ['string', 'null'] } }, required: ['id', 'account'] },
    row: { type: 'object', description: 'The row as the table shows it (no secrets).' },
  },
  required: ['trashId', 'id', 'deletedAt', 'deletedBy', 'row'],
};

/** The trash routes of the data API. */
export const trashRoutes: readonly TrashRoute[] = [
  {
    ...defineRoute<DataService, TableQuery, TrashScope, Actor>({
      method: 'post',
      path: '/data/trash/{fw}',
      operationId: 'trashPage',
      summary: (model) => `The trashed rows of ${model.name}, newest first`,
      description: 'Rows deleted from the model and not yet purged, as far as the caller may see them (the row visibility judged on the stored values). Needs `delete`.',
      security: 'token',
      perModel: { describedFor: (model) => model.trash && model.power.delete },
      body: { shape: PAGE_BODY, required: false },
      answers: {
        200: {
          description: 'A page of trashed rows',
          json: { type: 'object', properties: { rows: { type: 'array', items: TRASH_ENTRY }, total: { type: 'integer' }, page: { type: 'integer' }, size: { type: 'integer' } }, required: ['rows', 'total', 'page', 'size'] },
        },
      },
      errors: [400, 401, 403, 404, 413, 415],
      handle: (_ctx, { deps, body, scope, who }) => deps.trashPage(scope.model, who, body),
    }),
    use: 'page',
  },
  {
    ...defineRoute<DataService, number[], TrashScope, Actor>({
      method: 'post',
      path: '/data/modify/{fw}/undelete',
      operationId: 'undelete',
      summary: (model) => `Put trashed rows of ${model.name} back`,
      description:
        'Puts the rows back with their ids, all or none: each must be in the trash and visible (404), its id and unique values free (409 naming the row and field), and valid by today\'s rules (422). Links to rows that no longer exist are dropped and listed in `dropped`. Needs `delete` and `add`.',
      security: 'token',
      perModel: { describedFor: (model) => model.trash && model.power.delete && model.power.add },
      body: { shape: IDS_BODY, required: true },
      answers: {
        200: {
          description: 'The rows put back',
          json: {
            type: 'object',
            properties: {
              restored: { type: 'integer' },
              batch: { type: 'string', format: 'uuid', description: 'The batch id of the undelete’s operate-log rows (one per row)' },
              dropped: { type: 'array', items: { type: 'object', properties: { id: { type: 'integer' }, field: { type: 'string' }, values: { type: 'array', items: { type: ['integer', 'string'] } } } } },
            },
            required: ['restored', 'batch', 'dropped'],
          },
        },
      },
      errors: [400, 401, 403, 404, 409, 413, 415, 422],
      handle: (_ctx, { deps, body, scope, who }) => deps.undelete(scope.model, who, body),
    }),
    use: 'undelete',
  },
  {
    ...defineRoute<DataService, number[] | undefined, TrashScope, Actor>({
      method: 'post',
      path: '/data/trash/{fw}/purge',
      operationId: 'purgeTrash',
      summary: (model) => `Empty the trash of ${model.name} for good`,
      description: 'Removes the trashed rows `ids` (row ids), or every trashed row of the model when none are given, with their files. Administrators only.',
      security: 'token',
      perModel: { describedFor: (model) => model.trash },
      body: { shape: OPTIONAL_IDS_BODY, required: false },
      answers: { 200: { description: 'How many trashed rows went', json: { type: 'object', properties: { purged: { type: 'integer' } }, required: ['purged'] } } },
      errors: [400, 401, 403, 404, 413, 415],
      handle: (_ctx, { deps, body, scope, who }) => deps.purgeTrash(scope.model, who, body),
    }),
    use: 'purge',
  },
] as TrashRoute[];

/** Puts the {@link trashRoutes} on the data router. */
export function mountTrashRoutes(router: Router, deps: { service: DataService; actor: (ctx: Context) => Promise<Actor>; json: (ctx: Context) => Promise<unknown> }): void {
  const { service } = deps;
  mountRoutes(router, trashRoutes, {
    deps: service,
    readJson: deps.json,
    who: (ctx) => deps.actor(ctx),
    scope: async (ctx, route, who) => {
      const model = service.model((ctx.params as Record<string, string>).fw);
      await service.requireTrash(model, who, route.use);
      return { model, service };
    },
  });
}
