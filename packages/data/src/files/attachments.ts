// ATTACHMENT fields: uploads (sniffed, checked per field, stored under server-made keys), the
// claim of uploaded files by a row's save, the release of a deleted row's files, serving a file,
// and the purge of pending uploads nobody saved. Plain data in and out; the routes wrap it.
import { createReadStream } from 'node:fs';
import { EditType, FwError, type AttachmentValue, type FieldDefinition, type FwErrorDetail, type ModelDefinition } from '@fw/core';
import { imageDimensions, newFileKey, sniffFile, typeAccepted, type FileStorage, type StoredFile } from '@fw/files';
import type { FormRow } from '@fw/row-patch';
import type { FileRecord, FwStore } from '@fw/store';
import type { Knex } from 'knex';
import { dataError } from '../error-codes.js';
import { bytesQuotaError, filesQuotaError, uploadRoom, type UploadQuota, type UploadRoom } from './upload-quota.js';

/** One file of a multipart upload, as `readMultipart` of `@fw/http` gives it. */
export interface UploadedPart {
  field: string;
  name: string;
  size: number;
  path: string;
}

/** Pending uploads older than this are purged. */
export const PENDING_FILE_TTL_MS = 24 * 60 * 60 * 1000;

/**
 * Most pixels (width × height) an image of an `image: true` field may declare: 100 megapixels.
 * A few kilobytes of PNG can declare 40000×40000, which a browser showing the thumbnail would
 * decode into gigabytes.
 */
export const MAX_IMAGE_PIXELS = 100_000_000;

/** The multipart form field that carries the files of an upload. */
export const UPLOAD_FILE_FIELD = 'file';

/** The ATTACHMENT fields of a model. */
export function attachmentFields(model: ModelDefinition): FieldDefinition[] {
  return model.capabilities.attachmentFields.map((name) => model.fields[name]!);
}

/** The ATTACHMENT field `name` of `model`, or a 400 naming it. */
export function attachmentField(model: ModelDefinition, name: string): FieldDefinition {
  const field = Object.hasOwn(model.fields, name) ? model.fields[name] : undefined;
  if (!field || field.edit.type !== EditType.ATTACHMENT) {
    throw dataError('UNKNOWN_FIELD', `${model.name} has no attachment field ${JSON.stringify(name)}`, [{ path: name, type: 'unknownField', message: 'is not an attachment field' }]);
  }
  return field;
}

/**
 * A client file name kept as a name: its last path segment, no control characters and no
 * bidirectional controls (which let `report\u202Efdp.exe` show as `reportexe.pdf`), its last 255
 * UTF-16 units at most (a character outside the BMP is never cut in two).
 */
export function fileDisplayName(raw: string): string {
  // eslint-disable-next-line no-control-regex -- control characters are exactly what is removed
  const name = (raw.split(/[\\/]/).pop() ?? '').replace(/[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g, '').trim();
  const kept = name === '' || name === '.' || name === '..' ? 'file' : name;
  if (kept.length <= 255) return kept;
  // The end (with the extension), never starting on the second half of a character outside the BMP.
  const end = kept.slice(kept.length - 255);
  return /^[\udc00-\udfff]/.test(end) ? end.slice(1) : end;
}

function valuesOf(value: unknown): AttachmentValue[] {
  return Array.isArray(value) ? (value as AttachmentValue[]) : [];
}

function toValue(record: FileRecord): AttachmentValue {
  return { id: record.id, name: record.name, size: record.size, type: record.type };
}

/** What a save must do about the files of its ATTACHMENT fields, once the row's id is known. */
export interface AttachmentPlan {
  /** Pending uploads the row takes, by field. */
  claim: Array<{ field: string; ids: string[] }>;
  /** Files the row held and no longer does. */
  removed: string[];
}

/** Works with the store's `fw_file` records and a {@link FileStorage}. */
export class Attachments {
  readonly #store: FwStore;
  readonly #files: FileStorage | undefined;
  readonly #quota: UploadQuota;

  constructor(store: FwStore, files: FileStorage | undefined, quota: UploadQuota) {
    this.#store = store;
    this.#files = files;
    this.#quota = quota;
  }

  /** The room `userId` has left for pending uploads (expired ones, which the purge removes, count for nothing). */
  async room(userId: number, now = Date.now()): Promise<UploadRoom> {
    return uploadRoom(this.#quota, await this.#store.files.pendingUsage(userId, new Date(now - PENDING_FILE_TTL_MS)));
  }

  /** The storage, or a 500 that says none was configured (a model has ATTACHMENT fields but the host gave no `files`). */
  get storage(): FileStorage {
    if (!this.#files) throw new FwError('INTERNAL', 'No file storage is configured (the files option of fwData / fwAdmin)');
    return this.#files;
  }

  /**
   * Stores the uploaded parts of one ATTACHMENT field as pending files of `userId`, all or none:
   * every part is checked (count, size, type sniffed from the bytes) before anything is stored.
   * @throws {FwError} 400 for no file, a part in another form field or too many files; 413 over
   * `maxSize`; 415 for a type the field does not accept; 429 `UPLOAD_QUOTA_FILES` / 413
   * `UPLOAD_QUOTA_BYTES` past the user's pending-upload quota — each with the field in `details`.
   */
  async upload(model: ModelDefinition, field: FieldDefinition, userId: number, parts: readonly UploadedPart[]): Promise<AttachmentValue[]> {
    const options = field.edit.attachment!;
    const detail = (type: string, message: string): FwErrorDetail[] => [{ path: field.name, type, message }];
    const stray = parts.find((p) => p.field !== UPLOAD_FILE_FIELD);
    if (stray) throw new FwError('BAD_REQUEST', `Files go in the form field "${UPLOAD_FILE_FIELD}", not ${JSON.stringify(stray.field)}`, { details: detail('upload', 'unexpected form field') });
    if (parts.length === 0) throw new FwError('BAD_REQUEST', `No file in the form field "${UPLOAD_FILE_FIELD}"`, { details: detail('upload', 'no file') });
    if (parts.length > options.maxFiles) {
      throw new FwError('BAD_REQUEST', `${field.name} takes at most ${options.maxFiles} file${options.maxFiles === 1 ? '' : 's'}`, { details: detail('maxFiles', `at most ${options.maxFiles}`) });
    }
    const checked: Array<{ part: UploadedPart; type: string }> = [];
    for (const part of parts) {
      if (part.size > options.maxSize) {
        throw new FwError('PAYLOAD_TOO_LARGE', `${fileDisplayName(part.name)} is larger than ${options.maxSize} bytes`, { details: detail('maxSize', `at most ${options.maxSize} bytes`) });
      }
      const sniffed = await sniffFile(part.path);
      if (!typeAccepted(options.accept, sniffed, part.name)) {
        const wanted = options.accept.join(', ');
        throw new FwError('UNSUPPORTED_MEDIA_TYPE', `${fileDisplayName(part.name)} is ${sniffed.type}; ${field.name} accepts ${wanted}`, {
          details: detail('accept', `must be one of ${wanted}`),
        });
      }
      if (options.image) {
        const size = await imageDimensions(part.path);
        if (!size || size.width * size.height > MAX_IMAGE_PIXELS) {
          const what = size ? `${size.width}×${size.height} pixels (at most ${MAX_IMAGE_PIXELS / 1_000_000} megapixels)` : 'an image whose size cannot be read';
          throw new FwError('UNSUPPORTED_MEDIA_TYPE', `${fileDisplayName(part.name)} is ${what}`, { details: detail('maxPixels', `at most ${MAX_IMAGE_PIXELS / 1_000_000} megapixels`) });
        }
      }
      checked.push({ part, type: sniffed.type });
    }
    const storage = this.storage;
    const records = checked.map(({ part, type }) => ({ id: newFileKey(), model: model.name, field: field.name, name: fileDisplayName(part.name), type, size: part.size, createdBy: userId }));
    // Recorded before any byte reaches the storage, inside the quota or not at all: two uploads of
    // one user at the edge of it take turns, so they never both pass (issue 19 §5).
    const since = new Date(Date.now() - PENDING_FILE_TTL_MS);
    const reserved = await this.#store.files.reservePending(userId, records, { ...this.#quota, since });
    if (!reserved.ok) throw reserved.reason === 'files' ? filesQuotaError(this.#quota, reserved.usage, field) : bytesQuotaError(this.#quota, reserved.usage, field);
    const stored: string[] = [];
    try {
      for (const [i, { part, type }] of checked.entries()) {
        const id = records[i]!.id;
        await storage.put(id, createReadStream(part.path), { type, size: part.size });
        stored.push(id);
      }
      return reserved.records.map(toValue);
    } catch (error) {
      // The reservation goes with the bytes: a failed upload holds no room.
      await Promise.allSettled(stored.map((id) => storage.delete(id)));
      await this.#store.files.delete(records.map((r) => r.id)).catch(() => undefined);
      throw error;
    }
  }

  /**
   * Checks the ATTACHMENT values of a row about to be written and puts the stored name, size and
   * type in place of what the client sent. A file may be named only when it is the actor's own
   * pending upload for this model and field, or already on this row and field; anything else is
   * a 422 on the field. `stored` is the row before the change (undefined for a new row).
   */
  async prepare(model: ModelDefinition, userId: number, row: FormRow, stored: FormRow | undefined, storedId: string | undefined, db: Knex): Promise<AttachmentPlan | undefined> {
    const fields = attachmentFields(model);
    if (fields.length === 0) return undefined;
    const plan: AttachmentPlan = { claim: [], removed: [] };
    const details: FwErrorDetail[] = [];
    for (const field of fields) {
      const before = valuesOf(stored?.[field.name]);
      const next = Object.hasOwn(row, field.name) ? valuesOf(row[field.name]) : before;
      const ids = next.map((f) => f.id);
      const records = new Map((await this.#store.files.findMany(ids, db)).map((r) => [r.id, r]));
      const claim: string[] = [];
      const canonical: AttachmentValue[] = [];
      for (const id of ids) {
        const record = records.get(id);
        const onThisRow = record !== undefined && storedId !== undefined && record.rowId === storedId && record.model === model.name && record.field === field.name;
        const ownPending = record !== undefined && record.rowId === null && record.createdBy === userId && record.model === model.name && record.field === field.name;
        if (!onThisRow && !ownPending) {
          details.push({ path: field.name, type: 'attachment', message: `${field.name} names a file that is not yours to attach (${id})` });
          continue;
        }
        if (ownPending) claim.push(id);
        canonical.push(toValue(record!));
      }
      if (Object.hasOwn(row, field.name)) row[field.name] = row[field.name] === null ? null : canonical;
      if (claim.length > 0) plan.claim.push({ field: field.name, ids: claim });
      for (const old of before) if (!ids.includes(old.id)) plan.removed.push(old.id);
    }
    if (details.length > 0) throw new FwError('VALIDATION_FAILED', 'The row names files it may not hold', { details });
    return plan;
  }

  /**
   * Carries out a plan inside the write's transaction once the row id is known: claims the
   * pending files (refusing any another save claimed meanwhile) and drops the records of removed
   * files. @returns the keys to delete from the storage after the commit
   */
  async apply(model: ModelDefinition, plan: AttachmentPlan | undefined, rowId: string, db: Knex): Promise<string[]> {
    if (!plan) return [];
    for (const { field, ids } of plan.claim) {
      const claimed = await this.#store.files.claim(ids, { model: model.name, field, rowId }, db);
      if (claimed !== ids.length) throw new FwError('VALIDATION_FAILED', 'The row names files it may not hold', { details: [{ path: field, type: 'attachment', message: `${field} names a file another save took` }] });
    }
    if (plan.removed.length > 0) await this.#store.files.delete(plan.removed, db);
    return plan.removed;
  }

  /** Drops the file records of deleted rows inside the delete's transaction. @returns the keys to delete after the commit */
  async release(model: ModelDefinition, rowIds: readonly string[], db: Knex): Promise<string[]> {
    if (attachmentFields(model).length === 0 || rowIds.length === 0) return [];
    const records = await this.#store.files.listForRows(model.name, rowIds, db);
    const ids = records.map((r) => r.id);
    await this.#store.files.delete(ids, db);
    return ids;
  }

  /** Deletes stored files (after a commit); a file already gone is fine. */
  async deleteStored(ids: readonly string[]): Promise<void> {
    if (ids.length === 0) return;
    const storage = this.storage;
    const results = await Promise.allSettled(ids.map((id) => storage.delete(id)));
    const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed) throw failed.reason;
  }

  /**
   * The stored file `fileId` when the visible `row` holds it in `field` and its record says so;
   * otherwise undefined (the route answers 404 either way).
   */
  async open(model: ModelDefinition, field: FieldDefinition, row: FormRow, rowId: string, fileId: string): Promise<{ record: FileRecord; file: StoredFile } | undefined> {
    if (!valuesOf(row[field.name]).some((f) => f.id === fileId)) return undefined;
    const [record] = await this.#store.files.findMany([fileId]);
    if (!record || record.model !== model.name || record.field !== field.name || record.rowId !== rowId) return undefined;
    const file = await this.storage.get(fileId);
    return file ? { record, file } : undefined;
  }

  /** Removes pending uploads older than `olderThanMs` (records and bytes). @returns how many */
  async purgePending(olderThanMs = PENDING_FILE_TTL_MS, now = Date.now()): Promise<number> {
    let purged = 0;
    for (;;) {
      const stale = await this.#store.files.listStalePending(new Date(now - olderThanMs), 500);
      if (stale.length === 0) return purged;
      for (const record of stale) {
        // A save may claim the file between the list and here: only a record still pending goes, then its bytes.
        if (!(await this.#store.files.deletePending(record.id))) continue;
        purged += 1;
        if (this.#files) await this.#files.delete(record.id);
      }
      if (stale.length < 500) return purged;
    }
  }
}
