// The uploads and downloads of DataService: who may upload to or fetch from an ATTACHMENT field,
// then the work of attachments.ts. A download answers one 404 for every refusal.
import type { Readable } from 'node:stream';
import { EditType, FwError, type AttachmentValue, type FieldDefinition, type ModelDefinition, type ModelRegistry } from '@fw/core';
import type { FormRow } from '@fw/row-patch';
import type { FwStore } from '@fw/store';
import type { DataAccess } from '../access.js';
import { dataError } from '../error-codes.js';
import { rowId } from '../read/row-keys.js';
import type { RowReader } from '../read/rows.js';
import type { Actor } from '../service-types.js';
import { attachmentField, type Attachments, type UploadedPart } from './attachments.js';
import type { UploadRoom } from './upload-quota.js';

/** What a {@link FileFacade} works with. */
export interface FileFacadeDeps {
  store: FwStore;
  registry: ModelRegistry;
  access: DataAccess;
  reader: RowReader;
  attachments: Attachments;
}

/** The target of an upload: the field, its limits and the room the actor has left. */
export interface UploadTarget {
  model: ModelDefinition;
  field: FieldDefinition;
  maxSize: number;
  maxFiles: number;
  room: UploadRoom;
}

/** Power and visibility checks in front of {@link Attachments}. */
export class FileFacade {
  readonly #deps: FileFacadeDeps;

  constructor(deps: FileFacadeDeps) {
    this.#deps = deps;
  }

  /**
   * The ATTACHMENT field an upload goes to, once the actor may upload to it (`add` or `edit`,
   * the field exists, is an attachment and is not read-only): its limits and the room the actor
   * has left under the pending-upload quota, for the body reader.
   * @throws {FwError} 404 `MODEL_NOT_FOUND`, 403 `POWER_DENIED`, 400 `UNKNOWN_FIELD` / `READONLY_FIELD`.
   */
  async uploadTarget(name: string, actor: Actor, fieldName: string): Promise<UploadTarget> {
    const { access, attachments } = this.#deps;
    const model = access.model(name);
    const power = await access.powerOf(model, actor.user, actor.grantsVersion);
    if (!power.add && !power.edit) throw new FwError('POWER_DENIED', `Not permitted: add or edit on ${model.name}`, { extra: { model: model.name, flag: 'add' } });
    const field = attachmentField(model, fieldName);
    if (field.edit.readonly) throw dataError('READONLY_FIELD', `${field.name} is read-only`, [{ path: field.name, type: 'readonly', message: 'is read-only' }]);
    const { maxSize, maxFiles } = field.edit.attachment!;
    return { model, field, maxSize, maxFiles, room: await attachments.room(actor.user.id) };
  }

  /**
   * Stores uploaded files for an ATTACHMENT field as the actor's pending files; a save of a row
   * (add, edit) then claims them. Needs what {@link uploadTarget} checks; see `Attachments.upload`
   * for the checks of the files (count, size, type sniffed from the bytes).
   */
  async upload(name: string, actor: Actor, fieldName: string, parts: readonly UploadedPart[]): Promise<{ files: AttachmentValue[] }> {
    const { model, field } = await this.uploadTarget(name, actor, fieldName);
    return { files: await this.#deps.attachments.upload(model, field, actor.user.id, parts) };
  }

  /**
   * One file of an ATTACHMENT value, for download: only when the actor may see the row
   * (`viewDetails`, `edit` — whose form shows the row — or `query`, and row visibility) and the
   * row, as `afterFetch` shows it to them, holds the file in that field.
   * @throws {FwError} 404 `NOT_FOUND` for every other case, alike, so nothing tells whether the model, row or file exists.
   */
  async open(name: string, actor: Actor, fieldName: string, rawRowId: unknown, fileId: string): Promise<{ name: string; type: string; size: number; body: Readable }> {
    const { access, attachments, reader, registry, store } = this.#deps;
    const notFound = () => new FwError('NOT_FOUND', 'No such file');
    const model = typeof name === 'string' ? registry.get(name) : undefined;
    if (!model || !Object.hasOwn(model.fields, fieldName) || model.fields[fieldName]!.edit.type !== EditType.ATTACHMENT) throw notFound();
    const field = model.fields[fieldName]!;
    const power = await access.powerOf(model, actor.user, actor.grantsVersion);
    if (!power.viewDetails && !power.edit && !power.query) throw notFound();
    // The same view the row is read in: details (viewDetails, or the edit form) or the table.
    const action = power.viewDetails || power.edit ? 'details' : 'query';
    let row: FormRow;
    let id: number;
    try {
      id = rowId(model, rawRowId);
      row = await reader.loadVisible(model, actor, action, id, store.knex, false);
    } catch (error) {
      if (error instanceof FwError && error.status < 500) throw notFound();
      throw error;
    }
    // A field afterFetch takes out (or files it takes out of a field) is not the user's to fetch.
    const [shown] = await reader.afterFetch(model, actor, action, [row]);
    const found = await attachments.open(model, field, shown ?? row, String(id), fileId);
    if (!found) throw notFound();
    return { name: found.record.name, type: found.record.type, size: found.file.size, body: found.file.body };
  }
}
