import type { Knex } from 'knex';
import type { RepositoryContext } from './context.js';
import { chunks, insertReturningId, isRowId, toDate, toId, toRequiredDate } from './values.js';

/** One saved view of a model's table (`fw_saved_view` with its roles). */
export interface FwSavedViewRecord {
  id: number;
  /** The model's name (case-sensitive). */
  model: string;
  /** The owner: the only user who may change or delete the view. */
  userId: number;
  name: string;
  /** The table query's conditions, as JSON (checked by the views routes, not here). */
  conditions: unknown;
  /** The table query's sort, as JSON. */
  sort: unknown;
  pageSize: number | null;
  /** The table's columns, as JSON; null: the table's own choice. */
  columns: unknown;
  /** The roles the owner shares the view with, ascending; empty: private. */
  roleIds: number[];
  createdAt: Date;
  updatedAt: Date;
}

/** What `views.create` and `views.update` write. */
export interface SavedViewInput {
  name: string;
  conditions: unknown;
  sort: unknown;
  pageSize: number | null;
  columns: unknown;
  roleIds: readonly number[];
}

/**
 * The `fw_saved_view` table and its role links. Every call that changes a view names its owner, so
 * a caller reaches only the views of the user it was given; whether a user may share with a role
 * is the caller's to decide (the views routes apply the who-may-grant rule).
 */
export interface SavedViewRepository {
  /**
   * The views of `model` a user may load: their own, and those shared with any role they hold
   * whose status is `normal` (a locked role opens nothing). Sharing is judged by what the owner
   * holds now, not when they shared: a shared view counts only while its owner still holds that
   * role (or is still an administrator, who may share with any role) and may still sign in
   * (status `normal`, not expired). By name, then id.
   */
  listFor(userId: number, model: string): Promise<FwSavedViewRecord[]>;
  /** The view `id` when `userId` owns it, else undefined. */
  findOwn(userId: number, id: number): Promise<FwSavedViewRecord | undefined>;
  /** How many views of `model` the user owns. */
  countOwn(userId: number, model: string): Promise<number>;
  /** Creates a view owned by `userId`, with its role links, in one transaction. No limit: see `createWithin`. */
  create(userId: number, model: string, input: SavedViewInput): Promise<FwSavedViewRecord>;
  /**
   * Creates a view as `create` does, unless the user already owns `limit` views of `model`. The
   * count and the insert take turns per user (a row lock on the owner's `fw_user` row; SQLite runs
   * one write transaction at a time), so concurrent saves cannot all pass the same count.
   */
  createWithin(userId: number, model: string, input: SavedViewInput, limit: number): Promise<SavedViewCreation>;
  /** Replaces a view the user owns (and its role links); undefined when they own no view `id` of `model`. */
  update(userId: number, model: string, id: number, input: SavedViewInput): Promise<FwSavedViewRecord | undefined>;
  /** Deletes a view the user owns. @returns false when they own no view `id` of `model`. */
  delete(userId: number, model: string, id: number): Promise<boolean>;
}

/** What `views.createWithin` did: the view, or the count that was already at the limit. */
export type SavedViewCreation = { ok: true; view: FwSavedViewRecord } | { ok: false; reason: 'limit'; count: number };

type Row = Record<string, unknown>;
const VIEW = 'fw_saved_view';
const VIEW_ROLE = 'fw_saved_view_role';

function json(value: unknown): unknown {
  return value === null || value === undefined ? null : (JSON.parse(String(value)) as unknown);
}

function toRecord(row: Row, roleIds: number[]): FwSavedViewRecord {
  return {
    id: toId(row.id),
    model: String(row.model),
    userId: toId(row.user_id),
    name: String(row.name),
    conditions: json(row.conditions),
    sort: json(row.sort),
    pageSize: row.page_size === null || row.page_size === undefined ? null : Number(row.page_size),
    columns: json(row.columns),
    roleIds,
    createdAt: toRequiredDate(row.created_at),
    updatedAt: toRequiredDate(row.updated_at),
  };
}

function columnsOf(input: SavedViewInput): Row {
  return {
    name: input.name,
    conditions: JSON.stringify(input.conditions ?? []),
    sort: JSON.stringify(input.sort ?? []),
    page_size: input.pageSize,
    columns: input.columns === null || input.columns === undefined ? null : JSON.stringify(input.columns),
  };
}

/** @internal */
export function createSavedViewRepository(ctx: RepositoryContext): SavedViewRepository {
  const { knex, dialect } = ctx;

  async function withRoles(db: Knex, rows: Row[]): Promise<FwSavedViewRecord[]> {
    const ids = rows.map((r) => toId(r.id));
    const roles = new Map<number, number[]>(ids.map((id) => [id, []]));
    for (const part of chunks(ids)) {
      const links: Row[] = await db(VIEW_ROLE).whereIn('view_id', part).orderBy('role_id').select('view_id', 'role_id');
      for (const link of links) roles.get(toId(link.view_id))?.push(toId(link.role_id));
    }
    return rows.map((r) => toRecord(r, roles.get(toId(r.id)) ?? []));
  }

  async function setRoles(trx: Knex.Transaction, viewId: number, roleIds: readonly number[]): Promise<void> {
    await trx(VIEW_ROLE).where('view_id', viewId).delete();
    const unique = [...new Set(roleIds)];
    for (const part of chunks(unique)) await trx(VIEW_ROLE).insert(part.map((roleId) => ({ view_id: viewId, role_id: roleId })));
  }

  const own = (db: Knex, userId: number, model: string) => db(VIEW).where({ user_id: userId, model });

  async function insertView(trx: Knex.Transaction, userId: number, model: string, input: SavedViewInput): Promise<FwSavedViewRecord> {
    const now = new Date();
    const id = await insertReturningId(trx, dialect, VIEW, { ...columnsOf(input), user_id: userId, model, created_at: now, updated_at: now });
    await setRoles(trx, id, input.roleIds);
    const row = (await trx(VIEW).where('id', id).first()) as Row;
    return (await withRoles(trx, [row]))[0]!;
  }

  return {
    async listFor(userId, model) {
      if (!isRowId(userId)) return [];
      // A link counts when the reader holds the role (normal status) and so does the view's owner
      // (the sharer) now, or the sharer is an administrator; a locked sharer shares nothing.
      // Expiry is compared below in JavaScript: the dialects store and compare datetimes differently.
      const shared = knex(VIEW_ROLE)
        .join(`${VIEW} as sv`, 'sv.id', `${VIEW_ROLE}.view_id`)
        .join('fw_user_role as reader_role', 'reader_role.role_id', `${VIEW_ROLE}.role_id`)
        .join('fw_role', 'fw_role.id', `${VIEW_ROLE}.role_id`)
        .join('fw_user as sharer', 'sharer.id', 'sv.user_id')
        .where('reader_role.user_id', userId)
        .where('fw_role.status', 'normal')
        .where('sharer.status', 'normal')
        .where((w) =>
          w.where('sharer.is_admin', true).orWhereExists((q) =>
            q
              .select(knex.raw('1'))
              .from('fw_user_role as owner_role')
              .whereRaw('?? = ??', ['owner_role.user_id', 'sv.user_id'])
              .whereRaw('?? = ??', ['owner_role.role_id', `${VIEW_ROLE}.role_id`]),
          ),
        )
        .select(`${VIEW_ROLE}.view_id`);
      const rows: Row[] = await knex(VIEW)
        .leftJoin('fw_user as owner', 'owner.id', `${VIEW}.user_id`)
        .where(`${VIEW}.model`, model)
        .where((w) => w.where(`${VIEW}.user_id`, userId).orWhereIn(`${VIEW}.id`, shared))
        .orderBy([{ column: `${VIEW}.name` }, { column: `${VIEW}.id` }])
        .select(`${VIEW}.*`, 'owner.expire_date as owner_expire_date');
      const now = Date.now();
      const live = rows.filter((r) => {
        if (toId(r.user_id) === userId) return true;
        const expires = toDate(r.owner_expire_date);
        return expires === null || expires.getTime() > now;
      });
      return withRoles(knex, live);
    },

    async findOwn(userId, id) {
      if (!isRowId(userId) || !isRowId(id)) return undefined;
      const row = (await knex(VIEW).where({ id, user_id: userId }).first()) as Row | undefined;
      return row ? (await withRoles(knex, [row]))[0] : undefined;
    },

    async countOwn(userId, model) {
      if (!isRowId(userId)) return 0;
      const [row] = (await own(knex, userId, model).count({ n: '*' })) as Array<{ n: unknown }>;
      return Number(row?.n ?? 0);
    },

    async create(userId, model, input) {
      return knex.transaction((trx) => insertView(trx, userId, model, input));
    },

    async createWithin(userId, model, input, limit) {
      return knex.transaction(async (trx): Promise<SavedViewCreation> => {
        // The lock makes one user's saves take turns; the count after it sees what the save
        // before it committed (PostgreSQL and MySQL read committed rows once the lock is
        // granted; SQL Server's UPDLOCK likewise). SQLite has no FOR UPDATE and needs none.
        if (dialect !== 'sqlite') await trx('fw_user').where('id', userId).forUpdate().first('id');
        const [row] = (await own(trx, userId, model).count({ n: '*' })) as Array<{ n: unknown }>;
        const count = Number(row?.n ?? 0);
        if (count >= limit) return { ok: false, reason: 'limit', count };
        return { ok: true, view: await insertView(trx, userId, model, input) };
      });
    },

    async update(userId, model, id, input) {
      if (!isRowId(userId) || !isRowId(id)) return undefined;
      return knex.transaction(async (trx) => {
        const changed = await own(trx, userId, model)
          .where('id', id)
          .update({ ...columnsOf(input), updated_at: new Date() });
        if (changed === 0) return undefined;
        await setRoles(trx, id, input.roleIds);
        const row = (await trx(VIEW).where('id', id).first()) as Row;
        return (await withRoles(trx, [row]))[0];
      });
    },

    async delete(userId, model, id) {
      if (!isRowId(userId) || !isRowId(id)) return false;
      // The role links go with it (ON DELETE CASCADE); removed first anyway, for a SQLite
      // connection opened without foreign keys.
      return knex.transaction(async (trx) => {
        const mine = await own(trx, userId, model).where('id', id).first('id');
        if (!mine) return false;
        await trx(VIEW_ROLE).where('view_id', id).delete();
        return (await trx(VIEW).where('id', id).delete()) > 0;
      });
    },
  };
}
