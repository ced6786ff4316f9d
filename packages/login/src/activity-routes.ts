import type { Context } from 'koa';
import type Router from '@koa/router';
import { FwError, type LoginFailureReason } from '@fw/core';
import { fwRoute } from '@fw/http';
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
  /** The request's authenticated state, or a 401. */
  requireAuth: (ctx: Context) => Promise<FwRequestState>;
}

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

/** `GET /my/activity?limit=`: the caller's latest sign-ins (failed ones included) and edits, newest first. */
async function myActivity(ctx: Context, s: ActivityRouteServices): Promise<void> {
  const state = await s.requireAuth(ctx);
  const limit = limitOf(ctx);
  const userId = state.user.id;
  const [logins, operations] = await Promise.all([
    s.store.loginLogs.list({ userId, limit }),
    // Failed operations are left out after the read, so a few more are read than shown.
    s.store.operateLogs.list({ userId, limit: limit * 3 }),
  ]);
  const body: ActivityView = {
    signIns: logins.map((l) => ({ id: l.id, time: l.loginTime.toISOString(), success: l.success, reason: l.reason, ip: l.ip, userAgent: l.userAgent, method: l.method })),
    edits: operations
      .filter((o) => o.status === 'success')
      .slice(0, limit)
      .map((o) => ({ id: o.id, time: o.createdAt.toISOString(), model: o.model, action: o.action, source: o.source, targetId: o.targetId })),
  };
  ctx.set('Cache-Control', 'no-store');
  ctx.body = body;
}

/**
 * Adds `GET /my/activity` to `fwLogin`'s router (issue 20 §6).
 * @internal
 */
export function addActivityRoutes(router: Router, services: ActivityRouteServices): void {
  router.get(
    '/my/activity',
    fwRoute((ctx) => myActivity(ctx, services)),
  );
}
