import {
  EditType,
  GRANT_TABLES,
  FwDefinitionError,
  FwError,
  hashPassword,
  type Condition,
  type DataHookContext,
  type DataSource,
  type FieldDefinition,
  type FwErrorDetail,
  type FwUser,
  type ModelDefinition,
  type ModelRegistry,
  type PowerFlag,
  type PowerObject,
} from '@fw/core';
import { PowerResolver, assertPower } from '@fw/power';
import { changedColumns, patchRow, readEntity, toDbValues, toFormRow, validateRow, cellEditRefusal, integerBounds, type FormRow } from '@fw/row-patch';
import { classifyDbError, violationConcerns, type FwStore } from '@fw/store';
import type { Knex } from 'knex';
import { csvLine, parseCsv, uncsvCell } from './csv.js';
import { dataError } from './error-codes.js';
import { checkGrants, holdsGrants } from './grant-rules.js';
import { endKeySessions, endsKeySessions, keyAppIds } from './key-sessions.js';
import { matchesVersion, rowVersion } from './row-version.js';
import { DataEvents, type EditEvent } from './events.js';
import { writeOperateLog, writeOperateLogIn } from './operate-log.js';
import { printPage } from './print.js';
import { DEFAULT_QUERY_LIMITS, applyConditions, parseConditions, parseTableQuery, type QueryLimits } from './query.js';
import { referenceCandidates, tableLabels, type ReferenceCandidatePage, type ReferenceDeps, type ReferenceLabels } from './references.js';
import { modelView, type ModelView } from './schema-view.js';

/** Who is acting, from where. */
export interface Actor {
  user: FwUser;
  /** Client address, for the operate log. */
  ip: string | null;
  /** `http` for the data API (form and cell edits alike), `ai` for AI tools, `import` for imports. */
  source: DataSource;
  /** The grants version, when authentication already read it; otherwise the service reads it. */
  grantsVersion?: number;
  /** The token the request carried: a password change of one's own account keeps it alive. */
  token?: string;
}

/** What the data service needs of a token service: ending a user's sessions. */
export interface TokenRevoker {
  revokeUser(userId: number, options?: { except?: string }): Promise<number>;
  /** Ends one token by its hash: the tokens exchanged with an open-API key end when the key changes. */
  revokeHash?(hash: string): Promise<boolean>;
}

/** Options of {@link DataService.update}. */
export interface UpdateOptions {
  /** The row version the client read (an `If-Match` header): a row changed since is not overwritten. */
  ifMatch?: string;
}

/** Options of {@link DataService}. */
export interface DataServiceOptions {
  store: FwStore;
  registry: ModelRegistry;
  /** Page-size and condition bounds of table queries. */
  limits?: Partial<QueryLimits>;
  /** Most rows one export writes. @default 100000 */
  exportMaxRows?: number;
  /** Most rows one import reads. @default 10000 */
  importMaxRows?: number;
  /** The power engine; one is made when absent. */
  power?: PowerResolver;
  /**
   * Ends a user's other sessions when an edit changes their password, administrator flag or
   * status. Without it, such edits still apply to the next request of a locked account, but a
   * new password leaves old tokens alive. `fwData` passes its token service.
   */
  tokens?: TokenRevoker;
  /** Called with errors that must not fail the request (operate-log writes, event listeners). @default console.error */
  onBackgroundError?: (error: unknown) => void;
}

/** One page of a table query. */
export interface TablePage {
  /** The rows, COLLECTION fields included (as arrays of ids). */
  rows: FormRow[];
  total: number;
  page: number;
  size: number;
  /** Labels of the reference and collection values in `rows`: field → id → label (rows the user may not see left out). */
  labels: ReferenceLabels;
}

/** What an operation tells its operate-log row once it knows (the row before, the id, the request as logged). */
interface LogNotes {
  before?: unknown;
  targetId?: string | null;
  request?: unknown;
  /** Writes the success row inside the operation's transaction; set by `#logged`. */
  commit?: (trx: Knex.Transaction) => Promise<void>;
  /** True once the success row was written in the transaction. */
  written?: boolean;
}

/** A page query compiled once per shape: its SQL and bindings, the offset as {@link OFFSET_SLOT}. */
interface PagePlan {
  page: { sql: string; bindings: readonly unknown[] };
  count: { sql: string; bindings: readonly unknown[] };
}

/** Stands for the offset in a compiled page query until the real one is put in its place. */
const OFFSET_SLOT = 999_999_937;

/** Rows of a `knex.raw` result, whatever the driver wraps them in. */
function rawRows(dialect: string, result: unknown): Array<Record<string, unknown>> {
  if (dialect === 'postgres') return (result as { rows: Array<Record<string, unknown>> }).rows;
  if (dialect === 'mysql') return (result as [Array<Record<string, unknown>>])[0];
  return result as Array<Record<string, unknown>>;
}

const USER_TABLE = 'fw_user';
/** Columns of `fw_user` that the sessions of a user depend on. */
const SESSION_COLUMNS = new Set(['password_hash', 'is_admin', 'status']);

/** Power of every grant: administrators skip the menu lookup. */
const ADMIN_GRANTS = { codes: new Set<string>(), version: 'admin' } as const;

function positiveId(value: unknown, path = 'id'): number {
  const n = typeof value === 'string' && /^\d{1,15}$/.test(value) ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < 1) throw dataError('BAD_ID', undefined, [{ path, type: 'typeError', message: 'must be a positive whole number' }]);
  return n;
}

/** A row id of `model`: a positive whole number (else 400); one beyond the key column is a row that cannot exist (404). */
function rowId(model: ModelDefinition, value: unknown, path = 'id'): number {
  const id = positiveId(value, path);
  const bounds = integerBounds(model.fields[model.primaryKey]!);
  if (bounds && id > bounds.max) throw new FwError('ROW_NOT_FOUND', `No ${model.name} with id ${id}`, { extra: { model: model.name, id } });
  return id;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function validationError(details: FwErrorDetail[], message = 'The row is not valid'): FwError {
  return new FwError('VALIDATION_FAILED', message, { details });
}

function sameValue(a: unknown, b: unknown): boolean {
  return JSON.stringify(a ?? null) === JSON.stringify(b ?? null);
}

/**
 * The data operations of Fw models, with every permission, visibility rule, validation, hook,
 * operate log and edit event applied. The HTTP routes and the AI tools both go through it, so
 * there is one code path per operation.
 */
export class DataService {
  /** Edit events: `events.on('update', (event) => …)`. */
  readonly events = new DataEvents();
  readonly store: FwStore;
  readonly registry: ModelRegistry;
  readonly limits: QueryLimits;
  readonly #power: PowerResolver;
  readonly #exportMaxRows: number;
  readonly #importMaxRows: number;
  readonly #onBackgroundError: (error: unknown) => void;
  readonly #tokens: TokenRevoker | undefined;
  // Menu codes per user, valid for one grants version.
  readonly #grants = new Map<number, { version: number; codes: Set<string> }>();
  // Compiled SQL of unconditioned table pages, by model, sort, size and whether there is an offset.
  readonly #pagePlans = new Map<string, PagePlan>();

  constructor(options: DataServiceOptions) {
    if (!options?.store?.knex) throw new FwDefinitionError('fwData.store', 'an FwStore is required');
    if (!options.registry || typeof options.registry.get !== 'function') throw new FwDefinitionError('fwData.registry', 'a ModelRegistry is required');
    this.store = options.store;
    this.registry = options.registry;
    this.limits = { ...DEFAULT_QUERY_LIMITS, ...options.limits };
    for (const [key, value] of Object.entries(this.limits)) {
      if (!Number.isInteger(value) || value < 1) throw new FwDefinitionError(`fwData.limits.${key}`, `must be a positive whole number, got ${String(value)}`);
    }
    if (this.limits.defaultSize > this.limits.maxSize) throw new FwDefinitionError('fwData.limits.defaultSize', 'must not exceed maxSize');
    this.#exportMaxRows = options.exportMaxRows ?? 100_000;
    this.#importMaxRows = options.importMaxRows ?? 10_000;
    this.#power = options.power ?? new PowerResolver();
    this.#tokens = options.tokens;
    this.#onBackgroundError = options.onBackgroundError ?? ((error) => console.error('[fw/data]', error));
    this.events.on('error', (error) => this.#onBackgroundError(error));
  }

  /**
   * The registered model called `name`.
   * @throws {FwError} 404 `MODEL_NOT_FOUND`.
   */
  model(name: unknown): ModelDefinition {
    const model = typeof name === 'string' ? this.registry.get(name) : undefined;
    if (!model) throw new FwError('MODEL_NOT_FOUND', `Unknown model ${JSON.stringify(name)}`, { extra: { model: typeof name === 'string' ? name : null } });
    return model;
  }

  async #grantsOf(user: FwUser, knownVersion?: number): Promise<{ codes: ReadonlySet<string>; version: number | string }> {
    if (user.isAdmin) return ADMIN_GRANTS;
    const version = knownVersion ?? (await this.store.grants.version());
    const cached = this.#grants.get(user.id);
    if (cached && cached.version === version) return cached;
    const codes = await this.store.grants.codesForUser(user.id);
    if (this.#grants.size >= 10_000) this.#grants.clear();
    const entry = { version, codes };
    this.#grants.set(user.id, entry);
    return entry;
  }

  /**
   * The user's effective power on the model (declared flags, menu grants, handler).
   * @param grantsVersion the grants version when already known for this request.
   */
  async power(model: ModelDefinition, user: FwUser, grantsVersion?: number): Promise<PowerObject> {
    const power = await this.#power.resolve(model, user, await this.#grantsOf(user, grantsVersion));
    // What a UI reads must be what the routes allow: copying adds a row, and a cell edit is an edit.
    if ((power.copy && !power.add) || (power.cellEdit && !power.edit)) return { ...power, copy: power.copy && power.add, cellEdit: power.cellEdit && power.edit };
    return power;
  }

  /** Menu codes the actor holds, when their write to `model` must be checked against them (see grant-rules). */
  async #grantCodes(model: ModelDefinition, actor: Actor): Promise<ReadonlySet<string> | undefined> {
    if (actor.user.isAdmin || !holdsGrants(model)) return undefined;
    return (await this.#grantsOf(actor.user, actor.grantsVersion)).codes;
  }

  /** Resolves the actor's power and checks `flags`; returns the power. @throws {FwError} 403 `POWER_DENIED`. */
  async require(model: ModelDefinition, actor: Actor, flags: PowerFlag | PowerFlag[]): Promise<PowerObject> {
    const power = await this.power(model, actor.user, actor.grantsVersion);
    assertPower(power, flags, model.name);
    return power;
  }

  #hookContext(model: ModelDefinition, actor: Actor, action: DataHookContext['action']): DataHookContext {
    return { user: actor.user, model: model.name, action, source: actor.source };
  }

  /** Row-visibility conditions from `beforeFetch`, checked to name declared fields. */
  async visibility(model: ModelDefinition, actor: Actor, action: DataHookContext['action']): Promise<Condition[]> {
    const extra = await model.dataProxy.beforeFetch?.(this.#hookContext(model, actor, action));
    if (!extra) return [];
    if (!Array.isArray(extra)) throw new Error(`${model.name}.dataProxy.beforeFetch must return an array of conditions`);
    return extra;
  }

  #columns(model: ModelDefinition, withSecrets = false): string[] {
    return Object.values(model.fields)
      .filter((f) => f.stored && (withSecrets || f.edit.type !== EditType.PASSWORD))
      .map((f) => `${model.table}.${f.column}`);
  }

  #pkColumn(model: ModelDefinition): string {
    return model.fields[model.primaryKey]!.column;
  }

  async #afterFetch(model: ModelDefinition, actor: Actor, action: DataHookContext['action'], rows: FormRow[]): Promise<FormRow[]> {
    const hook = model.dataProxy.afterFetch;
    if (!hook) return rows;
    const result = await hook(rows, this.#hookContext(model, actor, action));
    return Array.isArray(result) ? result : rows;
  }

  async #collections(model: ModelDefinition, db: Knex, ids: number[]): Promise<Map<number, Record<string, number[]>>> {
    const out = new Map<number, Record<string, number[]>>(ids.map((id) => [id, {}]));
    for (const field of Object.values(model.fields)) {
      const c = field.edit.collection;
      if (!c) continue;
      for (const id of ids) out.get(id)![field.name] = [];
      if (ids.length === 0) continue;
      const links: Array<Record<string, unknown>> = await db(c.joinTable).whereIn(c.ownKey, ids).orderBy(c.foreignKey).select(c.ownKey, c.foreignKey);
      for (const link of links) out.get(Number(link[c.ownKey]))?.[field.name]?.push(Number(link[c.foreignKey]));
    }
    return out;
  }

  /** Loads one visible row (with collections) as the edit form sees it, locking it inside a transaction. */
  async #loadVisible(model: ModelDefinition, actor: Actor, action: DataHookContext['action'], id: number, db: Knex, lock: boolean): Promise<FormRow> {
    const conditions = await this.visibility(model, actor, action);
    const qb = db(model.table).select(this.#columns(model)).where(`${model.table}.${this.#pkColumn(model)}`, id);
    applyConditions(qb, model, conditions);
    if (lock && this.store.dialect !== 'sqlite') qb.forUpdate();
    const row: Record<string, unknown> | undefined = await qb.first();
    // A row the user cannot see is a row that does not exist, as far as they can tell.
    if (!row) throw new FwError('ROW_NOT_FOUND', `No ${model.name} with id ${id}`, { extra: { model: model.name, id } });
    const form = toFormRow(model, row);
    Object.assign(form, (await this.#collections(model, db, [id])).get(id));
    return form;
  }

  /** Schema and effective power, for a UI. Needs at least one permitted operation. */
  async schema(name: string, actor: Actor): Promise<{ model: ModelView; power: PowerObject }> {
    const model = this.model(name);
    const power = await this.power(model, actor.user, actor.grantsVersion);
    if (!(['query', 'add', 'edit', 'delete', 'viewDetails'] as const).some((flag) => power[flag])) {
      throw new FwError('POWER_DENIED', `Not permitted: any operation on ${model.name}`);
    }
    return { model: modelView(model, this.registry), power };
  }

  /** One page of visible rows. Needs `query`. */
  async query(name: string, actor: Actor, body: unknown): Promise<TablePage> {
    const model = this.model(name);
    await this.require(model, actor, 'query');
    const query = parseTableQuery(model, body, this.limits);
    const conditions = [...query.conditions, ...(await this.visibility(model, actor, 'query'))];
    const knex = this.store.knex;
    const pk = `${model.table}.${this.#pkColumn(model)}`;
    const build = (offset: number) => {
      const select = applyConditions(knex(model.table).select(this.#columns(model)), model, conditions);
      for (const s of query.sort) select.orderBy(`${model.table}.${model.fields[s.field]!.column}`, s.order);
      select.orderBy(pk, 'asc').limit(query.size);
      if (offset > 0) select.offset(offset);
      return { select, count: applyConditions(knex(model.table).count({ n: '*' }), model, conditions) };
    };
    const offset = (query.page - 1) * query.size;
    let rows: Array<Record<string, unknown>>;
    let counted: Array<Record<string, unknown>>;
    if (conditions.length === 0) {
      // Paging through a whole table is the commonest read: its SQL depends only on the shape, so
      // it is compiled once and sent as is (the query builder's work, once per shape).
      const key = `${model.name}\u0000${JSON.stringify(query.sort)}\u0000${query.size}\u0000${offset > 0}`;
      let plan = this.#pagePlans.get(key);
      if (!plan) {
        const { select, count } = build(offset > 0 ? OFFSET_SLOT : 0);
        const page = select.toSQL();
        const total = count.toSQL();
        plan = { page: { sql: page.sql, bindings: page.bindings }, count: { sql: total.sql, bindings: total.bindings } };
        if (this.#pagePlans.size >= 1000) this.#pagePlans.clear();
        this.#pagePlans.set(key, plan);
      }
      const bindings = plan.page.bindings.map((b) => (b === OFFSET_SLOT ? offset : b)) as Knex.RawBinding[];
      const [pageResult, countResult] = await Promise.all([knex.raw(plan.page.sql, bindings), knex.raw(plan.count.sql, plan.count.bindings as Knex.RawBinding[])]);
      rows = rawRows(this.store.dialect, pageResult);
      counted = rawRows(this.store.dialect, countResult);
    } else {
      const { select, count } = build(offset);
      [rows, counted] = (await Promise.all([select, count])) as [Array<Record<string, unknown>>, Array<Record<string, unknown>>];
    }
    const total = Number(counted[0]?.n ?? 0);
    const form = rows.map((row) => toFormRow(model, row));
    // Collections too, one query per field for the page, so a table can show them by label.
    const ids = form.map((row) => row[model.primaryKey]).filter((id): id is number => typeof id === 'number');
    const links = await this.#collections(model, knex, ids);
    for (const row of form) Object.assign(row, links.get(row[model.primaryKey] as number));
    const shown = await this.#afterFetch(model, actor, 'query', form);
    return { rows: shown, total, page: query.page, size: query.size, labels: await tableLabels(this.#referenceDeps(actor), model, shown) };
  }

  #referenceDeps(actor: Actor): ReferenceDeps {
    return { knex: this.store.knex, registry: this.registry, limits: this.limits, visibility: (target, action) => this.visibility(target, actor, action) };
  }

  /**
   * One page of the rows a reference or collection field may point at (`{ search?, page?, size?,
   * ids? }` → `{ rows: [{ id, label, parentId? }], total, page, size }`), for a form's or cell
   * editor's picker. Needs `add`, `edit` or `query` on the referencing model, not on the
   * referenced one, whose row visibility applies.
   */
  async referenceCandidates(name: string, actor: Actor, fieldName: string, body: unknown): Promise<ReferenceCandidatePage> {
    const model = this.model(name);
    const power = await this.power(model, actor.user, actor.grantsVersion);
    if (!power.add && !power.edit && !power.query) throw new FwError('POWER_DENIED', `Not permitted: add, edit or query on ${model.name}`);
    return referenceCandidates(this.#referenceDeps(actor), model, fieldName, body);
  }

  /** One visible row with its collections. Needs `viewDetails` (or `edit`). */
  async details(name: string, actor: Actor, rawId: unknown): Promise<FormRow> {
    return (await this.detailsWithVersion(name, actor, rawId)).row;
  }

  /**
   * One visible row with its version: an opaque tag of the stored values that changes whenever
   * any of them does. Hand it back to {@link update} (`ifMatch`) so a stale form cannot overwrite
   * a newer change. Needs `viewDetails` (or `edit`).
   */
  async detailsWithVersion(name: string, actor: Actor, rawId: unknown): Promise<{ row: FormRow; version: string }> {
    const model = this.model(name);
    const power = await this.power(model, actor.user, actor.grantsVersion);
    if (!power.viewDetails && !power.edit) assertPower(power, 'viewDetails', model.name);
    const id = rowId(model, rawId);
    const row = await this.#loadVisible(model, actor, 'details', id, this.store.knex, false);
    const version = rowVersion(model, row);
    const [shown] = await this.#afterFetch(model, actor, 'details', [row]);
    return { row: shown ?? row, version };
  }

  /**
   * The row as it is written: PASSWORD values hashed (or kept, for `hashed: false`), empty ones
   * dropped so the stored secret stays; salts that live in their own column come back apart.
   */
  async #secretsForStorage(model: ModelDefinition, values: FormRow): Promise<{ row: FormRow; extraColumns: Record<string, unknown> }> {
    const row = { ...values };
    const extraColumns: Record<string, unknown> = {};
    for (const field of Object.values(model.fields)) {
      if (field.edit.type !== EditType.PASSWORD) continue;
      const plain = row[field.name];
      if (plain === undefined || plain === null || plain === '') {
        delete row[field.name];
        continue;
      }
      if (field.edit.hashed === false) continue;
      const { hash, salt } = await hashPassword(String(plain));
      if (field.edit.saltColumn) {
        row[field.name] = hash;
        extraColumns[field.edit.saltColumn] = salt;
      } else row[field.name] = `scrypt:${salt}:${hash}`;
    }
    return { row, extraColumns };
  }

  async #extraValidation(model: ModelDefinition, row: FormRow, context: DataHookContext): Promise<void> {
    const details = await validateRow(model, row, { dialect: this.store.dialect });
    if (details.length > 0) throw validationError(details);
    const extra = await model.dataProxy.validate?.(row, context);
    if (Array.isArray(extra) && extra.length > 0) {
      throw validationError(extra.map((e) => ({ path: e.path ?? '', type: e.type ?? 'validate', message: e.message })));
    }
  }

  /**
   * A constraint or value error of the database on a write to `model`, as the client error it is:
   * a taken unique key is 409 `CONFLICT`, a missing referenced row, a null in a NOT NULL column or
   * a value the column refuses is 422 `VALIDATION_FAILED`, each naming the field where the driver
   * tells which column (`row` supplies the value when the driver does not print it).
   */
  #violationError(model: ModelDefinition, error: unknown, row?: Readonly<FormRow>): FwError | undefined {
    const violation = classifyDbError(error);
    if (!violation) return undefined;
    const field = Object.values(model.fields).find(
      (f) => (f.stored && violationConcerns(violation, model.table, f.column)) || (f.edit.collection !== undefined && violationConcerns(violation, f.edit.collection.joinTable, f.edit.collection.foreignKey)),
    );
    const title = field?.edit.title ?? 'a value';
    const at = field ? { path: field.name } : {};
    const given = field && row && Object.hasOwn(row, field.name) ? row[field.name] : undefined;
    const value = violation.value !== undefined ? JSON.stringify(violation.value) : given !== undefined && given !== null ? JSON.stringify(given) : undefined;
    switch (violation.kind) {
      case 'unique': {
        const message = `${title}${value === undefined ? '' : ` ${value}`} is already taken`;
        return new FwError('CONFLICT', `${model.name}: ${message}`, { details: [{ ...at, type: 'unique', message }], cause: error });
      }
      case 'stillReferenced':
        return new FwError('CONFLICT', `${model.name}: other rows still refer to this row`, { details: [{ path: model.primaryKey, type: 'referenced', message: 'other rows still refer to this row' }], cause: error });
      case 'missingReference':
        return new FwError('VALIDATION_FAILED', 'The row is not valid', { details: [{ ...at, type: 'reference', message: `${title} names a row that does not exist` }], cause: error });
      case 'notNull':
        return new FwError('VALIDATION_FAILED', 'The row is not valid', { details: [{ ...at, type: 'required', message: `${title} is a required field` }], cause: error });
      case 'outOfRange':
      case 'invalidValue':
        return new FwError('VALIDATION_FAILED', 'The row is not valid', { details: [{ ...at, type: 'typeError', message: `${title} cannot be stored in its column` }], cause: error });
    }
  }

  /**
   * References and collections of `row` must name existing rows of their model (when that model is
   * registered): a 422 naming each field that points nowhere. Only values that differ from
   * `stored` are checked, so a row whose old reference went stale can still be edited.
   */
  async #checkReferences(model: ModelDefinition, db: Knex, row: Readonly<FormRow>, stored?: Readonly<FormRow>): Promise<void> {
    const details: FwErrorDetail[] = [];
    for (const field of Object.values(model.fields)) {
      const targetName = field.edit.reference?.model ?? field.edit.collection?.model;
      if (targetName === undefined || !Object.hasOwn(row, field.name)) continue;
      const target = this.registry.get(targetName);
      const value = row[field.name];
      if (!target || value === null || value === undefined || (stored && sameValue(value, stored[field.name]))) continue;
      const ids = (Array.isArray(value) ? value : [value]).filter((v): v is number => typeof v === 'number');
      const before = new Set(stored && Array.isArray(stored[field.name]) ? (stored[field.name] as unknown[]) : []);
      const asked = [...new Set(ids.filter((v) => !before.has(v)))];
      if (asked.length === 0) continue;
      const key = this.#pkColumn(target);
      const found = new Set<number>();
      for (let i = 0; i < asked.length; i += 500) {
        const rows: Array<Record<string, unknown>> = await db(target.table).whereIn(key, asked.slice(i, i + 500)).select(key);
        for (const r of rows) found.add(Number(r[key]));
      }
      const missing = asked.filter((v) => !found.has(v));
      if (missing.length > 0) details.push({ path: field.name, type: 'reference', message: `${field.edit.title} names no existing ${target.name}: ${missing.slice(0, 10).join(', ')}` });
      else if (field.edit.type === EditType.REFERENCE_TREE && target === model && typeof value === 'number' && (await this.#underItself(model, db, field, Number(row[model.primaryKey]), value))) {
        details.push({ path: field.name, type: 'cycle', message: `${field.edit.title} cannot be the row itself or one of the rows below it` });
      }
    }
    if (details.length > 0) throw validationError(details);
  }

  /** True when `parent` is the row `id` or lies below it in the tree `field` builds (a new row has no id and no rows below it). */
  async #underItself(model: ModelDefinition, db: Knex, field: FieldDefinition, id: number, parent: number): Promise<boolean> {
    if (!Number.isSafeInteger(id) || id < 1) return false;
    const key = this.#pkColumn(model);
    const seen = new Set<number>();
    // Walk up from the new parent; a tree that already loops ends the walk when it comes round.
    for (let cursor: number | null = parent; cursor !== null && !seen.has(cursor); ) {
      if (cursor === id) return true;
      seen.add(cursor);
      const up: Record<string, unknown> | undefined = await db(model.table).where(key, cursor).first(field.column);
      const above: unknown = up?.[field.column];
      cursor = above === null || above === undefined ? null : Number(above);
    }
    return false;
  }

  /** Runs one write statement on `model`, turning a constraint error into its client error. */
  async #writing<T>(model: ModelDefinition, row: Readonly<FormRow> | undefined, work: () => PromiseLike<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      throw this.#violationError(model, error, row) ?? error;
    }
  }

  async #writeCollections(model: ModelDefinition, trx: Knex.Transaction, id: number, row: FormRow, only?: Set<string>): Promise<void> {
    for (const field of Object.values(model.fields)) {
      const c = field.edit.collection;
      if (!c || !(field.name in row) || (only && !only.has(field.name))) continue;
      const ids = (row[field.name] as number[] | null) ?? [];
      await trx(c.joinTable).where(c.ownKey, id).delete();
      for (let i = 0; i < ids.length; i += 500) {
        await this.#writing(model, row, () => trx(c.joinTable).insert(ids.slice(i, i + 500).map((other) => ({ [c.ownKey]: id, [c.foreignKey]: other }))));
      }
    }
  }

  /** A new row: the given values, then each absent field's default (or null / no links). */
  #newRow(model: ModelDefinition, values: FormRow): FormRow {
    const row: FormRow = {};
    for (const field of Object.values(model.fields)) {
      if (field.primaryKey) continue;
      if (field.name in values) row[field.name] = values[field.name];
      else if (field.edit.defaultValue !== undefined) row[field.name] = field.edit.defaultValue;
      else row[field.name] = field.edit.collection ? [] : null;
    }
    return row;
  }

  /**
   * Inserts one new row. `sent` names the fields the client gave (explicit nulls included); other
   * fields still empty after `beforeAdd` are left to the database's defaults.
   */
  async #insert(model: ModelDefinition, actor: Actor, trx: Knex.Transaction, values: FormRow, outer: DataHookContext, sent: ReadonlySet<string>, codes?: ReadonlySet<string>): Promise<number> {
    const context: DataHookContext = { ...outer, transaction: trx };
    const row = this.#newRow(model, values);
    await this.#extraValidation(model, row, context);
    await model.dataProxy.beforeAdd?.(row, context);
    // Checked on the row as it will be written, after the hooks had their say.
    if (codes) await checkGrants({ model, actorId: actor.user.id, codes, db: trx, op: 'add', next: row });
    await this.#checkReferences(model, trx, row);
    // Absent fields left empty are not written, so the database's own defaults (timestamps,
    // status) apply; an explicit null from the client is written as null.
    const written: FormRow = {};
    for (const [key, value] of Object.entries(row)) {
      if (value !== null || sent.has(key)) written[key] = value;
    }
    const { row: stored, extraColumns } = await this.#secretsForStorage(model, written);
    const pk = this.#pkColumn(model);
    const columns = { ...toDbValues(model, stored), ...extraColumns };
    // MySQL has no RETURNING (knex warns and gives the insert id instead).
    const result: unknown[] = await this.#writing(model, row, () => (this.store.dialect === 'mysql' ? trx(model.table).insert(columns) : trx(model.table).insert(columns, [pk])));
    const first = result[0];
    const id = Number(isObject(first) ? first[pk] : first);
    if (!Number.isSafeInteger(id) || id < 1) throw new Error(`${model.name}: the insert returned no id`);
    await this.#writeCollections(model, trx, id, row);
    row[model.primaryKey] = id;
    await model.dataProxy.afterAdd?.(row, context);
    return id;
  }

  /** Runs an operation and writes its operate-log row, success or failure; `run` may fill in what it learns. */
  /** True when writing this model can change grants (roles, menus, their links). */
  #touchesGrants(model: ModelDefinition): boolean {
    return GRANT_TABLES.has(model.table) || Object.values(model.fields).some((f) => f.edit.collection !== undefined && GRANT_TABLES.has(f.edit.collection.joinTable));
  }

  /**
   * Runs a write in one transaction; after it commits, marks grants as changed when the model
   * holds them, so power caches on every instance see it on their next request.
   */
  async #transaction<T>(model: ModelDefinition, log: LogNotes | undefined, work: (trx: Knex.Transaction) => Promise<T>): Promise<T> {
    const result = await this.store.knex.transaction(async (trx) => {
      const done = await work(trx);
      // The success row of the operate log commits with the change: one commit, and no change
      // without its record.
      await log?.commit?.(trx);
      return done;
    });
    if (this.#touchesGrants(model)) {
      // The write is committed: a failed bump is reported, not turned into an error answer.
      await this.store.grants.bump().catch((error: unknown) => this.#onBackgroundError(error));
    }
    return result;
  }

  async #logged<T>(model: ModelDefinition, actor: Actor, action: string, targetId: string | null, request: unknown, run: (log: LogNotes) => Promise<T>): Promise<T> {
    const startedAt = performance.now();
    const log: LogNotes = {};
    const entry = (error: unknown) => ({
      model,
      action,
      source: actor.source,
      user: actor.user,
      ip: actor.ip,
      targetId: log.targetId ?? targetId,
      before: log.before,
      request: log.request ?? request,
      error,
      startedAt,
    });
    log.commit = async (trx) => {
      await writeOperateLogIn(this.store, entry(undefined), trx);
      log.written = true;
    };
    try {
      const result = await run(log);
      if (!log.written) await writeOperateLog(this.store, entry(undefined), this.#onBackgroundError);
      return result;
    } catch (error) {
      // The transaction rolled back (its success row too): record the failure on its own.
      log.written = false;
      await writeOperateLog(this.store, entry(error), this.#onBackgroundError);
      throw error;
    }
  }

  /** Adds a row. Needs `add`. Returns the new row as the details view shows it. */
  async add(name: string, actor: Actor, body: unknown): Promise<FormRow> {
    const model = this.model(name);
    await this.require(model, actor, 'add');
    const context = this.#hookContext(model, actor, 'add');
    const codes = await this.#grantCodes(model, actor);
    const id = await this.#logged(model, actor, 'add', null, body, async (log) => {
      const values = this.#readBody(model, body, 'add');
      const sent = new Set(Object.keys(body as object));
      log.request = values;
      const created = await this.#transaction(model, log, async (trx) => {
        const newId = await this.#insert(model, actor, trx, values, context, sent, codes);
        log.targetId = String(newId);
        return newId;
      });
      return created;
    });
    return this.#shown(model, actor, id);
  }

  #readBody(model: ModelDefinition, body: unknown, mode: 'add' | 'update', stored?: FormRow): FormRow {
    if (!isObject(body)) throw new FwError('BAD_REQUEST', 'The body must be a JSON object');
    let input = body;
    if (mode === 'update' && stored) {
      // The edit form sends the whole entity back, read-only fields included: unchanged ones are fine.
      // Own fields only: a key such as `toString` must reach readEntity and be refused there.
      const field = (k: string) => (Object.hasOwn(model.fields, k) ? model.fields[k] : undefined);
      input = Object.fromEntries(Object.entries(body).filter(([k, v]) => !(field(k)?.edit.readonly && !field(k)?.primaryKey && sameValue(v, stored[k]))));
      delete input[model.primaryKey];
    }
    const { values, errors } = readEntity(model, input, mode);
    if (errors.length > 0) {
      const unknown = errors.filter((e) => e.type === 'unknownField');
      if (unknown.length > 0) throw dataError('UNKNOWN_FIELD', `${model.name} has no field ${unknown.map((e) => e.path).join(', ')}`, unknown);
      const readonly = errors.filter((e) => e.type === 'readonly');
      if (readonly.length > 0) throw dataError('READONLY_FIELD', undefined, readonly);
      throw validationError(errors, 'Some values have the wrong type');
    }
    return values;
  }

  async #shown(model: ModelDefinition, actor: Actor, id: number): Promise<FormRow> {
    const knex = this.store.knex;
    const row: Record<string, unknown> | undefined = await knex(model.table).select(this.#columns(model)).where(this.#pkColumn(model), id).first();
    if (!row) throw new FwError('ROW_NOT_FOUND', `No ${model.name} with id ${id}`, { extra: { model: model.name, id } });
    const form = toFormRow(model, row);
    Object.assign(form, (await this.#collections(model, knex, [id])).get(id));
    const [shown] = await this.#afterFetch(model, actor, 'details', [form]);
    return shown ?? form;
  }

  /**
   * The shared update path of the edit form, the cell editor and AI updates: inside one
   * transaction, load the visible row, build the complete entity, validate it whole,
   * `beforeUpdate`, write only the columns that changed, `afterUpdate`; then log and emit.
   */
  async #update(model: ModelDefinition, actor: Actor, id: number, request: unknown, build: (stored: FormRow) => FormRow | Promise<FormRow>, options: UpdateOptions = {}): Promise<FormRow> {
    const outerContext = this.#hookContext(model, actor, 'update');
    const codes = await this.#grantCodes(model, actor);
    let event: EditEvent | undefined;
    let written: FormRow | undefined;
    let stale: FormRow | undefined;
    let endSessions = false;
    let keyChanged: FormRow | undefined;
    await this.#logged(model, actor, 'update', String(id), request, async (log) => {
      await this.#transaction(model, log, async (trx) => {
        const context: DataHookContext = { ...outerContext, transaction: trx };
        const stored = await this.#loadVisible(model, actor, 'update', id, trx, true);
        log.before = stored;
        // Read under the row lock, so no save can slip in between this check and the write.
        if (options.ifMatch !== undefined && !matchesVersion(options.ifMatch, rowVersion(model, stored))) {
          stale = stored;
          throw new FwError('STALE_ROW', `${model.name} ${id} was changed since you read it; nothing was written`);
        }
        const next = await build(stored);
        next[model.primaryKey] = id;
        // What was asked, in one shape for the edit form and the cell editor: the values that differ.
        log.request = { id, changes: this.#changes(model, stored, next) };
        await this.#extraValidation(model, next, context);
        await model.dataProxy.beforeUpdate?.(next, context);
        next[model.primaryKey] = id;
        if (codes) await checkGrants({ model, actorId: actor.user.id, codes, db: trx, op: 'update', stored, next });
        await this.#checkReferences(model, trx, next, stored);
        endSessions = this.#endsSessions(model, this.#changes(model, stored, next));
        if (endsKeySessions(model, this.#changes(model, stored, next))) keyChanged = stored;
        const { row: withSecrets, extraColumns } = await this.#secretsForStorage(model, next);
        const columns = { ...changedColumns(model, stored, withSecrets), ...extraColumns };
        delete columns[this.#pkColumn(model)];
        const changes = this.#changes(model, stored, next);
        const stamp = Object.keys(changes).length > 0 ? this.#updateStamp(model) : undefined;
        if (stamp) {
          const now = new Date();
          columns[stamp.column] = now;
          next[stamp.name] = now.toISOString();
        }
        if (Object.keys(columns).length > 0) await this.#writing(model, next, () => trx(model.table).where(this.#pkColumn(model), id).update(columns));
        const collections = new Set(Object.keys(changes).filter((f) => model.fields[f]?.edit.collection));
        await this.#writeCollections(model, trx, id, next, collections);
        await model.dataProxy.afterUpdate?.(next, context);
        const after = { ...stored, ...Object.fromEntries(Object.entries(next).filter(([k]) => model.fields[k]?.edit.type !== EditType.PASSWORD)) };
        event = { model: model.name, id, user: { id: actor.user.id, account: actor.user.account }, source: actor.source, before: stored, after, changed: Object.keys(changes) };
        written = after;
      });
    }).catch(async (error: unknown) => {
      if (!stale) throw error;
      // The answer carries the row as it is now, so the client can show what changed and retry.
      const [current] = await this.#afterFetch(model, actor, 'details', [stale]);
      const version = rowVersion(model, stale);
      throw new FwError('STALE_ROW', (error as Error).message, { headers: { ETag: version }, extra: { current: current ?? stale, version } });
    });
    if (endSessions) await this.#endSessions(id, actor);
    if (keyChanged) await this.#endKeySessions(model, [keyChanged]);
    if (event && event.changed.length > 0) this.#emit(event);
    // The answer is the row as written (no second read), shown the way the table shows it.
    const [shown] = await this.#afterFetch(model, actor, 'details', [{ ...written! }]);
    return shown ?? written!;
  }

  /**
   * True when an update of a user row changes what its sessions were granted on: the password,
   * the administrator flag or the status. Such a change ends the user's other sessions.
   */
  #endsSessions(model: ModelDefinition, changes: FormRow): boolean {
    if (model.table !== USER_TABLE) return false;
    return Object.keys(changes).some((name) => SESSION_COLUMNS.has(model.fields[name]?.column ?? ''));
  }

  /** Ends the tokens exchanged with these open-API keys (rows of `model`; nothing for other models). */
  async #endKeySessions(model: ModelDefinition, keys: FormRow[]): Promise<void> {
    if (!this.#tokens?.revokeHash) return;
    const revoker = { revokeHash: this.#tokens.revokeHash.bind(this.#tokens) };
    // Committed already; like a user's sessions, a store that cannot revoke must not pass as success.
    await endKeySessions(this.store, revoker, keyAppIds(model, keys));
  }

  /** Ends every session of the user but the acting request's own (a change of one's own password keeps it). */
  async #endSessions(userId: number, actor: Actor): Promise<void> {
    if (!this.#tokens) return;
    const keep = actor.user.id === userId && actor.token ? { except: actor.token } : undefined;
    // The change is committed; a store that cannot revoke must not pass as success, so this may throw (503).
    await this.#tokens.revokeUser(userId, keep);
  }

  /**
   * The field stamped with the time of each update that changes the row: a read-only DATETIME
   * over a column named `updated_at` (the built-in tables' convention; the database only fills it
   * when the row is created).
   */
  #updateStamp(model: ModelDefinition): FieldDefinition | undefined {
    return Object.values(model.fields).find((f) => f.stored && f.column === 'updated_at' && f.edit.type === EditType.DATETIME && f.edit.readonly);
  }

  /** The fields (passwords and the key aside) whose value differs between two form rows. */
  #changes(model: ModelDefinition, before: FormRow, after: FormRow): FormRow {
    const out: FormRow = {};
    for (const field of Object.values(model.fields)) {
      if (field.primaryKey || !(field.name in after)) continue;
      if (field.edit.type === EditType.PASSWORD) {
        if (after[field.name] !== undefined && after[field.name] !== null && after[field.name] !== '') out[field.name] = after[field.name];
      } else if (!sameValue(after[field.name], before[field.name])) out[field.name] = after[field.name];
    }
    return out;
  }

  #emit(event: EditEvent): void {
    // rawListeners keeps `once` wrappers, so a one-time listener removes itself as it should.
    for (const listener of this.events.rawListeners('update')) {
      try {
        const result: unknown = (listener as (e: EditEvent) => unknown)(event);
        if (result instanceof Promise) result.catch((error: unknown) => this.events.emit('error', error));
      } catch (error) {
        this.events.emit('error', error);
      }
    }
  }

  /** The edit form: the whole entity; absent fields keep their stored value. Needs `edit`. */
  async update(name: string, actor: Actor, body: unknown, options: UpdateOptions = {}): Promise<FormRow> {
    const model = this.model(name);
    await this.require(model, actor, 'edit');
    if (!isObject(body)) throw new FwError('BAD_REQUEST', 'The body must be a JSON object');
    const id = rowId(model, body[model.primaryKey], model.primaryKey);
    return this.#update(model, actor, id, body, (stored) => ({ ...stored, ...this.#readBody(model, body, 'update', stored) }), options);
  }

  /**
   * One cell: `{ id, field, value }`. Needs `edit` and both cell-edit switches (checked against
   * the definition before the row is read); the patched row goes through the edit form's path.
   */
  async updateCell(name: string, actor: Actor, body: unknown, options: UpdateOptions = {}): Promise<FormRow> {
    const model = this.model(name);
    // Power first: someone who may not edit learns nothing about the fields.
    const power = await this.require(model, actor, 'edit');
    if (!isObject(body)) throw new FwError('BAD_REQUEST', 'The body must be { id, field, value }');
    // The declared switches and the field, before the row is read.
    const refusal = cellEditRefusal(model, body.field);
    if (refusal) {
      const extra = { model: model.name, ...(typeof body.field === 'string' ? { field: body.field } : {}) };
      throw new FwError(refusal.code, refusal.message, { status: refusal.status, extra, ...(refusal.details ? { details: refusal.details } : {}) });
    }
    assertPower(power, 'cellEdit', model.name);
    const id = rowId(model, body.id);
    if (!('value' in body)) throw new FwError('BAD_REQUEST', 'The body must carry a value (null clears the cell)');
    const field = body.field as string;
    return this.#update(model, actor, id, body, async (stored) => {
      // Validation happens next, in #update, with the same call as the edit form.
      const patched = await patchRow(model, stored, field, body.value, { validate: false });
      if (!patched.ok) throw new FwError(patched.code, patched.message, { status: patched.status, ...(patched.details ? { details: patched.details } : {}) });
      return patched.row;
    }, options);
  }

  /** Deletes visible rows, all or none. Needs `delete`. */
  async delete(name: string, actor: Actor, body: unknown): Promise<{ deleted: number }> {
    const model = this.model(name);
    await this.require(model, actor, 'delete');
    const rawIds = isObject(body) ? body.ids : undefined;
    if (!Array.isArray(rawIds) || rawIds.length === 0 || rawIds.length > 1000) throw new FwError('BAD_REQUEST', 'The body must be { ids: [...] } with 1 to 1000 ids');
    const ids = [...new Set(rawIds.map((id, i) => rowId(model, id, `ids[${i}]`)))];
    const outerContext = this.#hookContext(model, actor, 'delete');
    const codes = await this.#grantCodes(model, actor);
    let deletedRows: FormRow[] = [];
    const result = await this.#logged(model, actor, 'delete', ids.join(','), { ids }, async (log) =>
      this.#transaction(model, log, async (trx) => {
        const context: DataHookContext = { ...outerContext, transaction: trx };
        const rows: FormRow[] = [];
        for (const id of ids) rows.push(await this.#loadVisible(model, actor, 'delete', id, trx, true));
        log.before = rows;
        deletedRows = rows;
        if (codes) for (const row of rows) await checkGrants({ model, actorId: actor.user.id, codes, db: trx, op: 'delete', stored: row });
        await model.dataProxy.beforeDelete?.(rows, context);
        for (const field of Object.values(model.fields)) {
          const c = field.edit.collection;
          if (c) await trx(c.joinTable).whereIn(c.ownKey, ids).delete();
        }
        const deleted = await this.#writing(model, undefined, () => trx(model.table).whereIn(this.#pkColumn(model), ids).delete());
        await model.dataProxy.afterDelete?.(rows, context);
        return { deleted };
      }),
    );
    // A deleted account's sessions end with it (stores without a foreign key keep them otherwise).
    if (model.table === USER_TABLE && this.#tokens) for (const id of ids) await this.#tokens.revokeUser(id);
    await this.#endKeySessions(model, deletedRows);
    return result;
  }

  /**
   * A new row from an existing visible one (editable fields and collections): `{ id, values? }`,
   * where `values` holds field values that replace the copied ones, read and checked as an add
   * body. A copy that would repeat a unique key is a 409 naming the field to set in `values`.
   * Needs `copy` and `add`.
   */
  async copy(name: string, actor: Actor, body: unknown): Promise<FormRow> {
    const model = this.model(name);
    await this.require(model, actor, ['copy', 'add']);
    const sourceId = rowId(model, isObject(body) ? body.id : undefined);
    const context = this.#hookContext(model, actor, 'add');
    const codes = await this.#grantCodes(model, actor);
    const id = await this.#logged(model, actor, 'copy', null, { from: sourceId }, async (log) => {
      const source = await this.#loadVisible(model, actor, 'copy', sourceId, this.store.knex, false);
      const values: FormRow = {};
      for (const field of Object.values(model.fields)) {
        if (!field.primaryKey && !field.edit.readonly && field.edit.type !== EditType.PASSWORD) values[field.name] = source[field.name];
      }
      const asked = isObject(body) ? body.values : undefined;
      if (asked !== undefined) {
        if (!isObject(asked)) throw new FwError('BAD_REQUEST', 'values must be an object of field values');
        const read = this.#readBody(model, asked, 'add');
        for (const name of Object.keys(asked)) if (Object.hasOwn(read, name)) values[name] = read[name];
        log.request = { from: sourceId, values: read };
      }
      try {
        return await this.#transaction(model, log, async (trx) => {
          const newId = await this.#insert(model, actor, trx, values, context, new Set(Object.keys(values)), codes);
          log.targetId = String(newId);
          return newId;
        });
      } catch (error) {
        // A copy repeats every value, unique ones too: say which one to give anew.
        const path = error instanceof FwError && error.status === 409 ? error.details?.find((d) => d.type === 'unique')?.path : undefined;
        if (path === undefined) throw error;
        throw new FwError('CONFLICT', `${(error as FwError).message}; give the copy another ${path} in values.${path}`, { details: (error as FwError).details!, cause: error });
      }
    });
    return this.#shown(model, actor, id);
  }

  /**
   * The visible rows matching the conditions, as CSV lines (header of field names first), for at
   * most `exportMaxRows` rows. Needs `export`. The first `next()` checks the request and reads the
   * first batch of rows, so every failure that can still become an error answer happens there.
   */
  async *exportCsv(name: string, actor: Actor, rawConditions: unknown, rawSort?: unknown): AsyncGenerator<string> {
    const model = this.model(name);
    await this.require(model, actor, 'export');
    const { conditions: asked, sort } = parseTableQuery(model, { conditions: rawConditions, sort: rawSort, size: 1 }, this.limits);
    const conditions = [...asked, ...(await this.visibility(model, actor, 'export'))];
    const fields = Object.values(model.fields).filter((f) => f.stored && f.edit.type !== EditType.PASSWORD);
    const pk = `${model.table}.${this.#pkColumn(model)}`;
    const batch = 1000;
    const read = async (offset: number) => {
      const qb = applyConditions(this.store.knex(model.table).select(this.#columns(model)), model, conditions);
      for (const s of sort) qb.orderBy(`${model.table}.${model.fields[s.field]!.column}`, s.order);
      const rows: Array<Record<string, unknown>> = await qb.orderBy(pk, 'asc').limit(Math.min(batch, this.#exportMaxRows - offset)).offset(offset);
      return { count: rows.length, shown: await this.#afterFetch(model, actor, 'export', rows.map((r) => toFormRow(model, r))) };
    };
    // The first batch is read before the header is given out: the route answers once it has the
    // header, so a failing query is still an error response, not a 200 cut off after one line.
    let page = await read(0);
    yield csvLine(fields.map((f) => f.name));
    for (let offset = 0; ; ) {
      for (const row of page.shown) yield csvLine(fields.map((f) => row[f.name]));
      offset += batch;
      if (page.count < batch || offset >= this.#exportMaxRows) break;
      page = await read(offset);
    }
  }

  /**
   * Imports CSV rows (header = field names), all or nothing: every row is converted and
   * validated, and hooks run, inside one transaction. Needs `importable` and `add`.
   */
  async importCsv(name: string, actor: Actor, text: string): Promise<{ imported: number }> {
    const model = this.model(name);
    await this.require(model, actor, ['importable', 'add']);
    const importer = { ...actor, source: 'import' as const };
    const context = this.#hookContext(model, importer, 'import');
    const codes = await this.#grantCodes(model, actor);
    return this.#logged(model, importer, 'import', null, { bytes: Buffer.byteLength(text) }, async (log) => {
      const { header, rows } = parseCsv(text, { maxRows: this.#importMaxRows, maxColumns: 500 });
      log.request = { rows: rows.length, columns: header };
      const unknown = header.filter((h) => !Object.hasOwn(model.fields, h));
      if (unknown.length > 0) throw dataError('UNKNOWN_FIELD', `${model.name} has no field ${unknown.join(', ')}`, unknown.map((h) => ({ path: h, type: 'unknownField', message: `unknown column ${h}` })));
      // The key and read-only columns of an exported file are skipped, so an export imports back.
      const columns = header.map((h, i) => ({ name: h, index: i })).filter(({ name }) => !model.fields[name]!.primaryKey && !model.fields[name]!.edit.readonly);
      const sent = new Set(columns.map((c) => c.name));
      const entities: FormRow[] = [];
      const details: FwErrorDetail[] = [];
      rows.forEach((cells, n) => {
        const body: Record<string, unknown> = {};
        for (const { name, index } of columns) body[name] = uncsvCell(cells[index]!);
        const { values, errors } = readEntity(model, body, 'add');
        for (const e of errors) details.push({ path: `rows[${n + 1}].${e.path ?? ''}`, type: e.type, message: e.message });
        entities.push(values);
      });
      // Every row is checked before anything is written, so the answer names all failing rows.
      for (const [n, values] of entities.entries()) {
        if (details.some((d) => d.path?.startsWith(`rows[${n + 1}].`))) continue;
        for (const e of await validateRow(model, this.#newRow(model, values), { dialect: this.store.dialect })) details.push({ ...e, path: `rows[${n + 1}].${e.path ?? ''}` });
      }
      if (details.length > 0) throw dataError('IMPORT_FAILED', undefined, details.slice(0, 200));
      return this.#transaction(model, log, async (trx) => {
        for (const [n, values] of entities.entries()) {
          try {
            await this.#insert(model, importer, trx, values, context, sent, codes);
          } catch (error) {
            // A refused grant stays a 403 and a taken key a 409; the other failures name the row.
            if (error instanceof FwError && error.details && error.status !== 403) {
              const details = error.details.map((d) => ({ ...d, path: `rows[${n + 1}].${d.path ?? ''}` }));
              if (error.status === 409) throw new FwError(error.code, `Row ${n + 1}: ${error.message}`, { status: 409, details });
              throw dataError('IMPORT_FAILED', `Row ${n + 1}: ${error.message}`, details);
            }
            throw error;
          }
        }
        return { imported: entities.length };
      });
    });
  }

  /** A printable HTML page of one visible row. Needs `print`. */
  async print(name: string, actor: Actor, rawId: unknown): Promise<string> {
    const model = this.model(name);
    await this.require(model, actor, 'print');
    const id = rowId(model, rawId);
    const row = await this.#loadVisible(model, actor, 'print', id, this.store.knex, false);
    const [shown] = await this.#afterFetch(model, actor, 'print', [row]);
    return printPage(model, shown ?? row);
  }

  /** Fields shown in the table (for UIs and exports). */
  tableFields(model: ModelDefinition): FieldDefinition[] {
    return Object.values(model.fields).filter((f) => f.views.show && f.stored && f.edit.type !== EditType.PASSWORD);
  }
}

export { parseConditions };
