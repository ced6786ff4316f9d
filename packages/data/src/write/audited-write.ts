// The audited write: every add, update and delete runs in one transaction with its operate-log
// row, its hooks in a fixed order, the grants check and the grants-version bump; work registered
// with `afterCommit` runs once the transaction committed, never after a rollback.
import { liveActor, type LivePublisher } from '../live/publish.js';
import { randomUUID } from 'node:crypto';
import { FwError, isObject, type DataHookContext, type ModelDefinition, type ModelRegistry, type PasswordPolicy } from '@fw/core';
import { changedColumns, toDbValues, type FormRow } from '@fw/row-patch';
import type { FwStore } from '@fw/store';
import type { Knex } from 'knex';
import type { Attachments } from '../files/attachments.js';
import { insertBatch } from './batch-insert.js';
import type { DataEvents, EditEvent } from '../events.js';
import { checkGrants } from './grant-rules.js';
import { newRow } from './row-changes.js';
import { OPERATE_LOG_TABLE, rowOf, writeOperateLog, writeOperateLogIn, type OperateLogEntry } from './operate-log.js';
import { operateLogRow } from '@fw/store';
import { rowVersion, versionKeyOf } from '../read/row-version.js';
import type { RowReader } from '../read/rows.js';
import { passwordSetColumns, secretsForStorage } from './secrets.js';
import { hookContext } from '../service-types.js';
import { pkColumn } from '../read/row-keys.js';
import { PgWriter } from './pg-write.js';
import { modelFits, pgBackend, sqliteBackend } from './fast-update.js';
import { MysqlWriter, mysqlBackend, retryingLockFailure } from './mysql-write.js';
import { SqliteWriter } from './sqlite-write.js';
import { FALLBACK, handOver, runUpdate, runUpdateNow, updateSteps, type LogNotes, type UpdateBackend, type UpdateRequest, type UpdateState } from './update-recipe.js';
import type { Actor, UpdateOptions } from '../service-types.js';
import type { SessionEnds } from './session-ends.js';
import { checkReferences, validateWholeRow, writing } from './write-checks.js';
import { moveToTrash } from './trash-move.js';
import { staleCellError } from './stale-cell.js';

export { newRow } from './row-changes.js';

export type { LogNotes, UpdateState } from './update-recipe.js';

/** Work to do once a write committed (deleting stored files, say). Its errors are reported, never thrown. */
export type AfterCommit = () => unknown;

/** What an {@link AuditedWriter} writes with. */
export interface AuditedWriterDeps {
  store: FwStore;
  registry: ModelRegistry;
  reader: RowReader;
  sessions: SessionEnds;
  events: DataEvents;
  onBackgroundError: (error: unknown) => void;
  /** ATTACHMENT fields: claims uploaded files on save, releases a deleted row's files. */
  attachments: Attachments;
  /** The policy a user's new password is held to (FwUser's `password`, on every write path). */
  passwordPolicy: PasswordPolicy;
}

/** Writes rows of Fw models. Power is checked by the caller; grant rules, hooks and the operate log here. */
/** What the writer publishes committed changes to. */
export type LiveSink = Pick<LivePublisher, 'changed'>;

export class AuditedWriter {
  readonly #store: FwStore;
  readonly #registry: ModelRegistry;
  readonly #reader: RowReader;
  readonly #sessions: SessionEnds;
  readonly #events: DataEvents;
  readonly #onBackgroundError: (error: unknown) => void;
  readonly #attachments: Attachments;
  readonly #passwordPolicy: PasswordPolicy;
  // The after-commit work of each running transaction.
  readonly #afterCommit = new WeakMap<object, AfterCommit[]>();
  // Synchronous transactions on better-sqlite3 (undefined on other databases).
  readonly #sqlite: SqliteWriter | undefined;
  // Optimistic one-statement writes on PostgreSQL (undefined on other databases).
  readonly #pg: PgWriter | undefined;
  // Two-round-trip transactions on MariaDB/MySQL (undefined on other databases).
  readonly #mysql: MysqlWriter | undefined;
  // The operation log's model, when registered: every operation writes a row of it (see logged).
  readonly #operateLog: ModelDefinition | undefined;
  /** Where committed inserts and deletes are published for live tables (live/publish.ts), once set. */
  live: LiveSink | undefined;

  constructor(deps: AuditedWriterDeps) {
    this.#store = deps.store;
    this.#registry = deps.registry;
    this.#reader = deps.reader;
    this.#sessions = deps.sessions;
    this.#events = deps.events;
    this.#onBackgroundError = deps.onBackgroundError;
    this.#attachments = deps.attachments;
    this.#passwordPolicy = deps.passwordPolicy;
    this.#sqlite = SqliteWriter.for(deps.store.knex, deps.store.dialect);
    this.#pg = PgWriter.for(deps.store.knex, deps.store.dialect);
    this.#mysql = MysqlWriter.for(deps.store.knex, deps.store.dialect);
    this.#operateLog = deps.registry.list().find((m) => m.table === OPERATE_LOG_TABLE);
    // The row-version key, read now, before any write holds a connection (a failure, such as a
    // database not migrated yet, is read again by the first write that needs it).
    versionKeyOf(deps.store).catch(() => undefined);
  }

  /** Files a write stopped holding are deleted from the storage once it commits (kept on a rollback). */
  #deleteFilesAfterCommit(trx: Knex.Transaction, ids: string[]): void {
    if (ids.length > 0) this.afterCommit(trx, () => this.#attachments.deleteStored(ids));
  }

  /**
   * Runs `fn` once the write whose transaction is `trx` has committed (after the grants bump), in
   * the order registered; never when it rolls back. Errors go to `onBackgroundError`: the change
   * is committed, so they cannot become the answer.
   * @param trx the transaction of a running write (the `trx` of a write module, or a hook's `context.transaction`).
   * @throws {Error} when `trx` is not the transaction of a running write.
   */
  afterCommit(trx: unknown, fn: AfterCommit): void {
    if (typeof fn !== 'function') throw new TypeError('afterCommit takes a function');
    const list = (typeof trx === 'object' && trx !== null) || typeof trx === 'function' ? this.#afterCommit.get(trx) : undefined;
    if (!list) throw new Error('afterCommit needs the transaction of a running Fw data write (a hook has it as context.transaction)');
    list.push(fn);
  }

  /**
   * Runs a write in one transaction; after it commits, marks grants as changed when the model
   * holds them, so power caches on every instance see it on their next request, then runs the
   * work registered with {@link afterCommit}.
   */
  async transaction<T>(model: ModelDefinition | readonly ModelDefinition[], log: LogNotes | undefined, work: (trx: Knex.Transaction) => Promise<T>): Promise<T> {
    const pending: AfterCommit[] = [];
    const result = await this.#store.knex.transaction(async (trx) => {
      this.#afterCommit.set(trx, pending);
      try {
        const done = await work(trx);
        // The success row of the operate log commits with the change: one commit, and no change
        // without its record.
        await log?.commit?.(trx);
        return done;
      } finally {
        this.#afterCommit.delete(trx);
      }
    });
    if ((Array.isArray(model) ? model : [model as ModelDefinition]).some((m) => m.capabilities.touchesGrants)) {
      // The write is committed: a failed bump is reported, not turned into an error answer.
      await this.#store.grants.bump().catch((error: unknown) => this.#onBackgroundError(error));
    }
    for (const fn of pending) {
      try {
        await fn();
      } catch (error) {
        this.#onBackgroundError(error);
      }
    }
    return result;
  }

  /** Runs an operation and writes its operate-log row, success or failure; `run` may fill in what it learns. */
  async logged<T>(model: ModelDefinition, actor: Actor, action: string, targetId: string | null, request: unknown, run: (log: LogNotes) => Promise<T>): Promise<T> {
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
      batch: log.batch ?? null,
    });
    log.success = () => entry(undefined);
    log.commit = async (trx) => {
      log.id = await writeOperateLogIn(this.#store, entry(undefined), trx);
      log.written = true;
    };
    try {
      const result = await run(log);
      // Written with the change (committed by now), or on its own.
      if (log.written || (await writeOperateLog(this.#store, entry(undefined), this.#onBackgroundError))) this.#logAdded();
      return result;
    } catch (error) {
      // The transaction rolled back (its success row too): record the failure on its own.
      log.written = false;
      if (await writeOperateLog(this.#store, entry(error), this.#onBackgroundError)) this.#logAdded();
      throw error;
    }
  }

  /**
   * An operate-log row is committed: the log is a model too (FwOperateLog, newest first), and its
   * pages by number move by the new row, so its cached counts and page anchors must hear of it.
   */
  #logAdded(): void {
    if (this.#operateLog) this.#reader.counts.changed(this.#operateLog, 1);
  }

  async #writeCollections(model: ModelDefinition, trx: Knex.Transaction, id: number, row: FormRow, only?: Set<string>): Promise<void> {
    for (const field of Object.values(model.fields)) {
      const c = field.edit.collection;
      if (!c || !(field.name in row) || (only && !only.has(field.name))) continue;
      const ids = (row[field.name] as number[] | null) ?? [];
      await trx(c.joinTable).where(c.ownKey, id).delete();
      for (let i = 0; i < ids.length; i += 500) {
        await writing(model, row, () => trx(c.joinTable).insert(ids.slice(i, i + 500).map((other) => ({ [c.ownKey]: id, [c.foreignKey]: other }))));
      }
    }
  }

  /**
   * Inserts one new row inside `trx`: defaults, validation, `beforeAdd`, grant rules, references,
   * the insert, collections, `afterAdd`. `sent` names the fields the client gave (explicit nulls
   * included); other fields still empty after `beforeAdd` are left to the database's defaults.
   */
  async insert(model: ModelDefinition, actor: Actor, trx: Knex.Transaction, values: FormRow, outer: DataHookContext, sent: ReadonlySet<string>, codes?: ReadonlySet<string>): Promise<number> {
    const context: DataHookContext = { ...outer, transaction: trx };
    const row = newRow(model, values);
    // Asking for what one may not grant is refused as such (403) before the values are judged
    // (422), so a refused request never reads as a mere typo (issue 19 §1).
    if (codes) await checkGrants({ model, actorId: actor.user.id, codes, db: trx, op: 'add', next: row });
    await validateWholeRow(model, row, context, this.#store.dialect, this.#passwordPolicy);
    await model.dataProxy.beforeAdd?.(row, context);
    // Checked again on the row as it will be written, when a hook had its say.
    if (codes && model.dataProxy.beforeAdd) await checkGrants({ model, actorId: actor.user.id, codes, db: trx, op: 'add', next: row });
    await checkReferences(this.#registry, model, trx, row);
    const files = await this.#attachments.prepare(model, actor.user.id, row, undefined, undefined, trx);
    // Absent fields left empty are not written, so the database's own defaults (timestamps,
    // status) apply; an explicit null from the client is written as null.
    const written: FormRow = {};
    for (const [key, value] of Object.entries(row)) {
      if (value !== null || sent.has(key)) written[key] = value;
    }
    const { row: stored, extraColumns } = await secretsForStorage(model, written);
    const pk = pkColumn(model);
    const columns = { ...toDbValues(model, stored), ...extraColumns };
    // MySQL has no RETURNING (knex warns and gives the insert id instead).
    const result: unknown[] = await writing(model, row, () => (this.#store.dialect === 'mysql' ? trx(model.table).insert(columns) : trx(model.table).insert(columns, [pk])));
    const first = result[0];
    const id = Number(isObject(first) ? first[pk] : first);
    if (!Number.isSafeInteger(id) || id < 1) throw new Error(`${model.name}: the insert returned no id`);
    await this.#writeCollections(model, trx, id, row);
    this.#deleteFilesAfterCommit(trx, await this.#attachments.apply(model, files, String(id), trx));
    row[model.primaryKey] = id;
    await model.dataProxy.afterAdd?.(row, context);
    // Cached counts follow Fw's own writes (counts.ts), once they are committed.
    this.afterCommit(trx, () => this.#reader.counts.changed(model, 1));
    if (this.live) this.afterCommit(trx, () => this.live?.changed(model.name, 'insert', [id], liveActor(actor.user)));
    return id;
  }

  /**
   * Inserts the new rows of an import inside `trx` by multi-row INSERTs (see batch-insert.ts), for
   * a model `batchInsertable` allows (the others go through {@link insert}, row by row).
   * @returns the new rows' ids, in the order of `rows`.
   * @throws {BatchRowError} naming the batch's failing row.
   */
  async insertMany(model: ModelDefinition, trx: Knex.Transaction, rows: readonly FormRow[], outer: DataHookContext, sent: ReadonlySet<string>): Promise<number[]> {
    const deps = { registry: this.#registry, dialect: this.#store.dialect, passwordPolicy: this.#passwordPolicy, knex: this.#store.knex };
    const ids = await insertBatch(deps, model, trx, rows, { ...outer, transaction: trx }, sent);
    // As for a single insert: cached counts follow the rows once they are committed.
    this.afterCommit(trx, () => this.#reader.counts.changed(model, rows.length));
    if (this.live) this.afterCommit(trx, () => this.live?.changed(model.name, 'insert', ids, liveActor(outer.user)));
    return ids;
  }

  /**
   * The shared update path of the edit form, the cell editor and AI updates: the update recipe
   * (update-recipe.ts) on a fast backend when one fits, else on the general one inside a
   * transaction (load the visible row, build the complete entity, validate it whole,
   * `beforeUpdate`, write only the columns that changed, `afterUpdate`); then log, end sessions
   * the change ends, and emit.
   */
  async update(
    model: ModelDefinition,
    actor: Actor,
    id: number,
    request: unknown,
    build: (stored: FormRow) => FormRow | Promise<FormRow>,
    options: UpdateOptions,
    codes: ReadonlySet<string> | undefined,
  ): Promise<FormRow> {
    const outerContext = hookContext(model, actor, 'update');
    const state: UpdateState = { endSessions: false };
    const versionKey = await versionKeyOf(this.#store);
    await this.logged(model, actor, 'update', String(id), request, async (log) => {
      if (options.batch !== undefined) log.batch = options.batch;
      const recipe: UpdateRequest = { model, actor, id, build, options, log, state, sessions: this.#sessions, versionKey };
      // A fast path first when the model and the actor allow one (grant-holding writes never do);
      // it hands over, before writing anything, when a step needs the general path.
      if ((this.#sqlite || this.#pg || this.#mysql) && !codes && modelFits(model)) {
        const conditions = await this.#reader.visibility(model, actor, 'update');
        const sqlite = this.#sqlite;
        const mysql = this.#mysql;
        const done = sqlite
          ? await sqlite.transaction((tx) => runUpdateNow(updateSteps(recipe, sqliteBackend(sqlite, tx, model, id, conditions, log))))
          : mysql
            ? await mysql.transaction((tx) => runUpdate(updateSteps(recipe, mysqlBackend(mysql, tx, model, id, conditions, log, outerContext))))
            : await runUpdate(updateSteps(recipe, pgBackend(this.#pg!, this.#store.knex, model, id, conditions, log, outerContext)));
        if (done !== FALLBACK) {
          if (log.id !== undefined) state.logRef = { logId: log.id };
          return;
        }
        handOver(log, state);
      }
      // A deadlock or lock wait timeout is tried once more, then answered 409 (mysql-write.ts).
      const general = () => this.transaction(model, log, (trx) => runUpdate(updateSteps(recipe, this.#generalBackend(model, actor, trx, id, codes, outerContext))));
      await retryingLockFailure(general, () => handOver(log, state), `${model.name} ${id}`);
      if (log.id !== undefined) state.logRef = { logId: log.id };
    }).catch(async (error: unknown) => {
      if (state.staleCells) {
        // The cells as the table shows them now, who changed them and when (write/stale-cell.ts).
        const { row, fields } = state.staleCells;
        const [shown] = await this.#reader.afterFetch(model, actor, 'query', [{ ...row }]);
        throw await staleCellError(this.#store, model, id, row, shown ?? row, fields, (error as Error).message);
      }
      const stale = state.stale;
      if (!stale) throw error;
      // The answer carries the row as it is now, so the client can show what changed and retry.
      const [current] = await this.#reader.afterFetch(model, actor, 'details', [stale]);
      const version = rowVersion(model, stale, await versionKeyOf(this.#store));
      throw new FwError('STALE_ROW', (error as Error).message, { headers: { ETag: version }, extra: { current: current ?? stale, version } });
    });
    await this.afterUpdate(model, actor, id, state);
    // The answer is the row as written (no second read), shown the way the table shows it.
    const [shown] = await this.#reader.afterFetch(model, actor, 'details', [{ ...state.written! }]);
    return shown ?? state.written!;
  }

  /**
   * The general update of one visible row inside `trx` (the edit form's path, also taken by an
   * import's updated rows): load it under a lock, build, validate, hooks, grant rules, references,
   * write the changed columns. `state` collects what {@link afterUpdate} needs once `trx` commits.
   */
  async updateIn(
    model: ModelDefinition,
    actor: Actor,
    trx: Knex.Transaction,
    id: number,
    build: (stored: FormRow) => FormRow | Promise<FormRow>,
    options: UpdateOptions,
    codes: ReadonlySet<string> | undefined,
    outerContext: DataHookContext,
    state: UpdateState,
    log?: LogNotes,
  ): Promise<void> {
    const versionKey = await versionKeyOf(this.#store, trx);
    await runUpdate(updateSteps({ model, actor, id, build, options, log, state, sessions: this.#sessions, versionKey }, this.#generalBackend(model, actor, trx, id, codes, outerContext)));
  }

  /**
   * Writes operate-log rows of one operation inside its transaction, many per statement (a bulk
   * edit's row per changed row); they commit or roll back with the change.
   */
  async logRowsIn(trx: Knex.Transaction, entries: readonly OperateLogEntry[]): Promise<void> {
    // 14 columns a row: 100 rows stay under every dialect's bound on bound values (SQL Server's 2,100).
    for (let i = 0; i < entries.length; i += 100) {
      await trx(OPERATE_LOG_TABLE).insert(entries.slice(i, i + 100).map((entry) => operateLogRow(rowOf(entry))));
    }
    if (entries.length > 0 && this.#operateLog) {
      const model = this.#operateLog;
      this.afterCommit(trx, () => this.#reader.counts.changed(model, entries.length));
    }
  }

  /** Writes the failure row of an operation whose transaction rolled back (reported, never thrown, as {@link logged} does). */
  async logFailure(entry: OperateLogEntry): Promise<void> {
    if (await writeOperateLog(this.#store, entry, this.#onBackgroundError)) this.#logAdded();
  }

  /** What follows a committed update: the sessions it ends, its edit event. */
  async afterUpdate(model: ModelDefinition, actor: Actor, id: number, state: UpdateState): Promise<void> {
    this.#reader.counts.updated(model);
    if (state.endSessions) await this.#sessions.endUserSessions(id, actor);
    if (state.keyChanged) await this.#sessions.endKeySessions(model, [state.keyChanged]);
    if (state.event && state.event.changed.length > 0) {
      this.#emit(state.event);
      this.live?.changed(model.name, 'update', [id], liveActor(actor.user), state.event.changed, state.logRef);
    }
  }

  /**
   * The recipe's general backend: the row read under a lock inside `trx`; between build and write
   * the grant rules (before validation, and again after a hook that may change the row), the
   * whole-row validation, `beforeUpdate`, references and files; the write of the changed columns,
   * collections and files, then `afterUpdate`.
   */
  #generalBackend(model: ModelDefinition, actor: Actor, trx: Knex.Transaction, id: number, codes: ReadonlySet<string> | undefined, outerContext: DataHookContext): UpdateBackend {
    const context: DataHookContext = { ...outerContext, transaction: trx };
    let files: Awaited<ReturnType<Attachments['prepare']>> | undefined;
    return {
      checkMayChangeRow: true,
      // Read under the row lock, so no save can slip in between the version check and the write.
      readVisible: () => this.#reader.loadVisible(model, actor, 'update', id, trx, true),
      check: async (stored, next) => {
        if (codes) await checkGrants({ model, actorId: actor.user.id, codes, db: trx, op: 'update', stored, next });
        await validateWholeRow(model, next, context, this.#store.dialect, this.#passwordPolicy);
        await model.dataProxy.beforeUpdate?.(next, context);
        next[model.primaryKey] = id;
        if (codes && model.dataProxy.beforeUpdate) await checkGrants({ model, actorId: actor.user.id, codes, db: trx, op: 'update', stored, next });
        await checkReferences(this.#registry, model, trx, next, stored);
        files = await this.#attachments.prepare(model, actor.user.id, next, stored, String(id), trx);
      },
      columns: async (stored, next) => {
        const { row: withSecrets, extraColumns } = await secretsForStorage(model, next);
        const columns = { ...changedColumns(model, stored, withSecrets), ...extraColumns, ...passwordSetColumns(model, withSecrets, actor.user.id, id) };
        delete columns[pkColumn(model)];
        return columns;
      },
      write: async (columns, _stored, next, changed) => {
        if (Object.keys(columns).length > 0) await writing(model, next, () => trx(model.table).where(pkColumn(model), id).update(columns));
        const collections = new Set(Object.keys(changed).filter((f) => model.fields[f]?.edit.collection));
        await this.#writeCollections(model, trx, id, next, collections);
        this.#deleteFilesAfterCommit(trx, await this.#attachments.apply(model, files!, String(id), trx));
        await model.dataProxy.afterUpdate?.(next, context);
      },
    };
  }

  /**
   * Deletes the visible rows `ids`, all or none, in one transaction (see {@link removeIn}); then
   * ends their sessions. Every deleted row gets its own operate-log row, all carrying one new
   * batch id (answered too), so a row's history shows its delete and the batch can be undone.
   */
  async remove(model: ModelDefinition, actor: Actor, ids: number[], codes: ReadonlySet<string> | undefined): Promise<{ deleted: number; batch: string }> {
    const batch = randomUUID();
    const startedAt = performance.now();
    let done: { deleted: number; rows: FormRow[] };
    try {
      done = await this.transaction(model, undefined, (trx) => this.removeIn(model, actor, trx, ids, codes, batch));
    } catch (error) {
      // Rolled back: one failure row, with the batch id, records the attempt.
      await this.logFailure({ model, action: 'delete', source: actor.source, user: actor.user, ip: actor.ip, targetId: ids.join(','), before: undefined, request: { ids }, error, startedAt, batch });
      throw error;
    }
    await this.#sessions.endDeleted(model, ids, done.rows);
    return { deleted: done.deleted, batch };
  }

  /** What follows a committed delete of {@link removeIn}: the deleted rows' sessions end. */
  async endDeleted(model: ModelDefinition, ids: number[], rows: FormRow[]): Promise<void> {
    await this.#sessions.endDeleted(model, ids, rows);
  }

  /**
   * Deletes the visible rows `ids` inside `trx` (a 404 for one the actor may not delete):
   * grant rules, the move to the trash (models that keep one), `beforeDelete`, collections, the
   * rows, `afterDelete`; one operate-log row per row with `batch`. The caller ends the rows'
   * sessions once `trx` commits.
   */
  async removeIn(model: ModelDefinition, actor: Actor, trx: Knex.Transaction, ids: number[], codes: ReadonlySet<string> | undefined, batch: string): Promise<{ deleted: number; rows: FormRow[] }> {
    const startedAt = performance.now();
    const context: DataHookContext = { ...hookContext(model, actor, 'delete'), transaction: trx };
    const rows: FormRow[] = [];
    for (const id of ids) rows.push(await this.#reader.loadVisible(model, actor, 'delete', id, trx, true));
    if (codes) for (const row of rows) await checkGrants({ model, actorId: actor.user.id, codes, db: trx, op: 'delete', stored: row });
    // The rows as loaded, before a hook sees them, go to the trash (write/trash.ts).
    if (model.trash) await moveToTrash(this.#store, model, actor, rows, trx, batch);
    await model.dataProxy.beforeDelete?.(rows, context);
    for (const field of Object.values(model.fields)) {
      const c = field.edit.collection;
      if (c) await trx(c.joinTable).whereIn(c.ownKey, ids).delete();
    }
    const deleted = await writing(model, undefined, () => trx(model.table).whereIn(pkColumn(model), ids).delete());
    this.afterCommit(trx, () => this.#reader.counts.changed(model, -deleted));
    if (this.live) this.afterCommit(trx, () => this.live?.changed(model.name, 'delete', ids, liveActor(actor.user), undefined, { batch }));
    // A trashed row keeps its files until the purge.
    if (!model.trash) this.#deleteFilesAfterCommit(trx, await this.#attachments.release(model, ids.map(String), trx));
    await model.dataProxy.afterDelete?.(rows, context);
    await this.logRowsIn(
      trx,
      rows.map((row, i) => ({ model, action: 'delete', source: actor.source, user: actor.user, ip: actor.ip, targetId: String(ids[i]), before: row, request: undefined, error: undefined, startedAt, batch })),
    );
    return { deleted, rows };
  }

  #emit(event: EditEvent): void {
    // rawListeners keeps `once` wrappers, so a one-time listener removes itself as it should.
    for (const listener of this.#events.rawListeners('update')) {
      try {
        const result: unknown = (listener as (e: EditEvent) => unknown)(event);
        if (result instanceof Promise) result.catch((error: unknown) => this.#events.emit('error', error));
      } catch (error) {
        this.#events.emit('error', error);
      }
    }
  }
}
