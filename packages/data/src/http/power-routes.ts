// The permission editor's routes (issue 20 §1): `GET /power/grantable`, what the caller may grant
// to a role; `GET /power/assignable`, which roles and organisations they may give a user; and
// `GET /power/explain/{fw}?user=`, why a user holds each flag on a model. Thin Koa glue over the
// data service, the store and the pure builders beside this file.
import type { Context } from 'koa';
import type Router from '@koa/router';
import { FwError, toFwUser, type FwUser, type ModelDefinition } from '@fw/core';
import { fwRoute } from '@fw/http';
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

/** Mounts the three routes on the data router. */
export function powerRoutes(router: Router, deps: PowerRouteDeps): void {
  const { service, actor } = deps;
  router.get('/power/grantable', fwRoute(async (ctx) => {
    ctx.set('Cache-Control', 'no-store');
    ctx.body = await grantable(service, await actor(ctx));
  }));
  router.get('/power/assignable', fwRoute(async (ctx) => {
    ctx.set('Cache-Control', 'no-store');
    ctx.body = await assignable(service, await actor(ctx));
  }));
  router.get('/power/explain/:fw', fwRoute(async (ctx) => {
    const who = await actor(ctx);
    ctx.set('Cache-Control', 'no-store');
    ctx.body = await explain(service, who, (ctx.params as Record<string, string>).fw ?? '', ctx.query.user);
  }));
}
