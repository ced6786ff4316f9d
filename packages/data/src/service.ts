import type { Readable } from 'node:stream';
import type { LivePublisher } from './live/publish.js';
import {
  FwDefinitionError,
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
import { putCell, rowPatchError, type FormRow } from '@fw/row-patch';
import type { FwStore } from '@fw/store';
import { DataAccess } from './access.js';
import { ADD_BODY, CELL_BODY, COPY_BODY, DELETE_BODY, REFERENCE_BODY, TABLE_BODY, UPDATE_BODY, type AddInput, type CellInput, type CopyInput, type DataScope, type DeleteInput, type UpdateInput } from './bodies.js';
import { DataEvents } from './events.js';
import { Attachments, attachmentFields, type UploadedPart } from './files/attachments.js';
import { FileFacade, type UploadTarget } from './files/file-facade.js';
import { resolveUploadQuota } from './files/upload-quota.js';
import { ADD_GATE, BUILD_GATE, COPY_GATE, DELETE_GATE, DETAILS_GATE, EDIT_GATE, PRINT_GATE, QUERY_GATE, REFERENCE_GATE, type PowerGate } from './gates.js';
import { printPage } from './http/print.js';
import { rowHistory, type HistoryPage } from './read/history.js';
import { DEFAULT_QUERY_LIMITS, parseConditions, type QueryLimits, type TableQuery, type TableRequest } from './read/query.js';
import { candidatePage, referenceOf, type CandidatesQuery, type ReferenceCandidatePage, type ReferenceTarget } from './read/references.js';
import { rowId } from './read/row-keys.js';
import { rowVersion, versionKeyOf } from './read/row-version.js';
import { RowReader } from './read/rows.js';
import { modelView, type ModelView } from './read/schema-view.js';
import type { TrashPage } from './read/trash-page.js';
import type { Actor, CellExpectation, DataServiceOptions, TablePage, UpdateOptions } from './service-types.js';
import { TransferFacade } from './transfer/transfer-facade.js';
import type { ImportMode, ImportResult } from './transfer/transfer-import.js';
import { Transfers, type TransferFormat } from './transfer/transfers.js';
import { AuditedWriter, type AfterCommit } from './write/audited-write.js';
import { addRow, copyRow } from './write/new-rows.js';
import { restoreRow, type RestoreResult } from './write/restore.js';
import { isSecret } from './write/secrets.js';
import { SessionEnds } from './write/session-ends.js';
import { cellExpectation } from './write/stale-cell.js';
import { TrashFacade } from './write/trash-facade.js';
import { DEFAULT_TRASH_RETENTION_DAYS, TrashWriter, type UndeleteResult } from './write/trash.js';
import type { UndoInput, UndoResult } from './write/undo.js';
import { BULK_MAX_ROWS, runUpdateMany, type UpdateManyInput, type UpdateManyResult } from './write/update-many.js';
import { readBody } from './write/write-checks.js';

export type { Actor, CellExpectation, DataServiceOptions, TablePage, TokenRevoker, UpdateOptions } from './service-types.js';
export type { AfterCommit } from './write/audited-write.js';

/**
 * The data operations of Fw models, with every permission, visibility rule, validation, hook,
 * operate log and edit event applied. The HTTP routes and the AI tools both go through it, so
 * there is one code path per operation.
 *
 * A facade: it resolves the model and checks power (`access.ts`), then hands the work to its
 * modules — row reading (`read/rows.ts`), the audited write (`write/audited-write.ts`, new rows in
 * `write/new-rows.ts`), transfers (`transfer/transfer-facade.ts`), files (`files/file-facade.ts`)
 * and the trash and undo (`write/trash-facade.ts`).
 */
export class DataService {
  /** Edit events: `events.on('update', (event) => …)`. */
  readonly events = new DataEvents();
  readonly store: FwStore;
  readonly registry: ModelRegistry;
  readonly limits: QueryLimits;
  readonly #access: DataAccess;
  readonly #reader: RowReader;
  readonly #writer: AuditedWriter;
  readonly #transfers: TransferFacade;
  readonly #files: FileFacade;
  readonly #attachments: Attachments;
  readonly #trash: TrashFacade;
  readonly #trashWriter: TrashWriter;
  /** Most rows one bulk edit changes (`bulkMaxRows`). */
  readonly bulkMaxRows: number;

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
    const { store, registry, limits } = this;
    this.#access = new DataAccess({ store, registry, limits, ...(options.power ? { power: options.power } : {}) });
    this.#access.powerOf = (model, user, grantsVersion) => this.power(model, user, grantsVersion);
    const onBackgroundError = options.onBackgroundError ?? ((error: unknown) => console.error('[fw/data]', error));
    this.events.on('error', (error) => onBackgroundError(error));
    const reader = (this.#reader = new RowReader({ store, registry, limits }));
    const sessions = new SessionEnds(store, options.tokens);
    const withFiles = registry.list().find((m) => attachmentFields(m).length > 0);
    if (withFiles && !options.files) throw new FwDefinitionError('fwData.files', `${withFiles.name} has ATTACHMENT fields: give a file storage (files: localFileStorage({ dir }) of @fw/files)`);
    const attachments = (this.#attachments = new Attachments(store, options.files, resolveUploadQuota(options.uploadQuota)));
    const policy = options.passwordPolicy ?? passwordPolicy();
    const writer = (this.#writer = new AuditedWriter({ store, registry, reader, sessions, events: this.events, onBackgroundError, attachments, passwordPolicy: policy }));
    const retentionDays = options.trashRetentionDays ?? DEFAULT_TRASH_RETENTION_DAYS;
    const trash = (this.#trashWriter = new TrashWriter({ store, registry, reader, writer, events: this.events, attachments, passwordPolicy: policy, retentionDays }));
    this.#trash = new TrashFacade({ store, registry, limits, access: this.#access, reader, writer, trash });
    this.#files = new FileFacade({ store, registry, access: this.#access, reader, attachments });
    const transfers = new Transfers({
      store,
      limits,
      reader,
      writer,
      exportMaxRows: options.exportMaxRows ?? 100_000,
      importMaxRows: options.importMaxRows ?? 10_000,
      ...(options.exportBatchRows !== undefined ? { exportBatchRows: options.exportBatchRows } : {}),
      ...(options.importBatchRows !== undefined ? { importBatchRows: options.importBatchRows } : {}),
    });
    this.#transfers = new TransferFacade(this.#access, transfers);
  }

  // --- Models and power (access.ts) ---

  /**
   * The registered model called `name`.
   * @throws {FwError} 404 `MODEL_NOT_FOUND`.
   */
  model(name: unknown): ModelDefinition {
    return this.#access.model(name);
  }

  /**
   * The user's effective power on the model (declared flags, menu grants, handler).
   * @param grantsVersion the grants version when already known for this request.
   */
  power(model: ModelDefinition, user: FwUser, grantsVersion?: number): Promise<PowerObject> {
    return this.#access.resolve(model, user, grantsVersion);
  }

  /** Resolves the actor's power and checks `flags`; returns the power. @throws {FwError} 403 `POWER_DENIED`. */
  requirePower(model: ModelDefinition, actor: Actor, flags: PowerFlag | PowerFlag[]): Promise<PowerObject> {
    return this.#access.requirePower(model, actor, flags);
  }

  /**
   * The scope of a gated data route: the model called `name` and the actor's power on it, once
   * `gate` lets them through.
   * @throws {FwError} 404 `MODEL_NOT_FOUND`, 403 the gate's refusal.
   */
  scope(name: unknown, actor: Actor, gate: PowerGate): Promise<DataScope> {
    return this.#access.scope(name, actor, gate);
  }

  /** Row-visibility conditions from `beforeFetch`, checked to name declared fields. */
  visibility(model: ModelDefinition, actor: Actor, action: DataHookContext['action']): Promise<Condition[]> {
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

  // --- Reads (read/) ---

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
   * finished: for tests, and for a host that wants it done before it closes the store (the
   * store's `destroy()` waits for it too).
   */
  settled(): Promise<void> {
    return this.#reader.settled();
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

  /** Fields shown in the table (for UIs and exports). */
  tableFields(model: ModelDefinition): FieldDefinition[] {
    return Object.values(model.fields).filter((f) => f.views.show && f.stored && !isSecret(f));
  }

  // --- Writes (write/) ---

  /** Adds a row. Needs `add`. Returns the new row as the details view shows it. */
  async add(name: string, actor: Actor, body: unknown): Promise<FormRow> {
    const scope = await this.scope(name, actor, ADD_GATE);
    return this.addRow(scope.model, actor, ADD_BODY.parse(body, scope));
  }

  /** {@link add} of a parsed body (`ADD_BODY`), the gate passed; a refused body is logged, then thrown. */
  async addRow(model: ModelDefinition, actor: Actor, input: AddInput): Promise<FormRow> {
    return addRow(this.#rowDeps(), model, actor, input, await this.#access.grantCodes(model, actor));
  }

  /** The edit form: the whole entity; absent fields keep their stored value. Needs `edit`. */
  async update(name: string, actor: Actor, body: unknown, options: UpdateOptions = {}): Promise<FormRow> {
    const scope = await this.scope(name, actor, EDIT_GATE);
    return this.updateRow(scope.model, actor, UPDATE_BODY.parse(body, scope), options);
  }

  /** {@link update} of a parsed body (`UPDATE_BODY`), the gate passed. */
  async updateRow(model: ModelDefinition, actor: Actor, input: UpdateInput, options: UpdateOptions = {}): Promise<FormRow> {
    const { id, entity } = input;
    const codes = await this.#access.grantCodes(model, actor);
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
    const codes = await this.#access.grantCodes(model, actor);
    const expect = input.expect ? { expect: this.cellExpectation(model, actor, { [field.name]: input.expect.value }) } : {};
    // The switches were checked before the row was read (CELL_BODY): here the value is only
    // converted and put in. Validation happens next, in the write, with the edit form's call.
    const build = (stored: FormRow): FormRow => {
      const patched = putCell(field, stored, value);
      if (!patched.ok) throw rowPatchError(patched.code, patched.message, patched.details);
      return patched.row;
    };
    return this.#writer.update(model, actor, input.id, input.raw, build, { ...options, ...expect }, codes);
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
    const codes = await this.#access.grantCodes(model, actor);
    return this.#writer.remove(model, actor, input.ids, codes);
  }

  /**
   * A bulk edit: the values of `input` (checked by `parseUpdateMany`) put into every selected
   * visible row through the cell editor's path, all rows or none. Needs `edit` and `cellEdit`.
   */
  async updateMany(name: string, actor: Actor, input: UpdateManyInput): Promise<UpdateManyResult> {
    const model = this.model(name);
    await this.requirePower(model, actor, ['edit', 'cellEdit']);
    const deps = { store: this.store, reader: this.#reader, writer: this.#writer, maxRows: this.bulkMaxRows, expectation: (m: ModelDefinition, a: Actor, e: Readonly<Record<string, unknown>>) => this.cellExpectation(m, a, e) };
    return runUpdateMany(deps, model, actor, input, await this.#access.grantCodes(model, actor));
  }

  /** Puts a visible row back to how it was just before one of its history entries (see restore.ts). Needs `edit`. */
  async restore(name: string, actor: Actor, rawId: unknown, entry: number): Promise<RestoreResult> {
    const model = this.model(name);
    await this.requirePower(model, actor, 'edit');
    const id = rowId(model, rawId);
    return restoreRow(this.#rowDeps(), model, actor, id, entry, await this.#access.grantCodes(model, actor));
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
    return copyRow(this.#rowDeps(), model, actor, input, await this.#access.grantCodes(model, actor));
  }

  #rowDeps(): { store: FwStore; reader: RowReader; writer: AuditedWriter } {
    return { store: this.store, reader: this.#reader, writer: this.#writer };
  }

  // --- Transfers (transfer/transfer-facade.ts) ---

  /** The visible rows matching the conditions as CSV lines, header first. Needs `export` (see {@link TransferFacade.exportCsv}). */
  exportCsv(name: string, actor: Actor, rawConditions: unknown, rawSort?: unknown): AsyncGenerator<string> {
    return this.#transfers.exportCsv(name, actor, rawConditions, rawSort);
  }

  /** The visible rows matching the conditions as an `.xlsx` workbook stream. Needs `export` (see {@link TransferFacade.exportXlsx}). */
  exportXlsx(name: string, actor: Actor, rawConditions: unknown, rawSort?: unknown): Promise<Readable> {
    return this.#transfers.exportXlsx(name, actor, rawConditions, rawSort);
  }

  /** Imports CSV rows, all or nothing. Needs `importable` and `add` or `edit` by `mode` (see {@link TransferFacade.importCsv}). */
  importCsv(name: string, actor: Actor, text: string, mode: ImportMode = 'add'): Promise<ImportResult> {
    return this.#transfers.importCsv(name, actor, text, mode);
  }

  /** Imports the first sheet of an `.xlsx` workbook, like {@link importCsv}. */
  importXlsx(name: string, actor: Actor, file: Buffer, mode: ImportMode = 'add'): Promise<ImportResult> {
    return this.#transfers.importXlsx(name, actor, file, mode);
  }

  /** The power an import in `mode` needs before its file is read (see {@link TransferFacade.requireImport}). */
  requireImport(model: ModelDefinition, actor: Actor, mode: ImportMode): Promise<PowerObject> {
    return this.#transfers.requireImport(model, actor, mode);
  }

  /** The import template (header and one example row) as a workbook or CSV. Needs `importable`. */
  importTemplate(name: string, actor: Actor, format: TransferFormat): Promise<Buffer | string> {
    return this.#transfers.template(name, actor, format);
  }

  // --- Files (files/file-facade.ts) ---

  /** The ATTACHMENT field an upload goes to, once the actor may upload to it (see {@link FileFacade.uploadTarget}). */
  uploadTarget(name: string, actor: Actor, fieldName: string): Promise<UploadTarget> {
    return this.#files.uploadTarget(name, actor, fieldName);
  }

  /** Stores uploaded files as the actor's pending files, which a save of a row claims (see {@link FileFacade.upload}). */
  uploadFiles(name: string, actor: Actor, fieldName: string, parts: readonly UploadedPart[]): Promise<{ files: AttachmentValue[] }> {
    return this.#files.upload(name, actor, fieldName, parts);
  }

  /** One file of an ATTACHMENT value of a visible row, for download; 404 for every refusal (see {@link FileFacade.open}). */
  openFile(name: string, actor: Actor, fieldName: string, rawRowId: unknown, fileId: string): Promise<{ name: string; type: string; size: number; body: Readable }> {
    return this.#files.open(name, actor, fieldName, rawRowId, fileId);
  }

  /** Removes pending uploads older than `olderThanMs` (default 24 hours), records and bytes. @returns how many */
  purgePendingFiles(olderThanMs?: number): Promise<number> {
    return this.#attachments.purgePending(olderThanMs);
  }

  // --- The trash and undo (issue 23 §3; write/trash-facade.ts) ---

  /** Takes back a batch of changes, or what one user did in a time window, in one transaction (write/undo.ts). */
  undo(actor: Actor, input: UndoInput): Promise<UndoResult> {
    return this.#trash.undo(actor, input);
  }

  /** The model keeps a trash and the actor may use it for `use` (see {@link TrashFacade.requireTrash}). */
  requireTrash(model: ModelDefinition, actor: Actor, use: 'page' | 'undelete' | 'purge'): Promise<void> {
    return this.#trash.requireTrash(model, actor, use);
  }

  /** A page of the model's trashed rows the actor may see, newest first. Needs `delete` (see {@link TrashFacade.page}). */
  trashPage(model: ModelDefinition, actor: Actor, query: TableQuery): Promise<TrashPage> {
    return this.#trash.page(model, actor, query);
  }

  /** Puts trashed rows back with their ids, all or none (see TrashWriter.undelete). Needs `delete` and `add`. */
  undelete(model: ModelDefinition, actor: Actor, ids: number[]): Promise<UndeleteResult> {
    return this.#trash.undelete(model, actor, ids);
  }

  /** Removes the model's trashed rows `ids` (row ids), or all of them, for good with their files. Administrators only. */
  purgeTrash(model: ModelDefinition, actor: Actor, ids: number[] | undefined): Promise<{ purged: number }> {
    return this.#trash.purge(model, actor, ids);
  }

  /** Removes trashed rows older than `trashRetentionDays`, with their files. @returns how many */
  purgeExpiredTrash(now?: number): Promise<number> {
    return this.#trashWriter.purgeExpired(now);
  }

  // --- Live tables (issue 24 §2; live/) ---

  /**
   * Publishes every committed change of this service on `publisher`: the writer hands it inserts,
   * updates (where it emits edit events) and deletes once they committed, and the trash its
   * undeleted rows. @returns what stops it.
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
  rawRows(model: ModelDefinition, ids: readonly number[]): Promise<FormRow[]> {
    return this.#reader.rawRows(model, ids);
  }

  /** `rows` as `afterFetch` shows them to `actor` for `action` (the rows themselves without the hook). */
  shownTo(model: ModelDefinition, actor: Actor, action: DataHookContext['action'], rows: FormRow[]): Promise<FormRow[]> {
    return this.#reader.afterFetch(model, actor, action, rows);
  }
}

export { parseConditions };
