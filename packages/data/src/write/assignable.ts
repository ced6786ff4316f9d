// The user form's role and organisation pickers (issue 20 §1): every role and organisation with
// whether the editor may assign it, by grant-rules' own rules — a role only when it grants nothing
// the editor lacks (`rolesLacking`), an organisation only within the editor's scope (`orgScope`).
import type { FwUser } from '@fw/core';
import type { FwOrgRecord, FwRoleRecord } from '@fw/store';
import type { Knex } from 'knex';
import { listed, orgScope, rolesLacking } from './grant-rules.js';

/** One role or organisation as the picker offers it. */
export interface AssignableEntry {
  id: number;
  name: string;
  code: string | null;
  /** Organisations: the parent's id; tree order with `depth`. */
  parentId?: number | null;
  depth?: number;
  /** Roles: `normal` or `locked`. */
  status?: string;
  /** The editor may add it to a user. */
  grantable: boolean;
  refusal?: { code: 'NOT_HELD' | 'OUT_OF_SCOPE'; message: string };
}

/** `GET /power/assignable`. */
export interface AssignableLists {
  editor: { id: number; isAdmin: boolean };
  /** The user model and its fields over `fw_user_role` and `fw_user_org` (when it has them). */
  user: { model: string; roles?: string; orgs?: string };
  roles: AssignableEntry[];
  orgs: AssignableEntry[];
}

/** Organisations in tree order (parents first, by sort then id) with their depth. */
function orgTree(orgs: readonly FwOrgRecord[]): Array<FwOrgRecord & { depth: number }> {
  const ids = new Set(orgs.map((o) => o.id));
  const children = new Map<number | null, FwOrgRecord[]>();
  for (const o of [...orgs].sort((a, b) => a.sort - b.sort || a.id - b.id)) {
    const parent = o.parentId !== null && ids.has(o.parentId) ? o.parentId : null;
    children.set(parent, [...(children.get(parent) ?? []), o]);
  }
  const out: Array<FwOrgRecord & { depth: number }> = [];
  const seen = new Set<number>();
  const visit = (o: FwOrgRecord, depth: number) => {
    if (seen.has(o.id)) return;
    seen.add(o.id);
    out.push({ ...o, depth });
    for (const c of children.get(o.id) ?? []) visit(c, depth + 1);
  };
  for (const top of children.get(null) ?? []) visit(top, 0);
  return out;
}

/** Builds the lists for `editor`, who holds `held` (ignored for administrators). */
export async function assignableLists(
  db: Knex,
  editor: FwUser,
  held: ReadonlySet<string>,
  lists: { roles: readonly FwRoleRecord[]; orgs: readonly FwOrgRecord[] },
  user: AssignableLists['user'],
): Promise<AssignableLists> {
  const admin = editor.isAdmin === true;
  const lacking = admin ? new Map<number, string[]>() : await rolesLacking(db, held);
  const scope = admin ? undefined : await orgScope(db, editor.id);
  const roles = lists.roles.map((r): AssignableEntry => {
    const lack = lacking.get(r.id) ?? [];
    const entry: AssignableEntry = { id: r.id, name: r.name, code: r.code, status: r.status, grantable: lack.length === 0 };
    if (lack.length > 0) entry.refusal = { code: 'NOT_HELD', message: `This role grants what you do not hold (${listed(lack)})` };
    return entry;
  });
  const orgs = orgTree(lists.orgs).map((o): AssignableEntry => {
    const inScope = scope === undefined || scope.has(o.id);
    const entry: AssignableEntry = { id: o.id, name: o.name, code: o.code, parentId: o.parentId, depth: o.depth, grantable: inScope };
    if (!inScope) entry.refusal = { code: 'OUT_OF_SCOPE', message: 'This organisation is outside your own' };
    return entry;
  });
  return { editor: { id: editor.id, isAdmin: admin }, user, roles, orgs };
}
