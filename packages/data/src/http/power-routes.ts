// The permission editor's routes (issue 20 §1): `GET /power/grantable`, what the caller may grant
// to a role; `GET /power/assignable`, which roles and organisations they may give a user; and
// `GET /power/explain/{fw}?user=`, why a user holds each flag on a model; each declared with its
// contract (issue 22 §5). Thin glue over the data service, the store and the pure builders beside
// this file. No gate: grantable and assignable ask about another model than their path names, and
// explain checks whom it is asked about before the model.
import type { Context } from 'koa';
import type Router from '@koa/router';
import { FwError, toFwUser, type FwUser, type ModelDefinition } from '@fw/core';
import { mountRoutes, readJsonBody, type FwRoute, type JsonSchema } from '@fw/http';
import { assignableLists, type AssignableLists } from '../write/assignable.js';
import { grantableMatrix, type GrantableMatrix } from '../permission-matrix.js';
import { explainPower, grantingRoles, type PowerExplanation } from '../power-explain.js';
import type { DataService } from '../service.js';
import type { Actor } from '../service-types.js';

/** What {@link powerRoutes} need from fwData. */
export interface PowerRouteDeps {
  service: DataService;
  /** The signed-in actor of a request (401 when none). */
  actor(ctx: Context): Promise<Actor>;
}

const USER_ID = /^[1-9][0-9]{0,9}$/;
const MAX_ID = 2147483647;
/** The flags of which GET /build needs one, else it is 403. */
const UI_FLAGS = ['query', 'add', 'edit', 'delete', 'viewDetails'] as const;

/** The role model (over `fw_role`) and its field over `fw_role_menu`, if the registry has them. */
function roleMenus(service: DataService): { model: ModelDefinition; field: string } | undefined {
  for (const model of service.registry.list()) {
    if (model.table !== 'fw_role') continue;
    const field = Object.values(model.fields).find((f) => f.edit.collection?.joinTable === 'fw_role_menu');
    if (field) return { model, field: field.name };
  }
  return undefined;
}

/** The matrix for the caller, who must be able to add or edit roles (else 403 `POWER_DENIED`). */
export async function grantable(service: DataService, actor: Actor): Promise<GrantableMatrix> {
  const role = roleMenus(service);
  if (!role) throw new FwError('NOT_FOUND', 'No role model with menus is registered');
  const power = await service.power(role.model, actor.user, actor.grantsVersion);
  if (!power.add && !power.edit) throw new FwError('POWER_DENIED', `Not permitted: add or edit on ${role.model.name}`, { extra: { model: role.model.name, flag: 'edit' } });
  const held = actor.user.isAdmin ? new Set<string>() : await service.store.grants.codesForUser(actor.user.id);
  return grantableMatrix(await service.store.menus.list(), actor.user, held, { model: role.model.name, field: role.field });
}

/** The user model (over `fw_user`) and its fields over the user–role and user–organisation links. */
function userLinks(service: DataService): { model: ModelDefinition; roles?: string; orgs?: string } | undefined {
  const model = service.registry.list().find((m) => m.table === 'fw_user');
  if (!model) return undefined;
  const over = (table: string) => Object.values(model.fields).find((f) => f.edit.collection?.joinTable === table)?.name;
  const roles = over('fw_user_role');
  const orgs = over('fw_user_org');
  return { model, ...(roles ? { roles } : {}), ...(orgs ? { orgs } : {}) };
}

/** The role and organisation lists for the caller, who must be able to add or edit users (else 403 `POWER_DENIED`). */
export async function assignable(service: DataService, actor: Actor): Promise<AssignableLists> {
  const links = userLinks(service);
  if (!links) throw new FwError('NOT_FOUND', 'No user model is registered');
  const power = await service.power(links.model, actor.user, actor.grantsVersion);
  if (!power.add && !power.edit) throw new FwError('POWER_DENIED', `Not permitted: add or edit on ${links.model.name}`, { extra: { model: links.model.name, flag: 'edit' } });
  const held = actor.user.isAdmin ? new Set<string>() : await service.store.grants.codesForUser(actor.user.id);
  const lists = { roles: await service.store.roles.list(), orgs: await service.store.orgs.list() };
  const { model, ...fields } = links;
  return assignableLists(service.store.knex, actor.user, held, lists, { model: model.name, ...fields });
}

/**
 * The user a question is about: the caller, or with `?user=<id>` another user, whom only an
 * administrator may name. A non-administrator naming anyone else gets 403 whether that user
 * exists or not, so the answer is no oracle; a malformed id from an administrator is 400, an
 * unknown one 404.
 */
async function subject(service: DataService, actor: Actor, raw: unknown): Promise<FwUser> {
  if (raw === undefined || (typeof raw === 'string' && raw === String(actor.user.id))) return actor.user;
  if (actor.user.isAdmin !== true) throw new FwError('FORBIDDEN', 'Only an administrator may ask about another user’s permissions');
  if (typeof raw !== 'string' || !USER_ID.test(raw) || Number(raw) > MAX_ID) {
    throw new FwError('BAD_REQUEST', 'user must be a user id', { details: [{ path: 'user', type: 'typeError', message: 'user must be a positive whole number' }] });
  }
  const found = await service.store.users.findById(Number(raw));
  if (!found) throw new FwError('NOT_FOUND', `No user ${raw}`);
  return toFwUser(found);
}

/** The explanation of `fw` for the caller or (administrators) `?user=`. */
export async function explain(service: DataService, actor: Actor, fw: string, rawUser: unknown): Promise<PowerExplanation> {
  const user = await subject(service, actor, rawUser);
  const model = service.model(fw);
  // The caller's own question uses the request's grants version, like GET /build does.
  const own = user === actor.user;
  const power = await service.power(model, user, own ? actor.grantsVersion : undefined);
  const held = user.isAdmin ? new Set<string>() : await service.store.grants.codesForUser(user.id);
  const roles = user.isAdmin ? new Map() : await grantingRoles(service.store.knex, user.id);
  const explained = await explainPower({ model, user, held, roles, power });
  // A non-administrator who may not open the model at all (GET /build is 403 to them) learns why,
  // but nothing of its schema: no title, no field names.
  if (actor.user.isAdmin !== true && !UI_FLAGS.some((flag) => power[flag] === true)) {
    explained.model = { name: model.name, title: model.name };
    for (const entry of explained.flags) for (const step of entry.steps) if (step.fields) step.fields = [];
  }
  return explained;
}

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

const editor: JsonSchema = { type: 'object', properties: { id: { type: 'integer' }, isAdmin: { type: 'boolean' } }, required: ['id', 'isAdmin'] };

/** A power route: it needs the data service only. */
export type PowerRoute = FwRoute<{ service: DataService }, unknown, unknown, Actor>;

/** `GET /power/grantable`. */
export const grantableRoute: PowerRoute = {
  method: 'get',
  path: '/power/grantable',
  operationId: 'grantableMenus',
  tags: ['power'],
  summary: 'The menu tree with, per menu, whether the caller may grant it to a role (needs add or edit on FwRole)',
  security: 'token',
  answers: {
    200: {
      description: 'The matrix',
      json: {
        type: 'object',
        properties: {
          editor,
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
      },
    },
  },
  errors: [401, 403, 404],
  handle: (ctx, { deps, who }) => {
    ctx.set('Cache-Control', 'no-store');
    return grantable(deps.service, who);
  },
};

/** `GET /power/assignable`. */
export const assignableRoute: PowerRoute = {
  method: 'get',
  path: '/power/assignable',
  operationId: 'assignableRolesAndOrgs',
  tags: ['power'],
  summary: 'Every role and organisation with whether the caller may give it to a user (needs add or edit on FwUser)',
  security: 'token',
  answers: {
    200: {
      description: 'The lists',
      json: {
        type: 'object',
        properties: {
          editor,
          user: { type: 'object', properties: { model: { type: 'string' }, roles: { type: 'string' }, orgs: { type: 'string' } }, required: ['model'] },
          roles: { type: 'array', items: ASSIGNABLE },
          orgs: { type: 'array', items: ASSIGNABLE },
        },
        required: ['editor', 'user', 'roles', 'orgs'],
      },
    },
  },
  errors: [401, 403, 404],
  handle: (ctx, { deps, who }) => {
    ctx.set('Cache-Control', 'no-store');
    return assignable(deps.service, who);
  },
};

/** `GET /power/explain/{fw}?user=`: described for every model. */
export const explainRoute: PowerRoute = {
  method: 'get',
  path: '/power/explain/{fw}',
  operationId: 'explainPower',
  tags: (model) => [model.name, 'power'],
  summary: "Each power flag of a user on a model with the steps that give or take it; the power equals GET /build/{fw}'s for that user",
  security: 'token',
  perModel: { describedFor: () => true },
  params: [{ name: 'user', in: 'query', required: false, schema: { type: 'integer', minimum: 1 }, description: "Administrators: another user's id. Anyone else naming a user but themselves gets 403" }],
  answers: {
    200: {
      description: 'The explanation',
      json: {
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
      },
    },
  },
  errors: [400, 401, 403, 404],
  handle: (ctx, { deps, who, params }) => {
    ctx.set('Cache-Control', 'no-store');
    return explain(deps.service, who, params.fw ?? '', ctx.query.user);
  },
};

/** The permission editor's routes, in the order they are mounted. */
export const powerRouteList: readonly PowerRoute[] = [grantableRoute, assignableRoute, explainRoute];

/** Mounts the three routes on a router (fwData mounts them with the other data routes). */
export function powerRoutes(router: Router, deps: PowerRouteDeps): void {
  mountRoutes(router, powerRouteList, { deps: { service: deps.service }, readJson: (ctx) => readJsonBody(ctx), who: (ctx) => deps.actor(ctx) });
}
