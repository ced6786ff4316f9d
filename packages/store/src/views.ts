import type { Knex } from 'knex';
import type { RepositoryContext } from './context.js';
import { chunks, insertReturningId, isRowId, toId, toRequiredDate } from './values.js';

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
   * whose status is `normal` (a locked role opens nothing). By name, then id.
   */
  listFor(userId: number, model: string): Promise<FwSavedViewRecord[]>;
  /** The view `id` when `userId` owns it, else undefined. */
  findOwn(userId: number, id: number): Promise<FwSavedViewRecord | undefined>;
  /** How many views of `model` the user owns. */
  countOwn(userId: number, model: string): Promise<number>;
  /** Creates a view owned by `userId`, with its role links, in one transaction. */
  create(userId: number, model: string, input: SavedViewInput): Promise<FwSavedViewRecord>;
  /** Replaces a view the user owns (and its role links); undefined when they own no view `id` of `model`. */
  update(userId: number, model: string, id: number, input: SavedViewInput): Promise<FwSavedViewRecord | undefined>;
  /** Deletes a view the user owns. @returns false when they own no view `id` of `model`. */
  delete(userId: number, model: string, id: number): Promise<boolean>;
}

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

  return {
    async listFor(userId, model) {
      if (!isRowId(userId)) return [];
      const shared = knex(VIEW_ROLE)
        .join('fw_user_role', 'fw_user_role.role_id', `${VIEW_ROLE}.role_id`)
        .join('fw_role', 'fw_role.id', `${VIEW_ROLE}.role_id`)
        .where('fw_user_role.user_id', userId)
        .where('fw_role.status', 'normal')
        .select(`${VIEW_ROLE}.view_id`);
      const rows: Row[] = await knex(VIEW)
        .where('model', model)
        .where((w) => w.where('user_id', userId).orWhereIn('id', shared))
        .orderBy([{ column: 'name' }, { column: 'id' }])
        .select('*');
      return withRoles(knex, rows);
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
      return knex.transaction(async (trx) => {
        const now = new Date();
        const id = await insertReturningId(trx, dialect, VIEW, { ...columnsOf(input), user_id: userId, model, created_at: now, updated_at: now });
        await setRoles(trx, id, input.roleIds);
        const row = (await trx(VIEW).where('id', id).first()) as Row;
        return (await withRoles(trx, [row]))[0]!;
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
