import type { Context } from 'koa';
import { FwError } from '@fw/core';
import { defineRoute, type FwRoute, type ParamContract } from '@fw/http';
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
}

/** A session route: the caller is the signed-in state `fwLogin` found (401 without one). */
export type SessionRoute = FwRoute<SessionRouteServices, undefined, undefined, FwRequestState>;

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

const TAGS = ['sessions'];
const USER: ParamContract = {
  name: 'user',
  in: 'query',
  required: false,
  schema: { type: 'integer', minimum: 1 },
  description: "Administrators: another user's id. Anyone else naming a user but themselves gets 403",
};
const SESSION_ID = { type: 'string', pattern: '^[0-9a-f]{24}$' };

const SESSION = {
  type: 'object',
  properties: {
    id: { ...SESSION_ID, description: 'Opaque; names the session, opens nothing' },
    current: { type: 'boolean' },
    createdAt: { type: 'string', format: 'date-time' },
    lastSeenAt: { type: 'string', format: 'date-time' },
    expiresAt: { type: 'string', format: 'date-time' },
    ip: { type: ['string', 'null'] },
    userAgent: { type: ['string', 'null'] },
    method: { type: ['string', 'null'] },
  },
  required: ['id', 'current', 'createdAt', 'lastSeenAt', 'expiresAt', 'ip', 'userAgent', 'method'],
  additionalProperties: false,
};

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

/**
 * The session routes of `fwLogin` (issue 19 §6), each contract beside its handler:
 * `GET /sessions`, `DELETE /sessions/{id}`, `POST /sessions/revoke-others` and
 * `GET /sessions/online`.
 */
export const sessionRoutes: readonly SessionRoute[] = [
  /** `GET /sessions[?user=<id>]`: the live sessions of the caller (or, for an administrator, of a user). */
  defineRoute({
    method: 'get',
    path: '/sessions',
    operationId: 'listSessions',
    tags: TAGS,
    summary: "The caller's live sessions (an administrator's: any user's), newest first",
    security: 'token',
    params: [USER],
    answers: {
      200: {
        description: 'The sessions',
        json: {
          type: 'object',
          properties: { userId: { type: 'integer' }, sessions: { type: 'array', items: SESSION } },
          required: ['userId', 'sessions'],
          additionalProperties: false,
        },
      },
    },
    errors: [400, 401, 403, 404, 501],
    async handle(ctx, { deps, who }) {
      const userId = await targetUser(ctx, who, deps.store);
      const sessions = await deps.tokens.listSessions(userId, userId === who.user.id ? who.token : undefined);
      ctx.set('Cache-Control', 'no-store');
      return { userId, sessions: await views(deps.store, sessions) };
    },
  }),
  /**
   * `DELETE /sessions/{id}[?user=<id>]`: ends one session of the caller (or of a user, for an
   * administrator). An id that is not one of that user's live sessions, another user's included,
   * is a 404 like any unknown one; an id that cannot be a session id at all is a 400 (after the
   * user is settled, so it is checked here rather than at the edge).
   */
  defineRoute({
    method: 'delete',
    path: '/sessions/{id}',
    operationId: 'endSession',
    tags: TAGS,
    summary: 'End one session; any id that is not one of that user’s live sessions is 404',
    security: 'token',
    params: [{ name: 'id', in: 'path', schema: SESSION_ID }, USER],
    answers: {
      200: {
        description: 'Ended',
        json: { type: 'object', properties: { ok: { const: true }, current: { type: 'boolean' } }, required: ['ok', 'current'], additionalProperties: false },
      },
    },
    errors: [400, 401, 403, 404, 501],
    async handle(ctx, { deps, who, params }) {
      const userId = await targetUser(ctx, who, deps.store);
      const id = params.id;
      if (!isSessionId(id)) throw loginError('SESSION_ID_INVALID', undefined, [{ path: 'id', type: 'matches', message: 'A session id is 24 lowercase hex characters' }]);
      // The current session is looked up first, so ending it also tells the login hook, as a logout does.
      const own = userId === who.user.id ? (await deps.tokens.listSessions(userId, who.token)).find((x) => x.id === id) : undefined;
      if (!(await deps.tokens.revokeSession(userId, id))) throw loginError('SESSION_NOT_FOUND');
      if (own?.current) await deps.logout(who.token);
      return { ok: true, current: own?.current === true };
    },
  }),
  /**
   * `POST /sessions/revoke-others[?user=<id>]`: ends every session of the caller but the one in
   * use; an administrator naming another user ends all of that user's sessions.
   */
  defineRoute({
    method: 'post',
    path: '/sessions/revoke-others',
    operationId: 'endOtherSessions',
    tags: TAGS,
    summary: "End every session of the caller but this one (an administrator naming a user: all of that user's)",
    security: 'token',
    params: [USER],
    answers: {
      200: {
        description: 'Ended',
        json: {
          type: 'object',
          properties: { ok: { const: true }, ended: { type: 'integer', minimum: 0 } },
          required: ['ok', 'ended'],
          additionalProperties: false,
        },
      },
    },
    errors: [400, 401, 403, 404, 501],
    async handle(ctx, { deps, who }) {
      const userId = await targetUser(ctx, who, deps.store);
      // Asked first, so a store that cannot list sessions answers the same 501 on every session route.
      if (!deps.tokens.sessionsSupported) await deps.tokens.listSessions(userId);
      const ended = userId === who.user.id ? await deps.tokens.revokeUser(userId, { except: who.token }) : await deps.tokens.revokeUser(userId);
      return { ok: true, ended };
    },
  }),
  /** `GET /sessions/online?page=&size=`: administrators only; the users holding live sessions. */
  defineRoute({
    method: 'get',
    path: '/sessions/online',
    operationId: 'onlineUsers',
    tags: TAGS,
    summary: 'Administrators: the users holding live sessions, latest expiry first',
    security: 'token',
    params: [
      { name: 'page', in: 'query', required: false, schema: { type: 'integer', minimum: 1, default: 1 }, description: 'Page number' },
      { name: 'size', in: 'query', required: false, schema: { type: 'integer', minimum: 1, maximum: PAGE_SIZE_MAX, default: 20 }, description: 'Page size' },
    ],
    answers: {
      200: {
        description: 'A page of users',
        json: {
          type: 'object',
          properties: {
            total: { type: 'integer' },
            page: { type: 'integer' },
            size: { type: 'integer' },
            rows: {
              type: 'array',
              items: {
                type: 'object',
                properties: {
                  userId: { type: 'integer' },
                  account: { type: ['string', 'null'] },
                  name: { type: ['string', 'null'] },
                  sessions: { type: 'integer' },
                  lastSeenAt: { type: 'string', format: 'date-time' },
                  expiresAt: { type: 'string', format: 'date-time' },
                },
                required: ['userId', 'account', 'name', 'sessions', 'lastSeenAt', 'expiresAt'],
                additionalProperties: false,
              },
            },
          },
          required: ['total', 'page', 'size', 'rows'],
          additionalProperties: false,
        },
      },
    },
    errors: [400, 401, 403, 501],
    async handle(ctx, { deps, who }) {
      if (who.user.isAdmin !== true) throw new FwError('FORBIDDEN', 'Only an administrator may list online users');
      const size = positiveQuery(ctx, 'size', 20, PAGE_SIZE_MAX);
      // Past this the offset means nothing a person pages to; bounded so it stays a number every store takes.
      const page = positiveQuery(ctx, 'page', 1, 100_000);
      const { total, users } = await deps.tokens.onlineUsers({ offset: (page - 1) * size, limit: size });
      const ids = users.map((u) => u.userId);
      const rows: Array<{ id: unknown; account: unknown; name: unknown }> =
        ids.length === 0 ? [] : await deps.store.knex('fw_user').whereIn('id', ids).select('id', 'account', 'name');
      const byId = new Map(rows.map((row) => [Number(row.id), row]));
      ctx.set('Cache-Control', 'no-store');
      return {
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
    },
  }),
];
