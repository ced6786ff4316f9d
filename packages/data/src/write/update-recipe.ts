// The update recipe: the steps every update of one row takes, written once. Read the visible
// row, refuse a stale save, build the new row, check it, take the changed columns, stamp them,
// write them with the operate-log row, finish. Four backends run it: the general knex path
// (a transaction with grants, hooks, references and files; audited-write.ts), the synchronous
// SQLite path and the one-statement PostgreSQL path (fast-update.ts), and the two-round-trip
// MariaDB/MySQL path (mysql-write.ts). A fast backend hands the
// update over to the general path by answering FALLBACK at any step before it wrote anything.
//
// The recipe is a generator: each step a backend (or the caller's `build`) takes is yielded, and
// a driver runs it. `runUpdate` awaits what is a promise; `runUpdateNow` runs everything at once
// (the SQLite path, with no await between BEGIN and COMMIT) and hands over when a step answers a
// promise after all.
import { EditType, FwError, type ModelDefinition } from '@fw/core';
import type { FormRow } from '@fw/row-patch';
import type { Knex } from 'knex';
import type { EditEvent } from '../events.js';
import { endsKeySessions } from '../key-sessions.js';
import { matchesVersion, rowVersion } from '../read/row-version.js';
import type { Actor, UpdateOptions } from '../service-types.js';
import type { LiveLogRef } from '../live/publish.js';
import type { OperateLogEntry } from './operate-log.js';
import { changes, updateStamp } from './row-changes.js';
import type { SessionEnds } from './session-ends.js';

/** Answered by a step of a fast backend (and by the SQLite transaction) to hand the update over to the general path; nothing was written. */
export const FALLBACK: unique symbol = Symbol('fw.update-fallback');

/** What an operation tells its operate-log row once it knows (the row before, the id, the request as logged). */
export interface LogNotes {
  before?: unknown;
  targetId?: string | null;
  request?: unknown;
  /** The batch id of the operation's log rows (bulk delete, restore). */
  batch?: string;
  /** Writes the success row inside the operation's transaction; set by `AuditedWriter.logged`. */
  commit?: (trx: Knex.Transaction) => Promise<void>;
  /** True once the success row was written in the transaction. */
  written?: boolean;
  /** The success row's id (`fw_operate_log.id`), once written in the transaction. */
  id?: number;
  /** The success entry as it stands now; set by `AuditedWriter.logged`. */
  success?: () => OperateLogEntry;
}

/** What an update carries from its write to its answer. */
export interface UpdateState {
  event?: EditEvent;
  written?: FormRow;
  stale?: FormRow;
  /** The row and the expected fields that differ, when an `expect` was not met (STALE_CELL). */
  staleCells?: { row: FormRow; fields: string[] };
  endSessions: boolean;
  keyChanged?: FormRow;
  /** True once the write step began: a failure after it may have changed the database (the transaction must end). */
  writeBegun?: boolean;
  /** Where the operate log holds the row before this update, for live tables (live/publish.ts): its log row, or the batch of a bulk write. */
  logRef?: LiveLogRef;
}

/** A value now, or later. */
type Step<T> = T | Promise<T>;

/** One update, as the recipe needs it. */
export interface UpdateRequest {
  model: ModelDefinition;
  actor: Actor;
  id: number;
  /** The new row from the stored one (the edit form's merge, or the cell editor's patch). */
  build: (stored: FormRow) => FormRow | Promise<FormRow>;
  options: UpdateOptions;
  /** The operate-log notes; undefined inside an import, which logs on its own. */
  log: LogNotes | undefined;
  state: UpdateState;
  sessions: SessionEnds;
  /** The key of row versions (`versionKeyOf`), read before the recipe runs: its steps stay synchronous. */
  versionKey: Uint8Array;
}

/** What one way of writing runs the recipe over: it reads the visible row and writes the changed columns. */
export interface UpdateBackend {
  /** The visible row in form shape (locked, or read with its version); throws `ROW_NOT_FOUND` when the actor cannot see it. */
  readVisible(): Step<FormRow>;
  /**
   * The checks between building the new row and writing it: the whole-row validation, and what
   * else the backend's write needs (grants, hooks, references, files on the general path).
   */
  check(stored: FormRow, next: FormRow): Step<void | typeof FALLBACK>;
  /** True when {@link check} may change the new row (a `beforeUpdate` hook): its changes are taken again after it. */
  readonly checkMayChangeRow: boolean;
  /** The columns to write in stored form, the key left out. */
  columns(stored: FormRow, next: FormRow, changed: FormRow): Step<Record<string, unknown> | typeof FALLBACK>;
  /** Writes the columns (on the fast paths with the operate-log row, in the same commit). */
  write(columns: Record<string, unknown>, stored: FormRow, next: FormRow, changed: FormRow): Step<void | typeof FALLBACK>;
}

/** A save that names a version other than the stored row's is refused (409 STALE_ROW, the row kept in `state` for the answer). */
function refuseStale(model: ModelDefinition, id: number, stored: FormRow, options: UpdateOptions, state: UpdateState, key: Uint8Array): void {
  if (options.ifMatch === undefined || matchesVersion(options.ifMatch, rowVersion(model, stored, key))) return;
  state.stale = stored;
  throw new FwError('STALE_ROW', `${model.name} ${id} was changed since you read it; nothing was written`);
}

/** Stamps `updated_at` (when the model has one) on a write that changes the row. */
function stampUpdate(model: ModelDefinition, changed: FormRow, columns: Record<string, unknown>, next: FormRow): void {
  const stamp = Object.keys(changed).length > 0 ? updateStamp(model) : undefined;
  if (!stamp) return;
  const now = new Date();
  columns[stamp.column] = now;
  next[stamp.name] = now.toISOString();
}

/** The steps of an update over `backend`; run it with {@link runUpdate} or {@link runUpdateNow}. */
export function* updateSteps(request: UpdateRequest, backend: UpdateBackend): Generator<unknown, true | typeof FALLBACK, unknown> {
  const { model, actor, id, log, state } = request;
  // Each `yield` hands a step's answer (a value or a promise) to the driver and takes back its value.
  const stored = (yield backend.readVisible()) as FormRow;
  if (log) log.before = stored;
  refuseStale(model, id, stored, request.options, state, request.versionKey);
  if (request.options.expect) {
    // A cell shown with one value and saved over another is refused, nothing written (issue 24 §1).
    const stale = (yield request.options.expect.check(stored)) as string[];
    if (stale.length > 0) {
      state.staleCells = { row: stored, fields: stale };
      throw new FwError('STALE_CELL', `${model.name} ${id}: ${stale.join(', ')} changed since it was shown; nothing was written`);
    }
  }
  const next = (yield request.build(stored)) as FormRow;
  next[model.primaryKey] = id;
  let changed = changes(model, stored, next);
  // What was asked, in one shape for the edit form and the cell editor: the values that differ.
  if (log) log.request = { id, changes: changed };
  if ((yield backend.check(stored, next)) === FALLBACK) return FALLBACK;
  if (backend.checkMayChangeRow) changed = changes(model, stored, next);
  const columns = (yield backend.columns(stored, next, changed)) as Record<string, unknown> | typeof FALLBACK;
  if (columns === FALLBACK) return FALLBACK;
  stampUpdate(model, changed, columns, next);
  state.endSessions = request.sessions.endsUserSessions(model, changed);
  if (endsKeySessions(model, changed)) state.keyChanged = stored;
  state.writeBegun = true;
  if ((yield backend.write(columns, stored, next, changed)) === FALLBACK) return FALLBACK;
  // The row after the write (passwords left out) and the edit event.
  const after = { ...stored, ...Object.fromEntries(Object.entries(next).filter(([k]) => model.fields[k]?.edit.type !== EditType.PASSWORD)) };
  state.event = { model: model.name, id, user: { id: actor.user.id, account: actor.user.account, ...(actor.user.name ? { name: actor.user.name } : {}) }, source: actor.source, before: stored, after, changed: Object.keys(changed) };
  state.written = after;
  return true;
}

/** Runs the steps, awaiting each one that answers a promise. */
export async function runUpdate(steps: Generator<unknown, true | typeof FALLBACK, unknown>): Promise<true | typeof FALLBACK> {
  let value: unknown;
  for (;;) {
    const step = steps.next(value);
    if (step.done) return step.value;
    value = step.value instanceof Promise ? await step.value : step.value;
  }
}

/** Runs the steps synchronously; {@link FALLBACK} as soon as one answers a promise (an async `build`, say). */
export function runUpdateNow(steps: Generator<unknown, true | typeof FALLBACK, unknown>): true | typeof FALLBACK {
  let value: unknown;
  for (;;) {
    const step = steps.next(value);
    if (step.done) return step.value;
    if (step.value instanceof Promise) {
      step.value.catch(() => undefined);
      return FALLBACK;
    }
    value = step.value;
  }
}

/** Forgets what a fast attempt noted before it handed over, so the general path starts clean. */
export function handOver(log: LogNotes | undefined, state: UpdateState): void {
  if (log) log.before = log.request = undefined;
  state.endSessions = false;
  state.keyChanged = undefined;
  state.writeBegun = false;
}
