import { FwError, MENU_STATUS, type MenuStatus, type ModelDefinition, type PowerFlag } from '@fw/core';
import type { ListOptions, RepositoryContext } from './context.js';
import type objection from 'objection';
import type { FwMenuModel } from './models.js';
import { checkInteger, checkOneOf, checkOptionalId, checkOptionalText, checkText, conflictOnDuplicate, isRowId, isUniqueViolation, paged, toId, toOptionalId } from './values.js';

/** Menu types of `fw_menu.type`. A model's own menu is `table` (or `tree`); its buttons are `function` menus. */
export const MENU_TYPES = Object.freeze(['dir', 'table', 'tree', 'page', 'link', 'function'] as const);
/** One of {@link MENU_TYPES}. */
export type MenuType = (typeof MENU_TYPES)[number];
const MENU_STATUSES = Object.values(MENU_STATUS);

/**
 * The function menus a model's menu can carry: the power flag each one grants and the suffix of
 * its code (`<Model>@<SUFFIX>`). Query is granted by the model's own menu.
 */
export const FUNCTION_MENUS: ReadonlyArray<{ readonly flag: PowerFlag; readonly suffix: string; readonly name: string }> = Object.freeze([
  { flag: 'add', suffix: 'ADD', name: 'Add' },
  { flag: 'edit', suffix: 'EDIT', name: 'Edit' },
  { flag: 'delete', suffix: 'DELETE', name: 'Delete' },
  { flag: 'export', suffix: 'EXPORT', name: 'Export' },
  { flag: 'importable', suffix: 'IMPORTABLE', name: 'Import' },
  { flag: 'viewDetails', suffix: 'VIEW_DETAIL', name: 'View details' },
]);

/**
 * The code of a model's function menu.
 * @example functionMenuCode('Book', 'viewDetails') // 'Book@VIEW_DETAIL'
 * @throws {TypeError} for a flag that has no function menu (query is the model's own menu).
 */
export function functionMenuCode(model: string, flag: PowerFlag): string {
  const entry = FUNCTION_MENUS.find((f) => f.flag === flag);
  if (!entry) throw new TypeError(`power flag ${flag} has no function menu`);
  return `${model}@${entry.suffix}`;
}

/** A menu as the repositories return it. */
export interface FwMenuRecord {
  id: number;
  /** Unique when set: a model's name for its menu, `<Model>@ADD` … for its function menus. */
  code: string | null;
  name: string;
  type: MenuType;
  /** For `table` / `tree` menus the model name; for `page` / `link` a path or URL. */
  value: string | null;
  icon: string | null;
  parentId: number | null;
  sort: number;
  /** `hidden` menus still grant; `disabled` ones grant nothing. */
  status: MenuStatus;
  createdAt: Date;
  updatedAt: Date;
}

/** What `menus.create` accepts. */
export interface CreateMenuInput {
  /** Unique, at most 128 characters. */
  code?: string | null;
  /** At most 128 characters. */
  name: string;
  type: MenuType;
  /** At most 255 characters. */
  value?: string | null;
  /** At most 64 characters. */
  icon?: string | null;
  /** Id of an existing menu. */
  parentId?: number | null;
  /** @default 0 */
  sort?: number;
  /** @default 'open' */
  status?: MenuStatus;
}

/** What `menus.update` accepts. */
export type UpdateMenuInput = Partial<CreateMenuInput>;

/** Options of `menus.createModelMenu`. */
export interface ModelMenuOptions {
  /** Parent menu (usually a `dir`). @default null (top level) */
  parentId?: number | null;
  /** Menu name. @default the model's title */
  name?: string;
  /** Icon name. */
  icon?: string | null;
  /** @default 0 */
  sort?: number;
}

/** A model's menu and the function menus under it. */
export interface ModelMenu {
  menu: FwMenuRecord;
  /** One per enabled power flag that has a function menu, in {@link FUNCTION_MENUS} order. */
  functions: FwMenuRecord[];
}

/** The `fw_menu` table and menu grants. */
export interface MenuRepository {
  /**
   * Creates a menu.
   * @throws {FwError} `CONFLICT` when the code exists; `VALIDATION_FAILED` for a bad field or unknown parent.
   */
  create(input: CreateMenuInput): Promise<FwMenuRecord>;
  /** The menu with this id, or undefined. */
  findById(id: number): Promise<FwMenuRecord | undefined>;
  /** The menu with this code, or undefined. */
  findByCode(code: string): Promise<FwMenuRecord | undefined>;
  /** Every menu, whatever its status, by `sort` then id. */
  list(options?: ListOptions): Promise<FwMenuRecord[]>;
  /** Changes the given fields; returns the updated menu, or undefined when there is none. */
  update(id: number, patch: UpdateMenuInput): Promise<FwMenuRecord | undefined>;
  /** Deletes the menu and every menu under it (a model menu takes its function menus along). @returns false when there was none. */
  delete(id: number): Promise<boolean>;
  /**
   * The menus granted to the user through roles whose status is `normal`, without `disabled`
   * menus (`hidden` ones still grant), by `sort` then id.
   */
  menusForUser(userId: number): Promise<FwMenuRecord[]>;
  /** Every menu that can grant (status not `disabled`): what an administrator holds. */
  allMenus(): Promise<FwMenuRecord[]>;
  /**
   * Creates a model's menu (`table`, or `tree` for a tree model; code and value = the model name)
   * and a function menu per enabled power flag. Idempotent: existing menus (found by code) are
   * kept as they are, missing ones are added.
   */
  createModelMenu(model: ModelDefinition, options?: ModelMenuOptions): Promise<ModelMenu>;
}

function toRecord(m: FwMenuModel): FwMenuRecord {
  return {
    id: toId(m.id),
    code: m.code ?? null,
    name: m.name,
    type: m.type as MenuType,
    value: m.value ?? null,
    icon: m.icon ?? null,
    parentId: toOptionalId(m.parentId),
    sort: Number(m.sort),
    status: m.status as MenuStatus,
    createdAt: m.createdAt,
    updatedAt: m.updatedAt,
  };
}

function duplicateCode(code: string | null | undefined): string {
  return `A menu with code ${JSON.stringify(code)} already exists`;
}

/** The menu repository of one store. */
export function createMenuRepository(ctx: RepositoryContext): MenuRepository {
  const { Menu } = ctx.models;
  const { knex } = ctx;

  async function findById(id: number): Promise<FwMenuRecord | undefined> {
    if (!isRowId(id)) return undefined;
    const row = await Menu.query().findById(id);
    return row ? toRecord(row) : undefined;
  }

  async function findByCode(code: string): Promise<FwMenuRecord | undefined> {
    if (typeof code !== 'string' || code === '') return undefined;
    const row = await Menu.query().findOne({ code });
    return row ? toRecord(row) : undefined;
  }

  async function checkPatch(patch: UpdateMenuInput, creating: boolean, self?: number): Promise<Partial<FwMenuModel>> {
    const out: Partial<FwMenuModel> = {};
    if (creating || patch.code !== undefined) out.code = checkOptionalText('code', patch.code, 128);
    if (creating || patch.name !== undefined) out.name = checkText('name', patch.name, 128);
    if (creating || patch.type !== undefined) out.type = checkOneOf('type', patch.type, MENU_TYPES);
    if (creating || patch.value !== undefined) out.value = checkOptionalText('value', patch.value, 255);
    if (creating || patch.icon !== undefined) out.icon = checkOptionalText('icon', patch.icon, 64);
    if (creating || patch.sort !== undefined) out.sort = checkInteger('sort', patch.sort, 0);
    if (creating || patch.status !== undefined) out.status = checkOneOf('status', patch.status ?? MENU_STATUS.OPEN, MENU_STATUSES);
    if (creating || patch.parentId !== undefined) {
      const parentId = checkOptionalId('parentId', patch.parentId);
      if (parentId !== null && (parentId === self || !(await Menu.query().findById(parentId).select('id')))) {
        const message = `names no other existing menu: ${parentId}`;
        throw new FwError('VALIDATION_FAILED', `parentId ${message}`, { details: [{ path: 'parentId', type: 'exists', message }] });
      }
      out.parentId = parentId;
    }
    return out;
  }

  async function create(input: CreateMenuInput): Promise<FwMenuRecord> {
    const fields = await checkPatch(input, true);
    const now = new Date();
    const inserted = await conflictOnDuplicate(() => Menu.query().insert({ ...fields, createdAt: now, updatedAt: now }), 'code', duplicateCode(fields.code));
    const created = await findById(toId(inserted.id));
    if (!created) throw new Error(`fw_menu row ${String(inserted.id)} vanished right after its insert`);
    return created;
  }

  // Another instance may create the same menu between our lookup and our insert (start-up of
  // several instances at once): the loser of the race takes the winner's row.
  async function ensure(input: CreateMenuInput & { code: string }): Promise<FwMenuRecord> {
    const existing = await findByCode(input.code);
    if (existing) return existing;
    try {
      return await create(input);
    } catch (error) {
      const winner = isUniqueViolation(error) || (error instanceof FwError && error.code === 'CONFLICT') ? await findByCode(input.code) : undefined;
      if (winner) return winner;
      throw error;
    }
  }

  function ordered(): objection.QueryBuilder<FwMenuModel, FwMenuModel[]> {
    return Menu.query().orderBy('sort').orderBy('id');
  }

  return {
    create,
    findById,
    findByCode,

    async list(options = {}) {
      return (await paged(ordered(), options)).map(toRecord);
    },

    async update(id, patch) {
      if (!isRowId(id)) return undefined;
      const fields = await checkPatch(patch, false, id);
      if (Object.keys(fields).length > 0) {
        const count = await conflictOnDuplicate(
          () =>
            Menu.query()
              .findById(id)
              .patch({ ...fields, updatedAt: new Date() }),
          'code',
          duplicateCode(fields.code),
        );
        if (count === 0) return undefined;
        // Status (disabled grants nothing) and code (what power checks look for) decide grants.
        await ctx.grantsChanged();
      }
      return findById(id);
    },

    async delete(id) {
      if (!isRowId(id)) return false;
      return knex
        .transaction(async (trx) => {
          const ids = [id];
          // Walk down level by level; a cycle (parent ids edited by hand) cannot loop forever.
          for (let level = [id], seen = new Set(ids); level.length > 0;) {
            const children: number[] = (await trx('fw_menu').whereIn('parent_id', level).pluck('id')).map(toId).filter((c: number) => !seen.has(c));
            children.forEach((c) => seen.add(c));
            ids.push(...children);
            level = children;
          }
          let deleted = 0;
          for (let i = 0; i < ids.length; i += 500)
            deleted += await trx('fw_menu')
              .whereIn('id', ids.slice(i, i + 500))
              .delete();
          return deleted > 0;
        })
        .then(async (deleted) => {
          if (deleted) await ctx.grantsChanged();
          return deleted;
        });
    },

    async menusForUser(userId) {
      if (!isRowId(userId)) return [];
      const granted = knex('fw_role_menu')
        .join('fw_user_role', 'fw_user_role.role_id', 'fw_role_menu.role_id')
        .join('fw_role', 'fw_role.id', 'fw_role_menu.role_id')
        .where('fw_user_role.user_id', userId)
        .where('fw_role.status', 'normal')
        .select('fw_role_menu.menu_id');
      return (await ordered().whereIn('id', granted).whereNot('status', MENU_STATUS.DISABLED)).map(toRecord);
    },

    async allMenus() {
      return (await ordered().whereNot('status', MENU_STATUS.DISABLED)).map(toRecord);
    },

    async createModelMenu(model, options = {}) {
      const menu = await ensure({
        code: model.name,
        name: options.name ?? model.title,
        type: model.treeParentField === undefined ? 'table' : 'tree',
        value: model.name,
        icon: options.icon ?? null,
        parentId: options.parentId ?? null,
        sort: options.sort ?? 0,
      });
      const functions: FwMenuRecord[] = [];
      for (const [index, fn] of FUNCTION_MENUS.entries()) {
        if (!model.power[fn.flag]) continue;
        functions.push(await ensure({ code: functionMenuCode(model.name, fn.flag), name: fn.name, type: 'function', parentId: menu.id, sort: index }));
      }
      return { menu, functions };
    },
  };
}
