import type { Context } from 'koa';
import { FwError, type LoginFailureReason } from '@fw/core';
import { defineRoute, type FwRoute } from '@fw/http';
import type { FwStore } from '@fw/store';
import type { FwRequestState } from './auth.js';

// Issue 20 §6: the home page shows a person what they did lately and where their account was
// signed in to (failed attempts too). Both lists are the caller's own and nobody else's: the route
// takes no user parameter at all, so an administrator reads other people's rows on the log pages,
// and nobody reads them here.

/** One sign-in to the caller's account, as `GET /my/activity` answers it (no token hash). */
export interface SignInView {
  id: number;
  /** ISO 8601. */
  time: string;
  success: boolean;
  /** The failure's class (`bad-credentials`, `locked`, …); null on a success. */
  reason: LoginFailureReason | null;
  ip: string | null;
  userAgent: string | null;
  /** `password`, `oauth:<provider>`, `open-api:<appId>`, … */
  method: string;
}

/** One successful data operation of the caller, as `GET /my/activity` answers it (no row data). */
export interface EditView {
  /** The operate-log row's id. */
  id: number;
  /** ISO 8601. */
  time: string;
  model: string;
  /** `add`, `update`, `delete`, `copy`, `import`. */
  action: string;
  /** `http`, `cell`, `ai`, `import`, … */
  source: string;
  /** The row's key as text; null for operations on several rows (import, delete of many). */
  targetId: string | null;
}

/** The answer of `GET /my/activity`. */
export interface ActivityView {
  signIns: SignInView[];
  edits: EditView[];
}

/** What the activity route needs of `fwLogin`'s resolved options. */
export interface ActivityRouteServices {
  store: FwStore;
}

/** The activity route: the caller is the signed-in state `fwLogin` found (401 without one). */
export type ActivityRoute = FwRoute<ActivityRouteServices, undefined, undefined, FwRequestState>;

const LIMIT_MAX = 50;
const LIMIT_DEFAULT = 10;

function limitOf(ctx: Context): number {
  const raw = ctx.query.limit;
  if (raw === undefined) return LIMIT_DEFAULT;
  if (typeof raw !== 'string' || !/^[1-9][0-9]?$/.test(raw) || Number(raw) > LIMIT_MAX) {
    const message = `limit must be a whole number from 1 to ${LIMIT_MAX}`;
    throw new FwError('BAD_REQUEST', message, { details: [{ path: 'limit', type: 'typeError', message }] });
  }
  return Number(raw);
}

/** The activity route of `fwLogin` (issue 20 §6), its contract beside its handler. */
export const activityRoutes: readonly ActivityRoute[] = [
  /** `GET /my/activity?limit=`: the caller's latest sign-ins (failed ones included) and edits, newest first. */
  defineRoute({
    method: 'get',
    path: '/my/activity',
    operationId: 'myActivity',
    tags: ['sessions'],
    summary: "The caller's own latest sign-ins (failed ones included) and successful edits, newest first (the home page)",
    security: 'token',
    params: [
      { name: 'limit', in: 'query', required: false, schema: { type: 'integer', minimum: 1, maximum: LIMIT_MAX, default: LIMIT_DEFAULT }, description: 'Most rows per list' },
    ],
    answers: {
      200: {
        description: 'The two lists',
        json: {
          type: 'object',
          properties: {
            signIns: {
              type: 'array',
              items: {
                type: 'object',
                properties: {
                  id: { type: 'integer' },
                  time: { type: 'string', format: 'date-time' },
                  success: { type: 'boolean' },
                  reason: { type: ['string', 'null'] },
                  ip: { type: ['string', 'null'] },
                  userAgent: { type: ['string', 'null'] },
                  method: { type: 'string' },
                },
                required: ['id', 'time', 'success', 'reason', 'ip', 'userAgent', 'method'],
                additionalProperties: false,
              },
            },
            edits: {
              type: 'array',
              items: {
                type: 'object',
                properties: {
                  id: { type: 'integer' },
                  time: { type: 'string', format: 'date-time' },
                  model: { type: 'string' },
                  action: { type: 'string' },
                  source: { type: 'string' },
                  targetId: { type: ['string', 'null'] },
                },
                required: ['id', 'time', 'model', 'action', 'source', 'targetId'],
                additionalProperties: false,
              },
            },
          },
          required: ['signIns', 'edits'],
          additionalProperties: false,
        },
      },
    },
    errors: [400, 401],
    async handle(ctx, { deps, who }) {
      const limit = limitOf(ctx);
      const userId = who.user.id;
      const [logins, operations] = await Promise.all([
        deps.store.loginLogs.list({ userId, limit }),
        // Failed operations are left out after the read, so a few more are read than shown.
        deps.store.operateLogs.list({ userId, limit: limit * 3 }),
      ]);
      const body: ActivityView = {
        signIns: logins.map((l) => ({ id: l.id, time: l.loginTime.toISOString(), success: l.success, reason: l.reason, ip: l.ip, userAgent: l.userAgent, method: l.method })),
        edits: operations
          .filter((o) => o.status === 'success')
          .slice(0, limit)
          .map((o) => ({ id: o.id, time: o.createdAt.toISOString(), model: o.model, action: o.action, source: o.source, targetId: o.targetId })),
      };
      ctx.set('Cache-Control', 'no-store');
      return body;
    },
  }),
];
