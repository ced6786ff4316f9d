import type { Knex } from 'knex';
import type { RepositoryContext } from './context.js';
import { chunks, toRequiredDate } from './values.js';

/** One trashed row (`fw_trash`). */
export interface TrashRecord {
  id: number;
  /** The model's name. */
  model: string;
  /** The row's primary key, as text. */
  rowId: string;
  /** The stored row, as the data API kept it (parsed JSON). */
  data: unknown;
  /** Who deleted it. */
  deletedBy: number | null;
  deletedAt: Date;
  /** The delete's batch id, when it had one. */
  batch: string | null;
}

/** What {@link TrashRepository.add} takes. */
export interface NewTrashRecord {
  model: string;
  rowId: string;
  data: unknown;
  deletedBy: number | null;
  batch?: string | null;
}

/**
 * `fw_trash`: rows deleted from models that keep a trash. Every method takes an optional knex (a
 * transaction), so the data service moves rows here inside the delete's own transaction and takes
 * them back out inside the undelete's.
 */
export interface TrashRepository {
  /** Records deleted rows. `deletedAt` is the same for all of them. */
  add(records: readonly NewTrashRecord[], db?: Knex, deletedAt?: Date): Promise<void>;
  /** The newest trashed entry of each of these rows of `model` (rows without one are absent). */
  findRows(model: string, rowIds: readonly string[], db?: Knex): Promise<TrashRecord[]>;
  /**
   * The trashed rows of `model`, newest first (by deletion time, then entry id), a batch at a
   * time: those before `after` when given. Restricted to `deletedBy` when given.
   */
  list(model: string, options: { limit: number; offset?: number; after?: { deletedAt: Date; id: number }; deletedBy?: number }, db?: Knex): Promise<TrashRecord[]>;
  /** How many trashed rows `model` has (of `deletedBy` only, when given). */
  count(model: string, deletedBy?: number, db?: Knex): Promise<number>;
  /** The trashed rows of `model` deleted before `before`, oldest first, at most `limit`. */
  listOlderThan(model: string, before: Date, limit: number, db?: Knex): Promise<TrashRecord[]>;
  /** Removes entries by their ids. @returns how many were removed */
  delete(ids: readonly number[], db?: Knex): Promise<number>;
}

const TABLE = 'fw_trash';

function toRecord(row: Record<string, unknown>): TrashRecord {
  return {
    id: Number(row.id),
    model: String(row.model),
    rowId: String(row.row_id),
    data: JSON.parse(String(row.data)) as unknown,
    deletedBy: row.deleted_by === null || row.deleted_by === undefined ? null : Number(row.deleted_by),
    deletedAt: toRequiredDate(row.deleted_at),
    batch: row.batch === null || row.batch === undefined ? null : String(row.batch),
  };
}

/** @internal */
export function createTrashRepository(ctx: RepositoryContext): TrashRepository {
  return {
    async add(records, db = ctx.knex, deletedAt = new Date()) {
      const rows = records.map((r) => ({ model: r.model, row_id: r.rowId, data: JSON.stringify(r.data), deleted_by: r.deletedBy, deleted_at: deletedAt, batch: r.batch ?? null }));
      // Small batches: a row's JSON can be large, and SQL Server binds at most 2,100 values.
      for (const part of chunks(rows, 100)) await db(TABLE).insert(part);
    },
    async findRows(model, rowIds, db = ctx.knex) {
      const newest = new Map<string, TrashRecord>();
      for (const part of chunks(rowIds)) {
        const rows: Array<Record<string, unknown>> = await db(TABLE).where('model', model).whereIn('row_id', part).orderBy('id');
        for (const row of rows) newest.set(String(row.row_id), toRecord(row));
      }
      return [...newest.values()];
    },
    async list(model, options, db = ctx.knex) {
      const query = db(TABLE).where('model', model);
      if (options.deletedBy !== undefined) query.where('deleted_by', options.deletedBy);
      const after = options.after;
      if (after) query.where((w) => w.where('deleted_at', '<', after.deletedAt).orWhere((x) => x.where('deleted_at', after.deletedAt).where('id', '<', after.id)));
      query
        .orderBy([
          { column: 'deleted_at', order: 'desc' },
          { column: 'id', order: 'desc' },
        ])
        .limit(options.limit);
      if (options.offset) query.offset(options.offset);
      return ((await query) as Array<Record<string, unknown>>).map(toRecord);
    },
    async count(model, deletedBy, db = ctx.knex) {
      const query = db(TABLE).where('model', model);
      if (deletedBy !== undefined) query.where('deleted_by', deletedBy);
      const [row] = (await query.count({ n: '*' })) as Array<{ n: unknown }>;
      return Number(row?.n ?? 0);
    },
    async listOlderThan(model, before, limit, db = ctx.knex) {
      const rows: Array<Record<string, unknown>> = await db(TABLE).where('model', model).where('deleted_at', '<', before).orderBy('deleted_at').orderBy('id').limit(limit);
      return rows.map(toRecord);
    },
    async delete(ids, db = ctx.knex) {
      let removed = 0;
      for (const part of chunks(ids)) removed += await db(TABLE).whereIn('id', part).delete();
      return removed;
    },
  };
}
