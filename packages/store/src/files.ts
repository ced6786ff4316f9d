import type { Knex } from 'knex';
import type { RepositoryContext } from './context.js';
import { toDate } from './values.js';

/** One uploaded file of an ATTACHMENT field (`fw_file`). */
export interface FileRecord {
  /** The storage key: random, made by the server. */
  id: string;
  model: string;
  field: string;
  /** The row holding it (its primary key as text); null while the upload is pending. */
  rowId: string | null;
  /** The client's file name, kept as a name only. */
  name: string;
  /** The type sniffed from the bytes. */
  type: string;
  size: number;
  /** The uploader's user id. */
  createdBy: number | null;
  createdAt: Date;
}

/** What {@link FileRepository.create} takes. */
export type NewFileRecord = Omit<FileRecord, 'rowId' | 'createdAt'>;

/**
 * `fw_file`: records of uploaded files. Every method takes an optional knex (a transaction) so
 * the data service claims and releases files inside the row's own transaction.
 */
export interface FileRepository {
  /** Records a pending upload (no row yet). */
  create(record: NewFileRecord, db?: Knex): Promise<FileRecord>;
  /** The records of these ids that exist (any order). */
  findMany(ids: readonly string[], db?: Knex): Promise<FileRecord[]>;
  /** The files a row holds (optionally of one field). */
  listForRows(model: string, rowIds: readonly string[], db?: Knex): Promise<FileRecord[]>;
  /** Attaches pending files (only those still pending) to a row. @returns how many records changed */
  claim(ids: readonly string[], target: { model: string; field: string; rowId: string }, db?: Knex): Promise<number>;
  /** Removes records. @returns how many were removed */
  delete(ids: readonly string[], db?: Knex): Promise<number>;
  /** Removes one record if it is still pending (not claimed meanwhile). @returns whether it did */
  deletePending(id: string, db?: Knex): Promise<boolean>;
  /** How many pending uploads (not yet attached to a row) a user has. */
  countPending(userId: number, db?: Knex): Promise<number>;
  /** How many pending uploads of `userId` created from `since` on there are, and their bytes. */
  pendingUsage(userId: number, since: Date, db?: Knex): Promise<PendingUsage>;
  /**
   * Records new pending uploads of one user, all or none, when the user's pending files (created
   * from `quota.since` on) stay within `quota` with them. Uploads of one user side by side take
   * turns (the user's `fw_user` row is locked for the check and the insert), so two of them at
   * the edge never both pass.
   */
  reservePending(userId: number, records: readonly NewFileRecord[], quota: PendingQuota): Promise<PendingReservation>;
  /** Pending uploads created before `before`, oldest first, at most `limit`. */
  listStalePending(before: Date, limit: number, db?: Knex): Promise<FileRecord[]>;
}

/** What one user's pending uploads hold: how many files, how many bytes. */
export interface PendingUsage {
  files: number;
  bytes: number;
}

/** The bounds of {@link FileRepository.reservePending}. */
export interface PendingQuota {
  /** Most pending files one user may hold. */
  maxFiles: number;
  /** Most bytes of pending files one user may hold. */
  maxBytes: number;
  /** Pending files created before this have expired (the purge removes them): they count for nothing. */
  since: Date;
}

/**
 * What {@link FileRepository.reservePending} did: recorded the files, or refused them with the
 * bound they would have passed and what the user held before them.
 */
export type PendingReservation = { ok: true; records: FileRecord[] } | { ok: false; reason: 'files' | 'bytes'; usage: PendingUsage };

const TABLE = 'fw_file';
// Keeps `where id in (…)` under every dialect's bound-parameter limit.
const CHUNK = 500;

function toRecord(row: Record<string, unknown>): FileRecord {
  return {
    id: String(row.id),
    model: String(row.model),
    field: String(row.field),
    rowId: row.row_id === null || row.row_id === undefined ? null : String(row.row_id),
    name: String(row.name),
    type: String(row.type),
    size: Number(row.size),
    createdBy: row.created_by === null || row.created_by === undefined ? null : Number(row.created_by),
    createdAt: toDate(row.created_at) ?? new Date(0),
  };
}

function chunks<T>(list: readonly T[]): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < list.length; i += CHUNK) out.push(list.slice(i, i + CHUNK));
  return out;
}

/** @internal */
export function createFileRepository(ctx: RepositoryContext): FileRepository {
  const repo: FileRepository = {
    async create(record, db = ctx.knex) {
      const createdAt = new Date();
      await db(TABLE).insert({
        id: record.id,
        model: record.model,
        field: record.field,
        row_id: null,
        name: record.name,
        type: record.type,
        size: record.size,
        created_by: record.createdBy,
        created_at: createdAt,
      });
      return { ...record, rowId: null, createdAt };
    },
    async findMany(ids, db = ctx.knex) {
      const out: FileRecord[] = [];
      for (const part of chunks(ids)) out.push(...(await db(TABLE).whereIn('id', part)).map(toRecord));
      return out;
    },
    async listForRows(model, rowIds, db = ctx.knex) {
      const out: FileRecord[] = [];
      for (const part of chunks(rowIds)) out.push(...(await db(TABLE).where('model', model).whereIn('row_id', part)).map(toRecord));
      return out;
    },
    async claim(ids, target, db = ctx.knex) {
      let changed = 0;
      // Only pending files: two saves racing for one upload cannot both take it.
      for (const part of chunks(ids)) changed += await db(TABLE).whereIn('id', part).whereNull('row_id').update({ model: target.model, field: target.field, row_id: target.rowId });
      return changed;
    },
    async delete(ids, db = ctx.knex) {
      let removed = 0;
      for (const part of chunks(ids)) removed += await db(TABLE).whereIn('id', part).delete();
      return removed;
    },
    async deletePending(id, db = ctx.knex) {
      return (await db(TABLE).where('id', id).whereNull('row_id').delete()) > 0;
    },
    async countPending(userId, db = ctx.knex) {
      const [row] = await db(TABLE).whereNull('row_id').where('created_by', userId).count({ n: '*' });
      return Number(row?.n ?? 0);
    },
    async pendingUsage(userId, since, db = ctx.knex) {
      const [row] = await db(TABLE).whereNull('row_id').where('created_by', userId).where('created_at', '>=', since).count({ n: '*' }).sum({ bytes: 'size' });
      return { files: Number(row?.n ?? 0), bytes: Number(row?.bytes ?? 0) };
    },
    async reservePending(userId, records, quota) {
      return ctx.knex.transaction(async (trx) => {
        // The lock makes a user's uploads take turns here; SQLite runs one transaction at a time
        // anyway (and has no FOR UPDATE). On PostgreSQL and MySQL the sum below reads after the
        // lock is granted, so it sees what the upload before it committed.
        if (ctx.dialect !== 'sqlite') await trx('fw_user').where('id', userId).forUpdate().first('id');
        const usage = await repo.pendingUsage(userId, quota.since, trx);
        const bytes = records.reduce((sum, r) => sum + r.size, 0);
        if (usage.files + records.length > quota.maxFiles) return { ok: false as const, reason: 'files' as const, usage };
        if (usage.bytes + bytes > quota.maxBytes) return { ok: false as const, reason: 'bytes' as const, usage };
        const out: FileRecord[] = [];
        for (const record of records) out.push(await repo.create(record, trx));
        return { ok: true as const, records: out };
      });
    },
    async listStalePending(before, limit, db = ctx.knex) {
      const rows = await db(TABLE).whereNull('row_id').where('created_at', '<', before).orderBy('created_at').limit(limit);
      return rows.map(toRecord);
    },
  };
  return repo;
}
