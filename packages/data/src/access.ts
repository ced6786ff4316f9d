// Who may do what on which model: the model by name, the caller's effective power (declared
// flags, menu grants, the power handler) with the menu codes behind it, and the gate a route
// needs. DataService and its facades (transfer/, files/, write/trash-facade.ts) check power here
// before they hand the work on, so every way in answers the same 404 and 403.
import { FwError, type FwUser, type ModelDefinition, type ModelRegistry, type PowerFlag, type PowerObject } from '@fw/core';
import { PowerResolver, assertPower } from '@fw/power';
import type { FwStore } from '@fw/store';
import type { DataScope } from './bodies.js';
import type { PowerGate } from './gates.js';
import type { QueryLimits } from './read/query.js';
import type { Actor } from './service-types.js';
import { holdsGrants } from './write/grant-rules.js';

/** Power of every grant: administrators skip the menu lookup. */
const ADMIN_GRANTS = { codes: new Set<string>(), version: 'admin' } as const;

/** What a {@link DataAccess} reads. */
export interface DataAccessDeps {
  store: FwStore;
  registry: ModelRegistry;
  limits: QueryLimits;
  /** The power engine; one is made when absent. */
  power?: PowerResolver;
}

/** Resolves models and power for the data service (one per service: it caches menu codes). */
export class DataAccess {
  readonly #store: FwStore;
  readonly #registry: ModelRegistry;
  readonly #limits: QueryLimits;
  readonly #power: PowerResolver;
  // Menu codes per user, valid for one grants version.
  readonly #grants = new Map<number, { version: number; codes: Set<string> }>();

  constructor(deps: DataAccessDeps) {
    this.#store = deps.store;
    this.#registry = deps.registry;
    this.#limits = deps.limits;
    this.#power = deps.power ?? new PowerResolver();
  }

  /**
   * The registered model called `name`.
   * @throws {FwError} 404 `MODEL_NOT_FOUND`.
   */
  model(name: unknown): ModelDefinition {
    const model = typeof name === 'string' ? this.#registry.get(name) : undefined;
    if (!model) throw new FwError('MODEL_NOT_FOUND', `Unknown model ${JSON.stringify(name)}`, { extra: { model: typeof name === 'string' ? name : null } });
    return model;
  }

  async #grantsOf(user: FwUser, knownVersion?: number): Promise<{ codes: ReadonlySet<string>; version: number | string }> {
    if (user.isAdmin) return ADMIN_GRANTS;
    const version = knownVersion ?? (await this.#store.grants.version());
    const cached = this.#grants.get(user.id);
    if (cached && cached.version === version) return cached;
    const codes = await this.#store.grants.codesForUser(user.id);
    if (this.#grants.size >= 10_000) this.#grants.clear();
    const entry = { version, codes };
    this.#grants.set(user.id, entry);
    return entry;
  }

  /**
   * The power every check here reads: {@link resolve}, unless the owner routes it through a
   * method of its own (DataService does, through its `power`, so a subclass that changes that
   * method changes every check).
   */
  powerOf: (model: ModelDefinition, user: FwUser, grantsVersion?: number) => Promise<PowerObject> = (model, user, grantsVersion) => this.resolve(model, user, grantsVersion);

  /**
   * The user's effective power on the model (declared flags, menu grants, handler).
   * @param grantsVersion the grants version when already known for this request.
   */
  async resolve(model: ModelDefinition, user: FwUser, grantsVersion?: number): Promise<PowerObject> {
    const power = await this.#power.resolve(model, user, await this.#grantsOf(user, grantsVersion));
    // What a UI reads must be what the routes allow: copying adds a row, and a cell edit is an edit.
    if ((power.copy && !power.add) || (power.cellEdit && !power.edit)) return { ...power, copy: power.copy && power.add, cellEdit: power.cellEdit && power.edit };
    return power;
  }

  /** Menu codes the actor holds, when their write to `model` must be checked against them (see grant-rules). */
  async grantCodes(model: ModelDefinition, actor: Actor): Promise<ReadonlySet<string> | undefined> {
    if (actor.user.isAdmin || !holdsGrants(model)) return undefined;
    return (await this.#grantsOf(actor.user, actor.grantsVersion)).codes;
  }

  /** Resolves the actor's power and checks `flags`; returns the power. @throws {FwError} 403 `POWER_DENIED`. */
  async requirePower(model: ModelDefinition, actor: Actor, flags: PowerFlag | PowerFlag[]): Promise<PowerObject> {
    const power = await this.powerOf(model, actor.user, actor.grantsVersion);
    assertPower(power, flags, model.name);
    return power;
  }

  /**
   * The scope of a gated data route: the model called `name` and the actor's power on it, once
   * `gate` lets them through.
   * @throws {FwError} 404 `MODEL_NOT_FOUND`, 403 the gate's refusal.
   */
  async scope(name: unknown, actor: Actor, gate: PowerGate): Promise<DataScope> {
    const model = this.model(name);
    const power = await this.powerOf(model, actor.user, actor.grantsVersion);
    gate.check(power, model);
    return { model, power, limits: this.#limits };
  }
}
