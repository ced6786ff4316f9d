import type { Readable } from 'node:stream';
import type { LivePublisher } from './live/publish.js';
import {
  EditType,
  FwDefinitionError,
  FwError,
  isObject,
  type AttachmentValue,
  type Condition,
  type DataHookContext,
  type FieldDefinition,
  type FwUser,
  type ModelDefinition,
  type ModelRegistry,
  type PowerFlag,
  type PowerObject,
  passwordPolicy,
} from '@fw/core';
import { PowerResolver, assertPower } from '@fw/power';
import { coerceValue, rowPatchError, toFormRow, type FormRow } from '@fw/row-patch';
import type { FwStore } from '@fw/store';
import { Attachments, attachmentField, attachmentFields, type UploadedPart } from './files/attachments.js';
import { resolveUploadQuota, type UploadRoom } from './files/upload-quota.js';
import { AuditedWriter, type AfterCommit } from './write/audited-write.js';
import { dataError } from './error-codes.js';
import { DataEvents } from './events.js';
import { holdsGrants } from './write/grant-rules.js';
import { printPage } from './http/print.js';
import { rowVersion, versionKeyOf } from './read/row-version.js';
import { DEFAULT_QUERY_LIMITS, parseConditions, type QueryLimits, type TableQuery } from './read/query.js';
import { candidatePage, referenceOf, type CandidatesQuery, type ReferenceCandidatePage, type ReferenceTarget } from './read/references.js';
import { RowReader } from './read/rows.js';
import { modelView, type ModelView } from './read/schema-view.js';
import { isSecret, readColumns } from './write/secrets.js';
import { hookContext } from './service-types.js';
import { pkColumn, rowId } from './read/row-keys.js';
import type { Actor, CellExpectation, DataServiceOptions, TablePage, UpdateOptions } from './service-types.js';
import { SessionEnds } from './write/session-ends.js';
import { Transfers, type TransferFormat } from './transfer/transfers.js';
import type { ImportMode, ImportResult } from './transfer/transfer-import.js';
import { readBody } from './write/write-checks.js';
import { ADD_BODY, CELL_BODY, COPY_BODY, DELETE_BODY, REFERENCE_BODY, TABLE_BODY, UPDATE_BODY, type AddInput, type CellInput, type CopyInput, type DataScope, type DeleteInput, type UpdateInput } from './bodies.js';
import { ADD_GATE, BUILD_GATE, COPY_GATE, DELETE_GATE, DETAILS_GATE, EDIT_GATE, PRINT_GATE, QUERY_GATE, REFERENCE_GATE, type PowerGate } from './gates.js';
import type { TableRequest } from './read/query.js';
import { DEFAULT_TRASH_RETENTION_DAYS, TrashWriter, type UndeleteResult } from './write/trash.js';
import { trashPage, type TrashPage } from './read/trash-page.js';
import { BULK_MAX_ROWS, runUpdateMany, type UpdateManyInput, type UpdateManyResult } from './write/update-many.js';
import { rowHistory, type HistoryPage } from './read/history.js';
import { restoreRow, type RestoreResult } from './write/restore.js';
import { runUndo, type UndoInput, type UndoResult } from './write/undo.js';
import { cellExpectation } from './write/stale-cell.js';

export type { Actor, CellExpectation, DataServiceOptions, TablePage, TokenRevoker, UpdateOptions } from './service-types.js';
export type { AfterCommit } from './write/audited-write.js';

/** Power of every grant: administrators skip the menu lookup. */
const ADMIN_GRANTS = { codes: new Set<string>(), version: 'admin' } as const;

/**
 * The data operations of Fw models, with every permission, visibility rule, validation, hook,
 * operate log and edit event applied. The HTTP routes and the AI tools both go through it, so
 * there is one code path per operation.
 *
 * A facade: it resolves the model and checks power, then hands the work to its modules — row
 * reading (`rows.ts`), the audited write (`audited-write.ts`), secrets (`secrets.ts`), transfers
 * (`transfers.ts`) and the sessions a write ends (`session-ends.ts`).
 */
export class DataService {
  /** Edit events: `events.on('update', (event) => …)`. */
  readonly events = new DataEvents();
  readonly store: FwStore;
  readonly registry: ModelRegistry;
  readonly limits: QueryLimits;
  readonly #power: PowerResolver;
  readonly #reader: RowReader;
  readonly #writer: AuditedWriter;
  readonly #transfers: Transfers;
  readonly #attachments: Attachments;
  readonly #trash: TrashWriter;
  /** Most rows one bulk edit changes (`bulkMaxRows`). */
  readonly bulkMaxRows: number;
  // Menu codes per user, valid for one grants version.
  readonly #grants = new Map<number, { version: number; codes: Set<string> }>();

  constructor(options: DataServiceOptions) {
    if (!options?.store?.knex) throw new FwDefinitionError('fwData.store', 'an FwStore is required');
    if (!options.registry || typeof options.registry.get !== 'function') throw new FwDefinitionError('fwData.registry', 'a ModelRegistry is required');
    this.store = options.store;
    this.registry = options.registry;
    this.limits = { ...DEFAULT_QUERY_LIMITS, ...options.limits };
    this.bulkMaxRows = options.bulkMaxRows ?? BULK_MAX_ROWS;
    if (!Number.isInteger(this.bulkMaxRows) || this.bulkMaxRows < 1) throw new FwDefinitionError('fwData.bulkMaxRows', `must be a positive whole number, got ${String(this.bulkMaxRows)}`);
    for (const [key, value] of Object.entries(this.limits)) {
      if (!Number.isInteger(value) || value < 1) throw new FwDefinitionError(`fwData.limits.${key}`, `must be a positive whole number, got ${String(value)}`);
    }
    if (this.limits.defaultSize > this.limits.maxSize) throw new FwDefinitionError('fwData.limits.defaultSize', 'must not exceed maxSize');
    this.#power = options.power ?? new PowerResolver();
    const onBackgroundError = options.onBackgroundError ?? ((error: unknown) => console.error('[fw/data]', error));
    this.events.on('error', (error) => onBackgroundError(error));
    this.#reader = new RowReader({ store: this.store, registry: this.registry, limits: this.limits });
    const sessions = new SessionEnds(this.store, options.tokens);
    const withFiles = this.registry.list().find((m) => attachmentFields(m).length > 0);
    if (withFiles && !options.files) throw new FwDefinitionError('fwData.files', `${withFiles.name} has ATTACHMENT fields: give a file storage (files: localFileStorage({ dir }) of @fw/files)`);
    this.#attachments = new Attachments(this.store, options.files, resolveUploadQuota(options.uploadQuota));
    this.#writer = new AuditedWriter({
      store: this.store,
      registry: this.registry,
      reader: this.#reader,
      sessions,
      events: this.events,
      onBackgroundError,
      attachments: this.#attachments,
      passwordPolicy: options.passwordPolicy ?? passwordPolicy(),
    });
    this.#trash = new TrashWriter({
      store: this.store,
      registry: this.registry,
      reader: this.#reader,
      writer: this.#writer,
      events: this.events,
      attachments: this.#attachments,
      passwordPolicy: options.passwordPolicy ?? passwordPolicy(),
      retentionDays: options.trashRetentionDays ?? DEFAULT_TRASH_RETENTION_DAYS,
    });
    this.#transfers = new Transfers({
      store: this.store,
      limits: this.limits,
      reader: this.#reader,
      writer: this.#writer,
      exportMaxRows: options.exportMaxRows ?? 100_000,
      importMaxRows: options.importMaxRows ?? 10_000,
      ...(options.exportBatchRows !== undefined ? { exportBatchRows: options.exportBatchRows } : {}),
      ...(options.importBatchRows !== undefined ? { importBatchRows: options.importBatchRows } : {}),
    });
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
  async requirePower(model: ModelDefinition, actor: Actor, flags: PowerFlag | PowerFlag[]): Promise<PowerObject> {
    const power = await this.power(model, actor.user, actor.grantsVersion);
    assertPower(power, flags, model.name);
    return power;
  }

  /** Row-visibility conditions from `beforeFetch`, checked to name declared fields. */
  async visibility(model: ModelDefinition, actor: Actor, action: DataHookContext['action']): Promise<Condition[]> {
    return this.#reader.visibility(model, actor, action);
  }

  /**
   * Runs `fn` once the data write whose transaction is `transaction` has committed — never when
   * it rolls back. For hooks (`context.transaction`) with work outside the database, such as
   * deleting stored files. Errors go to `onBackgroundError`.
   * @throws {Error} when `transaction` is not the transaction of a running data write.
   */
  afterCommit(transaction: unknown, fn: AfterCommit): void {
    this.#writer.afterCommit(transaction, fn);
  }

  /**
   * The scope of a gated data route: the model called `name` and the actor's power on it, once
   * `gate` lets them through.
   * @throws {FwError} 404 `MODEL_NOT_FOUND`, 403 the gate's refusal.
   */
  async scope(name: unknown, actor: Actor, gate: PowerGate): Promise<DataScope> {
    const model = this.model(name);
    const power = await this.power(model, actor.user, actor.grantsVersion);
    gate.check(power, model);
    return { model, power, limits: this.limits };
  }

  /** Schema and effective power, for a UI. Needs at least one permitted operation. */
  async schema(name: string, actor: Actor): Promise<{ model: ModelView; power: PowerObject }> {
    return this.schemaOf(await this.scope(name, actor, BUILD_GATE));
  }

  /** {@link schema} in a scope that passed its gate. */
  schemaOf(scope: DataScope): { model: ModelView; power: PowerObject } {
    return { model: modelView(scope.model, this.registry), power: scope.power };
  }

  /**
   * Resolves once the work table pages started in the background (counts, page anchors) has
   * finished: for tests, and for a host that wants it done before closing the store.
   */
  async settled(): Promise<void> {
    await Promise.all([this.#reader.counts.settled(), this.#reader.anchors.settled()]);
  }

  /** Pages placed by an anchor so far (page-anchors.ts), for tests and metrics. */
  get anchoredPages(): number {
    return this.#reader.anchors.placed;
  }

  /** One page of visible rows. Needs `query`. */
  async query(name: string, actor: Actor, body: unknown): Promise<TablePage> {
    const scope = await this.scope(name, actor, QUERY_GATE);
    return this.tablePage(scope.model, actor, TABLE_BODY.parse(body, scope));
  }

  /** {@link query} of a parsed body (`TABLE_BODY`), the gate passed. */
  tablePage(model: ModelDefinition, actor: Actor, request: TableRequest): Promise<TablePage> {
    return this.#reader.pageOf(model, actor, request);
  }

  /**
   * One page of the rows a reference or collection field may point at (`{ search?, page?, size?,
   * ids? }` → `{ rows: [{ id, label, parentId? }], total, page, size }`), for a form's or cell
   * editor's picker. Needs `add`, `edit` or `query` on the referencing model, not on the
   * referenced one, whose row visibility applies.
   */
  async referenceCandidates(name: string, actor: Actor, fieldName: string, body: unknown): Promise<ReferenceCandidatePage> {
    const scope = await this.scope(name, actor, REFERENCE_GATE);
    const reference = referenceOf(this.registry, scope.model, fieldName);
    return this.candidatesOf(actor, reference, REFERENCE_BODY.parse(body, { ...scope, reference }));
  }

  /** {@link referenceCandidates} of a checked field (`referenceOf`) and a parsed body (`REFERENCE_BODY`), the gate passed. */
  candidatesOf(actor: Actor, reference: ReferenceTarget, query: CandidatesQuery): Promise<ReferenceCandidatePage> {
    return candidatePage(this.#reader.referenceDeps(actor), reference, query);
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
    const { model } = await this.scope(name, actor, DETAILS_GATE);
    return this.rowWithVersion(model, actor, rowId(model, rawId));
  }

  /** {@link detailsWithVersion} of a checked id, the gate passed. */
  async rowWithVersion(model: ModelDefinition, actor: Actor, id: number): Promise<{ row: FormRow; version: string }> {
    const row = await this.#reader.loadVisible(model, actor, 'details', id, this.store.knex, false);
    const version = rowVersion(model, row, await versionKeyOf(this.store));
    const [shown] = await this.#reader.afterFetch(model, actor, 'details', [row]);
    return { row: shown ?? row, version };
  }

  /** Adds a row. Needs `add`. Returns the new row as the details view shows it. */
  async add(name: string, actor: Actor, body: unknown): Promise<FormRow> {
    const scope = await this.scope(name, actor, ADD_GATE);
    return this.addRow(scope.model, actor, ADD_BODY.parse(body, scope));
  }

  /** {@link add} of a parsed body (`ADD_BODY`), the gate passed; a refused body is logged, then thrown. */
  async addRow(model: ModelDefinition, actor: Actor, input: AddInput): Promise<FormRow> {
    const context = hookContext(model, actor, 'add');
    const codes = await this.#grantCodes(model, actor);
    const writer = this.#writer;
    const id = await writer.logged(model, actor, 'add', null, input.raw, async (log) => {
      if (!input.entity) throw input.refusal!;
      const values = readBody(model, input.entity, 'add');
      const sent = new Set(Object.keys(input.entity));
      log.request = values;
      return writer.transaction(model, log, async (trx) => {
        const newId = await writer.insert(model, actor, trx, values, context, sent, codes);
        log.targetId = String(newId);
        return newId;
      });
    });
    return this.#reader.shown(model, actor, id);
  }

  /** The edit form: the whole entity; absent fields keep their stored value. Needs `edit`. */
  async update(name: string, actor: Actor, body: unknown, options: UpdateOptions = {}): Promise<FormRow> {
    const scope = await this.scope(name, actor, EDIT_GATE);
    return this.updateRow(scope.model, actor, UPDATE_BODY.parse(body, scope), options);
  }

  /** {@link update} of a parsed body (`UPDATE_BODY`), the gate passed. */
  async updateRow(model: ModelDefinition, actor: Actor, input: UpdateInput, options: UpdateOptions = {}): Promise<FormRow> {
    const { id, entity } = input;
    const codes = await this.#grantCodes(model, actor);
    return this.#writer.update(model, actor, id, entity, (stored) => ({ ...stored, ...readBody(model, entity, 'update', stored) }), options, codes);
  }

  /**
   * One cell: `{ id, field, value }`. Needs `edit` and both cell-edit switches (checked against
   * the definition before the row is read); the patched row goes through the edit form's path.
   */
  async updateCell(name: string, actor: Actor, body: unknown, options: UpdateOptions = {}): Promise<FormRow> {
    // Power first: someone who may not edit learns nothing about the fields.
    const scope = await this.scope(name, actor, EDIT_GATE);
    // The declared switches and the field, before the row is read (CELL_BODY).
    return this.editCell(scope.model, actor, CELL_BODY.parse(body, scope), options);
  }

  /** {@link updateCell} of a parsed body (`CELL_BODY`), the gate passed. */
  async editCell(model: ModelDefinition, actor: Actor, input: CellInput, options: UpdateOptions = {}): Promise<FormRow> {
    const { field, value } = input;
    const codes = await this.#grantCodes(model, actor);
    const expect = input.expect ? { expect: this.cellExpectation(model, actor, { [field.name]: input.expect.value }) } : {};
    // Validation happens next, in the write, with the same call as the edit form.
    return this.#writer.update(model, actor, input.id, input.raw, (stored) => patchCell(stored, field, value), { ...options, ...expect }, codes);
  }

  /** The check of cells an editor was seeded with (`expect`), against the row as the table shows it (write/stale-cell.ts). */
  cellExpectation(model: ModelDefinition, actor: Actor, expected: Readonly<Record<string, unknown>>): CellExpectation {
    const shown = model.dataProxy.afterFetch ? async (row: FormRow) => (await this.#reader.afterFetch(model, actor, 'query', [row]))[0] ?? row : undefined;
    return cellExpectation(model, expected, shown);
  }

  /** Deletes visible rows, all or none. Needs `delete`. */
  async delete(name: string, actor: Actor, body: unknown): Promise<{ deleted: number; batch: string }> {
    const scope = await this.scope(name, actor, DELETE_GATE);
    return this.deleteRows(scope.model, actor, DELETE_BODY.parse(body, scope));
  }

  /** {@link delete} of a parsed body (`DELETE_BODY`), the gate passed. */
  async deleteRows(model: ModelDefinition, actor: Actor, input: DeleteInput): Promise<{ deleted: number; batch: string }> {
    const codes = await this.#grantCodes(model, actor);
    return this.#writer.remove(model, actor, input.ids, codes);
  }

  // Issue 23 §2–3: bulk edit, a row's history, restoring a version. The work is in
  // write/update-many.ts, read/history.ts and write/restore.ts; these only resolve and check.

  /**
   * A bulk edit: the values of `input` (checked by `parseUpdateMany`) put into every selected
   * visible row through the cell editor's path, all rows or none. Needs `edit` and `cellEdit`.
   */
  async updateMany(name: string, actor: Actor, input: UpdateManyInput): Promise<UpdateManyResult> {
    const model = this.model(name);
    await this.requirePower(model, actor, ['edit', 'cellEdit']);
    const deps = { store: this.store, reader: this.#reader, writer: this.#writer, maxRows: this.bulkMaxRows, expectation: (m: ModelDefinition, a: Actor, e: Readonly<Record<string, unknown>>) => this.cellExpectation(m, a, e) };
    return runUpdateMany(deps, model, actor, input, await this.#grantCodes(model, actor));
  }

  /**
   * One page of a visible row's history, newest first. Needs what the row's details need
   * (`viewDetails` or `edit`); a row the caller cannot see is a 404. Fields the details do not
   * show are left out; secrets are masked.
   */
  async history(name: string, actor: Actor, rawId: unknown, paging: { page: number; size: number }): Promise<HistoryPage> {
    const model = this.model(name);
    const { row } = await this.detailsWithVersion(name, actor, rawId);
    return rowHistory(this.store, model, rowId(model, rawId), new Set(Object.keys(row)), paging);
  }

  /** Puts a visible row back to how it was just before one of its history entries (see restore.ts). Needs `edit`. */
  async restore(name: string, actor: Actor, rawId: unknown, entry: number): Promise<RestoreResult> {
    const model = this.model(name);
    await this.requirePower(model, actor, 'edit');
    const id = rowId(model, rawId);
    return restoreRow({ store: this.store, reader: this.#reader, writer: this.#writer }, model, actor, id, entry, await this.#grantCodes(model, actor));
  }

  /**
   * A new row from an existing visible one (editable fields and collections): `{ id, values? }`,
   * where `values` holds field values that replace the copied ones, read and checked as an add
   * body. A copy that would repeat a unique key is a 409 naming the field to set in `values`.
   * Needs `copy` and `add`.
   */
  async copy(name: string, actor: Actor, body: unknown): Promise<FormRow> {
    const scope = await this.scope(name, actor, COPY_GATE);
    return this.copyRow(scope.model, actor, COPY_BODY.parse(body, scope));
  }

  /** {@link copy} of a parsed body (`COPY_BODY`), the gate passed; `values` is read once the source row is. */
  async copyRow(model: ModelDefinition, actor: Actor, input: CopyInput): Promise<FormRow> {
    const sourceId = input.id;
    const context = hookContext(model, actor, 'add');
    const codes = await this.#grantCodes(model, actor);
    const writer = this.#writer;
    const id = await writer.logged(model, actor, 'copy', null, { from: sourceId }, async (log) => {
      const source = await this.#reader.loadVisible(model, actor, 'copy', sourceId, this.store.knex, false);
      const values: FormRow = {};
      for (const field of Object.values(model.fields)) {
        // Files belong to one row: a copy starts without them (deleting one row must not take the other's files).
        if (!field.primaryKey && !field.edit.readonly && !isSecret(field) && !field.edit.attachment) values[field.name] = source[field.name];
      }
      const asked = input.values;
      if (asked !== undefined) {
        if (!isObject(asked)) throw new FwError('BAD_REQUEST', 'values must be an object of field values');
        const read = readBody(model, asked, 'add');
        for (const name of Object.keys(asked)) if (Object.hasOwn(read, name)) values[name] = read[name];
        log.request = { from: sourceId, values: read };
      }
      try {
        return await writer.transaction(model, log, async (trx) => {
          const newId = await writer.insert(model, actor, trx, values, context, new Set(Object.keys(values)), codes);
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
    return this.#reader.shown(model, actor, id);
  }

  /**
   * The visible rows matching the conditions, as CSV lines (header of field names first), for at
   * most `exportMaxRows` rows. Needs `export`. The first `next()` checks the request and reads the
   * first batch of rows, so every failure that can still become an error answer happens there.
   */
  async *exportCsv(name: string, actor: Actor, rawConditions: unknown, rawSort?: unknown): AsyncGenerator<string> {
    const model = this.model(name);
    await this.requirePower(model, actor, 'export');
    yield* this.#transfers.exportCsv(model, actor, rawConditions, rawSort);
  }

  /**
   * The visible rows matching the conditions as an `.xlsx` workbook stream (typed cells, column
   * titles as a frozen, filtered header). Needs `export`. Resolves once the request is checked
   * and the first batch of rows is read, so a refusal is still an error answer.
   */
  async exportXlsx(name: string, actor: Actor, rawConditions: unknown, rawSort?: unknown): Promise<Readable> {
    const model = this.model(name);
    await this.requirePower(model, actor, 'export');
    return this.#transfers.exportXlsx(model, actor, rawConditions, rawSort);
  }

  /**
   * Imports CSV rows (header = field names or column titles, any case), all or nothing: every row
   * is converted and validated, and hooks run, inside one transaction. Needs `importable`, and
   * `add` for added rows, `edit` for updated ones (`mode`: add, update or upsert; see runImport).
   */
  async importCsv(name: string, actor: Actor, text: string, mode: ImportMode = 'add'): Promise<ImportResult> {
    const model = this.model(name);
    const power = await this.requireImport(model, actor, mode);
    return this.#transfers.importCsv(model, actor, text, { mode, power, codes: await this.#grantCodes(model, actor) });
  }

  /** Imports the first sheet of an `.xlsx` workbook, like {@link importCsv}. */
  async importXlsx(name: string, actor: Actor, file: Buffer, mode: ImportMode = 'add'): Promise<ImportResult> {
    const model = this.model(name);
    const power = await this.requireImport(model, actor, mode);
    return this.#transfers.importXlsx(model, actor, file, { mode, power, codes: await this.#grantCodes(model, actor) });
  }

  /**
   * The power an import in `mode` needs before its file is read: `importable`, and `add` (mode
   * add), `edit` (mode update) or either (mode upsert; each row is then held to its own flag).
   */
  async requireImport(model: ModelDefinition, actor: Actor, mode: ImportMode): Promise<PowerObject> {
    if (mode === 'add') return this.requirePower(model, actor, ['importable', 'add']);
    if (mode === 'update') return this.requirePower(model, actor, ['importable', 'edit']);
    const power = await this.requirePower(model, actor, 'importable');
    if (!power.add && !power.edit) assertPower(power, 'add', model.name);
    return power;
  }

  /** The import template (header and one example row) as a workbook or CSV. Needs `importable`. */
  async importTemplate(name: string, actor: Actor, format: TransferFormat): Promise<Buffer | string> {
    const model = this.model(name);
    await this.requirePower(model, actor, 'importable');
    return this.#transfers.template(model, format);
  }

  /** A printable HTML page of one visible row. Needs `print`. */
  async print(name: string, actor: Actor, rawId: unknown): Promise<string> {
    const { model } = await this.scope(name, actor, PRINT_GATE);
    return this.printRow(model, actor, rowId(model, rawId));
  }

  /** {@link print} of a checked id, the gate passed. */
  async printRow(model: ModelDefinition, actor: Actor, id: number): Promise<string> {
    const row = await this.#reader.loadVisible(model, actor, 'print', id, this.store.knex, false);
    const [shown] = await this.#reader.afterFetch(model, actor, 'print', [row]);
    return printPage(model, shown ?? row);
  }

  /**
   * The ATTACHMENT field an upload goes to, once the actor may upload to it (`add` or `edit`,
   * the field exists, is an attachment and is not read-only): its limits and the room the actor
   * has left under the pending-upload quota, for the body reader.
   * @throws {FwError} 404 `MODEL_NOT_FOUND`, 403 `POWER_DENIED`, 400 `UNKNOWN_FIELD` / `READONLY_FIELD`.
   */
  async uploadTarget(
    name: string,
    actor: Actor,
    fieldName: string,
  ): Promise<{ model: ModelDefinition; field: FieldDefinition; maxSize: number; maxFiles: number; room: UploadRoom }> {
    const model = this.model(name);
    const power = await this.power(model, actor.user, actor.grantsVersion);
    if (!power.add && !power.edit) throw new FwError('POWER_DENIED', `Not permitted: add or edit on ${model.name}`, { extra: { model: model.name, flag: 'add' } });
    const field = attachmentField(model, fieldName);
    if (field.edit.readonly) throw dataError('READONLY_FIELD', `${field.name} is read-only`, [{ path: field.name, type: 'readonly', message: 'is read-only' }]);
    const { maxSize, maxFiles } = field.edit.attachment!;
    return { model, field, maxSize, maxFiles, room: await this.#attachments.room(actor.user.id) };
  }

  /**
   * Stores uploaded files for an ATTACHMENT field as the actor's pending files; a save of a row
   * (add, edit) then claims them. Needs what {@link uploadTarget} checks; see `Attachments.upload`
   * for the checks of the files (count, size, type sniffed from the bytes).
   */
  async uploadFiles(name: string, actor: Actor, fieldName: string, parts: readonly UploadedPart[]): Promise<{ files: AttachmentValue[] }> {
    const { model, field } = await this.uploadTarget(name, actor, fieldName);
    return { files: await this.#attachments.upload(model, field, actor.user.id, parts) };
  }

  /**
   * One file of an ATTACHMENT value, for download: only when the actor may see the row
   * (`viewDetails`, `edit` — whose form shows the row — or `query`, and row visibility) and the
   * row, as `afterFetch` shows it to them, holds the file in that field.
   * @throws {FwError} 404 `NOT_FOUND` for every other case, alike, so nothing tells whether the model, row or file exists.
   */
  async openFile(name: string, actor: Actor, fieldName: string, rawRowId: unknown, fileId: string): Promise<{ name: string; type: string; size: number; body: Readable }> {
    const notFound = () => new FwError('NOT_FOUND', 'No such file');
    const model = typeof name === 'string' ? this.registry.get(name) : undefined;
    if (!model || !Object.hasOwn(model.fields, fieldName) || model.fields[fieldName]!.edit.type !== EditType.ATTACHMENT) throw notFound();
    const field = model.fields[fieldName]!;
    const power = await this.power(model, actor.user, actor.grantsVersion);
    if (!power.viewDetails && !power.edit && !power.query) throw notFound();
    // The same view the row is read in: details (viewDetails, or the edit form) or the table.
    const action = power.viewDetails || power.edit ? 'details' : 'query';
    let row: FormRow;
    let id: number;
    try {
      id = rowId(model, rawRowId);
      row = await this.#reader.loadVisible(model, actor, action, id, this.store.knex, false);
    } catch (error) {
      if (error instanceof FwError && error.status < 500) throw notFound();
      throw error;
    }
    // A field afterFetch takes out (or files it takes out of a field) is not the user's to fetch.
    const [shown] = await this.#reader.afterFetch(model, actor, action, [row]);
    const found = await this.#attachments.open(model, field, shown ?? row, String(id), fileId);
    if (!found) throw notFound();
    return { name: found.record.name, type: found.record.type, size: found.file.size, body: found.file.body };
  }

  /** Removes pending uploads older than `olderThanMs` (default 24 hours), records and bytes. @returns how many */
  purgePendingFiles(olderThanMs?: number): Promise<number> {
    return this.#attachments.purgePending(olderThanMs);
  }

  /**
   * Takes back a batch of changes, or what one user did in a time window (write/undo.ts): each
   * entry through the normal write paths, in one transaction; conflicts listed and skipped.
   */
  undo(actor: Actor, input: UndoInput): Promise<UndoResult> {
    const deps = {
      store: this.store,
      registry: this.registry,
      writer: this.#writer,
      trash: this.#trash,
      requirePower: (model: ModelDefinition, who: Actor, flags: PowerFlag[]) => this.requirePower(model, who, flags),
      visibility: (model: ModelDefinition, who: Actor, action: 'delete') => this.visibility(model, who, action),
      grantCodes: (model: ModelDefinition, who: Actor) => this.#grantCodes(model, who),
    };
    return runUndo(deps, actor, input);
  }

  // --- The trash (issue 23 §3; write/trash.ts, read/trash-page.ts) ---

  /**
   * The model's trash may be used by the actor for `use`: the model keeps a trash (else 404
   * `NOT_FOUND`), and the actor holds `delete` (the page), `delete` and `add` (undelete), or is
   * an administrator (purge; else 403 `POWER_DENIED`).
   */
  async requireTrash(model: ModelDefinition, actor: Actor, use: 'page' | 'undelete' | 'purge'): Promise<void> {
    if (use === 'purge') {
      if (!actor.user.isAdmin) throw new FwError('POWER_DENIED', `Only an administrator may purge the trash of ${model.name}`, { extra: { model: model.name } });
    } else await this.requirePower(model, actor, use === 'page' ? 'delete' : ['delete', 'add']);
    if (!model.trash) throw new FwError('NOT_FOUND', `${model.name} keeps no trash (trash: false)`, { extra: { model: model.name } });
  }

  /**
   * A page of the model's trashed rows the actor may see, newest first: `{ rows: [{ trashId, id,
   * deletedAt, deletedBy: { id, account }, row }], total, page, size }`, for a checked table
   * query (page, size, conditions). Needs `delete`.
   */
  async trashPage(model: ModelDefinition, actor: Actor, query: TableQuery): Promise<TrashPage> {
    await this.requireTrash(model, actor, 'page');
    return trashPage({ store: this.store, reader: this.#reader, limits: this.limits }, model, actor, query);
  }

  /** Puts trashed rows back with their ids, all or none (see TrashWriter.undelete). Needs `delete` and `add`. */
  async undelete(model: ModelDefinition, actor: Actor, ids: number[]): Promise<UndeleteResult> {
    await this.requireTrash(model, actor, 'undelete');
    return this.#trash.undelete(model, actor, ids, await this.#grantCodes(model, actor));
  }

  /** Removes the model's trashed rows `ids` (row ids), or all of them, for good with their files. Administrators only. */
  async purgeTrash(model: ModelDefinition, actor: Actor, ids: number[] | undefined): Promise<{ purged: number }> {
    await this.requireTrash(model, actor, 'purge');
    return this.#trash.purgeNow(model, actor, ids);
  }

  /** Removes trashed rows older than `trashRetentionDays`, with their files. @returns how many */
  purgeExpiredTrash(now?: number): Promise<number> {
    return this.#trash.purgeExpired(now);
  }

  /**
   * Publishes every committed change of this service on `publisher` (live tables, issue 24 §2):
   * the writer hands it inserts, updates (where it emits edit events) and deletes once they
   * committed, and the trash its undeleted rows. @returns what stops it.
   */
  publishLive(publisher: LivePublisher): () => void {
    this.#writer.live = publisher;
    return () => {
      if (this.#writer.live === publisher) this.#writer.live = undefined;
    };
  }


  /**
   * The rows `ids` as the table query loads them (stored columns without secrets, collections),
   * before any row filter or `afterFetch`: what live tables read once per change (live/hub.ts).
   */
  async rawRows(model: ModelDefinition, ids: readonly number[]): Promise<FormRow[]> {
    const knex = this.store.knex;
    const out: FormRow[] = [];
    for (let i = 0; i < ids.length; i += 500) {
      const chunk = ids.slice(i, i + 500);
      const rows: Array<Record<string, unknown>> = await knex(model.table).select(readColumns(model)).whereIn(pkColumn(model), chunk);
      const forms = rows.map((row) => toFormRow(model, row));
      const links = await this.#reader.collections(model, knex, forms.map((row) => Number(row[model.primaryKey])));
      for (const form of forms) out.push(Object.assign(form, links.get(Number(form[model.primaryKey]))));
    }
    return out;
  }

  /** `rows` as `afterFetch` shows them to `actor` for `action` (the rows themselves without the hook). */
  shownTo(model: ModelDefinition, actor: Actor, action: DataHookContext['action'], rows: FormRow[]): Promise<FormRow[]> {
    return this.#reader.afterFetch(model, actor, action, rows);
  }

  /** Fields shown in the table (for UIs and exports). */
  tableFields(model: ModelDefinition): FieldDefinition[] {
    return Object.values(model.fields).filter((f) => f.views.show && f.stored && !isSecret(f));
  }
}

export { parseConditions };

/**
 * The stored row with one cell's value converted and put in (`INVALID_VALUE`, 400, when the
 * field's type cannot take it), as `@fw/row-patch`'s `patchRowValues` builds it, without its
 * switch checks: the route ran `cellEditRefusal` before reading the row.
 */
function patchCell(stored: FormRow, field: FieldDefinition, value: unknown): FormRow {
  const converted = coerceValue(field, value);
  if (!converted.ok) {
    const message = `${field.edit.title} ${converted.message}`;
    throw rowPatchError('INVALID_VALUE', message, [{ path: field.name, type: 'typeError', message }]);
  }
  const row: FormRow = {};
  // Own data properties, also for a key such as `__proto__` that an assignment would not make.
  const put = (key: string, v: unknown) => Object.defineProperty(row, key, { value: v, enumerable: true, writable: true, configurable: true });
  for (const [key, v] of Object.entries(stored)) put(key, Array.isArray(v) ? [...(v as unknown[])] : v);
  put(field.name, converted.value);
  return row;
}
