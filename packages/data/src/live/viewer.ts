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
import { meetsAll } from '../read/trash-filter.js';
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

/** The ids among `rows` that `conditions` let `actor` see: in JS when it can tell, else by one query. */
async function visibleIds(service: DataService, model: ModelDefinition, rows: readonly FormRow[], conditions: readonly unknown[]): Promise<Set<number>> {
  const out = new Set<number>();
  const unsure: number[] = [];
  for (const row of rows) {
    const id = Number(row[model.primaryKey]);
    const verdict = conditions.length === 0 ? true : meetsAll(model, row, conditions, service.store.dialect);
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
  shown: FormRow[];
  /** Ids of the change visible to the viewer now. */
  visible: Set<number>;
  /** Whether the update changed a field the viewer's row filter reads (the row may have entered or left it). */
  moves: boolean;
  /** When {@link moves}: the ids the viewer could surely see before the change (judged on the logged rows). */
  wasVisible: Set<number>;
  /** For deletes: the ids the viewer could see, by the row's trash entry, its logged row, or an absent row filter. */
  couldSee: Set<number>;
}

/** Works out {@link LiveView} of `change` for `actor`. */
export async function viewOf(service: DataService, model: ModelDefinition, actor: Actor, change: LiveChange): Promise<LiveView> {
  return (await viewsOf(service, model, actor, [change]))[0]!;
}

/**
 * Works out {@link LiveView} of each of `changes` (one model's, in order) for `actor`, paying once
 * for the batch: one visibility, one judgement of the rows, one `afterFetch` over the rows of all
 * inserts and updates (a row changed twice is read, judged and shown once; each change names it).
 */
export async function viewsOf(service: DataService, model: ModelDefinition, actor: Actor, changes: readonly LiveChange[]): Promise<LiveView[]> {
  const dialect = service.store.dialect;
  const conditions = await service.visibility(model, actor, 'query');
  const read = conditionFields(conditions, new Set());
  const rowId = (row: FormRow) => Number(row[model.primaryKey]);
  const rows = new Map<number, FormRow>();
  for (const change of changes) if (change.message.kind !== 'delete') for (const row of change.rows) rows.set(rowId(row), row);
  const visible = rows.size > 0 ? await visibleIds(service, model, [...rows.values()], conditions) : new Set<number>();
  const shownRows = [...rows.values()].filter((row) => visible.has(rowId(row)));
  // afterFetch may change the rows it is given: it gets copies, never the rows other viewers share.
  const shownById = new Map<number, FormRow>();
  if (shownRows.length > 0) for (const row of await service.shownTo(model, actor, 'query', structuredClone(shownRows))) shownById.set(rowId(row), clean(model, row));
  const views: LiveView[] = [];
  for (const change of changes) {
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
      views.push({ shown: [], visible: new Set(), moves: false, wasVisible: new Set(), couldSee });
      continue;
    }
    const mine = new Set(change.rows.map(rowId).filter((id) => visible.has(id)));
    const shown = [...mine].map((id) => shownById.get(id)).filter((row) => row !== undefined);
    // A change to a field the viewer's filter reads may move the row in or out of it: whether the
    // viewer could see it before is judged on the logged row (read once per message, if any viewer asks).
    const moves = message.kind === 'update' && (message.changed ?? []).some((f) => read.has(f));
    const wasVisible = new Set<number>();
    if (moves) for (const [id, row] of await change.before()) if (surelyMet(model, row, conditions, read, dialect)) wasVisible.add(id);
    views.push({ shown, visible: mine, moves, wasVisible, couldSee: new Set() });
  }
  return views;
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
export function viewerEvents(model: ModelDefinition, change: LiveChange, view: LiveView, viewerId?: number): LiveEvent[] {
  const { message } = change;
  if (message.kind === 'delete') return [];
  const base = eventBase(model, message, viewerId);
  const events: LiveEvent[] = [];
  for (const row of view.shown) {
    const id = Number(row[model.primaryKey] ?? NaN);
    if (!Number.isSafeInteger(id)) continue;
    // A row that may have entered the filter is sent whole; one that was in it already, as an update.
    if (message.kind === 'insert' || (view.moves && !view.wasVisible.has(id))) {
      events.push({ type: 'insert', data: { ...base, id, row } });
    } else {
      const values: Record<string, unknown> = {};
      for (const f of message.changed ?? []) if (f in row) values[f] = row[f];
      if (Object.keys(values).length === 0) continue;
      events.push({ type: 'update', data: { ...base, id, values } });
    }
  }
  return events;
}

/**
 * The events of `change` that depend on what one stream was told before (`known`, which this
 * updates): a delete, and the rows an update took out of the viewer's filter. A row is named only
 * when the viewer could see it before, by `known` or by the logged row (see docs/data.md, "Live tables").
 */
export function streamEvents(model: ModelDefinition, change: LiveChange, view: LiveView, known: Set<number>, viewerId?: number): LiveEvent[] {
  const { message } = change;
  if (message.kind === 'delete') {
    const ids = message.ids.filter((id) => known.has(id) || view.couldSee.has(id));
    for (const id of message.ids) known.delete(id);
    return ids.length > 0 ? [{ type: 'delete', data: { ...eventBase(model, message, viewerId), ids } }] : [];
  }
  if (message.kind !== 'update') return [];
  // Rows the viewer could see before (told by this stream, or by the logged row) that they no longer see: they left the filter (or are gone).
  const left = message.ids.filter((id) => (known.has(id) || view.wasVisible.has(id)) && !view.visible.has(id));
  for (const id of left) known.delete(id);
  return left.length > 0 ? [{ type: 'delete', data: { ...eventBase(model, message, viewerId), ids: left, reason: 'filter' } }] : [];
}

/** The events one stream gets for `change`, given its viewer's `view`: {@link viewerEvents}, then {@link streamEvents}. */
export function eventsFor(model: ModelDefinition, change: LiveChange, view: LiveView, known: Set<number>, viewerId?: number): LiveEvent[] {
  return [...viewerEvents(model, change, view, viewerId), ...streamEvents(model, change, view, known, viewerId)];
}
