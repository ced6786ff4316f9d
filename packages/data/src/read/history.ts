// A row's history (issue 23 §3): its successful operations from the operate log, newest first,
// each with the fields it changed, before → after. The log is the only source: what it masked
// stays masked, and what the caller may not see in the row's details is left out.
import { FwError, type ModelDefinition } from '@fw/core';
import type { FwStore } from '@fw/store';
import { MASK, OPERATE_LOG_TABLE } from '../write/operate-log.js';
import { isSecret } from '../write/secrets.js';

/** One field an entry changed. */
export interface HistoryChange {
  field: string;
  /** The value before the entry (null for an added row); `******` for a secret. */
  before: unknown;
  /** The value the entry wrote (null for a deleted row); `******` for a secret. */
  after: unknown;
}

/** Who made a logged change: the account the operate log holds and the user's name now. */
export interface LoggedUser {
  id: number | null;
  account: string | null;
  /** The name the live events and presence show for the same person; null when the user is gone or has none. */
  name: string | null;
}

const USER_TABLE = 'fw_user';

/** Fills in `name` of each of `users` (in place) from the users table, in one read. */
export async function nameLoggedUsers(store: FwStore, users: Iterable<LoggedUser>): Promise<void> {
  const list = [...users];
  const ids = [...new Set(list.map((u) => u.id).filter((id): id is number => typeof id === 'number'))];
  if (ids.length === 0) return;
  const rows = (await store.knex(USER_TABLE).whereIn('id', ids).select('id', 'name')) as Array<{ id: unknown; name: unknown }>;
  const names = new Map(rows.map((u) => [Number(u.id), u.name]));
  for (const user of list) {
    const name = user.id === null ? undefined : names.get(user.id);
    user.name = typeof name === 'string' && name !== '' ? name : null;
  }
}

/** One entry of a row's history. */
export interface HistoryEntry {
  /** The operate-log row's id: what a restore names. */
  id: number;
  at: string;
  /** Who: the account the log holds, and the user's name now (null when the user is gone or has none). */
  user: LoggedUser;
  /** `http` (form), `cell`, `import`, `bulk`, `ai`, `restore`. */
  source: string;
  /** `add`, `update`, `delete`, `copy`. */
  action: string;
  batch: string | null;
  changes: HistoryChange[];
  /** True when the log had cut the entry's data short: its changes cannot be read back. */
  truncated?: true;
}

/** One page of a row's history. */
export interface HistoryPage {
  rows: HistoryEntry[];
  total: number;
  page: number;
  size: number;
}

/** The page and size of a history request: `page` ≥ 1 (default 1), `size` 1–100 (default 20). */
export function historyPaging(query: { page?: unknown; size?: unknown }): { page: number; size: number } {
  const read = (raw: unknown, name: string, fallback: number, max: number) => {
    if (raw === undefined || raw === '') return fallback;
    const n = typeof raw === 'string' && /^\d{1,9}$/.test(raw) ? Number(raw) : NaN;
    if (!Number.isInteger(n) || n < 1 || n > max) throw new FwError('BAD_REQUEST', `${name} must be a whole number from 1 to ${max}`, { details: [{ path: name, type: 'typeError', message: `must be a whole number from 1 to ${max}` }] });
    return n;
  };
  return { page: read(query.page, 'page', 1, 100_000), size: read(query.size, 'size', 20, 100) };
}

/** A logged JSON text read back; undefined when the log cut it short or it is not JSON. */
export function logged(text: unknown): unknown {
  if (typeof text !== 'string') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The fields one log row changed on row `id`, with before and after, as the log holds them:
 * an update's `request.changes` against its `before_data`; an add's values; a delete's row.
 * Undefined when the row's data cannot be read back (cut short by the log's size cap).
 */
export function entryChanges(model: ModelDefinition, id: number, row: { action: string; before_data?: unknown; request?: unknown }): Array<{ field: string; before: unknown; after: unknown }> | undefined {
  const before = logged(row.before_data);
  const request = logged(row.request);
  if ((row.before_data != null && before === undefined) || (row.request != null && request === undefined)) return undefined;
  const out: Array<{ field: string; before: unknown; after: unknown }> = [];
  if (row.action === 'update') {
    const changes = isRecord(request) && isRecord(request.changes) ? request.changes : {};
    for (const [field, after] of Object.entries(changes)) out.push({ field, before: isRecord(before) && field in before ? before[field] : null, after });
  } else if (row.action === 'add' || row.action === 'copy') {
    const values = row.action === 'copy' ? (isRecord(request) && isRecord(request.values) ? request.values : {}) : isRecord(request) ? request : {};
    for (const [field, after] of Object.entries(values)) if (field !== model.primaryKey) out.push({ field, before: null, after });
  } else if (row.action === 'delete') {
    // One log row per deleted row (its row); a log written before that kept one row for all of them (a list).
    const rows = Array.isArray(before) ? before : [before];
    const gone = rows.find((r) => isRecord(r) && Number(r[model.primaryKey]) === id);
    if (isRecord(gone)) for (const [field, value] of Object.entries(gone)) if (field !== model.primaryKey) out.push({ field, before: value, after: null });
  }
  return out;
}

/**
 * One page of the history of row `id` of `model` (power and visibility already checked), newest
 * first: the successful log rows whose target is that row, read by the `(model, target_id, id)`
 * index. `shown` names the fields the caller sees in the row's details; other fields are left
 * out, and secret fields are shown masked whatever the log holds.
 */
export async function rowHistory(store: FwStore, model: ModelDefinition, id: number, shown: ReadonlySet<string>, paging: { page: number; size: number }): Promise<HistoryPage> {
  const where = (qb: ReturnType<FwStore['knex']>) => qb.where('model', model.name).where('target_id', String(id)).where('status', 'success');
  const [counted] = (await where(store.knex(OPERATE_LOG_TABLE)).count({ n: '*' })) as Array<{ n: number | string }>;
  const total = Number(counted?.n ?? 0);
  const rows = (await where(store.knex(OPERATE_LOG_TABLE))
    .orderBy('id', 'desc')
    .offset((paging.page - 1) * paging.size)
    .limit(paging.size)
    .select('id', 'created_at', 'user_id', 'account', 'source', 'action', 'batch', 'before_data', 'request')) as Array<Record<string, unknown>>;
  const entries = rows.map((row) => historyEntry(model, id, shown, row));
  await nameLoggedUsers(store, entries.map((e) => e.user));
  return { rows: entries, total, page: paging.page, size: paging.size };
}

function historyEntry(model: ModelDefinition, id: number, shown: ReadonlySet<string>, row: Record<string, unknown>): HistoryEntry {
  const changes = entryChanges(model, id, { action: String(row.action), before_data: row.before_data, request: row.request });
  const visible: HistoryChange[] = [];
  for (const change of changes ?? []) {
    const field = Object.hasOwn(model.fields, change.field) ? model.fields[change.field]! : undefined;
    if (!field) continue;
    if (isSecret(field)) {
      // A secret is never shown, whatever the log holds; only that it was set.
      visible.push({ field: field.name, before: change.before == null ? null : MASK, after: change.after == null ? null : MASK });
    } else if (shown.has(field.name)) {
      visible.push({ field: field.name, before: change.before ?? null, after: change.after ?? null });
    }
  }
  // pg and mysql2 give a Date; SQLite the epoch milliseconds (a number, or its digits).
  const raw = row.created_at;
  const at = raw instanceof Date ? raw : new Date(typeof raw === 'string' && !/^\d+$/.test(raw) ? raw : Number(raw));
  return {
    id: Number(row.id),
    at: at.toISOString(),
    user: { id: row.user_id == null ? null : Number(row.user_id), account: row.account == null ? null : String(row.account), name: null },
    source: String(row.source),
    action: String(row.action),
    batch: row.batch == null ? null : String(row.batch),
    changes: visible,
    ...(changes === undefined ? { truncated: true as const } : {}),
  };
}
