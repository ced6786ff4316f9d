import { runPowerHandler, type ModelDefinition, type PowerFlags, type PowerHandler, type PowerObject } from '@fw/core';
import { FUNCTION_MENU_SUFFIXES, modelMenuCode } from './menu-codes.js';

/** The user a power is computed for: `id` and `account` of the `fw_user` row, and its admin flag. */
export interface PowerUser {
  /** Id of the `fw_user` row. */
  readonly id: number;
  /** Login account. */
  readonly account: string;
  /** Administrators hold every menu grant; they never reopen declared `ai: false` / `cellEdit: false`. */
  readonly isAdmin?: boolean | undefined;
}

/** The model parts the engine reads: its name, declared flags and handler. */
export type PowerModel = Pick<ModelDefinition, 'name' | 'power' | 'powerHandler'>;

type MenuPlan = { readonly model: string } & { readonly [F in keyof typeof FUNCTION_MENU_SUFFIXES]: string };

// Menu codes per definition, so a check builds no strings. Definitions are frozen.
const plans = new WeakMap<PowerModel, MenuPlan>();

function menuPlan(model: PowerModel): MenuPlan {
  let plan = plans.get(model);
  if (plan === undefined) {
    const code = (suffix: string) => `${model.name}@${suffix}`;
    const s = FUNCTION_MENU_SUFFIXES;
    plan = {
      model: modelMenuCode(model),
      add: code(s.add),
      delete: code(s.delete),
      edit: code(s.edit),
      viewDetails: code(s.viewDetails),
      export: code(s.export),
      importable: code(s.importable),
    };
    plans.set(model, plan);
  }
  return plan;
}

const NOTHING: Readonly<PowerFlags> = Object.freeze({
  add: false,
  delete: false,
  edit: false,
  query: false,
  viewDetails: false,
  export: false,
  importable: false,
  print: false,
  copy: false,
  cellEdit: false,
  ai: false,
});

/** A plain copy of the eleven flags, always with the same shape (fast to create and to read). */
export function copyFlags(power: Readonly<PowerFlags>): PowerObject {
  return {
    add: power.add,
    delete: power.delete,
    edit: power.edit,
    query: power.query,
    viewDetails: power.viewDetails,
    export: power.export,
    importable: power.importable,
    print: power.print,
    copy: power.copy,
    cellEdit: power.cellEdit,
    ai: power.ai,
  };
}

/**
 * The effective flags of `user` on `model` from the definition and the menu grants alone, before
 * the model's `powerHandler` runs. Each flag is on when all of these hold:
 *
 * 1. the model declares it on (`model.power`, defaults applied);
 * 2. the user is an administrator, or holds the model's menu ({@link modelMenuCode});
 * 3. the user is an administrator, or holds the flag's function menu
 *    ({@link menuCodeForFlag}), for the six flags that have one.
 *
 * A flag declared off stays off, for administrators as well. Pure and synchronous.
 *
 * @param grants codes of the menus granted to the user through its roles. The caller leaves out
 *   disabled menus (and menus of disabled roles): a code in this set grants, whatever its status.
 * @returns a new object with every flag of `POWER_FLAGS` as a boolean.
 * @example
 * grantedPower(Book, { id: 7, account: 'ann' }, new Set(['Book', 'Book@EDIT'])).edit; // true
 */
export function grantedPower(model: PowerModel, user: PowerUser, grants: ReadonlySet<string>): PowerObject {
  const admin = user.isAdmin === true;
  const plan = menuPlan(model);
  if (!admin && !grants.has(plan.model)) return copyFlags(NOTHING);
  const d = model.power;
  // Written out flag by flag (no loop, no closure): this runs on every uncached check.
  return {
    add: d.add === true && (admin || grants.has(plan.add)),
    delete: d.delete === true && (admin || grants.has(plan.delete)),
    edit: d.edit === true && (admin || grants.has(plan.edit)),
    query: d.query === true,
    viewDetails: d.viewDetails === true && (admin || grants.has(plan.viewDetails)),
    export: d.export === true && (admin || grants.has(plan.export)),
    importable: d.importable === true && (admin || grants.has(plan.importable)),
    print: d.print === true,
    copy: d.copy === true,
    cellEdit: d.cellEdit === true,
    ai: d.ai === true,
  };
}

/**
 * Runs the model's `powerHandler` (if any) on a copy of `granted` and applies the final rules:
 * flags left non-boolean become false, and declared `ai: false` / `cellEdit: false` win over
 * whatever the handler set. Shared by {@link resolvePower} and `PowerResolver`.
 */
export function applyPowerHandler(model: PowerModel, user: PowerUser, granted: Readonly<PowerFlags>): Promise<PowerObject> {
  const handler = model.powerHandler;
  // No handler: skip the async machinery, this is the hot path of every guarded request.
  if (handler === undefined) return Promise.resolve(copyFlags(granted));
  return handle(model, handler, user, copyFlags(granted));
}

/**
 * {@link applyPowerHandler} without a promise where none is needed: the result comes back at once
 * when the model has no handler or its handler returned without a promise, and as a promise
 * only when the handler returned one. The handler runs on every call either way.
 *
 * @throws whatever a handler throws synchronously (a rejected promise when it rejects).
 */
export function applyPowerHandlerNow(model: PowerModel, user: PowerUser, granted: Readonly<PowerFlags>): PowerObject | Promise<PowerObject> {
  const handler = model.powerHandler;
  const power = copyFlags(granted);
  if (handler === undefined) return power;
  const pending = runPowerHandler(handler, power, { user, model: model.name });
  if (isThenable(pending)) return Promise.resolve(pending).then(() => settle(model, power));
  return settle(model, power);
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof value === 'object' && value !== null && typeof (value as PromiseLike<unknown>).then === 'function';
}

async function handle(model: PowerModel, handler: PowerHandler, user: PowerUser, power: PowerObject): Promise<PowerObject> {
  await runPowerHandler(handler, power, { user, model: model.name });
  return settle(model, power);
}

/** The rules applied after a handler ran: non-booleans become false, declared switches win. */
function settle(model: PowerModel, power: PowerObject): PowerObject {
  // A handler writing 'yes', 1 or null must not leave a truthy non-boolean that a check like
  // `if (power.edit)` would read as granted, nor a flag a check like `=== false` would miss.
  // Written out flag by flag (the same eleven as POWER_FLAGS): this runs on every handled check.
  if (power.add !== true) power.add = false;
  if (power.delete !== true) power.delete = false;
  if (power.edit !== true) power.edit = false;
  if (power.query !== true) power.query = false;
  if (power.viewDetails !== true) power.viewDetails = false;
  if (power.export !== true) power.export = false;
  if (power.importable !== true) power.importable = false;
  if (power.print !== true) power.print = false;
  if (power.copy !== true) power.copy = false;
  if (power.cellEdit !== true) power.cellEdit = false;
  if (power.ai !== true) power.ai = false;
  // Final switches: checked against the definition, so neither a handler nor an admin reopens them.
  if (model.power.ai === false) power.ai = false;
  if (model.power.cellEdit === false) power.cellEdit = false;
  return power;
}

/**
 * The effective power of `user` on `model`: {@link grantedPower}, then the model's
 * `powerHandler` (a function or `{ handler }`, awaited) changes a fresh copy, receiving
 * `{ user, model: model.name }`. Afterwards every flag that is not `true` is `false`, declared
 * `ai: false` and `cellEdit: false` are applied again, and extra keys the handler added are kept.
 *
 * No caching: see `PowerResolver` for the per-request path.
 *
 * @param grants codes of the user's granted menus, disabled menus left out by the caller.
 * @throws whatever the handler throws.
 * @example
 * const menus = await store.menus.menusForUser(user.id); // disabled menus already left out
 * const power = await resolvePower(Book, user, new Set(menus.flatMap((menu) => menu.code ?? [])));
 * if (!power.edit) throw new FwError('POWER_DENIED', 'Not permitted: edit on Book');
 */
export async function resolvePower(model: PowerModel, user: PowerUser, grants: ReadonlySet<string>): Promise<PowerObject> {
  return applyPowerHandler(model, user, grantedPower(model, user, grants));
}
