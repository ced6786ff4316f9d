import { TOKEN_SECURITY, errors, jsonAnswer, pathParam, queryParam, type Operation } from './openapi-http.js';

const USER = queryParam('user', { type: 'integer', minimum: 1 }, "Administrators: another user's id. Anyone else naming a user but themselves gets 403");

const session = {
  type: 'object',
  properties: {
    id: { type: 'string', pattern: '^[0-9a-f]{24}$', description: 'Opaque; names the session, opens nothing' },
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

/** The session routes of `fwLogin` (issue 19 §6). */
export function sessionPaths(): Record<string, Record<string, Operation>> {
  const tags = ['sessions'];
  return {
    '/sessions': {
      get: {
        operationId: 'listSessions',
        tags,
        summary: "The caller's live sessions (an administrator's: any user's), newest first",
        security: TOKEN_SECURITY,
        parameters: [USER],
        responses: {
          200: jsonAnswer('The sessions', {
            type: 'object',
            properties: { userId: { type: 'integer' }, sessions: { type: 'array', items: session } },
            required: ['userId', 'sessions'],
            additionalProperties: false,
          }),
          ...errors(400, 401, 403, 404, 501),
        },
      },
    },
    '/sessions/{id}': {
      delete: {
        operationId: 'endSession',
        tags,
        summary: 'End one session; any id that is not one of that user’s live sessions is 404',
        security: TOKEN_SECURITY,
        parameters: [pathParam('id', { type: 'string', pattern: '^[0-9a-f]{24}$' }), USER],
        responses: {
          200: jsonAnswer('Ended', { type: 'object', properties: { ok: { const: true }, current: { type: 'boolean' } }, required: ['ok', 'current'], additionalProperties: false }),
          ...errors(400, 401, 403, 404, 501),
        },
      },
    },
    '/sessions/revoke-others': {
      post: {
        operationId: 'endOtherSessions',
        tags,
        summary: "End every session of the caller but this one (an administrator naming a user: all of that user's)",
        security: TOKEN_SECURITY,
        parameters: [USER],
        responses: {
          200: jsonAnswer('Ended', {
            type: 'object',
            properties: { ok: { const: true }, ended: { type: 'integer', minimum: 0 } },
            required: ['ok', 'ended'],
            additionalProperties: false,
          }),
          ...errors(400, 401, 403, 404, 501),
        },
      },
    },
    '/sessions/online': {
      get: {
        operationId: 'onlineUsers',
        tags,
        summary: 'Administrators: the users holding live sessions, latest expiry first',
        security: TOKEN_SECURITY,
        parameters: [
          queryParam('page', { type: 'integer', minimum: 1, default: 1 }, 'Page number'),
          queryParam('size', { type: 'integer', minimum: 1, maximum: 100, default: 20 }, 'Page size'),
        ],
        responses: {
          200: jsonAnswer('A page of users', {
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
          }),
          ...errors(400, 401, 403, 501),
        },
      },
    },
    '/my/activity': {
      get: {
        operationId: 'myActivity',
        tags,
        summary: "The caller's own latest sign-ins (failed ones included) and successful edits, newest first (the home page)",
        security: TOKEN_SECURITY,
        parameters: [queryParam('limit', { type: 'integer', minimum: 1, maximum: 50, default: 10 }, 'Most rows per list')],
        responses: {
          200: jsonAnswer('The two lists', {
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
          }),
          ...errors(400, 401),
        },
      },
    },
  };
}
