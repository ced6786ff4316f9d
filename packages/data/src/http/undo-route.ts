// The undo route (issue 23 §3), declared with its contract (route-contract.ts of @fw/http). Not a
// per-model route: a batch (or a user's time window) may span models; write/undo.ts checks the
// power on each model it touches, and who may undo whose changes.
import type { Context } from 'koa';
import type Router from '@koa/router';
import { defineRoute, mountRoutes, shape, type FwRoute, type JsonSchema } from '@fw/http';
import type { Actor, DataService } from '../service.js';
import { parseUndo, UNDO_MAX_ENTRIES, type UndoInput } from '../write/undo.js';

const ENTRY_ID = { type: 'integer', minimum: 1 } as const;

const undoBody: JsonSchema = {
  type: 'object',
  properties: {
    batch: { type: 'string', format: 'uuid', description: 'The batch id a write answered (bulk edit, import, delete, undelete, restore, undo)' },
    actor: { type: 'integer', minimum: 1, description: 'A user id: undo what this user did between `from` and `to` (administrators only)' },
    from: { type: 'string', format: 'date-time' },
    to: { type: 'string', format: 'date-time' },
    dryRun: { type: 'boolean', description: 'List what would be undone and the conflicts, write nothing' },
    force: { type: 'array', maxItems: UNDO_MAX_ENTRIES, items: ENTRY_ID, description: 'Entries undone even though their row changed since' },
  },
  additionalProperties: false,
  oneOf: [{ required: ['batch'] }, { required: ['actor', 'from', 'to'] }],
};

const undoAnswer: JsonSchema = {
  type: 'object',
  properties: {
    batch: { type: ['string', 'null'], description: 'The batch id of the undo’s own log rows (null on a dry run or when nothing was undone): undo it to redo' },
    undone: { type: 'integer', minimum: 0 },
    conflicted: { type: 'integer', minimum: 0 },
    steps: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          entry: ENTRY_ID,
          model: { type: 'string' },
          id: { type: 'integer' },
          action: { enum: ['update', 'delete', 'undelete'] },
          fields: { type: 'array', items: { type: 'string' } },
          forced: { const: true },
        },
        required: ['entry', 'model', 'id', 'action'],
      },
    },
    conflicts: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          entry: ENTRY_ID,
          model: { type: 'string' },
          id: { type: ['integer', 'null'] },
          reason: { enum: ['changed', 'gone', 'taken', 'invalid', 'removed', 'unsupported'] },
          message: { type: 'string' },
        },
        required: ['entry', 'model', 'id', 'reason', 'message'],
      },
    },
    skipped: {
      type: 'array',
      items: { type: 'object', properties: { entry: ENTRY_ID, field: { type: 'string' }, reason: { type: 'string' } }, required: ['entry', 'field', 'reason'] },
    },
    dryRun: { const: true },
  },
  required: ['batch', 'undone', 'conflicted', 'steps', 'conflicts', 'skipped'],
};

/** The undo route of the data API. */
export const undoRoutes: ReadonlyArray<FwRoute<DataService, UndoInput, undefined, Actor>> = [
  defineRoute<DataService, UndoInput, undefined, Actor>({
    method: 'post',
    path: '/data/undo',
    operationId: 'undo',
    summary: 'Take back a batch of changes, or what one user did in a time window',
    description:
      'Each entry is reversed through the normal write paths, newest first, in one transaction: an update puts the fields back, an added row is deleted (to the trash), a deleted row comes back from the trash. An entry whose row changed since is a conflict, listed and skipped unless forced; a row gone or an id taken is listed too. A batch may be undone by the user who made every change in it, or by an administrator; by user and time, administrators only. The power to reverse each entry is needed on its model (`edit` for updates, `delete` for added rows, `delete` and `add` for deleted rows).',
    security: 'token',
    body: { shape: shape<UndoInput>(undoBody, (value) => parseUndo(value)), required: true },
    answers: { 200: { description: 'What was undone (or would be, on a dry run), the conflicts and the fields left as they are', json: undoAnswer } },
    errors: [400, 401, 403, 404, 409, 413, 415, 422],
    handle: (_ctx, { deps, body, who }) => deps.undo(who, body),
  }),
];

/** Puts the {@link undoRoutes} on the data router. */
export function mountUndoRoutes(router: Router, deps: { service: DataService; actor: (ctx: Context) => Promise<Actor>; json: (ctx: Context) => Promise<unknown> }): void {
  mountRoutes(router, undoRoutes, { deps: deps.service, readJson: deps.json, who: (ctx) => deps.actor(ctx) });
}
