// The presence route (issue 24 §4): `POST /data/presence/{fw}` says that the caller's tab has a row
// open in a form or a cell editor, or left it. Declared with its contract like the other data
// routes; the table and its delivery are live/presence.ts.
import type { Context } from 'koa';
import type Router from '@koa/router';
import { FwError, isObject, type ModelDefinition } from '@fw/core';
import { defineRoute, mountRoutes, readJsonBody, shape, type FwRoute } from '@fw/http';
import { rowId } from '../read/row-keys.js';
import type { Actor, DataService } from '../service.js';
import { LIVE_CLIENT_KEY } from '../live/bus.js';
import type { LivePresence, PresenceInput } from '../live/presence.js';

/** What the presence route works with. */
export interface PresenceRouteDeps {
  service: DataService;
  presence: LivePresence;
}

/** The model of a presence post, once the caller may query it. */
export interface PresenceScope {
  model: ModelDefinition;
}

/** Largest presence body, bytes: a key, an id and a field name need far less. */
export const PRESENCE_BODY_BYTES = 2048;

const KEYS = new Set(['client', 'id', 'field']);
const BAD_CLIENT = 'client must be 8–64 characters of A–Z, a–z, 0–9, _ and -';

/** The header a stream carries its tab's key in; a malformed one is a 400 before the stream opens. */
export function liveClientKey(ctx: Context): string | undefined {
  const key = ctx.get('X-Fw-Live-Client');
  if (key === '') return undefined;
  if (!LIVE_CLIENT_KEY.test(key)) throw new FwError('BAD_REQUEST', `X-Fw-Live-Client: ${BAD_CLIENT}`, { details: [{ path: 'X-Fw-Live-Client', type: 'pattern', message: BAD_CLIENT }] });
  return key;
}

const BODY = shape<PresenceInput, PresenceScope>(
  {
    type: 'object',
    properties: {
      client: { type: 'string', pattern: LIVE_CLIENT_KEY.source, description: 'The tab’s key, as sent in `X-Fw-Live-Client` when its stream opened' },
      id: { type: ['integer', 'null'], minimum: 1, description: 'The row open in a form or cell editor; `null`: left' },
      field: { type: 'string', maxLength: 200, description: 'The field being edited (a cell editor)' },
    },
    required: ['client', 'id'],
    additionalProperties: false,
  },
  (value, scope) => {
    if (!isObject(value) || Array.isArray(value) || Object.keys(value).some((k) => !KEYS.has(k))) throw new FwError('BAD_REQUEST', 'The body must be { client, id, field? }');
    if (typeof value.client !== 'string' || !LIVE_CLIENT_KEY.test(value.client)) {
      throw new FwError('BAD_REQUEST', BAD_CLIENT, { details: [{ path: 'client', type: 'pattern', message: BAD_CLIENT }] });
    }
    if (!('id' in value)) throw new FwError('BAD_REQUEST', 'The body must carry id (null: left)');
    if (value.field !== undefined && (typeof value.field !== 'string' || value.field.length > 200)) throw new FwError('BAD_REQUEST', 'field must be a field name');
    return {
      client: value.client,
      id: value.id === null ? null : rowId(scope.model, value.id),
      ...(value.field === undefined ? {} : { field: value.field as string }),
    };
  },
);

/** The presence route of the data API. */
export const presenceRoutes: ReadonlyArray<FwRoute<PresenceRouteDeps, unknown, PresenceScope, Actor>> = [
  defineRoute<PresenceRouteDeps, PresenceInput, PresenceScope, Actor>({
    method: 'post',
    path: '/data/presence/{fw}',
    operationId: 'setPresence',
    summary: (model) => `Say that you have a row of ${model.name} open in a form or cell editor, or that you left it`,
    description:
      'Keyed by (you, `client`): nobody sets or clears another user’s presence. The entry lives 60 s unless posted again (post every 20 s while the editor stays open) and ends when the stream opened with that `X-Fw-Live-Client` ends. The streams of the model (`GET /data/events/{fw}`) receive it as a `presence` event, each only for rows its viewer may see and with `field` only when they may see it. Needs `query`; the row must be one the caller may see (404 otherwise), `field` a field they may see (422). 429 `TOO_MANY_PRESENCE` past 20 entries per user or 120 posts a minute.',
    security: 'token',
    perModel: { describedFor: (model) => model.power.query },
    params: [{ name: 'fw', in: 'path', schema: { type: 'string', maxLength: 64 }, description: 'The model name' }],
    body: { shape: BODY, required: true },
    answers: { 204: { description: 'Noted; published to every instance' } },
    errors: [400, 401, 403, 404, 413, 415, 422, 429],
    handle: async (ctx, { deps, body, scope, who }) => {
      await deps.presence.post(scope.model, who, body);
      ctx.status = 204;
      return undefined;
    },
  }),
] as ReadonlyArray<FwRoute<PresenceRouteDeps, unknown, PresenceScope, Actor>>;

/** Puts the {@link presenceRoutes} on the data router. */
export function mountPresenceRoutes(router: Router, deps: PresenceRouteDeps & { actor: (ctx: Context) => Promise<Actor> }): void {
  mountRoutes<PresenceRouteDeps, PresenceScope, Actor, (typeof presenceRoutes)[number]>(router, presenceRoutes, {
    deps,
    readJson: (ctx) => readJsonBody(ctx, { limit: PRESENCE_BODY_BYTES }),
    who: (ctx) => deps.actor(ctx),
    async scope(ctx, _route, who) {
      const model = deps.service.model((ctx.params as Record<string, string>).fw);
      await deps.service.requirePower(model, who, 'query');
      return { model };
    },
  });
}
