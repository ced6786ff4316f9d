// What one viewer may learn of one committed change (issue 24 §2): the rows filtered by the
// viewer's row visibility (`beforeFetch` for `query`, as the table query applies it), shown through
// their `afterFetch`, without secrets. Visibility is judged in JS on the row read once per change
// (the trash filter's evaluator, read/trash-filter.ts); rows it cannot judge are checked by one
// query for this viewer. Whether the viewer could see a row before the change is judged on the
// row the operate log kept (live/before-rows.ts): a row that cannot be judged there counts as
// unseen, so nothing is said of it unless the stream itself sent it.
import type { ModelDefinition } from '@fw/core';
import type { FormRow } from '@fw/row-patch';
import type { FwDialect, TrashRecord } from '@fw/store';
import { applyConditions } from '../read/query.js';
import { pkColumn } from '../read/row-keys.js';
import { meetsAll, type Verdict } from '../read/trash-filter.js';
import { trashVisible } from '../read/trash-page.js';
import { isSecret } from '../write/secrets.js';
import type { Actor, DataService } from '../service.js';
import { maskedIn } from './before-rows.js';
import type { LiveMessage } from './bus.js';

/** One event as a stream sends it (the SSE `event:` name and its JSON `data:`). */
export interface LiveEvent {
  type: 'insert' | 'update' | 'delete';
  data: Record<string, unknown>;
}

/** What a change is made of, read once for all viewers. */
export interface LiveChange {
  message: LiveMessage;
  /** For inserts and updates: the rows as they are now (rows gone since are missing). */
  rows: FormRow[];
  /** For deletes: the trash records of the rows (models that keep a trash). */
  trashed: TrashRecord[];
  /** For updates and deletes: the rows as they were before the change (live/before-rows.ts), read once when first asked for. */
  before: () => Promise<ReadonlyMap<number, FormRow>>;
}

/** The field names a set of conditions reads (any depth of groups). */
function conditionFields(node: unknown, out: Set<string>): Set<string> {
  if (Array.isArray(node)) for (const item of node) conditionFields(item, out);
  else if (node && typeof node === 'object') {
    for (const [key, value] of Object.entries(node)) {
      if (key === 'field' && typeof value === 'string') out.add(value);
      else if (value && typeof value === 'object') conditionFields(value, out);
    }
  }
  return out;
}

/**
 * The ids among `rows` that `conditions` let `actor` see: in JS when it can tell, else by one
 * query. `read` names the fields the conditions read: when that is one field, rows holding the same
 * plain value of it get the same verdict, judged once (a batch's rows share a few values of a
 * filter's field, such as a team or an owner).
 */
async function visibleIds(service: DataService, model: ModelDefinition, rows: Iterable<FormRow>, conditions: readonly unknown[], read: ReadonlySet<string>): Promise<Set<number>> {
  const out = new Set<number>();
  const unsure: number[] = [];
  const [only] = read.size === 1 ? read : [];
  const judged = new Map<unknown, Verdict>();
  for (const row of rows) {
    const id = Number(row[model.primaryKey]);
    let verdict: Verdict;
    if (conditions.length === 0) verdict = true;
    else {
      const value = only === undefined ? undefined : row[only];
      const plain = only !== undefined && (value === null || value === undefined || typeof value !== 'object');
      if (plain && judged.has(value)) verdict = judged.get(value);
      else {
        verdict = meetsAll(model, row, conditions, service.store.dialect);
        if (plain) judged.set(value, verdict);
      }
    }
    if (verdict === true) out.add(id);
    else if (verdict === undefined) unsure.push(id);
  }
  if (unsure.length > 0) {
    const pk = pkColumn(model);
    const qb = service.store.knex(model.table).select(`${model.table}.${pk}`).whereIn(`${model.table}.${pk}`, unsure);
    applyConditions(qb, model, conditions as Parameters<typeof applyConditions>[2]);
    const found: Array<Record<string, unknown>> = await qb;
    for (const row of found) out.add(Number(row[pk]));
  }
  return out;
}

/** True when `conditions` surely held for `row` as the log kept it (a masked value they read, or a condition judged only in SQL: not sure, false). */
function surelyMet(model: ModelDefinition, row: FormRow, conditions: readonly unknown[], read: ReadonlySet<string>, dialect: FwDialect): boolean {
  return !maskedIn(row, read) && meetsAll(model, row, conditions, dialect) === true;
}

/** A row as the viewer's table shows it: `afterFetch` applied, secrets never. */
function clean(model: ModelDefinition, row: FormRow): FormRow {
  const out: FormRow = {};
  for (const [key, value] of Object.entries(row)) {
    const field = model.fields[key];
    if (field && isSecret(field)) continue;
    out[key] = value;
  }
  return out;
}

/** What one viewer may see of one change: worked out once per user and message, shared by their streams. */
export interface LiveView {
  /** For inserts and updates: the rows visible to the viewer, as their table shows them. */
  shown: readonly FormRow[];
  /** Ids visible to the viewer now: ask it only of the change's own ids (it may be shared by the views of a whole batch). */
  visible: ReadonlySet<number>;
  /** Whether the update changed a field the viewer's row filter reads (the row may have entered or left it). */
  moves: boolean;
  /** When {@link moves}: the ids the viewer could surely see before the change (judged on the logged rows). */
  wasVisible: ReadonlySet<number>;
  /** For deletes: the ids the viewer could see, by the row's trash entry, its logged row, or an absent row filter. */
  couldSee: ReadonlySet<number>;
}

// A batch holds views for every viewer and message: most of their sets and lists are empty, and
// share these instead of each allocating its own.
const NO_IDS: ReadonlySet<number> = new Set<number>();
const NO_ROWS: readonly FormRow[] = [];
/** No events: what most (viewer or stream, message) pairs of a batch come to, shared. */
export const NO_EVENTS: readonly LiveEvent[] = [];

/**
 * What the viewers of one batch share (live/deliver.ts): which rows pass a given set of
 * conditions (viewers whose row filters are the same judge the rows once), and the rows as shown
 * when the model has no `afterFetch` (then every viewer sees the same row, cleaned once).
 */
export interface ViewShare {
  /** The rows of the batch's inserts and updates by id (the same for every viewer). */
  rows?: Map<number, FormRow>;
  /** Which changes name which rows and fields (see {@link BatchIndex}). */
  index?: BatchIndex;
  visible: Map<string, Promise<Set<number>>>;
  shown: Map<number, FormRow>;
}

/**
 * Where in a batch a viewer must look: the changes that name each row (inserts and updates, by the
 * rows read), the updates of each field, the deletes, and the updates naming each id (rows gone
 * since included). A viewer's views need working out only for the changes naming a row they see,
 * updating a field their filter reads, or deleting; the rest show them nothing.
 */
export interface BatchIndex {
  touching: Map<number, number[]>;
  byField: Map<string, number[]>;
  deletes: number[];
  updated: Map<number, number[]>;
}

function push<K>(map: Map<K, number[]>, key: K, i: number): void {
  const list = map.get(key);
  if (!list) map.set(key, [i]);
  else if (list[list.length - 1] !== i) list.push(i);
}

/** The {@link BatchIndex} of `changes`. */
export function indexChanges(model: ModelDefinition, changes: readonly LiveChange[]): BatchIndex {
  const index: BatchIndex = { touching: new Map(), byField: new Map(), deletes: [], updated: new Map() };
  changes.forEach(({ message, rows }, i) => {
    if (message.kind === 'delete') return void index.deletes.push(i);
    for (const row of rows) push(index.touching, Number(row[model.primaryKey]), i);
    if (message.kind !== 'update') return;
    for (const field of message.changed ?? []) push(index.byField, field, i);
    for (const id of message.ids) push(index.updated, id, i);
  });
  return index;
}

/** A viewer's views of a batch's changes, with the changes that may give them anything ({@link BatchIndex}) in order. */
export interface BatchViews {
  views: LiveView[];
  active: number[];
  /** The batch's rows the viewer sees now. */
  visible: ReadonlySet<number>;
}

/** An empty {@link ViewShare} for one batch. */
export function viewShare(): ViewShare {
  return { visible: new Map(), shown: new Map() };
}

/**
 * A key telling identical row filters apart exactly: their JSON when they hold only plain data
 * (text, numbers, booleans, null, lists, objects), else undefined (not shared).
 */
export function conditionKey(conditions: readonly unknown[]): string | undefined {
  const plain = (node: unknown): boolean => {
    if (node === null || typeof node === 'string' || typeof node === 'boolean') return true;
    if (typeof node === 'number') return Number.isFinite(node);
    // A hole would be written as null, which it is not (every() skips holes): not plain.
    if (Array.isArray(node)) return Object.keys(node).length === node.length && node.every(plain);
    if (typeof node !== 'object' || Object.getPrototypeOf(node) !== Object.prototype) return false;
    return Object.values(node).every(plain);
  };
  return conditions.every(plain) ? JSON.stringify(conditions) : undefined;
}

/** Works out {@link LiveView} of `change` for `actor`. */
export async function viewOf(service: DataService, model: ModelDefinition, actor: Actor, change: LiveChange): Promise<LiveView> {
  return (await viewsOf(service, model, actor, [change]))[0]!;
}

/**
 * Works out {@link LiveView} of each of `changes` (one model's, in order) for `actor`, paying once
 * for the batch: one visibility, one judgement of the rows, one `afterFetch` over the rows of all
 * inserts and updates (a row changed twice is read, judged and shown once; each change names it).
 * With `share`, what other viewers of the same batch already worked out is used again.
 */
export async function viewsOf(service: DataService, model: ModelDefinition, actor: Actor, changes: readonly LiveChange[], share?: ViewShare): Promise<LiveView[]> {
  return (await viewsOfBatch(service, model, actor, changes, share)).views;
}

/**
 * {@link viewsOf} for a batch: with `share`, only the changes of the viewer's
 * {@link BatchIndex} are looked at one by one; every other change gets one shared empty view.
 */
export async function viewsOfBatch(service: DataService, model: ModelDefinition, actor: Actor, changes: readonly LiveChange[], share?: ViewShare): Promise<BatchViews> {
  const dialect = service.store.dialect;
  const conditions = await service.visibility(model, actor, 'query');
  const read = conditionFields(conditions, new Set());
  const rowId = (row: FormRow) => Number(row[model.primaryKey]);
  let rows = share?.rows;
  if (!rows) {
    rows = new Map<number, FormRow>();
    for (const change of changes) if (change.message.kind !== 'delete') for (const row of change.rows) rows.set(rowId(row), row);
    if (share) share.rows = rows;
  }
  let visible: Set<number>;
  if (rows.size === 0) visible = new Set();
  else {
    const key = share && conditionKey(conditions);
    let judged = key === undefined ? undefined : share!.visible.get(key);
    if (!judged) {
      judged = visibleIds(service, model, rows.values(), conditions, read);
      if (key !== undefined) share!.visible.set(key, judged);
    }
    visible = await judged;
  }
  const shownRows = [...rows.values()].filter((row) => visible.has(rowId(row)));
  const shownById = new Map<number, FormRow>();
  if (shownRows.length > 0 && share && !model.dataProxy.afterFetch) {
    // No afterFetch: every viewer sees the stored row, cleaned once for the batch.
    for (const row of shownRows) {
      const id = rowId(row);
      let one = share.shown.get(id);
      if (!one) share.shown.set(id, (one = clean(model, row)));
      shownById.set(id, one);
    }
  } else if (shownRows.length > 0) {
    // afterFetch may change the rows it is given: it gets copies, never the rows other viewers share.
    for (const row of await service.shownTo(model, actor, 'query', structuredClone(shownRows))) shownById.set(rowId(row), clean(model, row));
  }
  // The changes that may give this viewer anything: those naming a row they see, updates of a
  // field their filter reads, deletes (every change without a share).
  let active: number[];
  if (share) {
    const index = (share.index ??= indexChanges(model, changes));
    const wanted = new Set(index.deletes);
    for (const id of visible) for (const i of index.touching.get(id) ?? []) wanted.add(i);
    for (const field of read) for (const i of index.byField.get(field) ?? []) wanted.add(i);
    active = [...wanted].sort((a, b) => a - b);
  } else active = changes.map((_, i) => i);
  // Every other change shows this viewer nothing and moves nothing: they share one view.
  const quiet: LiveView = { shown: NO_ROWS, visible, moves: false, wasVisible: NO_IDS, couldSee: NO_IDS };
  const views: LiveView[] = new Array<LiveView>(changes.length).fill(quiet);
  for (const i of active) {
    const change = changes[i]!;
    const { message } = change;
    if (message.kind === 'delete') {
      const records = new Map(change.trashed.map((r) => [Number(r.rowId), r]));
      const couldSee = new Set<number>();
      for (const id of message.ids) {
        const record = records.get(id);
        if (record) {
          if (trashVisible(model, actor, record, conditions, dialect)) couldSee.add(id);
        } else if (conditions.length === 0) couldSee.add(id);
        else {
          // No trash entry (a model without trash): the row the delete logged.
          const row = (await change.before()).get(id);
          if (row && surelyMet(model, row, conditions, read, dialect)) couldSee.add(id);
        }
      }
      views[i] = { shown: NO_ROWS, visible: NO_IDS, moves: false, wasVisible: NO_IDS, couldSee };
      continue;
    }
    // The change's rows the viewer sees now, each once, in the change's order.
    let shown = NO_ROWS as FormRow[];
    let once: Set<number> | undefined;
    for (const row of change.rows) {
      const id = rowId(row);
      const one = visible.has(id) ? shownById.get(id) : undefined;
      if (!one) continue;
      if (change.rows.length > 1) {
        if ((once ??= new Set()).has(id)) continue;
        once.add(id);
      }
      if (shown === NO_ROWS) shown = [];
      shown.push(one);
    }
    // A change to a field the viewer's filter reads may move the row in or out of it: whether the
    // viewer could see it before is judged on the logged row (read once per message, if any viewer asks).
    let moves = false;
    if (message.kind === 'update' && read.size > 0) for (const f of message.changed ?? []) moves ||= read.has(f);
    if (shown === NO_ROWS && !moves) continue;
    let wasVisible = NO_IDS as Set<number>;
    if (moves) {
      for (const [id, row] of await change.before()) {
        if (!surelyMet(model, row, conditions, read, dialect)) continue;
        if (wasVisible === NO_IDS) wasVisible = new Set();
        wasVisible.add(id);
      }
    }
    views[i] = { shown, visible, moves, wasVisible, couldSee: NO_IDS };
  }
  return { views, active, visible };
}

/** What every event of `message` says of itself for `viewerId`: the model, who and when, and `mine` for their own changes. */
function eventBase(model: ModelDefinition, message: LiveMessage, viewerId: number | undefined): Record<string, unknown> {
  // `mine`: the viewer made this change (in this tab or another), told by user id, never by a name two people may share.
  return { model: model.name, actor: message.actor.name ?? message.actor.account, at: message.at, ...(viewerId !== undefined && message.actor.id === viewerId ? { mine: true } : {}) };
}

/**
 * The events of `change` that are the same on every stream of one viewer: the rows of an insert or
 * update they see now, whole when the row may have entered their filter, else the changed values.
 */
export function viewerEvents(model: ModelDefinition, change: LiveChange, view: LiveView, viewerId?: number, share?: EventShare): readonly LiveEvent[] {
  const { message } = change;
  if (message.kind === 'delete' || view.shown.length === 0) return NO_EVENTS;
  const mine = viewerId !== undefined && message.actor.id === viewerId;
  let base: Record<string, unknown> | undefined;
  const events: LiveEvent[] = [];
  for (const row of view.shown) {
    const id = Number(row[model.primaryKey] ?? NaN);
    if (!Number.isSafeInteger(id)) continue;
    // A row that may have entered the filter is sent whole; one that was in it already, as an update.
    const type = message.kind === 'insert' || (view.moves && !view.wasVisible.has(id)) ? 'insert' : 'update';
    // Viewers shown the very same row object (no afterFetch) get the very same event, unless it is their own change.
    const shared = mine ? undefined : share?.get(row);
    if (shared && type in shared) {
      const event = shared[type];
      if (event) events.push(event);
      continue;
    }
    base ??= eventBase(model, message, viewerId);
    let event: LiveEvent | null = null;
    if (type === 'insert') event = { type, data: { ...base, id, row } };
    else {
      const values: Record<string, unknown> = {};
      let any = false;
      for (const f of message.changed ?? []) {
        if (!(f in row)) continue;
        values[f] = row[f];
        any = true;
      }
      if (any) event = { type, data: { ...base, id, values } };
    }
    if (share && !mine) share.set(row, { ...shared, [type]: event });
    if (event) events.push(event);
  }
  return events;
}

/**
 * The events of one message already made for viewers shown a given row object (see
 * {@link viewerEvents}): by kind, null when the row gave that kind of viewer no event.
 */
export type EventShare = Map<FormRow, { insert?: LiveEvent | null; update?: LiveEvent | null }>;

/**
 * The events of `change` that depend on what one stream was told before (`known`, which this
 * updates): a delete, and the rows an update took out of the viewer's filter. A row is named only
 * when the viewer could see it before, by `known` or by the logged row (see docs/data.md, "Live tables").
 */
export function streamEvents(model: ModelDefinition, change: LiveChange, view: LiveView, known: Set<number>, viewerId?: number): readonly LiveEvent[] {
  const { message } = change;
  if (message.kind === 'delete') {
    const ids = message.ids.filter((id) => known.has(id) || view.couldSee.has(id));
    for (const id of message.ids) known.delete(id);
    return ids.length > 0 ? [{ type: 'delete', data: { ...eventBase(model, message, viewerId), ids } }] : NO_EVENTS;
  }
  if (message.kind !== 'update') return NO_EVENTS;
  // Rows the viewer could see before (told by this stream, or by the logged row) that they no longer
  // see: they left the filter (or are gone). Called for every stream and message of a batch, so the
  // usual answer, nothing, allocates nothing.
  let left: number[] | undefined;
  for (const id of message.ids) if (!view.visible.has(id) && (known.has(id) || view.wasVisible.has(id))) (left ??= []).push(id);
  if (!left) return NO_EVENTS;
  for (const id of left) known.delete(id);
  return [{ type: 'delete', data: { ...eventBase(model, message, viewerId), ids: left, reason: 'filter' } }];
}

/** The events one stream gets for `change`, given its viewer's `view`: {@link viewerEvents}, then {@link streamEvents}. */
export function eventsFor(model: ModelDefinition, change: LiveChange, view: LiveView, known: Set<number>, viewerId?: number): LiveEvent[] {
  return [...viewerEvents(model, change, view, viewerId), ...streamEvents(model, change, view, known, viewerId)];
}
