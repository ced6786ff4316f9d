// The permission explainer (issue 20 §1): for one user and one model, each power flag with the
// ordered steps that give or take it. It explains by running the engine's own parts — declared
// power, `grantedPower` (menu grants, admin bypass), `resolvePower` (the handler and the final
// switches) — and takes the final value from the very function `GET /build/{fw}` answers with,
// so the explanation never disagrees with what the routes enforce.
import { POWER_FLAGS, type FwUser, type ModelDefinition, type PowerFlag, type PowerObject } from '@fw/core';
import { grantedPower, menuCodeForFlag, modelMenuCode, resolvePower } from '@fw/power';
import type { Knex } from 'knex';

/** A role that gives a menu code to the user. */
export interface GrantingRole {
  id: number;
  name: string;
  /** The granting menu's id and name. */
  menu: { id: number; name: string };
}

/**
 * One step of a flag's explanation; `value` is the flag after this step.
 * - `declared`: the model's declared power;
 * - `admin`: administrators hold every menu;
 * - `modelMenu` / `functionMenu`: the menu `code`, `held` or not, and the `roles` that give it;
 * - `handler`: the model's `powerHandler` (`changed` when it turned the flag);
 * - `aiGate` / `cellGate`: a declared `ai: false` / `cellEdit: false`, which nothing reopens
 *   (`fields` lists the fields whose own `cellEdit` is off);
 * - `requires`: a flag that needs another one (`copy` needs `add`, `cellEdit` needs `edit`).
 */
export interface ExplainStep {
  kind: 'declared' | 'admin' | 'modelMenu' | 'functionMenu' | 'handler' | 'aiGate' | 'cellGate' | 'requires';
  value: boolean;
  code?: string;
  held?: boolean;
  roles?: GrantingRole[];
  changed?: boolean;
  requires?: PowerFlag;
  fields?: string[];
}

/** `GET /power/explain/{fw}?user=`. */
export interface PowerExplanation {
  model: { name: string; title: string };
  user: { id: number; account: string; name: string | null; isAdmin: boolean };
  /** The effective power, exactly as `GET /build/{fw}` gives it to this user. */
  power: PowerObject;
  flags: Array<{ flag: PowerFlag; value: boolean; steps: ExplainStep[] }>;
}

/** What the explainer needs: the user's held codes, the roles behind each, and the effective power. */
export interface ExplainInput {
  model: ModelDefinition;
  user: FwUser;
  /** Codes the user holds (the store's `grants.codesForUser`); empty for administrators. */
  held: ReadonlySet<string>;
  /** Roles giving each held code. */
  roles: ReadonlyMap<string, GrantingRole[]>;
  /** The effective power from the data service (`DataService.power`). */
  power: PowerObject;
}

const DEPENDS: Partial<Record<PowerFlag, PowerFlag>> = { copy: 'add', cellEdit: 'edit' };

/** The roles (normal status) giving each enabled menu code to `userId`: the names beside the grants. */
export async function grantingRoles(db: Knex, userId: number): Promise<Map<string, GrantingRole[]>> {
  const rows: Array<{ code: string; menu_id: unknown; menu_name: string; role_id: unknown; role_name: string }> = await db('fw_menu')
    .join('fw_role_menu', 'fw_role_menu.menu_id', 'fw_menu.id')
    .join('fw_role', 'fw_role.id', 'fw_role_menu.role_id')
    .join('fw_user_role', 'fw_user_role.role_id', 'fw_role.id')
    .where('fw_user_role.user_id', userId)
    .where('fw_role.status', 'normal')
    .whereNot('fw_menu.status', 'disabled')
    .whereNotNull('fw_menu.code')
    .orderBy('fw_role.id')
    .select('fw_menu.code as code', 'fw_menu.id as menu_id', 'fw_menu.name as menu_name', 'fw_role.id as role_id', 'fw_role.name as role_name');
  const out = new Map<string, GrantingRole[]>();
  for (const r of rows) out.set(r.code, [...(out.get(r.code) ?? []), { id: Number(r.role_id), name: r.role_name, menu: { id: Number(r.menu_id), name: r.menu_name } }]);
  return out;
}

function menuStep(kind: 'modelMenu' | 'functionMenu', code: string, input: ExplainInput, before: boolean): ExplainStep {
  const held = input.held.has(code);
  return { kind, code, held, roles: input.roles.get(code) ?? [], value: before && held };
}

/**
 * Explains each of the eleven flags of `input.user` on `input.model`. Runs the model's
 * `powerHandler` once more (through `resolvePower`) to show what it did.
 * @throws whatever the handler throws.
 */
export async function explainPower(input: ExplainInput): Promise<PowerExplanation> {
  const { model, user, power } = input;
  const admin = user.isAdmin === true;
  const granted = grantedPower(model, user, input.held);
  const handled = model.powerHandler ? await resolvePower(model, user, input.held) : undefined;
  const flags = POWER_FLAGS.map((flag) => {
    const steps: ExplainStep[] = [];
    let value = model.power[flag] === true;
    steps.push({ kind: 'declared', value });
    if (admin) steps.push({ kind: 'admin', value });
    else {
      const own = menuStep('modelMenu', modelMenuCode(model), input, value);
      steps.push(own);
      value = own.value;
      const fnCode = menuCodeForFlag(model, flag);
      if (fnCode !== undefined) {
        steps.push(menuStep('functionMenu', fnCode, input, value));
      }
    }
    // The engine is the authority; the steps above name its parts.
    value = granted[flag];
    if (handled) {
      steps.push({ kind: 'handler', value: handled[flag] === true, changed: (handled[flag] === true) !== value });
      value = handled[flag] === true;
    }
    if (flag === 'ai' && model.power.ai === false) steps.push({ kind: 'aiGate', value: false });
    if (flag === 'cellEdit') {
      const fields = Object.values(model.fields).filter((f) => f.edit.cellEdit === false).map((f) => f.name);
      if (model.power.cellEdit === false || fields.length > 0) steps.push({ kind: 'cellGate', value: model.power.cellEdit === false ? false : value, fields });
    }
    const requires = DEPENDS[flag];
    if (requires !== undefined) steps.push({ kind: 'requires', requires, value: power[flag] === true });
    return { flag, value: power[flag] === true, steps };
  });
  return {
    model: { name: model.name, title: model.title },
    user: { id: user.id, account: user.account, name: user.name ?? null, isAdmin: admin },
    power,
    flags,
  };
}
