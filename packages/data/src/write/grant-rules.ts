import { MENU_STATUS, PERMISSION_LINKS, USER_STATUS, type FieldDefinition, type FwErrorDetail, type ModelDefinition } from '@fw/core';
import type { FormRow } from '@fw/row-patch';
import type { Knex } from 'knex';
import { dataError } from '../error-codes.js';

// Who may grant what (DESIGN.md §4, issue 10 §1). The permission engine decides whether someone
// may write a model at all; these rules decide what a write to the tables that *hold* permissions
// may contain, so that a user who may edit users, roles, menus, organisations or open-API keys
// cannot use that to give anyone — themselves included — more than they hold. They key on the
// built-in tables (and the link tables of any model's collections), not on model names, so a host
// that redefines the built-in models over the same tables keeps them; and they run in the data
// service's write paths, so the form, the cell editor, add, copy, import and the AI tools share them.
// Administrators are not limited by them.

/** The write being checked. `stored` is the row before (update, delete), `next` the row to write (add, update). */
export interface GrantCheck {
  model: ModelDefinition;
  /** The acting user's id. */
  actorId: number;
  /** Menu codes the acting user holds. */
  codes: ReadonlySet<string>;
  /** The operation's transaction: every lookup reads what the write will see. */
  db: Knex;
  op: 'add' | 'update' | 'delete';
  stored?: FormRow;
  next?: FormRow;
}

const USER_TABLE = 'fw_user';
const ROLE_TABLE = 'fw_role';
const MENU_TABLE = 'fw_menu';
const ORG_TABLE = 'fw_org';
const OPEN_API_TABLE = 'fw_open_api';
const USER_ROLE = 'fw_user_role';
const ROLE_MENU = 'fw_role_menu';
const USER_ORG = 'fw_user_org';
const LOGIN_LOG = 'fw_login_log';

/**
 * True when writes to `model` can hand out permissions, so {@link checkGrants} has work to do
 * (decided by defineModel: `model.capabilities.holdsGrants`).
 */
export function holdsGrants(model: ModelDefinition): boolean {
  return model.capabilities.holdsGrants;
}

function fieldOf(model: ModelDefinition, column: string): FieldDefinition | undefined {
  return Object.values(model.fields).find((f) => f.stored && f.column === column);
}

function linkField(model: ModelDefinition, joinTable: string): FieldDefinition | undefined {
  return Object.values(model.fields).find((f) => f.edit.collection?.joinTable === joinTable);
}

function denied(path: string, message: string): never {
  const detail: FwErrorDetail = { path, type: 'grant', message };
  throw dataError('GRANT_DENIED', message, [detail]);
}

function ids(value: unknown): number[] {
  return Array.isArray(value) ? value.filter((v): v is number => typeof v === 'number' && Number.isSafeInteger(v)) : [];
}

function added(field: FieldDefinition, stored: FormRow | undefined, next: FormRow): number[] {
  if (!(field.name in next)) return [];
  const before = new Set(ids(stored?.[field.name]));
  return ids(next[field.name]).filter((id) => !before.has(id));
}

function truthy(value: unknown): boolean {
  return value === true || value === 1 || value === '1' || value === 'true';
}

/** Codes of the given menus (menus without a code grant nothing). */
async function menuCodes(db: Knex, menuIds: number[]): Promise<Set<string>> {
  if (menuIds.length === 0) return new Set();
  const rows: Array<{ code: string | null }> = await db(MENU_TABLE).whereIn('id', menuIds).whereNotNull('code').select('code');
  return new Set(rows.map((r) => r.code as string));
}

/** Codes every one of the given roles gives, whatever the role's or the menu's status today (either may change later). */
async function roleCodes(db: Knex, roleIds: number[]): Promise<Set<string>> {
  if (roleIds.length === 0) return new Set();
  const rows: Array<{ code: string | null }> = await db(MENU_TABLE)
    .join(ROLE_MENU, `${ROLE_MENU}.menu_id`, `${MENU_TABLE}.id`)
    .whereIn(`${ROLE_MENU}.role_id`, roleIds)
    .whereNotNull(`${MENU_TABLE}.code`)
    .select(`${MENU_TABLE}.code`);
  return new Set(rows.map((r) => r.code as string));
}

/**
 * For every role, the codes it gives that `held` lacks (empty: the holder may assign it), by the
 * same rule a user save is refused with ("You may not assign a role that grants what you do not
 * hold"). For the permission editor's role picker (`GET /power/assignable`).
 */
export async function rolesLacking(db: Knex, held: ReadonlySet<string>): Promise<Map<number, string[]>> {
  const rows: Array<{ role_id: unknown; code: string | null }> = await db(ROLE_MENU)
    .join(MENU_TABLE, `${MENU_TABLE}.id`, `${ROLE_MENU}.menu_id`)
    .whereNotNull(`${MENU_TABLE}.code`)
    .select(`${ROLE_MENU}.role_id as role_id`, `${MENU_TABLE}.code as code`);
  const given = new Map<number, Set<string>>();
  for (const r of rows) {
    const id = Number(r.role_id);
    given.set(id, (given.get(id) ?? new Set()).add(r.code as string));
  }
  return new Map([...given].map(([id, codes]) => [id, missing(codes, held)]));
}

/**
 * Codes a user's roles give, whatever the role's or the menu's status today: a locked role or a
 * disabled menu may be switched back on later, and whoever controls the account then holds them.
 */
async function userCodes(db: Knex, userId: number): Promise<Set<string>> {
  const rows: Array<{ code: string | null }> = await db(MENU_TABLE)
    .join(ROLE_MENU, `${ROLE_MENU}.menu_id`, `${MENU_TABLE}.id`)
    .join(USER_ROLE, `${USER_ROLE}.role_id`, `${ROLE_MENU}.role_id`)
    .where(`${USER_ROLE}.user_id`, userId)
    .whereNotNull(`${MENU_TABLE}.code`)
    .select(`${MENU_TABLE}.code`);
  return new Set(rows.map((r) => r.code as string));
}

/**
 * Whether someone holding `held` may hand out the menu whose code is `code` (to a role, or through
 * a role to a user): a menu with no code grants nothing, so anyone may; any other only someone who
 * holds it. The one rule behind every "you may not grant" refusal below, and what the permission
 * editor's grantable matrix (`GET /power/grantable`) reports per menu. Administrators are not
 * asked: they may grant everything.
 * @example mayGrantMenu('Book@DELETE', new Set(['Book', 'Book@ADD'])); // false
 */
export function mayGrantMenu(code: string | null | undefined, held: ReadonlySet<string>): boolean {
  return code === null || code === undefined || code === '' || held.has(code);
}

function missing(codes: Iterable<string>, held: ReadonlySet<string>): string[] {
  return [...codes].filter((c) => !mayGrantMenu(c, held)).sort();
}

/** Codes for a message: the first five, then how many more. */
export function listed(codes: string[]): string {
  return codes.length > 5 ? `${codes.slice(0, 5).join(', ')} and ${codes.length - 5} more` : codes.join(', ');
}

/** The organisations the user belongs to and every organisation below them. */
export async function orgScope(db: Knex, userId: number): Promise<Set<number>> {
  const own: Array<{ org_id: unknown }> = await db(USER_ORG).where('user_id', userId).select('org_id');
  const scope = new Set(own.map((r) => Number(r.org_id)));
  if (scope.size === 0) return scope;
  const all: Array<{ id: unknown; parent_id: unknown }> = await db(ORG_TABLE).select('id', 'parent_id');
  const children = new Map<number, number[]>();
  for (const org of all) {
    if (org.parent_id === null || org.parent_id === undefined) continue;
    const parent = Number(org.parent_id);
    children.set(parent, [...(children.get(parent) ?? []), Number(org.id)]);
  }
  const queue = [...scope];
  while (queue.length > 0) {
    for (const child of children.get(queue.pop()!) ?? []) {
      if (!scope.has(child)) {
        scope.add(child);
        queue.push(child);
      }
    }
  }
  return scope;
}

type Scope = () => Promise<Set<number>>;

async function signedInAsAdmin(db: Knex, userId: number): Promise<boolean> {
  return (await db(LOGIN_LOG).where('user_id', userId).where('is_admin', true).first('id')) !== undefined;
}

/**
 * A non-administrator may change another account only when it is no administrator and holds
 * nothing they lack: no menu code, and no organisation outside their own scope (a new password
 * would hand them whatever rows that organisation opens).
 */
async function checkAccount(check: GrantCheck, scope: Scope, userId: number, isAdmin: boolean | undefined, path: string): Promise<void> {
  const admin = isAdmin ?? truthy((await check.db(USER_TABLE).where('id', userId).first('is_admin'))?.is_admin);
  if (admin) denied(path, 'Only an administrator may change an administrator’s account');
  if (userId === check.actorId) return;
  // A login hook may make a sign-in an administrator without the stored flag (issue 10 §7): the
  // login log remembers it, so the account stays an administrator's after the token is gone.
  if (await signedInAsAdmin(check.db, userId)) denied(path, 'This account has signed in as an administrator; only an administrator may change it');
  const lacking = missing(await userCodes(check.db, userId), check.codes);
  if (lacking.length > 0) denied(path, `This account holds grants you do not hold (${listed(lacking)}); only someone who holds them, or an administrator, may change it`);
  const orgs: Array<{ org_id: unknown }> = await check.db(USER_ORG).where('user_id', userId).select('org_id');
  if (orgs.length > 0) {
    const inScope = await scope();
    const outside = orgs.map((r) => Number(r.org_id)).filter((id) => !inScope.has(id));
    if (outside.length > 0) denied(path, `This account belongs to organisations outside your own (${outside.join(', ')}); only someone whose scope covers them, or an administrator, may change it`);
  }
}

async function checkUser(check: GrantCheck, scope: Scope): Promise<void> {
  const { model, stored, next, op } = check;
  const adminField = fieldOf(model, 'is_admin');
  const path = adminField?.name ?? 'isAdmin';
  if (op === 'add') {
    if (adminField && truthy(next?.[adminField.name])) denied(path, 'Only an administrator may make an administrator');
    return;
  }
  const id = Number(stored?.[model.primaryKey]);
  const wasAdmin = adminField ? truthy(stored?.[adminField.name]) : undefined;
  if (op === 'update' && adminField && next && adminField.name in next && truthy(next[adminField.name]) !== wasAdmin) {
    denied(path, 'Only an administrator may set or change the administrator flag');
  }
  await checkAccount(check, scope, id, wasAdmin, op === 'delete' ? model.primaryKey : path);
}

async function checkRole(check: GrantCheck): Promise<void> {
  const { model, stored, next, db, codes } = check;
  if (!next) return;
  const menus = linkField(model, ROLE_MENU);
  const status = fieldOf(model, 'status');
  // Adding menus hands them to every holder of the role; so does bringing a locked role back.
  const reopened = check.op === 'update' && status !== undefined && next[status.name] === USER_STATUS.NORMAL && stored?.[status.name] !== USER_STATUS.NORMAL;
  let given: Set<string>;
  if (reopened) given = new Set([...(await roleCodes(db, [Number(stored?.[model.primaryKey])])), ...(menus ? await menuCodes(db, added(menus, stored, next)) : [])]);
  else given = menus ? await menuCodes(db, added(menus, stored, next)) : new Set();
  const lacking = missing(given, codes);
  if (lacking.length > 0) denied(reopened ? status!.name : menus!.name, `You may not grant menus you do not hold (${listed(lacking)})`);
}

/** A menu's value as compared: empty and absent are one. */
function target(value: unknown): unknown {
  return value === undefined || value === '' ? null : value;
}

async function checkMenu(check: GrantCheck): Promise<void> {
  const { model, stored, next, codes, op } = check;
  const code = fieldOf(model, 'code');
  const status = fieldOf(model, 'status');
  // A menu is the grant its code names: someone who does not hold it changes or removes none of
  // it (the "Users" entry, a function menu of a model they cannot use), issue 19 §1. A menu with
  // no code grants nothing, like everywhere in these rules.
  const own = code ? stored?.[code.name] : undefined;
  if (op !== 'add' && typeof own === 'string' && own !== '' && !codes.has(own)) {
    denied(model.primaryKey, `This menu is the grant ${own}, which you do not hold; only someone who holds it, or an administrator, may change it`);
  }
  if (!next) return;
  if (code) {
    const value = next[code.name] ?? null;
    const changed = op === 'add' || value !== (stored?.[code.name] ?? null);
    const enabled = status !== undefined && op === 'update' && stored?.[status.name] === MENU_STATUS.DISABLED && next[status.name] !== MENU_STATUS.DISABLED;
    // A menu's code is the grant itself: renaming a menu that roles link to re-grants it to them.
    if ((changed || enabled) && typeof value === 'string' && value !== '' && !codes.has(value)) {
      denied(changed ? code.name : status!.name, `You may not create or enable a menu with a code you do not hold (${value})`);
    }
    // A menu model that links roles itself grants its code to the roles it adds.
    const roles = linkField(model, ROLE_MENU);
    if (roles && added(roles, stored, next).length > 0 && typeof value === 'string' && value !== '' && !codes.has(value)) {
      denied(roles.name, `You may not grant menus you do not hold (${value})`);
    }
  }
  // Where a menu leads is the administrators' to say: a page is framed inside everyone's admin UI,
  // with its origin and storage, so a non-administrator who could point one at the sign-on
  // hand-off page with their own token would swap an administrator's session for theirs.
  const details: FwErrorDetail[] = [];
  for (const column of ['type', 'value']) {
    const field = fieldOf(model, column);
    if (!field) continue;
    const set = op === 'add' ? target(next[field.name]) !== null : field.name in next && target(next[field.name]) !== target(stored?.[field.name]);
    if (set) details.push({ path: field.name, type: 'grant', message: `Only an administrator may set or change a menu’s ${field.name}` });
  }
  if (details.length > 0) throw dataError('GRANT_DENIED', `Only an administrator may set or change where a menu leads (${details.map((d) => d.path).join(', ')})`, details);
}

async function checkOrg(check: GrantCheck, scope: Scope): Promise<void> {
  const { model, stored, next, op } = check;
  const parent = fieldOf(model, 'parent_id');
  if (op !== 'add' && !(await scope()).has(Number(stored?.[model.primaryKey]))) {
    denied(model.primaryKey, 'You may change only organisations within your own');
  }
  if (!next || !parent) return;
  const before = stored?.[parent.name] ?? null;
  const after = next[parent.name] ?? null;
  if (op === 'add' || after !== before) {
    if (after === null || !(await scope()).has(Number(after))) denied(parent.name, 'You may place organisations only within your own');
  }
}

async function checkOpenApi(check: GrantCheck, scope: Scope): Promise<void> {
  const { model, stored, next, op } = check;
  const owner = fieldOf(model, 'user_id');
  if (!owner) return;
  // A key stands for its user: its secret is a password of that account, so changing or deleting
  // a key is changing the account it belongs to (a new secret on an administrator's key signs in
  // as the administrator), and making or moving one is as good as changing the account it names.
  const before = stored?.[owner.name];
  if (op !== 'add' && typeof before === 'number') await checkAccount(check, scope, before, undefined, op === 'delete' ? model.primaryKey : owner.name);
  if (!next || op === 'delete') return;
  const after = next[owner.name];
  if (op === 'update' && after === before) return;
  if (typeof after !== 'number') return; // validation reports a missing or wrong owner
  await checkAccount(check, scope, after, undefined, owner.name);
}

/** The id a row holds in `column` (declared under any field name, the key included), if any. */
function idIn(model: ModelDefinition, row: FormRow | undefined, column: string): number | undefined {
  const field = fieldOf(model, column);
  const value = field && row ? row[field.name] : undefined;
  return typeof value === 'number' ? value : undefined;
}

/**
 * A host's own model over one of the link tables (a user's roles, a role's menus, a user's
 * organisations) writes grants row by row: each new pair is checked like the collection it
 * stands for, and changing which roles or organisations an account has is changing the account.
 */
async function checkLinkRow(check: GrantCheck, scope: Scope): Promise<void> {
  const { model, stored, next, op, db, codes } = check;
  const path = (column: string) => fieldOf(model, column)?.name ?? column;
  const [left, right] = model.table === ROLE_MENU ? ['role_id', 'menu_id'] : model.table === USER_ROLE ? ['user_id', 'role_id'] : ['user_id', 'org_id'];
  if (left === 'user_id') {
    const users = new Set([idIn(model, stored, 'user_id'), op === 'delete' ? undefined : idIn(model, next, 'user_id')]);
    for (const user of users) if (user !== undefined) await checkAccount(check, scope, user, undefined, path('user_id'));
  }
  if (!next || op === 'delete') return;
  const given = idIn(model, next, right);
  // A row keyed by either column may move the pair along the other one: both sides are compared.
  const samePair = op === 'update' && idIn(model, stored, left) === idIn(model, next, left) && idIn(model, stored, right) === given;
  if (given === undefined || samePair) return;
  if (right === 'org_id') {
    if (!(await scope()).has(given)) denied(path(right), `You may assign only organisations within your own (not ${given})`);
    return;
  }
  const lacking = missing(right === 'role_id' ? await roleCodes(db, [given]) : await menuCodes(db, [given]), codes);
  if (lacking.length > 0) denied(path(right), `You may not grant what you do not hold (${listed(lacking)})`);
}

/**
 * Checks one write against the rules of who may grant what. Runs only for non-administrators,
 * inside the write's transaction: with the row as asked, before validation (a refusal is a 403,
 * never a 422), and again with the final row when a `before…` hook may have changed it.
 * @throws {FwError} 403 `GRANT_DENIED` naming the field.
 */
export async function checkGrants(check: GrantCheck): Promise<void> {
  const { model, stored, next, db } = check;
  let scopeCache: Promise<Set<number>> | undefined;
  const scope: Scope = () => (scopeCache ??= orgScope(db, check.actorId));
  if (model.table === USER_TABLE) await checkUser(check, scope);
  if (model.table === ROLE_TABLE) await checkRole(check);
  if (model.table === MENU_TABLE) await checkMenu(check);
  if (model.table === ORG_TABLE) await checkOrg(check, scope);
  if (model.table === OPEN_API_TABLE) await checkOpenApi(check, scope);
  if (PERMISSION_LINKS.has(model.table)) await checkLinkRow(check, scope);
  if (!next) return;
  const roles = linkField(model, USER_ROLE);
  if (roles && model.table !== ROLE_TABLE) {
    const newRoles = added(roles, stored, next);
    const lacking = missing(await roleCodes(db, newRoles), check.codes);
    if (lacking.length > 0) denied(roles.name, `You may not assign a role that grants what you do not hold (${listed(lacking)})`);
  }
  const orgs = linkField(model, USER_ORG);
  if (orgs && model.table !== ORG_TABLE) {
    const newOrgs = added(orgs, stored, next);
    if (newOrgs.length > 0) {
      const inScope = await scope();
      const outside = newOrgs.filter((id) => !inScope.has(id));
      if (outside.length > 0) denied(orgs.name, `You may assign only organisations within your own (not ${outside.join(', ')})`);
    }
  }
}
