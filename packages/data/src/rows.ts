// Row reading: table pages (with compiled page plans), single visible rows, collections, row
// visibility from `beforeFetch` and the `afterFetch` hook. Used by the facade, the writes and the
// transfers alike, so every read applies the same visibility and hooks.
import { type Condition, type DataHookContext, type ModelDefinition, type ModelRegistry } from '@fw/core';
import { toFormRow, type FormRow } from '@fw/row-patch';
import type { FwStore } from '@fw/store';
import type { Knex } from 'knex';
import { applyConditions, parseTableQuery, type QueryLimits } from './query.js';
import { tableLabels, type ReferenceDeps } from './references.js';
import { readColumns } from './secrets.js';
import { hookContext, pkColumn, rowNotFound } from './service-util.js';
import type { Actor, TablePage } from './service-types.js';

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

/** What a {@link RowReader} reads with. */
export interface RowReaderDeps {
  store: FwStore;
  registry: ModelRegistry;
  limits: QueryLimits;
}

/** Reads rows of Fw models as the actor may see them. Power is checked by the caller. */
export class RowReader {
  readonly #store: FwStore;
  readonly #registry: ModelRegistry;
  readonly #limits: QueryLimits;
  // Compiled SQL of unconditioned table pages, by model, sort, size and whether there is an offset.
  readonly #pagePlans = new Map<string, PagePlan>();

  constructor(deps: RowReaderDeps) {
    this.#store = deps.store;
    this.#registry = deps.registry;
    this.#limits = deps.limits;
  }

  /** Row-visibility conditions from `beforeFetch`, checked to name declared fields. */
  async visibility(model: ModelDefinition, actor: Actor, action: DataHookContext['action']): Promise<Condition[]> {
    const extra = await model.dataProxy.beforeFetch?.(hookContext(model, actor, action));
    if (!extra) return [];
    if (!Array.isArray(extra)) throw new Error(`${model.name}.dataProxy.beforeFetch must return an array of conditions`);
    return extra;
  }

  /** The rows as `afterFetch` shows them (the rows themselves when it returns nothing). */
  async afterFetch(model: ModelDefinition, actor: Actor, action: DataHookContext['action'], rows: FormRow[]): Promise<FormRow[]> {
    const hook = model.dataProxy.afterFetch;
    if (!hook) return rows;
    const result = await hook(rows, hookContext(model, actor, action));
    return Array.isArray(result) ? result : rows;
  }

  /** The COLLECTION values of the rows `ids`: id → field → linked ids (in id order). */
  async collections(model: ModelDefinition, db: Knex, ids: number[]): Promise<Map<number, Record<string, number[]>>> {
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
  async loadVisible(model: ModelDefinition, actor: Actor, action: DataHookContext['action'], id: number, db: Knex, lock: boolean): Promise<FormRow> {
    const conditions = await this.visibility(model, actor, action);
    const qb = db(model.table).select(readColumns(model)).where(`${model.table}.${pkColumn(model)}`, id);
    applyConditions(qb, model, conditions);
    if (lock && this.#store.dialect !== 'sqlite') qb.forUpdate();
    const row: Record<string, unknown> | undefined = await qb.first();
    // A row the user cannot see is a row that does not exist, as far as they can tell.
    if (!row) throw rowNotFound(model, id);
    const form = toFormRow(model, row);
    Object.assign(form, (await this.collections(model, db, [id])).get(id));
    return form;
  }

  /** A row just written, read back as the details view shows it (no visibility: the actor wrote it). */
  async shown(model: ModelDefinition, actor: Actor, id: number): Promise<FormRow> {
    const knex = this.#store.knex;
    const row: Record<string, unknown> | undefined = await knex(model.table).select(readColumns(model)).where(pkColumn(model), id).first();
    if (!row) throw rowNotFound(model, id);
    const form = toFormRow(model, row);
    Object.assign(form, (await this.collections(model, knex, [id])).get(id));
    const [shown] = await this.afterFetch(model, actor, 'details', [form]);
    return shown ?? form;
  }

  /** What reference pickers and labels read with, under the actor's row visibility. */
  referenceDeps(actor: Actor): ReferenceDeps {
    return { knex: this.#store.knex, registry: this.#registry, limits: this.#limits, visibility: (target, action) => this.visibility(target, actor, action) };
  }

  /** One page of visible rows for a table query body (power already checked). */
  async page(model: ModelDefinition, actor: Actor, body: unknown): Promise<TablePage> {
    const query = parseTableQuery(model, body, this.#limits);
    const conditions = [...query.conditions, ...(await this.visibility(model, actor, 'query'))];
    const knex = this.#store.knex;
    const pk = `${model.table}.${pkColumn(model)}`;
    const build = (offset: number) => {
      const select = applyConditions(knex(model.table).select(readColumns(model)), model, conditions);
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
      rows = rawRows(this.#store.dialect, pageResult);
      counted = rawRows(this.#store.dialect, countResult);
    } else {
      const { select, count } = build(offset);
      [rows, counted] = (await Promise.all([select, count])) as [Array<Record<string, unknown>>, Array<Record<string, unknown>>];
    }
    const total = Number(counted[0]?.n ?? 0);
    const form = rows.map((row) => toFormRow(model, row));
    // Collections too, one query per field for the page, so a table can show them by label.
    const ids = form.map((row) => row[model.primaryKey]).filter((id): id is number => typeof id === 'number');
    const links = await this.collections(model, knex, ids);
    for (const row of form) Object.assign(row, links.get(row[model.primaryKey] as number));
    const shown = await this.afterFetch(model, actor, 'query', form);
    return { rows: shown, total, page: query.page, size: query.size, labels: await tableLabels(this.referenceDeps(actor), model, shown) };
  }
}
