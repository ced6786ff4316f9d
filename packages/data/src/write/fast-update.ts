// The fast paths of an update (see AuditedWriter.update): on SQLite one synchronous transaction
// with prepared statements, on PostgreSQL one statement writing the row and its operate-log row.
// Both take the same steps in the same order as the general path, and hand over to it (before
// writing anything) whenever a step needs it.
import { FwError, EditType, type Condition, type DataHookContext, type ModelDefinition } from '@fw/core';
import { changedColumns, toFormRow, validateRowSync, type FormRow } from '@fw/row-patch';
import { operateLogRow, type FwStore } from '@fw/store';
import type { Knex } from 'knex';
import type { EditEvent } from '../events.js';
import { changes, updateStamp } from './row-changes.js';
import { endsKeySessions } from '../key-sessions.js';
import { rowOf } from './operate-log.js';
import { matchesVersion, rowVersion } from '../read/row-version.js';
import { isSecret, readColumns } from './secrets.js';
import { applyConditions } from '../read/query.js';
import { pkColumn, rowNotFound } from '../read/row-keys.js';
import { VERSION_KEY, type PgWriter } from './pg-write.js';
import { FALLBACK, needsGeneralPath, type SqliteTx, type SqliteWriter } from './sqlite-write.js';
import type { Actor, UpdateOptions } from '../service-types.js';
import type { SessionEnds } from './session-ends.js';
import type { LogNotes } from './audited-write.js';
import { extraValidation, validationError, violationError } from './write-checks.js';

/** What an update carries from its write to its answer. */
export interface UpdateState {
  event?: EditEvent;
  written?: FormRow;
  stale?: FormRow;
  endSessions: boolean;
  keyChanged?: FormRow;
}

/** What the fast paths write with. */
export interface FastUpdateDeps {
  store: FwStore;
  sessions: SessionEnds;
}

/** A save that names a version other than the stored row's is refused (409 STALE_ROW, the row kept in `state` for the answer). */
export function refuseStale(model: ModelDefinition, id: number, stored: FormRow, options: UpdateOptions, state: UpdateState): void {
  if (options.ifMatch === undefined || matchesVersion(options.ifMatch, rowVersion(model, stored))) return;
  state.stale = stored;
  throw new FwError('STALE_ROW', `${model.name} ${id} was changed since you read it; nothing was written`);
}

/** Stamps `updated_at` (when the model has one) on a write that changes the row. */
export function stampUpdate(model: ModelDefinition, changed: FormRow, columns: Record<string, unknown>, next: FormRow): void {
  const stamp = Object.keys(changed).length > 0 ? updateStamp(model) : undefined;
  if (!stamp) return;
  const now = new Date();
  columns[stamp.column] = now;
  next[stamp.name] = now.toISOString();
}

/** The row after the write and the edit event, once the write is done. */
export function finishUpdate(model: ModelDefinition, actor: Actor, id: number, stored: FormRow, next: FormRow, changed: FormRow, state: UpdateState): void {
  const after = { ...stored, ...Object.fromEntries(Object.entries(next).filter(([k]) => model.fields[k]?.edit.type !== EditType.PASSWORD)) };
  state.event = { model: model.name, id, user: { id: actor.user.id, account: actor.user.account }, source: actor.source, before: stored, after, changed: Object.keys(changed) };
  state.written = after;
}

/** The changed columns of a row with no secret in it (the fast paths never take one: needsGeneralPath), key left out. */
function plainColumns(model: ModelDefinition, stored: FormRow, next: FormRow, pk: string): Record<string, unknown> {
  // Like secretsForStorage, leave secrets out.
  const withoutSecrets: FormRow = { ...next };
  for (const field of Object.values(model.fields)) if (isSecret(field)) delete withoutSecrets[field.name];
  const columns: Record<string, unknown> = changedColumns(model, stored, withoutSecrets);
  delete columns[pk];
  return columns;
}

/**
 * The update of {@link AuditedWriter.update} on PostgreSQL for a model {@link modelFits}: the visible row read
 * with its version, the same checks in the same order, then the changed columns and the
 * operate-log row in one statement that writes only if the row's version is unchanged. False
 * (nothing written) when a step needs the general path, no column changes, or the row changed
 * since it was read.
 */
export async function updateOnPg(
  deps: FastUpdateDeps,
  pg: PgWriter,
  model: ModelDefinition,
  actor: Actor,
  id: number,
  build: (stored: FormRow) => FormRow | Promise<FormRow>,
  options: UpdateOptions,
  conditions: Condition[],
  log: LogNotes,
  state: UpdateState,
  context: DataHookContext,
): Promise<boolean> {
  const pk = pkColumn(model);
  const select = (knex: Knex, idValue: string | number) =>
    applyConditions(knex(model.table).select([...readColumns(model), knex.raw('xmin::text as ??', [VERSION_KEY])]).where(`${model.table}.${pk}`, idValue), model, conditions).first();
  const rows = conditions.length === 0 ? await pg.rows(pg.plan(`select\u0000${model.name}`, (knex, slot) => select(knex, slot(0)).toSQL()), [id]) : await pg.rowsNow(select(deps.store.knex, id).toSQL());
  const row = rows[0];
  // A row the user cannot see is a row that does not exist, as far as they can tell.
  if (!row) throw rowNotFound(model, id);
  const version = row[VERSION_KEY];
  delete row[VERSION_KEY];
  const stored = toFormRow(model, row);
  log.before = stored;
  refuseStale(model, id, stored, options, state);
  const next = await build(stored);
  next[model.primaryKey] = id;
  const changed = changes(model, stored, next);
  log.request = { id, changes: changed };
  await extraValidation(model, next, context, deps.store.dialect);
  if (needsGeneralPath(model, changed)) return false;
  const columns = plainColumns(model, stored, next, pk);
  stampUpdate(model, changed, columns, next);
  const names = Object.keys(columns);
  if (names.length === 0) return false;
  state.endSessions = deps.sessions.endsUserSessions(model, changed);
  if (endsKeySessions(model, changed)) state.keyChanged = stored;
  const logRow = operateLogRow(rowOf(log.success!()));
  const logNames = Object.keys(logRow) as Array<keyof typeof logRow>;
  const plan = pg.plan(`update\u0000${model.table}\u0000${names.join('\u0000')}`, (knex, slot) => {
    const update = knex(model.table)
      .where(pk, slot(names.length))
      .andWhereRaw('xmin::text = ?', [slot(names.length + 1)])
      .update(Object.fromEntries(names.map((name, i) => [name, slot(i)])))
      .toSQL();
    const first = names.length + 2;
    return {
      sql: `with "fw_changed" as (${update.sql} returning 1) insert into "fw_operate_log" (${logNames.map((n) => `"${n}"`).join(', ')}) select ${logNames.map(() => '?').join(', ')} from "fw_changed" returning "id"`,
      bindings: [...update.bindings, ...logNames.map((_, i) => slot(first + i))],
    };
  });
  let written: unknown[];
  try {
    written = await pg.rows(plan, [...names.map((name) => columns[name]), id, version, ...logNames.map((name) => logRow[name])]);
  } catch (error) {
    throw violationError(model, error, next) ?? error;
  }
  // The row changed since it was read: nothing was written; the general path reads it again under a lock.
  if (written.length === 0) return false;
  log.written = true;
  finishUpdate(model, actor, id, stored, next, changed, state);
  return true;
}

/**
 * The update of {@link AuditedWriter.update} as one synchronous SQLite transaction, for a model
 * {@link SqliteWriter.fits}: the same steps in the same order (visible row, version check,
 * build, whole-row validation, changed columns only, the stamp, the operate-log row in the same
 * commit), with no await between BEGIN and COMMIT. {@link FALLBACK} (before anything is
 * written) when a step needs the general path: an async build or rule, a changed reference or
 * secret.
 */
export function updateOnSqlite(
  deps: FastUpdateDeps,
  sqlite: SqliteWriter,
  tx: SqliteTx,
  model: ModelDefinition,
  actor: Actor,
  id: number,
  build: (stored: FormRow) => FormRow | Promise<FormRow>,
  options: UpdateOptions,
  conditions: Condition[],
  log: LogNotes,
  state: UpdateState,
): typeof FALLBACK | true {
  const pk = pkColumn(model);
  const select = (knex: Knex, idValue: string | number) => applyConditions(knex(model.table).select(readColumns(model)).where(`${model.table}.${pk}`, idValue), model, conditions).first();
  const row = conditions.length === 0 ? tx.get(sqlite.plan(`select\u0000${model.name}`, (knex, slot) => select(knex, slot(0))), [id]) : tx.getNow(sqlite.compileNow((knex) => select(knex, id)));
  // A row the user cannot see is a row that does not exist, as far as they can tell.
  if (!row) throw rowNotFound(model, id);
  const stored = toFormRow(model, row);
  log.before = stored;
  refuseStale(model, id, stored, options, state);
  const next = build(stored);
  if (next instanceof Promise) {
    next.catch(() => undefined);
    return FALLBACK;
  }
  next[model.primaryKey] = id;
  const changed = changes(model, stored, next);
  log.request = { id, changes: changed };
  const details = validateRowSync(model, next, { dialect: 'sqlite' });
  if (!details) return FALLBACK;
  if (details.length > 0) throw validationError(details);
  if (needsGeneralPath(model, changed)) return FALLBACK;
  state.endSessions = deps.sessions.endsUserSessions(model, changed);
  if (endsKeySessions(model, changed)) state.keyChanged = stored;
  const columns = plainColumns(model, stored, next, pk);
  stampUpdate(model, changed, columns, next);
  const names = Object.keys(columns);
  if (names.length > 0) {
    const plan = sqlite.plan(`update\u0000${model.table}\u0000${names.join('\u0000')}`, (knex, slot) =>
      knex(model.table)
        .where(pk, slot(names.length))
        .update(Object.fromEntries(names.map((name, i) => [name, slot(i)]))),
    );
    try {
      tx.run(plan, [...names.map((name) => columns[name]), id]);
    } catch (error) {
      throw violationError(model, error, next) ?? error;
    }
  }
  // The success row of the operate log commits with the change.
  const logRow = operateLogRow(rowOf(log.success!()));
  const logNames = Object.keys(logRow) as Array<keyof typeof logRow>;
  const logPlan = sqlite.plan(`insert\u0000fw_operate_log`, (knex, slot) => knex('fw_operate_log').insert(Object.fromEntries(logNames.map((name, i) => [name, slot(i)]))));
  tx.run(logPlan, logNames.map((name) => logRow[name]));
  log.written = true;
  finishUpdate(model, actor, id, stored, next, changed, state);
  return true;
}
