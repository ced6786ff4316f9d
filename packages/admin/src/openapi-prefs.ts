import { TOKEN_SECURITY, errors, jsonAnswer, jsonBody, pathParam, type Operation } from './openapi-http.js';

const KEY = pathParam('key', { type: 'string', pattern: '^table:[A-Za-z_][A-Za-z0-9_.-]{0,120}$' }, 'table:<model name>');
const COLUMNS = { type: 'array', maxItems: 300, uniqueItems: true, items: { type: 'string', pattern: '^[A-Za-z0-9_.:$-]{1,128}$' } };

/** A table layout, as `PUT /prefs/table:<model>` takes it (see `parseTablePref` in `@fw/login`). */
const tablePref = {
  type: 'object',
  description: 'A table layout: column order, hidden columns, widths, row density. Every field is optional',
  properties: {
    order: { ...COLUMNS, description: 'Column keys in display order' },
    hidden: { ...COLUMNS, description: 'Column keys the user hid' },
    widths: { type: 'object', additionalProperties: { type: 'integer', minimum: 40, maximum: 2000 }, description: 'Pixel widths by column key' },
    density: { enum: ['small', 'middle', 'large'] },
  },
  additionalProperties: false,
};

const answer = {
  type: 'object',
  properties: { key: { type: 'string' }, value: { anyOf: [tablePref, { type: 'null' }] }, updatedAt: { type: ['string', 'null'], format: 'date-time' } },
  required: ['key', 'value', 'updatedAt'],
  additionalProperties: false,
};

/** The signed-in user's own preferences (issue 20 §5); no route names another user. */
export function prefPaths(): Record<string, Record<string, Operation>> {
  const tags = ['prefs'];
  return {
    '/prefs/{key}': {
      get: {
        operationId: 'getPref',
        tags,
        summary: "The caller's own preference under key (value null when none is stored)",
        security: TOKEN_SECURITY,
        parameters: [KEY],
        responses: { 200: jsonAnswer('The preference', answer), ...errors(400, 401, 403) },
      },
      put: {
        operationId: 'putPref',
        tags,
        summary: "Store the caller's own preference under key, replacing any (body at most 8 KiB)",
        security: TOKEN_SECURITY,
        parameters: [KEY],
        requestBody: jsonBody({ type: 'object', properties: { value: tablePref }, required: ['value'], additionalProperties: false }),
        responses: { 200: jsonAnswer('Stored', answer), ...errors(400, 401, 403, 413, 415, 422) },
      },
      delete: {
        operationId: 'deletePref',
        tags,
        summary: "Forget the caller's own preference under key (a table's reset)",
        security: TOKEN_SECURITY,
        parameters: [KEY],
        responses: {
          200: jsonAnswer('Forgotten', {
            type: 'object',
            properties: { ok: { const: true }, deleted: { type: 'boolean' } },
            required: ['ok', 'deleted'],
            additionalProperties: false,
          }),
          ...errors(400, 401, 403),
        },
      },
    },
  };
}
