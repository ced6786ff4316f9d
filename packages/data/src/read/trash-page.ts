// The trash page (issue 23 §3): a model's trashed rows the caller may see, newest first. A
// trashed row lives as JSON in `fw_trash`, out of reach of SQL conditions, so the model's row
// visibility (`beforeFetch`) is judged here, in JS, on the stored values: a row is shown when
// every condition surely holds for it (trash-filter.ts judges them). A condition that cannot be
// judged for sure (an operator or shape it does not know, an order between texts, whose meaning
// depends on the database's collation) shows the row only to the person who deleted it, who
// could see it then.
import { isObject, type ModelDefinition } from '@fw/core';
import type { FormRow } from '@fw/row-patch';
import type { FwDialect, FwStore, TrashRecord } from '@fw/store';
import type { QueryLimits, TableQuery } from './query.js';
import { meetsAll } from './trash-filter.js';
import type { RowReader } from './rows.js';
import type { Actor } from '../service-types.js';
import { isSecret } from '../write/secrets.js';
import { dataError } from '../error-codes.js';

/** What a row's `data` in `fw_trash` holds (written by write/trash.ts). */
export interface TrashedData {
  /** The row as the edit form reads it: stored fields (secrets aside) and collections' ids. */
  values: FormRow;
  /** Secret columns (PASSWORD hashes and their salt columns) as stored, by column. */
  secrets: Record<string, unknown>;
}

/** One entry of a trash page. */
export interface TrashEntry {
  /** The entry's own id in the trash. */
  trashId: number;
  /** The row's id (what undelete takes). */
  id: number;
  /** ISO 8601. */
  deletedAt: string;
  deletedBy: { id: number | null; account: string | null };
  /** The row as the table shows it: no secrets, `afterFetch` applied. */
  row: FormRow;
}

/** A page of a model's trash. */
export interface TrashPage {
  rows: TrashEntry[];
  total: number;
  page: number;
  size: number;
}

/** The stored data of a trash record, or an empty row when it holds something else. */
export function trashedData(record: TrashRecord): TrashedData {
  const data = record.data;
  const values = isObject(data) && isObject(data.values) ? (data.values as FormRow) : {};
  const secrets = isObject(data) && isObject(data.secrets) ? (data.secrets as Record<string, unknown>) : {};
  return { values, secrets };
}

/**
 * Whether `actor` may see the trashed `record` under the visibility conditions of the model:
 * when the conditions surely hold for its stored values, or, when that cannot be told, when the
 * actor deleted it.
 */
export function trashVisible(model: ModelDefinition, actor: Actor, record: TrashRecord, visibility: readonly unknown[], dialect?: FwDialect): boolean {
  if (visibility.length === 0) return true;
  const verdict = meetsAll(model, trashedData(record).values, visibility, dialect);
  return verdict === true || (verdict === undefined && record.deletedBy === actor.user.id);
}

/** What a trash page reads with. */
export interface TrashPageDeps {
  store: FwStore;
  reader: RowReader;
  limits: QueryLimits;
}

// Trashed rows read per step while filtering in JS.
const SCAN_BATCH = 500;

/**
 * A page of the trashed rows of `model` that `actor` may see (power already checked), newest
 * first. The query is a table query's (`parseTableQuery`): `page`, `size` (the same bounds) and
 * `conditions` (judged like the visibility; one that cannot be judged is a 400). `sort` and
 * cursors do not apply.
 */
export async function trashPage(deps: TrashPageDeps, model: ModelDefinition, actor: Actor, query: TableQuery): Promise<TrashPage> {
  const visibility = await deps.reader.visibility(model, actor, 'query');
  const offset = (query.page - 1) * query.size;
  let records: TrashRecord[];
  let total: number;
  if (visibility.length === 0 && query.conditions.length === 0) {
    // Nothing to judge row by row: the database pages and counts.
    [records, total] = await Promise.all([deps.store.trash.list(model.name, { limit: query.size, offset }), deps.store.trash.count(model.name)]);
  } else {
    records = [];
    total = 0;
    let after: { deletedAt: Date; id: number } | undefined;
    for (;;) {
      const batch = await deps.store.trash.list(model.name, { limit: SCAN_BATCH, ...(after ? { after } : {}) });
      for (const record of batch) {
        if (!trashVisible(model, actor, record, visibility, deps.store.dialect)) continue;
        const wanted = meetsAll(model, trashedData(record).values, query.conditions, deps.store.dialect);
        if (wanted === undefined) throw dataError('BAD_QUERY', 'A condition cannot filter the trash', [{ path: 'conditions', type: 'query', message: 'cannot filter the trash' }]);
        if (!wanted) continue;
        if (total >= offset && records.length < query.size) records.push(record);
        total += 1;
      }
      if (batch.length < SCAN_BATCH) break;
      const last = batch[batch.length - 1]!;
      after = { deletedAt: last.deletedAt, id: last.id };
    }
  }
  const rows = records.map((record) => shownValues(model, trashedData(record).values));
  const shown = await deps.reader.afterFetch(model, actor, 'query', rows);
  const accounts = await accountsOf(deps.store, records.map((r) => r.deletedBy).filter((id): id is number => id !== null));
  return {
    rows: records.map((record, i) => ({
      trashId: record.id,
      id: Number(record.rowId),
      deletedAt: record.deletedAt.toISOString(),
      deletedBy: { id: record.deletedBy, account: record.deletedBy === null ? null : (accounts.get(record.deletedBy) ?? null) },
      row: shown[i] ?? rows[i]!,
    })),
    total,
    page: query.page,
    size: query.size,
  };
}

/** The stored values of fields the model still declares, secrets never among them. */
function shownValues(model: ModelDefinition, values: Readonly<FormRow>): FormRow {
  const row: FormRow = {};
  for (const field of Object.values(model.fields)) {
    if (isSecret(field) || !Object.hasOwn(values, field.name)) continue;
    row[field.name] = values[field.name];
  }
  return row;
}

async function accountsOf(store: FwStore, ids: number[]): Promise<Map<number, string>> {
  const unique = [...new Set(ids)];
  if (unique.length === 0) return new Map();
  const rows: Array<{ id: unknown; account: unknown }> = await store.knex('fw_user').whereIn('id', unique).select('id', 'account');
  return new Map(rows.map((r) => [Number(r.id), String(r.account)]));
}
