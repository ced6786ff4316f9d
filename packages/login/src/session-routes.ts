import type { Context } from 'koa';
import type Router from '@koa/router';
import { FwError } from '@fw/core';
import { fwRoute } from '@fw/http';
import type { FwStore } from '@fw/store';
import { isSessionId, type FwTokenService, type TokenSession } from '@fw/token';
import type { FwRequestState } from './auth.js';
import { loginError } from './error-codes.js';

/** One session as `GET /sessions` answers it: no token, no token hash. */
export interface SessionView {
  /** Opaque id for `DELETE /sessions/{id}` (useless as a token). */
  id: string;
  /** The session the request was made with. */
  current: boolean;
  /** ISO 8601. */
  createdAt: string;
  /** ISO 8601; recorded at most about once a minute, else the creation time. */
  lastSeenAt: string;
  /** ISO 8601. */
  expiresAt: string;
  /** Client address of the sign-in that opened it, from the login log; null when unknown. */
  ip: string | null;
  /** User agent of that sign-in; null when unknown. */
  userAgent: string | null;
  /** How it was opened: `password`, `oauth:<provider>`, `open-api:<appId>`; null when unknown. */
  method: string | null;
}

/** One row of `GET /sessions/online`. */
export interface OnlineUserView {
  userId: number;
  /** Null when the `fw_user` row is gone (its tokens are refused anyway). */
  account: string | null;
  name: string | null;
  /** Live sessions of the user. */
  sessions: number;
  /** ISO 8601: the latest use (or sign-in) among them. */
  lastSeenAt: string;
  /** ISO 8601: the latest expiry among them. */
  expiresAt: string;
}

/** What the session routes need of `fwLogin`'s resolved options. */
export interface SessionRouteServices {
  store: FwStore;
  tokens: FwTokenService;
  /** Called with the token when a person ends the session they are using (as `logout` does). */
  logout: (token: string) => Promise<void>;
  /** The request's authenticated state, or a 401. */
  requireAuth: (ctx: Context) => Promise<FwRequestState>;
}

const USER_ID = /^[1-9][0-9]{0,9}$/;
const PAGE_SIZE_MAX = 100;

/**
 * The user whose sessions a request is about: the caller's own, or with `?user=<id>` another
 * user's, which only an administrator may name. A non-administrator naming anyone else gets 403
 * whether that user exists or not, so the answer is no oracle.
 */
async function targetUser(ctx: Context, state: FwRequestState, store: FwStore): Promise<number> {
  const raw = ctx.query.user;
  if (raw === undefined) return state.user.id;
  const self = String(state.user.id);
  if (typeof raw === 'string' && raw === self) return state.user.id;
  if (state.user.isAdmin !== true) throw new FwError('FORBIDDEN', 'Only an administrator may see or end another user’s sessions');
  if (typeof raw !== 'string' || !USER_ID.test(raw) || Number(raw) > 2147483647) {
    throw new FwError('BAD_REQUEST', 'user must be a user id', { details: [{ path: 'user', type: 'typeError', message: 'user must be a positive whole number' }] });
  }
  const userId = Number(raw);
  if (!(await store.users.findById(userId))) throw new FwError('NOT_FOUND', 'No such user');
  return userId;
}

async function views(store: FwStore, sessions: TokenSession[]): Promise<SessionView[]> {
  const origins = await store.loginLogs.origins(sessions.map((s) => s.hash));
  return sessions.map((s) => {
    const origin = origins.get(s.hash);
    return {
      id: s.id,
      current: s.current,
      createdAt: s.createdAt.toISOString(),
      lastSeenAt: s.lastSeenAt.toISOString(),
      expiresAt: s.expiresAt.toISOString(),
      ip: origin?.ip ?? null,
      userAgent: origin?.userAgent ?? null,
      method: origin?.method ?? null,
    };
  });
}

/** `GET /sessions[?user=<id>]`: the live sessions of the caller (or, for an administrator, of a user). */
async function listSessions(ctx: Context, s: SessionRouteServices): Promise<void> {
  const state = await s.requireAuth(ctx);
  const userId = await targetUser(ctx, state, s.store);
  const sessions = await s.tokens.listSessions(userId, userId === state.user.id ? state.token : undefined);
  ctx.set('Cache-Control', 'no-store');
  ctx.body = { userId, sessions: await views(s.store, sessions) };
}

function positiveQuery(ctx: Context, name: string, fallback: number, max: number): number {
  const raw = ctx.query[name];
  if (raw === undefined) return fallback;
  if (typeof raw !== 'string' || !/^[1-9][0-9]{0,8}$/.test(raw) || Number(raw) > max) {
    throw new FwError('BAD_REQUEST', `${name} must be a whole number from 1 to ${max}`, {
      details: [{ path: name, type: 'typeError', message: `${name} must be a whole number from 1 to ${max}` }],
    });
  }
  return Number(raw);
}

/** `GET /sessions/online?page=&size=`: administrators only; the users holding live sessions. */
async function onlineUsers(ctx: Context, s: SessionRouteServices): Promise<void> {
  const state = await s.requireAuth(ctx);
  if (state.user.isAdmin !== true) throw new FwError('FORBIDDEN', 'Only an administrator may list online users');
  const size = positiveQuery(ctx, 'size', 20, PAGE_SIZE_MAX);
  // Past this the offset means nothing a person pages to; bounded so it stays a number every store takes.
  const page = positiveQuery(ctx, 'page', 1, 100_000);
  const { total, users } = await s.tokens.onlineUsers({ offset: (page - 1) * size, limit: size });
  const ids = users.map((u) => u.userId);
  const rows: Array<{ id: unknown; account: unknown; name: unknown }> = ids.length === 0 ? [] : await s.store.knex('fw_user').whereIn('id', ids).select('id', 'account', 'name');
  const byId = new Map(rows.map((row) => [Number(row.id), row]));
  ctx.set('Cache-Control', 'no-store');
  ctx.body = {
    total,
    page,
    size,
    rows: users.map((u): OnlineUserView => {
      const row = byId.get(u.userId);
      return {
        userId: u.userId,
        account: row ? String(row.account) : null,
        name: row && row.name !== null && row.name !== undefined ? String(row.name) : null,
        sessions: u.sessions,
        lastSeenAt: u.lastSeenAt.toISOString(),
        expiresAt: u.expiresAt.toISOString(),
      };
    }),
  };
}

/**
 * `DELETE /sessions/{id}[?user=<id>]`: ends one session of the caller (or of a user, for an
 * administrator). An id that is not one of that user's live sessions, another user's included,
 * is a 404 like any unknown one; an id that cannot be a session id at all is a 400.
 */
async function endSession(ctx: Context, s: SessionRouteServices): Promise<void> {
  const state = await s.requireAuth(ctx);
  const userId = await targetUser(ctx, state, s.store);
  const id = (ctx.params as { id?: string }).id;
  if (!isSessionId(id)) throw loginError('SESSION_ID_INVALID', undefined, [{ path: 'id', type: 'matches', message: 'A session id is 24 lowercase hex characters' }]);
  // The current session is looked up first, so ending it also tells the login hook, as a logout does.
  const own = userId === state.user.id ? (await s.tokens.listSessions(userId, state.token)).find((x) => x.id === id) : undefined;
  if (!(await s.tokens.revokeSession(userId, id))) throw loginError('SESSION_NOT_FOUND');
  if (own?.current) await s.logout(state.token);
  ctx.body = { ok: true, current: own?.current === true };
}

/**
 * `POST /sessions/revoke-others[?user=<id>]`: ends every session of the caller but the one in use;
 * an administrator naming another user ends all of that user's sessions.
 */
async function endOthers(ctx: Context, s: SessionRouteServices): Promise<void> {
  const state = await s.requireAuth(ctx);
  const userId = await targetUser(ctx, state, s.store);
  // Asked first, so a store that cannot list sessions answers the same 501 on every session route.
  if (!s.tokens.sessionsSupported) await s.tokens.listSessions(userId);
  const ended = userId === state.user.id ? await s.tokens.revokeUser(userId, { except: state.token }) : await s.tokens.revokeUser(userId);
  ctx.body = { ok: true, ended };
}

/**
 * Adds the session routes to `fwLogin`'s router (issue 19 §6): `GET /sessions`,
 * `GET /sessions/online`, `DELETE /sessions/{id}` and `POST /sessions/revoke-others`.
 * @internal
 */
export function addSessionRoutes(router: Router, services: SessionRouteServices): void {
  const route = (handler: (ctx: Context, s: SessionRouteServices) => Promise<void>) => fwRoute((ctx) => handler(ctx, services));
  router.get('/sessions', route(listSessions));
  router.get('/sessions/online', route(onlineUsers));
  router.delete('/sessions/:id', route(endSession));
  router.post('/sessions/revoke-others', route(endOthers));
}
