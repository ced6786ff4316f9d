import type { ListOptions, RepositoryContext } from './context.js';
import { linkedIds, replaceLinks } from './links.js';
import type { FwRoleModel } from './models.js';
import { checkOneOf, checkOptionalText, checkText, conflictOnDuplicate, isRowId, paged, toId } from './values.js';

/** Role status values of `fw_role.status`: a locked role grants nothing. */
export const ROLE_STATUS = Object.freeze({ NORMAL: 'normal', LOCKED: 'locked' } as const);
/** One of {@link ROLE_STATUS}. */
export type RoleStatus = (typeof ROLE_STATUS)[keyof typeof ROLE_STATUS];
const ROLE_STATUSES = Object.values(ROLE_STATUS);

/** A role as the repositories return it. */
export interface FwRoleRecord {
  id: number;
  /** Unique code, the stable name other code refers to. */
  code: string;
  name: string;
  status: RoleStatus;
  remark: string | null;
  createdAt: Date;
  updatedAt: Date;
}

/** What `roles.create` accepts. */
export interface CreateRoleInput {
  /** Unique, at most 64 characters. */
  code: string;
  /** At most 128 characters. */
  name: string;
  /** @default 'normal' */
  status?: RoleStatus;
  /** At most 512 characters. */
  remark?: string | null;
}

/** What `roles.update` accepts. */
export type UpdateRoleInput = Partial<CreateRoleInput>;

/** The `fw_role` table and the role's menu grants. */
export interface RoleRepository {
  /**
   * Creates a role.
   * @throws {FwError} `CONFLICT` when the code exists; `VALIDATION_FAILED` for a bad field.
   */
  create(input: CreateRoleInput): Promise<FwRoleRecord>;
  /** The role with this id, or undefined. */
  findById(id: number): Promise<FwRoleRecord | undefined>;
  /** The role with this code, or undefined. */
  findByCode(code: string): Promise<FwRoleRecord | undefined>;
  /** Roles by id. */
  list(options?: ListOptions): Promise<FwRoleRecord[]>;
  /**
   * Changes the given fields; returns the updated role, or undefined when there is none.
   * @throws {FwError} `CONFLICT` when changing the code onto an existing one.
   */
  update(id: number, patch: UpdateRoleInput): Promise<FwRoleRecord | undefined>;
  /** Deletes the role and its user and menu links. @returns false when there was none. */
  delete(id: number): Promise<boolean>;
  /**
   * Replaces the menus the role grants, in one transaction.
   * @throws {FwError} `ROW_NOT_FOUND` for an unknown role, `VALIDATION_FAILED` for unknown menu ids.
   */
  setMenus(roleId: number, menuIds: readonly number[]): Promise<void>;
  /** Ids of the menus the role grants, ascending. */
  menuIds(roleId: number): Promise<number[]>;
}

function toRecord(m: FwRoleModel): FwRoleRecord {
  return {
    id: toId(m.id),
    code: m.code,
    name: m.name,
    status: m.status as RoleStatus,
    remark: m.remark ?? null,
    createdAt: m.createdAt,
    updatedAt: m.updatedAt,
  };
}

function duplicateCode(code: string | undefined): string {
  return `A role with code ${JSON.stringify(code)} already exists`;
}

/** The role repository of one store. */
export function createRoleRepository(ctx: RepositoryContext): RoleRepository {
  const { Role } = ctx.models;

  async function findById(id: number): Promise<FwRoleRecord | undefined> {
    if (!isRowId(id)) return undefined;
    const row = await Role.query().findById(id);
    return row ? toRecord(row) : undefined;
  }

  function checkPatch(patch: UpdateRoleInput, creating: boolean): Partial<FwRoleModel> {
    const out: Partial<FwRoleModel> = {};
    if (creating || patch.code !== undefined) out.code = checkText('code', patch.code, 64);
    if (creating || patch.name !== undefined) out.name = checkText('name', patch.name, 128);
    if (creating || patch.status !== undefined) out.status = checkOneOf('status', patch.status ?? ROLE_STATUS.NORMAL, ROLE_STATUSES);
    if (creating || patch.remark !== undefined) out.remark = checkOptionalText('remark', patch.remark, 512);
    return out;
  }

  return {
    async create(input) {
      const fields = checkPatch(input, true);
      const now = new Date();
      const inserted = await conflictOnDuplicate(() => Role.query().insert({ ...fields, createdAt: now, updatedAt: now }), 'code', duplicateCode(fields.code));
      const created = await findById(toId(inserted.id));
      if (!created) throw new Error(`fw_role row ${String(inserted.id)} vanished right after its insert`);
      return created;
    },

    findById,

    async findByCode(code) {
      if (typeof code !== 'string' || code === '') return undefined;
      const row = await Role.query().findOne({ code });
      return row ? toRecord(row) : undefined;
    },

    async list(options = {}) {
      return (await paged(Role.query().orderBy('id'), options)).map(toRecord);
    },

    async update(id, patch) {
      if (!isRowId(id)) return undefined;
      const fields = checkPatch(patch, false);
      if (Object.keys(fields).length > 0) {
        const count = await conflictOnDuplicate(
          () =>
            Role.query()
              .findById(id)
              .patch({ ...fields, updatedAt: new Date() }),
          'code',
          duplicateCode(fields.code),
        );
        if (count === 0) return undefined;
        // A locked role stops granting; a renamed code may be referred to elsewhere.
        await ctx.grantsChanged();
      }
      return findById(id);
    },

    async delete(id) {
      if (!isRowId(id)) return false;
      const deleted = (await Role.query().deleteById(id)) > 0;
      if (deleted) await ctx.grantsChanged();
      return deleted;
    },

    async setMenus(roleId, menuIds) {
      await replaceLinks(
        ctx,
        { table: 'fw_role_menu', ownerColumn: 'role_id', targetColumn: 'menu_id', ownerTable: 'fw_role', targetTable: 'fw_menu', ownerName: 'role', path: 'menuIds' },
        roleId,
        menuIds,
      );
      await ctx.grantsChanged();
    },

    menuIds(roleId) {
      return linkedIds(ctx, 'fw_role_menu', 'role_id', 'menu_id', roleId);
    },
  };
}
