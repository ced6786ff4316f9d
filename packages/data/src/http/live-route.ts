// The live-table route (issue 24 §2): a server-sent-events stream of the changes to one model that
// its viewer may see. Declared with its contract like the other data routes; the handler answers
// with the stream itself (live/hub.ts, live/stream.ts).
import type { Context } from 'koa';
import type Router from '@koa/router';
import { defineRoute, mountRoutes, type FwRoute } from '@fw/http';
import type { Actor, DataService } from '../service.js';
import type { LiveHub } from '../live/hub.js';
import { LIVE_CLIENT_KEY } from '../live/bus.js';
import type { LivePresence } from '../live/presence.js';
import { liveClientKey } from './presence-route.js';

/** What the live route works with. */
export interface LiveRouteDeps {
  service: DataService;
  hub: LiveHub;
  /** Presence (issue 24 §4): each stream also carries the presence its viewer may see. */
  presence: LivePresence;
}

/** The live-table route of the data API. */
export const liveRoutes: ReadonlyArray<FwRoute<LiveRouteDeps, undefined, undefined, Actor>> = [
  defineRoute<LiveRouteDeps, undefined, undefined, Actor>({
    method: 'get',
    path: '/data/events/{fw}',
    operationId: 'liveEvents',
    summary: 'Follow the changes to a model’s rows as they commit (server-sent events)',
    description:
      'A `text/event-stream` of `insert` ({ id, row }), `update` ({ id, values }: the changed fields’ new values as the table shows them) and `delete` ({ ids }) events, each with `actor` and `at`, filtered per viewer by the same row visibility, `afterFetch` and field rules as the table query. `id:` lines carry the message id; send it back as `Last-Event-ID` to resume. A stream opened without `Last-Event-ID` first gets `ready` ({}), whose id is a resume point. `reload` means the client must load the table again (resume too old, or it fell behind); `closed` ({ reason: power | token | shutdown }) ends the stream. `presence` ({ client, user, id, field?, state: editing | left, at }; no `id:` line, never resumed) says who has a row the viewer may see open (`POST /data/presence/{fw}`); the current entries come right after the stream opens. A comment every 15 s keeps it open. Needs `query`.',
    security: 'token',
    perModel: { describedFor: (model) => model.power.query },
    params: [
      { name: 'Last-Event-ID', in: 'header', description: 'The last message id received, to resume after it', schema: { type: 'string', maxLength: 200 } },
      {
        name: 'X-Fw-Live-Client',
        in: 'header',
        description: 'The tab’s key (random per tab): its presence is cleared everywhere when this stream ends',
        schema: { type: 'string', pattern: LIVE_CLIENT_KEY.source },
      },
    ],
    answers: { 200: { description: 'The event stream', content: { 'text/event-stream': { type: 'string' } } } },
    errors: [400, 401, 403, 404, 429],
    handle: async (ctx: Context, { deps, who, params }) => {
      const model = deps.service.model(params.fw);
      // The token travels in a header only (never `?token=`): Actor.token is what authentication read there.
      const last = ctx.get('Last-Event-ID');
      // A malformed key is refused before the stream takes a slot.
      const client = liveClientKey(ctx);
      const stream = await deps.hub.open(model, who, who.token ?? '', last === '' ? undefined : last.slice(0, 200));
      deps.presence.attach(stream, client);
      ctx.res.on('close', () => stream.abandon());
      ctx.set('Cache-Control', 'no-cache, no-transform');
      ctx.set('X-Accel-Buffering', 'no');
      ctx.body = stream.body;
      ctx.type = 'text/event-stream';
      return undefined;
    },
  }),
];

/** Puts the {@link liveRoutes} on the data router. */
export function mountLiveRoutes(router: Router, deps: LiveRouteDeps & { actor: (ctx: Context) => Promise<Actor> }): void {
  mountRoutes(router, liveRoutes, { deps, who: (ctx) => deps.actor(ctx) });
}
