import { TOKEN_SECURITY, errors, jsonAnswer, queryParam, type Operation } from './openapi-http.js';

// The permission editor's routes of fwData (issue 20 §1); docs/http-api.md "Permission routes".

const menu = {
  type: 'object',
  properties: {
    id: { type: 'integer' },
    code: { type: ['string', 'null'] },
    name: { type: 'string' },
    status: { type: 'string' },
    grantable: { type: 'boolean', description: 'The caller may add it to a role (holds its code, or is an administrator)' },
    revocable: { type: 'boolean' },
    refusal: { type: 'object', properties: { code: { const: 'NOT_HELD' }, message: { type: 'string' } }, required: ['code', 'message'] },
  },
  required: ['id', 'code', 'name', 'status', 'grantable', 'revocable'],
};

const ASSIGNABLE = {
  type: 'object',
  properties: {
    id: { type: 'integer' },
    name: { type: 'string' },
    code: { type: ['string', 'null'] },
    parentId: { type: ['integer', 'null'] },
    depth: { type: 'integer', minimum: 0 },
    status: { type: 'string' },
    grantable: { type: 'boolean' },
    refusal: { type: 'object', properties: { code: { enum: ['NOT_HELD', 'OUT_OF_SCOPE'] }, message: { type: 'string' } }, required: ['code', 'message'] },
  },
  required: ['id', 'name', 'code', 'grantable'],
};

const step = {
  type: 'object',
  properties: {
    kind: { enum: ['declared', 'admin', 'modelMenu', 'functionMenu', 'handler', 'aiGate', 'cellGate', 'requires'] },
    value: { type: 'boolean', description: 'The flag after this step' },
    code: { type: 'string' },
    held: { type: 'boolean' },
    roles: { type: 'array', items: { type: 'object', properties: { id: { type: 'integer' }, name: { type: 'string' }, menu: { type: 'object' } } } },
    changed: { type: 'boolean' },
    requires: { type: 'string' },
    fields: { type: 'array', items: { type: 'string' } },
  },
  required: ['kind', 'value'],
};

/**
 * `GET /power/grantable`, `GET /power/assignable` and `GET /power/explain/<Model>` for each model
 * (a model name in the path, like every other model route).
 */
export function powerPaths(models: readonly string[]): Record<string, Record<string, Operation>> {
  const tags = ['power'];
  const paths: Record<string, Record<string, Operation>> = {
    '/power/grantable': {
      get: {
        operationId: 'grantableMenus',
        tags,
        summary: 'The menu tree with, per menu, whether the caller may grant it to a role (needs add or edit on FwRole)',
        security: TOKEN_SECURITY,
        responses: {
          200: jsonAnswer('The matrix', {
            type: 'object',
            properties: {
              editor: { type: 'object', properties: { id: { type: 'integer' }, isAdmin: { type: 'boolean' } }, required: ['id', 'isAdmin'] },
              role: { type: 'object', properties: { model: { type: 'string' }, field: { type: 'string' } }, required: ['model', 'field'] },
              columns: { type: 'array', items: { type: 'object', properties: { key: { type: 'string' }, flag: { type: 'string' }, name: { type: 'string' } }, required: ['key'] } },
              rows: {
                type: 'array',
                items: {
                  type: 'object',
                  properties: {
                    menu,
                    type: { type: 'string' },
                    parentId: { type: ['integer', 'null'] },
                    depth: { type: 'integer', minimum: 0 },
                    model: { type: 'string' },
                    cells: { type: 'object', additionalProperties: menu },
                  },
                  required: ['menu', 'type', 'parentId', 'depth', 'cells'],
                },
              },
            },
            required: ['editor', 'role', 'columns', 'rows'],
          }),
          ...errors(401, 403, 404),
        },
      },
    },
    '/power/assignable': {
      get: {
        operationId: 'assignableRolesAndOrgs',
        tags,
        summary: 'Every role and organisation with whether the caller may give it to a user (needs add or edit on FwUser)',
        security: TOKEN_SECURITY,
        responses: {
          200: jsonAnswer('The lists', {
            type: 'object',
            properties: {
              editor: { type: 'object', properties: { id: { type: 'integer' }, isAdmin: { type: 'boolean' } }, required: ['id', 'isAdmin'] },
              user: { type: 'object', properties: { model: { type: 'string' }, roles: { type: 'string' }, orgs: { type: 'string' } }, required: ['model'] },
              roles: { type: 'array', items: ASSIGNABLE },
              orgs: { type: 'array', items: ASSIGNABLE },
            },
            required: ['editor', 'user', 'roles', 'orgs'],
          }),
          ...errors(401, 403, 404),
        },
      },
    },
  };
  for (const model of models) paths[`/power/explain/${model}`] = explainOperation(model);
  return paths;
}

/** `GET /power/explain/<model>`. */
function explainOperation(model: string): Record<string, Operation> {
  return {
    get: {
      operationId: `explainPower${model}`,
      tags: [model, 'power'],
      summary: "Each power flag of a user on a model with the steps that give or take it; the power equals GET /build/{fw}'s for that user",
      security: TOKEN_SECURITY,
      parameters: [queryParam('user', { type: 'integer', minimum: 1 }, "Administrators: another user's id. Anyone else naming a user but themselves gets 403")],
      responses: {
        200: jsonAnswer('The explanation', {
          type: 'object',
          properties: {
            model: { type: 'object', properties: { name: { type: 'string' }, title: { type: 'string' } } },
            user: { type: 'object', properties: { id: { type: 'integer' }, account: { type: 'string' }, name: { type: ['string', 'null'] }, isAdmin: { type: 'boolean' } } },
            power: { $ref: '#/components/schemas/FwPower' },
            flags: {
              type: 'array',
              items: {
                type: 'object',
                properties: { flag: { type: 'string' }, value: { type: 'boolean' }, steps: { type: 'array', items: step } },
                required: ['flag', 'value', 'steps'],
              },
            },
          },
          required: ['model', 'user', 'power', 'flags'],
        }),
        ...errors(400, 401, 403, 404),
      },
    },
  };
}
