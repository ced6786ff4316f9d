// Row reading: table pages (with compiled page plans), single visible rows, collections, row
// visibility from `beforeFetch` and the `afterFetch` hook. Used by the facade, the writes and the
// transfers alike, so every read applies the same visibility and hooks.
import { isConditionGroup, type Condition, type ConditionNode, type DataHookContext, type ModelDefinition, type ModelRegistry } from '@fw/core';
import { toFormRow, type FormRow } from '@fw/row-patch';
import type { FwStore } from '@fw/store';
import type { Knex } from 'knex';
import { JsonList, applyConditions, applyStoredConditions, parseTableRequest, slotConditions, storedConditions, type QueryLimits, type TableRequest } from './query.js';
import { rowKeyValues, type ResolvedSeek, type SortEntry } from './cursor.js';
import { anchorQuery, notNullColumns, orderAndSeek, pageCursors, pageKeys, pageRows, probeQuery, resolveSeek } from './keyset-page.js';
import type { SeekKey } from './keyset.js';
import { PageAnchors, WRITTEN_ELSEWHERE, anchorKeys, type Anchor } from './page-anchors.js';
import { PgWriter } from '../write/pg-write.js';
import { boundedCountQuery, rawRows, readWithin, type CountSource } from './count-sources.js';
import { Counts, conditionsKey } from './counts.js';
import { SqliteReader } from './sqlite-reader.js';
import { bindingsOf, planOf, slot, type Plan } from '../write/plans.js';
import { ID_CHUNK, tableLabels, type ReferenceDeps } from './references.js';
import { readColumns } from '../write/secrets.js';
import { hookContext } from '../service-types.js';
import { pkColumn, rowNotFound } from './row-keys.js';
import type { Actor, TablePage } from '../service-types.js';

/** A page query compiled once per shape: condition values in slots, the offset as {@link OFFSET_SLOT}. */
interface PagePlan {
  page: Plan;
  count: Plan;
}

/** What of `conditions` shapes a page's SQL: fields, operators, how many values, and the groups. */
function shapeOf(conditions: readonly ConditionNode[]): unknown[] {
  return conditions.map((c) => {
    if (isConditionGroup(c)) return c.or ? { or: shapeOf(c.or) } : { and: shapeOf(c.and ?? []) };
    return [c.field, c.op, c.value instanceof JsonList ? 'json' : Array.isArray(c.value) ? c.value.length : c.value === null ? 'null' : c.value === undefined ? '-' : 1];
  });
}

/** Stands for the offset in a compiled page query until the real one is put in its place. */
const OFFSET_SLOT = 999_999_937;

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
  // Compiled SQL of table pages, by shape (see page()).
  readonly #pagePlans = new Map<string, PagePlan>();
  // NOT NULL columns by table, read once (see keyset-page.ts notNullColumns).
  readonly #notNull = new Map<string, Promise<Set<string>>>();
  // Pages on a SQLite file: a read-only connection with prepared statements (undefined elsewhere).
  readonly #sqlite: SqliteReader | undefined;
  // Pages on PostgreSQL: named prepared statements (undefined elsewhere).
  readonly #pg: PgWriter | undefined;
  /** The totals of table pages (counts.ts); the writes tell it what they added and deleted. */
  readonly counts: Counts;
  /** Where deep pages by number start (page-anchors.ts). */
  readonly anchors = new PageAnchors();
  readonly #source: CountSource;

  constructor(deps: RowReaderDeps) {
    this.#store = deps.store;
    this.#registry = deps.registry;
    this.#limits = deps.limits;
    this.#sqlite = SqliteReader.for(deps.store.knex, deps.store.dialect);
    this.#pg = PgWriter.for(deps.store.knex, deps.store.dialect);
    this.#source = { knex: deps.store.knex, dialect: deps.store.dialect, sqlite: this.#sqlite };
    this.counts = new Counts(this.#source, deps.limits);
    // A store that closes waits for the counts and anchors being read in the background (they
    // would fail on closed connections), then closes the reader's own connection, so no file
    // handle outlives the store.
    const reader = this.#sqlite;
    deps.store.onDestroy?.(async () => {
      await this.settled();
      reader?.close();
    });
  }

  /** Resolves once the work started in the background (counts, page anchors) has finished. */
  async settled(): Promise<void> {
    await Promise.all([this.counts.settled(), this.anchors.settled()]);
  }

  /** How many compiled page plans are kept: a page of a new shape adds one, a known shape none (for tests and diagnostics). */
  get planCount(): number {
    return this.#pagePlans.size;
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
      // An export batch (exportBatchRows) or a large page can hold more ids than SQL Server binds
      // in one statement (2,100): ID_CHUNK at a time. Each id's links stay in one chunk, in order.
      for (let i = 0; i < ids.length; i += ID_CHUNK) {
        const links: Array<Record<string, unknown>> = await db(c.joinTable).whereIn(c.ownKey, ids.slice(i, i + ID_CHUNK)).orderBy(c.foreignKey).select(c.ownKey, c.foreignKey);
        for (const link of links) out.get(Number(link[c.ownKey]))?.[field.name]?.push(Number(link[c.foreignKey]));
      }
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

  /**
   * The rows `ids` as a table page loads them (stored columns without secrets, collections),
   * before any row filter or `afterFetch`: what live tables read once per change (live/hub.ts).
   */
  async rawRows(model: ModelDefinition, ids: readonly number[]): Promise<FormRow[]> {
    const knex = this.#store.knex;
    const out: FormRow[] = [];
    for (let i = 0; i < ids.length; i += 500) {
      const chunk = ids.slice(i, i + 500);
      const rows: Array<Record<string, unknown>> = await knex(model.table).select(readColumns(model)).whereIn(pkColumn(model), chunk);
      const forms = rows.map((row) => toFormRow(model, row));
      const links = await this.collections(model, knex, forms.map((row) => Number(row[model.primaryKey])));
      for (const form of forms) out.push(Object.assign(form, links.get(Number(form[model.primaryKey]))));
    }
    return out;
  }

  /** What reference pickers and labels read with, under the actor's row visibility. */
  referenceDeps(actor: Actor): ReferenceDeps {
    return { knex: this.#store.knex, registry: this.#registry, limits: this.#limits, visibility: (target, action) => this.visibility(target, actor, action) };
  }

  /** One page of visible rows for a table query body (power already checked). */
  page(model: ModelDefinition, actor: Actor, body: unknown): Promise<TablePage> {
    return this.pageOf(model, actor, parseTableRequest(model, body, this.#limits));
  }

  /** One page of visible rows for a parsed table query (power already checked). */
  async pageOf(model: ModelDefinition, actor: Actor, query: TableRequest): Promise<TablePage> {
    const mode = query.count;
    // Row visibility is ANDed beside the user's conditions, never inside one of their groups.
    const visible = await this.visibility(model, actor, 'query');
    const conditions: ConditionNode[] = [...query.conditions, ...visible];
    const knex = this.#store.knex;
    // Values in stored form; the plan holds a slot where each goes (see below).
    const stored = storedConditions(model, conditions, this.#store.dialect);
    const values: unknown[] = [];
    const put = (v: unknown) => (values.push(v), slot(values.length - 1));
    const slotted = slotConditions(stored, put);
    // A keyset page (cursor or last) seeks instead of skipping: its `page` is only echoed back.
    const seek = await resolveSeek(knex, model, query.sort, query.seek, visible);
    const conditionValues = values.length;
    // Rows before a page by number. A deep one is read from the anchor before it, when there is
    // one that holds (page-anchors.ts): a seek, then a skip of fewer rows.
    const offset = seek ? 0 : (query.page - 1) * query.size;
    // One key for the conditions, shared by the page's anchor and its counts.
    const countKey = conditionsKey(stored);
    const anchorKey = `${model.name}\u0000${JSON.stringify(query.sort)}\u0000${countKey}`;
    const anchored = !seek && !WRITTEN_ELSEWHERE.has(model.table);
    const anchor: Anchor | undefined = anchored ? this.anchors.locate(anchorKey, offset, this.counts.generationOf(model)) : undefined;
    const read: ResolvedSeek | undefined = seek ?? (anchor && { direction: 'after', values: anchor.values });
    const skip = anchor ? anchor.skip : offset;
    // A cursor's values go into slots as well; a NULL among them shapes the SQL (IS NULL).
    const seekValues = read && read.direction !== 'last' ? read.values.map((v) => (v === null ? null : put(v))) : undefined;
    const keys = pageKeys(model, query.sort, await this.#notNullOf(model.table));
    // A page's SQL depends only on its shape: the model, sort, size, whether there is an offset,
    // each condition's field, operator and number of values, how they are grouped (or / and),
    // and for a keyset page its direction and which cursor values are NULL. The query builder
    // runs once per shape; later requests send the compiled SQL with their own values and offset.
    const shape = shapeOf(slotted);
    const seekShape = read ? `${read.direction}${(seekValues ?? []).map((v) => (v === null ? 'n' : 'v')).join('')}` : '';
    const key = `${model.name}\u0000${JSON.stringify(query.sort)}\u0000${query.size}\u0000${skip > 0}\u0000${JSON.stringify(shape)}\u0000${seekShape}`;
    // PostgreSQL runs them as named prepared statements, so in its own $n form.
    const compile = (q: Knex.QueryBuilder) => planOf(this.#pg ? q.toSQL().toNative() : q.toSQL());
    let plan = this.#pagePlans.get(key);
    if (!plan) {
      const select = applyStoredConditions(knex(model.table).select(readColumns(model)), model, slotted);
      // One row more than the page, to tell whether another follows (see keyset-page.ts).
      orderAndSeek(select, keys, read, seekValues, this.#store.dialect).limit(query.size + 1);
      if (skip > 0) select.offset(OFFSET_SLOT);
      const count = boundedCountQuery(knex, model, slotted, this.#limits.exactCountLimit + 1);
      plan = { page: compile(select), count: compile(count) };
      if (this.#pagePlans.size >= 1000) this.#pagePlans.clear();
      this.#pagePlans.set(key, plan);
    }
    const atOffset = (b: unknown) => (b === OFFSET_SLOT ? skip : b);
    // The bounded count runs beside the page, unless the request wants no counting query at all
    // or a fresh cached count already puts the total well beyond it (see counts.ts).
    const countPlan = this.counts.needsBounded(model, mode, stored, countKey) ? plan.count : undefined;
    let [rows, counted] = this.#sqlite?.read(plan.page, countPlan, values, atOffset) ?? [];
    if (this.#pg) {
      const pg = this.#pg;
      const run = (p: Plan) => pg.rows({ ...p, name: pg.nameOf(p.sql) }, values, atOffset);
      [rows, counted] = await Promise.all([run(plan.page), countPlan && run(countPlan)]);
    } else if (!rows) {
      const fill = (p: Plan) => bindingsOf(p, values).map(atOffset) as Knex.RawBinding[];
      const [pageResult, countResult] = await Promise.all([knex.raw(plan.page.sql, fill(plan.page)), countPlan && knex.raw(countPlan.sql, fill(countPlan))]);
      rows = rawRows(this.#store.dialect, pageResult);
      counted = countResult === undefined ? undefined : rawRows(this.#store.dialect, countResult);
    }
    const ends = pageRows({ rows, size: query.size, seek, offset });
    rows = ends.rows;
    const beyond = async (end: boolean | 'probe', row: Record<string, unknown> | undefined, direction: 'after' | 'before') => {
      if (end !== 'probe') return end;
      // Whether any visible row lies beyond the page's end row: one seek, at most one row read.
      const boundary = row && rowKeyValues(model, query.sort, row);
      if (!boundary) return true;
      const probeValues = values.slice(0, conditionValues);
      const slots = boundary.map((v) => (v === null ? null : (probeValues.push(v), slot(probeValues.length - 1))));
      const probeKey = `${key}\u0000probe-${direction}${slots.map((v) => (v === null ? 'n' : 'v')).join('')}`;
      let probe = this.#pagePlans.get(probeKey)?.page;
      if (!probe) {
        probe = compile(probeQuery(applyStoredConditions(knex(model.table), model, slotted), keys, slots, direction, this.#store.dialect));
        if (this.#pagePlans.size >= 1000) this.#pagePlans.clear();
        this.#pagePlans.set(probeKey, { page: probe, count: probe });
      }
      return (await this.#rowsOf(probe, probeValues)).length > 0;
    };
    const [before, after] = await Promise.all([beyond(ends.before, rows[0], 'before'), beyond(ends.after, rows[rows.length - 1], 'after')]);
    const cursors = pageCursors(model, query.sort, rows, before, after);
    const bounded = counted ? Number(counted[0]?.n ?? 0) : undefined;
    // A page placed by an anchor knows its offset only as well as the anchor: it proves no total.
    const { total, totalIsEstimate } = await this.counts.total({ model, mode, conditions: stored, key: countKey, bounded, offset: seek || anchor ? undefined : offset, rows: rows.length, size: query.size });
    if (anchored && !anchor) this.#wantAnchors(model, query.sort, keys, stored, anchorKey, offset, total);
    const form = rows.map((row) => toFormRow(model, row));
    // Collections too, one query per field for the page, so a table can show them by label.
    const ids = form.map((row) => row[model.primaryKey]).filter((id): id is number => typeof id === 'number');
    const links = await this.collections(model, knex, ids);
    for (const row of form) Object.assign(row, links.get(row[model.primaryKey] as number));
    const shown = await this.afterFetch(model, actor, 'query', form);
    return { rows: shown, total, totalIsEstimate, page: query.page, size: query.size, cursors, labels: await tableLabels(this.referenceDeps(actor), model, shown) };
  }

  /** Asks for the anchors of a page by number's order and conditions (page-anchors.ts), read in the background. */
  #wantAnchors(model: ModelDefinition, sort: readonly SortEntry[], keys: readonly SeekKey[], stored: readonly ConditionNode[], key: string, offset: number, rows: number): void {
    // A SQLite database without a file (in memory) has no worker thread to read them on: the read
    // would hold up every request of the process, so its pages keep OFFSET.
    if (this.#store.dialect === 'sqlite' && !this.#sqlite) return;
    const knex = this.#store.knex;
    this.anchors.want(key, offset, rows, this.counts.generationOf(model), () => this.counts.generationOf(model), async (step) => {
      const query = anchorQuery(knex, applyStoredConditions(knex(model.table), model, stored), keys, step);
      const found = await readWithin(this.#source, query, Math.max(this.#limits.countTimeLimitMs, 30_000));
      return found && anchorKeys(found, (row) => rowKeyValues(model, sort, row));
    });
  }

  /** The NOT NULL columns of `table`, read from the database once per reader. */
  #notNullOf(table: string): Promise<Set<string>> {
    let known = this.#notNull.get(table);
    if (!known) {
      known = notNullColumns(this.#store.knex, table);
      this.#notNull.set(table, known);
    }
    return known;
  }

  /** The rows of a compiled plan with `values` in its slots, on whichever path page reads take. */
  async #rowsOf(plan: Plan, values: readonly unknown[]): Promise<Array<Record<string, unknown>>> {
    const fromFile = this.#sqlite?.all(plan.sql, bindingsOf(plan, values));
    if (fromFile) return fromFile;
    if (this.#pg) return this.#pg.rows({ ...plan, name: this.#pg.nameOf(plan.sql) }, values);
    return rawRows(this.#store.dialect, await this.#store.knex.raw(plan.sql, bindingsOf(plan, values) as Knex.RawBinding[]));
  }
}
