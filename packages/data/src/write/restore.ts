// Restore a version (issue 23 §3): put a row back to how it was just before one of its history
// entries. "How it was just before entry E" is, for each field that E or any later entry of the
// row changed, the value it had before the earliest of those changes (at or after E). A field the
// caller changed again after E goes back too; one that someone else changed since is reported
// (`changed`) and left as it is: restoring must not silently undo another person's work.
// The write re-enters the edit form's path (permissions, today's validation, hooks, the operate
// log with source `restore` and a batch id); a field that cannot be put back is reported, never
// forced.
import { randomUUID } from 'node:crypto';
import { EditType, FwError, type FwErrorDetail, type ModelDefinition } from '@fw/core';
import { coerceValue, formValuesEqual, validateRow, type FormRow } from '@fw/row-patch';
import type { FwStore } from '@fw/store';
import { entryChanges, nameLoggedUsers, type LoggedUser } from '../read/history.js';
import type { RowReader } from '../read/rows.js';
import type { Actor } from '../service-types.js';
import type { AuditedWriter } from './audited-write.js';
import { MASK, OPERATE_LOG_TABLE } from './operate-log.js';
import { isSecret } from './secrets.js';

/** Why a field was not put back. */
export type RestoreSkipReason = 'removed' | 'secret' | 'readonly' | 'attachment' | 'changed' | 'invalid' | 'unchanged';

/** What a restore answers. */
export interface RestoreResult {
  /** The row as written (or as it stands, when nothing changed). */
  row: FormRow;
  /** The fields put back. */
  restored: string[];
  /** The fields that were not, each with its reason (and the rule's message for `invalid`). */
  skipped: Array<{ field: string; reason: RestoreSkipReason; message?: string }>;
  /** The batch id of the restore's operate-log row. */
  batch: string;
}

/** What a restore needs. */
export interface RestoreDeps {
  store: FwStore;
  reader: RowReader;
  writer: AuditedWriter;
}

// The entries after E read back at most; a row edited more often than this since E is refused.
const MAX_LATER_ENTRIES = 10_000;
// The log rows read at once.
const READ_PAGE = 500;

const entryNotFound = (id: number) => new FwError('NOT_FOUND', `No history entry ${id} of this row`);

/** The entry id of a restore body `{ entry }`. @throws {FwError} 400 otherwise. */
export function parseRestore(body: unknown): { entry: number } {
  const entry = typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as Record<string, unknown>).entry : undefined;
  if (typeof entry !== 'number' || !Number.isSafeInteger(entry) || entry < 1) {
    throw new FwError('BAD_REQUEST', 'The body must be { entry } with the id of a history entry of the row', { details: [{ path: 'entry', type: 'typeError', message: 'must be a positive whole number' }] });
  }
  return { entry };
}

/**
 * The values row `id` had just before entry `entryId` (see the file's comment), field by field,
 * from the entry and the later successful entries of the row.
 * @throws {FwError} 404 `NOT_FOUND` when the entry is not a successful update of this row; 409 `CONFLICT` when the log cut an entry's data short.
 */
export async function valuesBefore(store: FwStore, model: ModelDefinition, id: number, entryId: number, changedBy?: Map<string, LoggedUser>): Promise<Map<string, unknown>> {
  // Read a page at a time: up to MAX_LATER_ENTRIES log rows of up to two capped JSON texts each
  // would otherwise sit in memory at once (hundreds of megabytes for a row edited that often).
  const page = (after: number, inclusive: boolean) =>
    store
      .knex(OPERATE_LOG_TABLE)
      .where('model', model.name)
      .where('target_id', String(id))
      .where('status', 'success')
      .where('id', inclusive ? '>=' : '>', after)
      .orderBy('id', 'asc')
      .limit(READ_PAGE)
      .select('id', 'action', 'user_id', 'account', 'before_data', 'request') as Promise<Array<Record<string, unknown>>>;
  let entries = await page(entryId, true);
  const first = entries[0];
  if (!first || Number(first.id) !== entryId) throw entryNotFound(entryId);
  // Only an update has a version before it that the row can go back to.
  if (first.action !== 'update') throw new FwError('CONFLICT', `History entry ${entryId} is ${String(first.action)}, not an update: there is no earlier version of the row to restore`);
  const values = new Map<string, unknown>();
  let read = 0;
  while (entries.length > 0) {
    read += entries.length;
    if (read > MAX_LATER_ENTRIES) throw new FwError('CONFLICT', `The row changed more than ${MAX_LATER_ENTRIES} times since entry ${entryId}; restore a later entry`);
    for (const entry of entries) {
      const changes = entryChanges(model, id, { action: String(entry.action), before_data: entry.before_data, request: entry.request });
      if (changes === undefined) throw new FwError('CONFLICT', `History entry ${String(entry.id)} was too large for the log to keep whole; its values cannot be read back`);
      for (const change of changes) {
        if (!values.has(change.field)) values.set(change.field, change.before);
        // Who changed the field after the entry: the newest one is kept.
        if (changedBy && Number(entry.id) !== entryId) changedBy.set(change.field, { id: entry.user_id == null ? null : Number(entry.user_id), account: entry.account == null ? null : String(entry.account), name: null });
      }
    }
    entries = entries.length < READ_PAGE ? [] : await page(Number(entries[entries.length - 1]!.id), false);
  }
  return values;
}

/**
 * Restores row `id` to how it was just before entry `entryId` (edit power checked by the caller):
 * each field is put back unless it no longer exists, is a secret (the log holds `******`, never
 * the secret), read-only, an attachment (the files are gone), already holds that value, or would
 * now break a rule (checked against today's rules with the other fields put back). The rest go
 * through `AuditedWriter.update` in one write. A field the caller does not see in the row's
 * details (`afterFetch`) is neither put back nor named anywhere in the answer, as if the entry
 * had not changed it; the row answered is the details view.
 * @throws {FwError} 409 `CONFLICT` with the reasons when no field can be put back.
 */
export async function restoreRow(deps: RestoreDeps, model: ModelDefinition, actor: Actor, id: number, entryId: number, codes: ReadonlySet<string> | undefined): Promise<RestoreResult> {
  const { store, reader, writer } = deps;
  // The row must be the caller's to edit before its log is read (404 as an edit would answer).
  const current = await reader.loadVisible(model, actor, 'update', id, store.knex, false);
  // The fields the caller sees in the row's details (what the history shows them, see
  // read/history.ts). Any other field is passed over before anything is said about it: naming it,
  // or saying its old value is `unchanged` or `invalid`, would tell what it holds.
  const [seen] = await reader.afterFetch(model, actor, 'details', [{ ...current }]);
  const shown = new Set(Object.keys(seen ?? current));
  // Who changed each field after the entry: a change by someone else since is reported, never
  // overwritten (it is theirs); the caller's own later changes go back with the rest.
  const laterBy = new Map<string, LoggedUser>();
  const before = await valuesBefore(store, model, id, entryId, laterBy);
  // Named as the History tab and the live notes name them (the account when there is no name).
  await nameLoggedUsers(store, [...laterBy.values()].filter((u) => u.id !== actor.user.id));
  const skipped: RestoreResult['skipped'] = [];
  const wanted: FormRow = {};
  for (const [name, value] of before) {
    const field = Object.hasOwn(model.fields, name) ? model.fields[name]! : undefined;
    if (!field) skipped.push({ field: name, reason: 'removed' });
    else if (isSecret(field) || value === MASK) skipped.push({ field: name, reason: 'secret' });
    else if (!shown.has(name)) continue;
    else if (field.primaryKey || field.edit.readonly || !field.stored) skipped.push({ field: name, reason: 'readonly' });
    else if (field.edit.type === EditType.ATTACHMENT) skipped.push({ field: name, reason: 'attachment' });
    else if (laterBy.has(name) && laterBy.get(name)!.id !== actor.user.id) {
      skipped.push({ field: name, reason: 'changed', message: `${field.edit.title} was changed since by ${laterBy.get(name)!.name ?? laterBy.get(name)!.account ?? 'another user'}` });
    } else {
      const converted = coerceValue(field, value);
      if (!converted.ok) skipped.push({ field: name, reason: 'invalid', message: `${field.edit.title} ${converted.message}` });
      else if (formValuesEqual(converted.value, current[name])) skipped.push({ field: name, reason: 'unchanged' });
      else wanted[name] = converted.value;
    }
  }
  // Today's rules decide: a field whose old value now breaks one is left as it is, and the rest
  // are checked again without it (a row rule may have named it because of another field).
  for (let round = 0; round <= before.size && Object.keys(wanted).length > 0; round++) {
    const errors = await validateRow(model, { ...current, ...wanted }, { dialect: store.dialect });
    const blamed = errors.filter((e) => e.path !== undefined && Object.hasOwn(wanted, e.path));
    if (blamed.length === 0) break;
    for (const e of blamed) {
      if (!Object.hasOwn(wanted, e.path!)) continue;
      delete wanted[e.path!];
      skipped.push({ field: e.path!, reason: 'invalid', message: e.message });
    }
  }
  const restored = Object.keys(wanted);
  if (restored.length === 0) {
    const details: FwErrorDetail[] = skipped.map((s) => ({ path: s.field, type: s.reason, message: s.message ?? REASONS[s.reason] }));
    throw new FwError('CONFLICT', `Nothing of history entry ${entryId} can be restored`, { details, extra: { skipped } });
  }
  const batch = randomUUID();
  const row = await writer.update(model, { ...actor, source: 'restore' }, id, { entry: entryId, values: wanted }, (stored) => ({ ...stored, ...wanted }), { batch }, codes);
  return { row, restored, skipped, batch };
}

const REASONS: Record<RestoreSkipReason, string> = {
  removed: 'the model no longer has this field',
  secret: 'a secret is never kept in the log, so it cannot be restored',
  readonly: 'the field is read-only',
  attachment: 'files are not restored',
  changed: 'someone else changed it since',
  invalid: "the old value breaks today's rules",
  unchanged: 'the row already holds this value',
};
