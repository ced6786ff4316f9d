// Undo (issue 23 §3): take back what one batch did (a bulk edit, an import, a bulk delete, a
// restore, an earlier undo), or what one user did in a time window, from the operate log. Every
// entry is undone by the write that reverses it, through the normal paths and in one transaction:
// an update puts the changed fields back to their values before it (the edit path: visibility,
// today's validation, hooks, grant rules), an added row is deleted (to the trash where the model
// keeps one), a deleted row comes back from the trash with its id. Undo itself is logged with
// source `undo` and a batch id of its own, so it can be undone too.
//
// An entry whose row changed since (a later entry of the row that the undo does not include),
// whose row is gone, or whose id is taken again, is a conflict: listed and skipped; a row changed
// since can still be forced, entry by entry.
import { randomUUID } from 'node:crypto';
import { EditType, FwError, type Condition, type ModelDefinition, type ModelRegistry } from '@fw/core';
import { coerceValue, type FormRow } from '@fw/row-patch';
import type { FwStore } from '@fw/store';
import type { Knex } from 'knex';
import { dataError } from '../error-codes.js';
import { entryChanges } from '../read/history.js';
import { applyConditions } from '../read/query.js';
import { pkColumn } from '../read/row-keys.js';
import { hookContext, type Actor } from '../service-types.js';
import type { AuditedWriter, LogNotes, UpdateState } from './audited-write.js';
import { MASK, OPERATE_LOG_TABLE, type OperateLogEntry } from './operate-log.js';
import { isSecret } from './secrets.js';
import type { DroppedLink, TrashWriter } from './trash.js';

/** The most log entries one undo takes back. */
export const UNDO_MAX_ENTRIES = 10_000;
/** The longest time window of an undo by actor, in days. */
export const UNDO_MAX_WINDOW_DAYS = 31;
// Steps and conflicts listed in an answer (the counts are always whole).
const LISTED = 500;

/** The log actions an undo can reverse. */
const UNDOABLE = ['update', 'add', 'copy', 'delete', 'undelete'] as const;
type UndoableAction = (typeof UNDOABLE)[number];

/** A checked undo body: one batch, or one user's entries in a time window. */
export type UndoInput = ({ batch: string } | { actor: number; from: Date; to: Date }) & {
  /** Check every entry as the undo would, write nothing. */
  dryRun?: boolean;
  /** Entries (log ids) undone even though their row changed since. */
  force?: number[];
};

/** What one undone entry did. */
export interface UndoStep {
  /** The log entry undone. */
  entry: number;
  model: string;
  id: number;
  /** `update`: fields put back; `delete`: an added row deleted; `undelete`: a deleted row put back. */
  action: 'update' | 'delete' | 'undelete';
  /** The fields put back (`update`). */
  fields?: string[];
  /** True when the row had changed since and the entry was forced. */
  forced?: true;
}

/** Why an entry was not undone. */
export type UndoConflictReason = 'changed' | 'gone' | 'taken' | 'invalid' | 'removed' | 'unsupported';

/** An entry not undone. */
export interface UndoConflict {
  entry: number;
  model: string;
  id: number | null;
  reason: UndoConflictReason;
  message: string;
}

/** A field of an undone update left as it is. */
export interface UndoSkippedField {
  entry: number;
  field: string;
  reason: 'removed' | 'secret' | 'readonly' | 'attachment' | 'invalid';
}

/** What an undo answers. */
export interface UndoResult {
  /** The batch id of the undo's own log rows (null on a dry run, or when nothing was undone). */
  batch: string | null;
  /** Entries undone. */
  undone: number;
  /** Entries not undone (see `conflicts`). */
  conflicted: number;
  /** The first 500 steps, newest entry first. */
  steps: UndoStep[];
  /** The first 500 conflicts. */
  conflicts: UndoConflict[];
  /** Fields of undone updates left as they are. */
  skipped: UndoSkippedField[];
  /** Present (true) on a dry run: nothing was written. */
  dryRun?: true;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const bad = (path: string, message: string) => new FwError('BAD_REQUEST', message, { details: [{ path, type: 'typeError', message }] });

/** True when the text's `YYYY-MM-DD` names a day of the calendar (Date rolls 2026-02-30 over to March 2). */
function realDay(text: string): boolean {
  const [year, month, day] = text.slice(0, 10).split('-').map(Number) as [number, number, number];
  // Day 0 of the next month is the last of this one (setUTCFullYear: Date.UTC reads years 0-99 as 1900-1999).
  const last = new Date(0);
  last.setUTCFullYear(year, month, 0);
  return month >= 1 && month <= 12 && day >= 1 && day <= last.getUTCDate();
}

function when(value: unknown, path: string): Date {
  const date = typeof value === 'string' && /^\d{4}-\d{2}-\d{2}T/.test(value) && realDay(value) ? new Date(value) : undefined;
  if (!date || Number.isNaN(date.getTime())) throw bad(path, `${path} must be a date and time (ISO 8601, e.g. 2026-11-27T09:00:00Z)`);
  return date;
}

/**
 * Checks an undo body: `{ batch, dryRun?, force? }` or `{ actor, from, to, dryRun?, force? }`
 * (a user id and an ISO time window of at most 31 days).
 * @throws {FwError} 400 `BAD_REQUEST` naming the field.
 */
export function parseUndo(body: unknown): UndoInput {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw bad('', 'The body must be { batch } or { actor, from, to }, with dryRun and force optional');
  const b = body as Record<string, unknown>;
  for (const key of Object.keys(b)) if (!['batch', 'actor', 'from', 'to', 'dryRun', 'force'].includes(key)) throw bad(key, `unknown field ${key}`);
  if (b.dryRun !== undefined && typeof b.dryRun !== 'boolean') throw bad('dryRun', 'dryRun must be true or false');
  let force: number[] | undefined;
  if (b.force !== undefined) {
    if (!Array.isArray(b.force) || b.force.length > UNDO_MAX_ENTRIES) throw bad('force', `force must be a list of at most ${UNDO_MAX_ENTRIES} entry ids`);
    force = b.force.map((v, i) => {
      if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 1) throw bad(`force[${i}]`, 'an entry id is a positive whole number');
      return v;
    });
  }
  const extra = { ...(b.dryRun === true ? { dryRun: true } : {}), ...(force ? { force } : {}) };
  const byBatch = b.batch !== undefined;
  const byActor = b.actor !== undefined || b.from !== undefined || b.to !== undefined;
  if (byBatch === byActor) throw bad('', 'The body names one batch, or an actor with a time window (from, to): one of them');
  if (byBatch) {
    if (typeof b.batch !== 'string' || !UUID.test(b.batch)) throw bad('batch', 'batch must be a batch id (a UUID)');
    return { batch: b.batch.toLowerCase(), ...extra };
  }
  if (typeof b.actor !== 'number' || !Number.isSafeInteger(b.actor) || b.actor < 1) throw bad('actor', 'actor must be a user id (a positive whole number)');
  const from = when(b.from, 'from');
  const to = when(b.to, 'to');
  if (to.getTime() <= from.getTime()) throw bad('to', 'to must be later than from');
  if (to.getTime() - from.getTime() > UNDO_MAX_WINDOW_DAYS * 24 * 3600 * 1000) throw bad('to', `the window is at most ${UNDO_MAX_WINDOW_DAYS} days`);
  return { actor: b.actor, from, to, ...extra };
}

/** What an undo needs. */
export interface UndoDeps {
  store: FwStore;
  registry: ModelRegistry;
  writer: AuditedWriter;
  trash: TrashWriter;
  /** Checks the actor's power on a model (throws 403). */
  requirePower(model: ModelDefinition, actor: Actor, flags: Array<'edit' | 'delete' | 'add'>): Promise<unknown>;
  /** The row-visibility conditions of the actor for an action on a model (`beforeFetch`). */
  visibility(model: ModelDefinition, actor: Actor, action: 'delete'): Promise<Condition[]>;
  /** The permission codes the actor may grant, for models that hand them out (undefined otherwise). */
  grantCodes(model: ModelDefinition, actor: Actor): Promise<ReadonlySet<string> | undefined>;
}

/** One log entry to undo. */
interface Entry {
  id: number;
  model: string;
  action: UndoableAction;
  targetId: string | null;
  userId: number | null;
  batch: string | null;
  beforeData: unknown;
  request: unknown;
}

/** Thrown inside a dry run's transaction to roll it back. */
const DRY_RUN = Symbol('fw.undo-dry-run');

/** The entries of the batch or window, newest first. @throws {FwError} 404 when there are none, 413 past the bound. */
async function loadEntries(store: FwStore, input: UndoInput): Promise<Entry[]> {
  const query = store
    .knex(OPERATE_LOG_TABLE)
    .where('status', 'success')
    .whereIn('action', UNDOABLE)
    .orderBy('id', 'desc')
    .limit(UNDO_MAX_ENTRIES + 1)
    .select('id', 'model', 'action', 'target_id', 'user_id', 'batch', 'before_data', 'request');
  if ('batch' in input) query.where('batch', input.batch);
  else query.where('user_id', input.actor).where('created_at', '>=', input.from).where('created_at', '<', input.to);
  const rows = (await query) as Array<Record<string, unknown>>;
  if (rows.length === 0) throw new FwError('NOT_FOUND', 'batch' in input ? `No changes to undo in batch ${input.batch}` : `No changes of user ${input.actor} to undo in that window`);
  if (rows.length > UNDO_MAX_ENTRIES) throw dataError('TOO_MANY_ROWS', `An undo takes back at most ${UNDO_MAX_ENTRIES} changes; narrow the window`);
  return rows.map((r) => ({
    id: Number(r.id),
    model: String(r.model),
    action: String(r.action) as UndoableAction,
    targetId: r.target_id == null ? null : String(r.target_id),
    userId: r.user_id == null ? null : Number(r.user_id),
    batch: r.batch == null ? null : String(r.batch),
    beforeData: r.before_data,
    request: r.request,
  }));
}

/** The power each action's reversal needs. */
function powerFor(action: UndoableAction): Array<'edit' | 'delete' | 'add'> {
  if (action === 'update') return ['edit'];
  if (action === 'delete') return ['delete', 'add'];
  return ['delete'];
}

/**
 * The ids of the entries whose row changed after them outside the undo: a later successful
 * entry of the same row that is not one of `entries`.
 */
async function changedSince(db: Knex.Transaction, entries: readonly Entry[]): Promise<Set<number>> {
  const inUndo = new Set(entries.map((e) => e.id));
  const changed = new Set<number>();
  const byModel = new Map<string, Entry[]>();
  for (const e of entries) if (e.targetId !== null) byModel.set(e.model, [...(byModel.get(e.model) ?? []), e]);
  for (const [model, list] of byModel) {
    const targets = [...new Set(list.map((e) => e.targetId!))];
    const oldest = Math.min(...list.map((e) => e.id));
    // The newest entry of each row from outside the undo, after the undo's oldest entry.
    const lastOutside = new Map<string, number>();
    for (let i = 0; i < targets.length; i += 500) {
      const query = db(OPERATE_LOG_TABLE)
        .where('model', model)
        .where('status', 'success')
        .whereIn('target_id', targets.slice(i, i + 500))
        .where('id', '>', oldest)
        .select('id', 'target_id');
      const rows = (await query) as Array<Record<string, unknown>>;
      for (const r of rows) {
        const id = Number(r.id);
        const target = String(r.target_id);
        if (!inUndo.has(id) && id > (lastOutside.get(target) ?? 0)) lastOutside.set(target, id);
      }
    }
    for (const e of list) if ((lastOutside.get(e.targetId!) ?? 0) > e.id) changed.add(e.id);
  }
  return changed;
}

/**
 * Locks the log rows of the entries undone, in id order: two undos sharing an entry (the same
 * batch sent twice at once) then run one after the other, and the second finds the rows changed
 * by the first (its log rows) instead of applying the same entries again.
 */
async function lockEntries(trx: Knex.Transaction, entries: readonly Entry[]): Promise<void> {
  const ids = entries.map((e) => e.id).sort((a, b) => a - b);
  for (let i = 0; i < ids.length; i += 500) await trx(OPERATE_LOG_TABLE).whereIn('id', ids.slice(i, i + 500)).orderBy('id').forUpdate().select('id');
}

/** The fields of an update entry put back, converted; the others noted in `skipped`. */
function valuesBefore(model: ModelDefinition, entry: Entry, id: number, skipped: UndoSkippedField[]): FormRow | undefined {
  const changes = entryChanges(model, id, { action: 'update', before_data: entry.beforeData, request: entry.request });
  if (changes === undefined) return undefined;
  const values: FormRow = {};
  for (const change of changes) {
    const field = Object.hasOwn(model.fields, change.field) ? model.fields[change.field]! : undefined;
    const skip = (reason: UndoSkippedField['reason']) => skipped.push({ entry: entry.id, field: change.field, reason });
    if (!field) skip('removed');
    else if (isSecret(field) || change.before === MASK) skip('secret');
    else if (field.primaryKey || field.edit.readonly || !field.stored) skip('readonly');
    else if (field.edit.type === EditType.ATTACHMENT) skip('attachment');
    else {
      const converted = coerceValue(field, change.before);
      if (!converted.ok) skip('invalid');
      else Object.defineProperty(values, field.name, { value: converted.value, enumerable: true, writable: true, configurable: true });
    }
  }
  return values;
}

/** A refusal of one row that left nothing written: listed as a conflict, the undo goes on. */
function refusal(error: unknown): error is FwError {
  return error instanceof FwError && (error.status === 400 || error.status === 404 || error.status === 422);
}

/**
 * Undoes a batch or a user's window (see the file's comment). The caller may undo a batch when
 * every entry in it is its own, or when it is an administrator; by actor, administrators only.
 * The power to reverse each entry is checked on its model first (`edit` for updates, `delete`
 * for added rows, `delete` and `add` for deleted ones).
 * @throws {FwError} 403 `POWER_DENIED`, 404 `NOT_FOUND` (nothing to undo), 413 `TOO_MANY_ROWS`.
 */
export async function runUndo(deps: UndoDeps, actor: Actor, input: UndoInput): Promise<UndoResult> {
  const { store, registry, writer, trash } = deps;
  if ('actor' in input && !actor.user.isAdmin) throw new FwError('POWER_DENIED', 'Only an administrator may undo by user and time');
  const entries = await loadEntries(store, input);
  if (!actor.user.isAdmin && entries.some((e) => e.userId !== actor.user.id)) {
    throw new FwError('POWER_DENIED', 'This batch holds changes made by another user; only an administrator may undo it');
  }
  const conflicts: UndoConflict[] = [];
  const conflict = (e: Entry, reason: UndoConflictReason, message: string) => conflicts.push({ entry: e.id, model: e.model, id: e.targetId !== null && /^\d+$/.test(e.targetId) ? Number(e.targetId) : null, reason, message });
  // The models, and the power on each, before anything is read or written.
  const models = new Map<string, ModelDefinition>();
  const codes = new Map<string, ReadonlySet<string> | undefined>();
  for (const e of entries) {
    const model = registry.get(e.model);
    if (!model) continue;
    if (!models.has(model.name)) {
      models.set(model.name, model);
      codes.set(model.name, await deps.grantCodes(model, actor));
    }
  }
  const needs = new Map<string, Set<'edit' | 'delete' | 'add'>>();
  for (const e of entries) if (models.has(e.model)) for (const flag of powerFor(e.action)) needs.set(e.model, (needs.get(e.model) ?? new Set()).add(flag));
  for (const [name, flags] of needs) await deps.requirePower(models.get(name)!, actor, [...flags]);

  const force = new Set(input.force ?? []);
  const undoer: Actor = { ...actor, source: 'undo' };
  const batch = randomUUID();
  const steps: UndoStep[] = [];
  const skipped: UndoSkippedField[] = [];
  const updated: Array<{ model: ModelDefinition; id: number; state: UpdateState }> = [];
  const removed: Array<{ model: ModelDefinition; ids: number[]; rows: FormRow[] }> = [];
  const undeleted: Array<{ model: ModelDefinition; rows: FormRow[] }> = [];
  const dropped: DroppedLink[] = [];
  const startedAt = performance.now();
  const first = models.values().next().value;

  const undoEntry = async (trx: Knex.Transaction, e: Entry, model: ModelDefinition, id: number, forced: boolean) => {
    const step = (action: UndoStep['action'], extra: Partial<UndoStep> = {}) => steps.push({ entry: e.id, model: model.name, id, action, ...extra, ...(forced ? { forced: true as const } : {}) });
    const modelCodes = codes.get(model.name);
    if (e.action === 'update') {
      const values = valuesBefore(model, e, id, skipped);
      if (values === undefined) return conflict(e, 'unsupported', 'the log cut this entry short; its values cannot be read back');
      const fields = Object.keys(values);
      if (fields.length === 0) return step('update', { fields });
      const state: UpdateState = { endSessions: false };
      const log: LogNotes = {};
      const rowStarted = performance.now();
      try {
        await writer.updateIn(model, undoer, trx, id, (stored) => ({ ...stored, ...values }), {}, modelCodes, hookContext(model, undoer, 'update'), state, log);
      } catch (error) {
        if (!refusal(error) || state.writeBegun) throw error;
        return conflict(e, error.status === 404 ? 'gone' : 'invalid', error.status === 404 ? 'the row no longer exists, or is not yours to edit' : error.message);
      }
      state.logRef = { batch };
      updated.push({ model, id, state });
      const entry: OperateLogEntry = { model, action: 'update', source: 'undo', user: actor.user, ip: actor.ip, targetId: String(id), before: log.before, request: log.request, error: undefined, startedAt: rowStarted, batch };
      await writer.logRowsIn(trx, [entry]);
      return step('update', { fields });
    }
    if (e.action === 'delete') {
      if (!model.trash) return conflict(e, 'gone', `${model.name} keeps no trash: the deleted row cannot come back`);
      const [record] = await store.trash.findRows(model.name, [String(id)], trx);
      if (!record || record.batch !== e.batch) return conflict(e, 'gone', 'the row is no longer in the trash');
      if (await trx(model.table).where(pkColumn(model), id).first(pkColumn(model))) return conflict(e, 'taken', `the id ${id} is taken by another row`);
      try {
        undeleted.push({ model, rows: await trash.undeleteIn(model, undoer, trx, [id], modelCodes, batch, dropped) });
      } catch (error) {
        if (!refusal(error)) throw error;
        return conflict(e, error.status === 404 ? 'gone' : 'invalid', error.message);
      }
      return step('undelete');
    }
    throw new Error(`undoEntry takes updates and deletes, not ${e.action}`);
  };

  // Rows an entry made (add, copy, undelete) go by runs of up to 500 of one model: one look for
  // which still exist, one delete (to the trash, where the model keeps one).
  const removeRun = async (trx: Knex.Transaction, model: ModelDefinition, run: Array<{ e: Entry; id: number; forced: boolean }>) => {
    const pk = pkColumn(model);
    const ids = run.map((r) => r.id);
    const present = new Set(((await trx(model.table).whereIn(pk, ids).select(pk)) as Array<Record<string, unknown>>).map((r) => Number(r[pk])));
    // Of those, the rows the actor may delete (the delete's own row visibility).
    const qb = trx(model.table).whereIn(pk, ids).select(pk);
    const mine = new Set(((await applyConditions(qb, model, await deps.visibility(model, actor, 'delete'))) as Array<Record<string, unknown>>).map((r) => Number(r[pk])));
    const going = run.filter((r) => {
      if (!present.has(r.id)) conflict(r.e, 'gone', 'the row no longer exists');
      else if (!mine.has(r.id)) conflict(r.e, 'gone', 'the row is not yours to delete');
      return mine.has(r.id);
    });
    if (going.length === 0) return;
    const goingIds = going.map((r) => r.id);
    const done = await writer.removeIn(model, undoer, trx, goingIds, codes.get(model.name), batch);
    removed.push({ model, ids: goingIds, rows: done.rows });
    for (const r of going) steps.push({ entry: r.e.id, model: model.name, id: r.id, action: 'delete', ...(r.forced ? { forced: true as const } : {}) });
  };

  let run: Array<{ model: ModelDefinition; e: Entry; id: number; forced: boolean }> = [];
  const flush = async (trx: Knex.Transaction) => {
    if (run.length === 0) return;
    const taken = run;
    run = [];
    await removeRun(trx, taken[0]!.model, taken);
  };

  try {
    await writer
      .transaction([...models.values()], undefined, async (trx) => {
        // Inside the transaction, after the lock: an undo of the same entries that committed
        // meanwhile counts as a change since. The lock is the transaction's first statement and
        // a locking read, so MariaDB's repeatable-read snapshot is taken after it, by the read of
        // the changes since. SQLite runs one write transaction at a time.
        if (store.dialect !== 'sqlite') await lockEntries(trx, entries);
        const changed = await changedSince(trx, entries);
        for (const e of entries) {
          const model = models.get(e.model);
          if (!model) {
            conflict(e, 'removed', `the model ${e.model} no longer exists`);
            continue;
          }
          const id = e.targetId !== null && /^\d+$/.test(e.targetId) ? Number(e.targetId) : undefined;
          if (id === undefined) {
            conflict(e, 'unsupported', 'the entry names no single row (logged before rows were logged one by one)');
            continue;
          }
          const forced = changed.has(e.id) && force.has(e.id);
          if (changed.has(e.id) && !forced) {
            conflict(e, 'changed', 'the row changed after this entry; force it to undo anyway');
            continue;
          }
          if (e.action === 'update' || e.action === 'delete') {
            await flush(trx);
            await undoEntry(trx, e, model, id, forced);
          } else {
            if (run.length > 0 && (run[0]!.model !== model || run.length >= 500)) await flush(trx);
            run.push({ model, e, id, forced });
          }
        }
        await flush(trx);
        if (input.dryRun) throw DRY_RUN;
      })
      .catch((error: unknown) => {
        if (error !== DRY_RUN) throw error;
      });
  } catch (error) {
    if (!input.dryRun && first) await writer.logFailure({ model: first, action: 'undo', source: 'undo', user: actor.user, ip: actor.ip, targetId: null, before: undefined, request: 'batch' in input ? { batch: input.batch } : { actor: input.actor, from: input.from, to: input.to }, error, startedAt, batch });
    throw error;
  }
  const answer = { undone: steps.length, conflicted: conflicts.length, steps: steps.slice(0, LISTED), conflicts: conflicts.slice(0, LISTED), skipped: skipped.slice(0, LISTED) };
  if (input.dryRun) return { batch: null, ...answer, dryRun: true };
  // Committed: what each kind of write does after its commit.
  for (const { model, id, state } of updated) await writer.afterUpdate(model, undoer, id, state);
  for (const { model, ids, rows } of removed) await writer.endDeleted(model, ids, rows);
  for (const { model, rows } of undeleted) trash.emitUndeleted(model, undoer, rows);
  return { batch: steps.length > 0 ? batch : null, ...answer };
}
