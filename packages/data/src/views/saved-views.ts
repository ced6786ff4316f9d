// Saved views of a model's table (issue 23 §1): a name, the table query's conditions, sort and
// page size, and the columns shown. Plain data in, plain data out; the routes (http/view-routes.ts)
// and the store (`store.views`) do the rest. A view is checked with the table query's own parser
// when it is saved, and looked at again when it is loaded: a model changes, and a view naming a
// field that is gone is answered as broken rather than failing the whole list.
import { FwError, isFwError, isObject, type ConditionNode, type FwErrorDetail, type FwUser, type ModelDefinition } from '@fw/core';
import type { FwSavedViewRecord, SavedViewInput } from '@fw/store';
import { parseTableQuery, type QueryLimits } from '../read/query.js';
import { dataError } from '../error-codes.js';

/** Bounds of saved views. */
export const VIEW_LIMITS = Object.freeze({
  /** Longest name, in characters. */
  nameLength: 100,
  /** Most views one user owns per model. */
  perUserAndModel: 50,
  /** Most roles one view is shared with. */
  roles: 50,
  /** Most columns one view lists. */
  columns: 200,
  /** Largest request body of a save, in bytes. */
  bodyBytes: 64 * 1024,
});

/** A save request, checked: `id` present means "replace my view `id`". */
export interface ViewSave {
  id?: number;
  view: SavedViewInput;
}

/** A view as `GET /views/{fw}` answers it. */
export interface ViewAnswer {
  id: number;
  name: string;
  /** The caller owns it (and may change, share and delete it). */
  mine: boolean;
  /** Its owner; `account` when the list could read it (a view shared by someone else shows whose it is). */
  owner: { id: number; account?: string };
  conditions: unknown;
  sort: unknown;
  size: number | null;
  columns: unknown;
  /** The roles it is shared with: told to its owner only. */
  roles?: number[];
  /** The fields it names that the model no longer has, or no longer lets a query use. */
  broken?: { fields: string[]; message: string };
  createdAt: string;
  updatedAt: string;
}

function badRequest(path: string, message: string): FwError {
  return new FwError('BAD_REQUEST', message, { details: [{ path, type: 'view', message }] });
}

const ROW_ID = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v >= 1 && v <= 2147483647;

/** The conditions as the caller wrote them, without keys the parser ignores (what is stored). */
function plainConditions(raw: unknown): ConditionNode[] {
  if (!Array.isArray(raw)) return [];
  return raw.map((c: Record<string, unknown>) => {
    if (Array.isArray(c.or)) return { or: plainConditions(c.or) };
    if (Array.isArray(c.and)) return { and: plainConditions(c.and) };
    return { field: c.field as string, op: (c.op ?? 'eq') as never, ...(c.value !== undefined ? { value: c.value } : {}) };
  });
}

/**
 * Checks a save body `{ id?, name, conditions?, sort?, size?, columns?, roles? }` against the
 * model. Conditions, sort and size go through the table query's parser, so a view holds only what
 * the table would accept (errors as the table query's: `BAD_QUERY` / `UNKNOWN_FIELD` at
 * `conditions[0].or[1].value`); the rest is `BAD_REQUEST` naming the key. Who may share with which
 * role is not decided here (see {@link sharingRefusal}).
 */
export function parseViewSave(model: ModelDefinition, body: unknown, limits: QueryLimits): ViewSave {
  if (!isObject(body)) throw badRequest('body', 'A view is { name, conditions, sort, size, columns, roles }');
  const known = new Set(['id', 'name', 'conditions', 'sort', 'size', 'columns', 'roles']);
  const extra = Object.keys(body).find((k) => !known.has(k));
  if (extra !== undefined) throw badRequest(extra, `A view has no ${JSON.stringify(extra)}`);
  if (body.id !== undefined && !ROW_ID(body.id)) throw badRequest('id', 'id must be the id of one of your views');
  const name = typeof body.name === 'string' ? body.name.trim() : undefined;
  // eslint-disable-next-line no-control-regex -- control characters have no place in a name shown in a menu
  if (!name || name.length > VIEW_LIMITS.nameLength || /[\u0000-\u001f\u007f]/.test(name)) {
    throw badRequest('name', `name must be text of 1 to ${VIEW_LIMITS.nameLength} characters, without control characters`);
  }
  const query = parseTableQuery(model, { conditions: body.conditions, sort: body.sort, ...(body.size !== undefined ? { size: body.size } : {}) }, limits);
  const sortGiven = body.sort !== undefined && body.sort !== null && body.sort !== '' && !(Array.isArray(body.sort) && body.sort.length === 0);
  let columns: string[] | null = null;
  if (body.columns !== undefined && body.columns !== null) {
    if (!Array.isArray(body.columns) || body.columns.length > VIEW_LIMITS.columns) throw badRequest('columns', `columns must be a list of at most ${VIEW_LIMITS.columns} field names`);
    columns = body.columns.map((c: unknown, i) => {
      if (typeof c !== 'string' || !Object.hasOwn(model.fields, c)) throw dataError('UNKNOWN_FIELD', `${model.name} has no field ${JSON.stringify(c)}`, [{ path: `columns[${i}]`, type: 'unknownField', message: `unknown field ${JSON.stringify(c)}` }]);
      return c;
    });
  }
  let roles: number[] = [];
  if (body.roles !== undefined && body.roles !== null) {
    if (!Array.isArray(body.roles) || body.roles.length > VIEW_LIMITS.roles) throw badRequest('roles', `roles must be a list of at most ${VIEW_LIMITS.roles} role ids`);
    roles = body.roles.map((r: unknown, i) => {
      if (!ROW_ID(r)) throw badRequest(`roles[${i}]`, 'a role id is a positive whole number');
      return r;
    });
  }
  return {
    ...(body.id !== undefined ? { id: body.id } : {}),
    view: {
      name,
      conditions: plainConditions(body.conditions),
      sort: sortGiven ? query.sort : [],
      pageSize: body.size === undefined || body.size === null ? null : query.size,
      columns,
      roleIds: [...new Set(roles)],
    },
  };
}

/**
 * Why `user` may not share a view with `roleIds`, or undefined when they may: an administrator
 * with any role; anyone else only with roles they hold themselves (`held`), so sharing never
 * reaches people the owner could not reach by their own grants (the who-may-grant rule).
 */
export function sharingRefusal(user: FwUser, roleIds: readonly number[], held: ReadonlySet<number>): FwError | undefined {
  if (user.isAdmin === true) return undefined;
  const details: FwErrorDetail[] = [];
  roleIds.forEach((id, i) => {
    if (!held.has(id)) details.push({ path: `roles[${i}]`, type: 'grant', message: `You do not hold role ${id}; you may share a view only with roles you hold` });
  });
  return details.length > 0 ? dataError('GRANT_DENIED', 'You may share a view only with roles you hold', details) : undefined;
}

/** The fields a stored view names that `model` no longer lets it use. */
function missingFields(model: ModelDefinition, view: FwSavedViewRecord): string[] {
  const missing = new Set<string>();
  const usable = (name: unknown, queried: boolean) => {
    const field = typeof name === 'string' && Object.hasOwn(model.fields, name) ? model.fields[name] : undefined;
    if (!field || (queried && !field.capabilities.queryable)) missing.add(String(name));
  };
  // Stored JSON is walked defensively: a row written around the routes may hold anything.
  const walk = (nodes: unknown): void => {
    if (!Array.isArray(nodes)) return;
    for (const n of nodes) {
      if (!isObject(n)) continue;
      if (Array.isArray(n.or) || Array.isArray(n.and)) walk(n.or ?? n.and);
      else usable(n.field, true);
    }
  };
  walk(view.conditions);
  for (const s of Array.isArray(view.sort) ? view.sort : []) if (isObject(s)) usable(s.field, true);
  for (const c of Array.isArray(view.columns) ? view.columns : []) usable(c, false);
  return [...missing].sort();
}

/**
 * A stored view as the list answers it for `userId`. A view that no longer fits the model (a
 * field gone, or a value its field no longer takes) comes back with `broken` instead of failing
 * the list: its owner can see it, fix it or delete it.
 */
export function viewAnswer(model: ModelDefinition, view: FwSavedViewRecord, userId: number, limits: QueryLimits, ownerAccount?: string): ViewAnswer {
  const mine = view.userId === userId;
  const answer: ViewAnswer = {
    id: view.id,
    name: view.name,
    mine,
    owner: { id: view.userId, ...(ownerAccount !== undefined ? { account: ownerAccount } : {}) },
    conditions: view.conditions,
    sort: view.sort,
    size: view.pageSize,
    columns: view.columns,
    ...(mine ? { roles: view.roleIds } : {}),
    createdAt: view.createdAt.toISOString(),
    updatedAt: view.updatedAt.toISOString(),
  };
  const fields = missingFields(model, view);
  if (fields.length > 0) {
    answer.broken = { fields, message: `This view names fields ${model.name} no longer has: ${fields.join(', ')}` };
    return answer;
  }
  try {
    parseTableQuery(model, { conditions: view.conditions, sort: view.sort, ...(view.pageSize !== null ? { size: view.pageSize } : {}) }, limits);
  } catch (error) {
    if (!isFwError(error)) throw error;
    const at = error.details?.[0]?.path ?? '';
    answer.broken = { fields: [], message: `This view no longer fits ${model.name}${at ? ` (at ${at})` : ''}: ${error.message}` };
  }
  return answer;
}
