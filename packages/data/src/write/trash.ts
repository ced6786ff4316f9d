// The trash (issue 23 §3): a delete of a model that keeps a trash moves its rows into `fw_trash`
// inside the delete's own transaction; undelete puts them back with their ids, all or none; the
// purge removes them for good with their files, by age or on an administrator's demand.
//
// The row itself leaves the model's table, so unique values and references behave as after any
// delete: a new row may take a trashed row's unique value, and undeleting it is then refused (409)
// naming the field. A trashed row's files stay (their records keep pointing at the row id) until
// the purge, so an undeleted row has them back.
import { liveActor } from '../live/publish.js';
import { randomUUID } from 'node:crypto';
import { FwError, type DataHookContext, type ModelDefinition, type ModelRegistry, type PasswordPolicy } from '@fw/core';
import { toDbValues, type FormRow } from '@fw/row-patch';
import type { FwStore, TrashRecord } from '@fw/store';
import type { Knex } from 'knex';
import { attachmentFields, type Attachments } from '../files/attachments.js';
import type { DataEvents, InsertEvent } from '../events.js';
import type { RowReader } from '../read/rows.js';
import { pkColumn, rowNotFound } from '../read/row-keys.js';
import { trashedData, trashVisible } from '../read/trash-page.js';
import { hookContext, type Actor } from '../service-types.js';
import type { AuditedWriter } from './audited-write.js';
import { secretColumns } from './trash-move.js';
import { checkGrants } from './grant-rules.js';
import { isSecret } from './secrets.js';
import { checkReferences, validateWholeRow, writing } from './write-checks.js';

/** Default of `trashRetentionDays`: trashed rows older than this are purged. */
export const DEFAULT_TRASH_RETENTION_DAYS = 30;

const DAY_MS = 24 * 60 * 60 * 1000;

/** A link or file a row had when it was deleted and could not take back: the row, the field, and what was dropped. */
export interface DroppedLink {
  id: number;
  field: string;
  /** Ids of rows that no longer exist, or keys of files whose records are gone. */
  values: Array<number | string>;
}

/** What an undelete did. */
export interface UndeleteResult {
  restored: number;
  /** The batch id of the undelete's operate-log rows (one per row). */
  batch: string;
  /** Links to rows that no longer exist (references, collections) and files gone, left out of the restored rows. */
  dropped: DroppedLink[];
}

/** What a {@link TrashWriter} writes with. */
export interface TrashWriterDeps {
  store: FwStore;
  registry: ModelRegistry;
  reader: RowReader;
  writer: AuditedWriter;
  events: DataEvents;
  attachments: Attachments;
  passwordPolicy: PasswordPolicy;
  /** Trashed rows older than this many days are purged. */
  retentionDays: number;
}

/** Undelete and purge. Power is checked by the caller. */
export class TrashWriter {
  readonly #deps: TrashWriterDeps;

  constructor(deps: TrashWriterDeps) {
    this.#deps = deps;
  }

  /** How long a trashed row is kept, in days. */
  get retentionDays(): number {
    return this.#deps.retentionDays;
  }

  /**
   * Puts the trashed rows `ids` of `model` back with their ids, all or none, in one transaction:
   * each must be in the trash and visible to the actor (else 404), its id free and its unique
   * values unused (else 409 naming the row and the field); it then passes the grant rules (for
   * models that hand out permissions), whole-row validation with today's rules and the `validate`
   * hook, and the reference checks, after links to rows that no longer exist were dropped. The
   * `beforeAdd` / `afterAdd` hooks do not run: the row is not new, it is the one deleted.
   */
  async undelete(model: ModelDefinition, actor: Actor, ids: number[], codes: ReadonlySet<string> | undefined): Promise<UndeleteResult> {
    const { writer } = this.#deps;
    const batch = randomUUID();
    const startedAt = performance.now();
    const dropped: DroppedLink[] = [];
    let restored: FormRow[];
    try {
      restored = await writer.transaction(model, undefined, (trx) => this.undeleteIn(model, actor, trx, ids, codes, batch, dropped));
    } catch (error) {
      // Rolled back: one failure row, with the batch id, records the attempt.
      await writer.logFailure({ model, action: 'undelete', source: actor.source, user: actor.user, ip: actor.ip, targetId: ids.join(','), before: undefined, request: { ids }, error, startedAt, batch });
      throw error;
    }
    this.emitUndeleted(model, actor, restored);
    return { restored: restored.length, dropped, batch };
  }

  /**
   * {@link undelete} inside `trx` (the caller's transaction): the rows put back, in the order of
   * `ids`, each with its own operate-log row (action `undelete`) carrying `batch`; links dropped
   * are added to `dropped`. The caller emits the add events once `trx` commits ({@link emitUndeleted}).
   */
  async undeleteIn(model: ModelDefinition, actor: Actor, trx: Knex.Transaction, ids: number[], codes: ReadonlySet<string> | undefined, batch: string, dropped: DroppedLink[]): Promise<FormRow[]> {
    const { store, writer, reader } = this.#deps;
    const startedAt = performance.now();
    const context = hookContext(model, actor, 'add');
    const restored: FormRow[] = [];
    const visibility = await reader.visibility(model, actor, 'query');
    const found = new Map((await store.trash.findRows(model.name, ids.map(String), trx)).map((r) => [r.rowId, r]));
    const records: TrashRecord[] = [];
    for (const id of ids) {
      const record = found.get(String(id));
      if (!record || !trashVisible(model, actor, record, visibility, store.dialect)) throw rowNotFound(model, id);
      records.push(record);
    }
    const pk = pkColumn(model);
    const firstDropped = dropped.length;
    for (const [i, record] of records.entries()) {
      const id = ids[i]!;
      const taken = await trx(model.table).where(pk, id).first(pk);
      if (taken) throw conflict(model, id, model.primaryKey, `the id ${id} is taken by another row`);
      const { values, secrets } = trashedData(record);
      const row = await this.#rowToRestore(model, id, values, trx, dropped);
      const withContext: DataHookContext = { ...context, transaction: trx };
      if (codes) await checkGrants({ model, actorId: actor.user.id, codes, db: trx, op: 'add', next: row });
      await named(model, id, () => validateWholeRow(model, row, withContext, store.dialect, this.#deps.passwordPolicy));
      await named(model, id, () => checkReferences(this.#deps.registry, model, trx, row));
      const columns: Record<string, unknown> = { ...toDbValues(model, row), ...secretsOf(model, secrets), [pk]: id };
      await named(model, id, () => writing(model, row, () => insertWithId(store, model, trx, columns)));
      await this.#writeCollections(model, trx, id, row);
      restored.push(row);
    }
    await advanceSequence(store, model, trx, Math.max(...ids));
    await store.trash.delete(records.map((r) => r.id), trx);
    const droppedNow = dropped.slice(firstDropped);
    await writer.logRowsIn(
      trx,
      ids.map((id) => {
        const links = droppedNow.filter((d) => d.id === id);
        return { model, action: 'undelete', source: actor.source, user: actor.user, ip: actor.ip, targetId: String(id), before: undefined, request: { id, ...(links.length > 0 ? { dropped: links } : {}) }, error: undefined, startedAt, batch };
      }),
    );
    writer.afterCommit(trx, () => reader.counts.changed(model, restored.length));
    // Live tables see the rows come back as inserts (the undelete route and undo alike).
    if (writer.live) writer.afterCommit(trx, () => writer.live?.changed(model.name, 'insert', ids, liveActor(actor.user)));
    return restored;
  }

  /** The add events of undeleted rows, once their transaction committed. */
  emitUndeleted(model: ModelDefinition, actor: Actor, rows: readonly FormRow[]): void {
    for (const row of rows) this.#emit({ model: model.name, id: row[model.primaryKey] as number, user: { id: actor.user.id, account: actor.user.account, ...(actor.user.name ? { name: actor.user.name } : {}) }, source: actor.source, reason: 'undelete', after: row });
  }

  /**
   * The row to write back: the fields the model still declares, with references and collection
   * links to rows that no longer exist, and files whose records are gone, left out (and noted in
   * `dropped`); fields declared since take their empty value, which validation then judges.
   */
  async #rowToRestore(model: ModelDefinition, id: number, values: Readonly<FormRow>, trx: Knex.Transaction, dropped: DroppedLink[]): Promise<FormRow> {
    const row: FormRow = {};
    const files = attachmentFields(model).length > 0 ? new Set((await this.#deps.store.files.listForRows(model.name, [String(id)], trx)).map((f) => f.id)) : undefined;
    for (const field of Object.values(model.fields)) {
      if (isSecret(field)) continue;
      const value = Object.hasOwn(values, field.name) ? values[field.name] : field.edit.collection ? [] : null;
      row[field.name] = value;
      const target = field.edit.reference?.model ?? field.edit.collection?.model;
      if (target && value !== null) {
        const ids = (Array.isArray(value) ? value : [value]).filter((v): v is number => typeof v === 'number');
        const missing = await missingRows(this.#deps.registry, target, ids, trx);
        if (missing.length > 0) {
          dropped.push({ id, field: field.name, values: missing });
          row[field.name] = Array.isArray(value) ? ids.filter((v) => !missing.includes(v)) : null;
        }
      }
      if (files && field.edit.attachment && Array.isArray(value)) {
        const kept = (value as Array<{ id?: unknown }>).filter((f) => typeof f?.id === 'string' && files.has(f.id));
        if (kept.length < value.length) {
          dropped.push({ id, field: field.name, values: (value as Array<{ id?: unknown }>).filter((f) => !kept.includes(f)).map((f) => String(f?.id)) });
          row[field.name] = kept;
        }
      }
    }
    row[model.primaryKey] = id;
    return row;
  }

  async #writeCollections(model: ModelDefinition, trx: Knex.Transaction, id: number, row: FormRow): Promise<void> {
    for (const field of Object.values(model.fields)) {
      const c = field.edit.collection;
      const ids = c ? ((row[field.name] as number[] | null) ?? []) : [];
      for (let i = 0; c && i < ids.length; i += 500) {
        await writing(model, row, () => trx(c.joinTable).insert(ids.slice(i, i + 500).map((other) => ({ [c.ownKey]: id, [c.foreignKey]: other }))));
      }
    }
  }

  /**
   * Removes trashed rows for good, with the files of those not back in their table (records in
   * the transaction, stored bytes once it committed). @returns how many entries went
   */
  async purge(model: ModelDefinition, records: readonly TrashRecord[]): Promise<number> {
    if (records.length === 0) return 0;
    const { store, writer, attachments } = this.#deps;
    return writer.transaction(model, undefined, async (trx) => {
      const removed = await store.trash.delete(records.map((r) => r.id), trx);
      if (attachmentFields(model).length > 0) {
        const pk = pkColumn(model);
        const rowIds = records.map((r) => r.rowId);
        const back = new Set<string>();
        for (let i = 0; i < rowIds.length; i += 500) {
          const rows: Array<Record<string, unknown>> = await trx(model.table).whereIn(pk, rowIds.slice(i, i + 500)).select(pk);
          for (const row of rows) back.add(String(row[pk]));
        }
        const keys = await attachments.release(model, rowIds.filter((id) => !back.has(id)), trx);
        if (keys.length > 0) writer.afterCommit(trx, () => attachments.deleteStored(keys));
      }
      return removed;
    });
  }

  /** An administrator's purge of `model`'s trash: the rows `ids`, or every trashed row. */
  async purgeNow(model: ModelDefinition, actor: Actor, ids: number[] | undefined): Promise<{ purged: number }> {
    const { store, writer } = this.#deps;
    return writer.logged(model, actor, 'purge', ids ? ids.join(',') : null, ids ? { ids } : {}, async () => {
      let purged = 0;
      if (ids) return { purged: await this.purge(model, await store.trash.findRows(model.name, ids.map(String))) };
      for (;;) {
        const batch = await store.trash.list(model.name, { limit: 500 });
        purged += await this.purge(model, batch);
        if (batch.length < 500) return { purged };
      }
    });
  }

  /** Purges every trashed row older than the retention time, model by model. @returns how many */
  async purgeExpired(now = Date.now()): Promise<number> {
    const before = new Date(now - this.#deps.retentionDays * DAY_MS);
    let purged = 0;
    for (const model of this.#deps.registry.list()) {
      if (!model.trash) continue;
      for (;;) {
        const batch = await this.#deps.store.trash.listOlderThan(model.name, before, 500);
        purged += await this.purge(model, batch);
        if (batch.length < 500) break;
      }
    }
    return purged;
  }

  #emit(event: InsertEvent): void {
    const events = this.#deps.events;
    for (const listener of events.rawListeners('insert')) {
      try {
        const result: unknown = (listener as (e: InsertEvent) => unknown)(event);
        if (result instanceof Promise) result.catch((error: unknown) => events.emit('error', error));
      } catch (error) {
        events.emit('error', error);
      }
    }
  }
}

/** The stored secret columns of a trashed row that the model still has. */
function secretsOf(model: ModelDefinition, secrets: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const column of secretColumns(model)) if (Object.hasOwn(secrets, column)) out[column] = secrets[column];
  return out;
}

/** The ids among `ids` that name no row of the registered model `target` (none when it is not registered). */
async function missingRows(registry: ModelRegistry, target: string, ids: number[], db: Knex): Promise<number[]> {
  const model = registry.get(target);
  if (!model || ids.length === 0) return [];
  const key = pkColumn(model);
  const found = new Set<number>();
  for (let i = 0; i < ids.length; i += 500) {
    const rows: Array<Record<string, unknown>> = await db(model.table).whereIn(key, ids.slice(i, i + 500)).select(key);
    for (const r of rows) found.add(Number(r[key]));
  }
  return ids.filter((v) => !found.has(v));
}

function conflict(model: ModelDefinition, id: number, path: string, message: string): FwError {
  return new FwError('CONFLICT', `${model.name} #${id}: ${message}`, { details: [{ path, type: 'unique', message }], extra: { model: model.name, id } });
}

/** Runs a check or write for row `id`; a client error it throws names the row. */
async function named<T>(model: ModelDefinition, id: number, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (!(error instanceof FwError) || error.status >= 500) throw error;
    throw new FwError(error.code, `${model.name} #${id}: ${error.message}`, { status: error.status, ...(error.details ? { details: error.details } : {}), extra: { model: model.name, id }, cause: error });
  }
}

/**
 * Inserts a row with its own key. SQL Server refuses a value for an IDENTITY column unless
 * IDENTITY_INSERT is on for the table, which holds for the session: on and off around the
 * insert, on the transaction's connection. (Not run by our tests: no SQL Server runs here.)
 */
async function insertWithId(store: FwStore, model: ModelDefinition, trx: Knex.Transaction, columns: Record<string, unknown>): Promise<unknown> {
  if (store.dialect !== 'mssql') return trx(model.table).insert(columns);
  await trx.raw('SET IDENTITY_INSERT ?? ON', [model.table]);
  try {
    return await trx(model.table).insert(columns);
  } finally {
    await trx.raw('SET IDENTITY_INSERT ?? OFF', [model.table]);
  }
}

/**
 * PostgreSQL hands out ids from a sequence, which an insert with an explicit id does not move:
 * when a restored id lies beyond the sequence's last value (a row written with its own id), the
 * sequence is moved past it, so the next add does not collide. The other databases follow the
 * largest id on their own (SQLite AUTOINCREMENT, MySQL AUTO_INCREMENT).
 */
async function advanceSequence(store: FwStore, model: ModelDefinition, trx: Knex.Transaction, id: number): Promise<void> {
  if (store.dialect !== 'postgres') return;
  await trx.raw(
    'select setval(s.seq, ?) from (select pg_get_serial_sequence(?, ?) as seq) s where s.seq is not null and coalesce(pg_sequence_last_value(s.seq::regclass), 0) < ?',
    [id, model.table, pkColumn(model), id],
  );
}


/** How often the retention purge runs after the one at start-up: hourly. */
export const TRASH_PURGE_INTERVAL_MS = 60 * 60 * 1000;

/**
 * Runs `purge` now and then every `intervalMs` on a timer that keeps no process alive; errors go
 * to `onError` (and are dropped if it throws: nothing awaits a timer). @returns the stop function
 */
export function scheduleTrashPurge(purge: () => Promise<unknown>, onError: (error: unknown) => void, intervalMs = TRASH_PURGE_INTERVAL_MS): () => void {
  let stopped = false;
  const run = () => {
    if (stopped) return;
    purge().catch((error: unknown) => {
      // A purge the store's closing cut short is no fault: the next start-up does the rest.
      if (stopped) return;
      try {
        onError(error);
      } catch {
        // The reporter failed too; a timer has nobody else to tell.
      }
    });
  };
  const first = setTimeout(run, 0);
  first.unref();
  const timer = setInterval(run, intervalMs);
  timer.unref();
  return () => {
    stopped = true;
    clearTimeout(first);
    clearInterval(timer);
  };
}
