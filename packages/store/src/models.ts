import objection from 'objection';
import type { Knex } from 'knex';
import { toBoolean, toDate } from './values.js';

const { Model, snakeCaseMappers } = objection;

/**
 * Shared behaviour of the built-in objection models: camelCase properties over snake_case
 * columns, and stored values normalized to JS types, since drivers return 0 / 1 for booleans
 * (SQLite, MySQL) and epoch milliseconds for datetimes (SQLite).
 */
abstract class FwBaseModel extends Model {
  static override columnNameMappers = snakeCaseMappers();
  /** Properties holding datetimes. */
  static dateProperties: readonly string[] = ['createdAt', 'updatedAt'];
  /** Properties holding booleans. */
  static booleanProperties: readonly string[] = [];

  override $parseDatabaseJson(json: objection.Pojo): objection.Pojo {
    const parsed = super.$parseDatabaseJson(json);
    const type = this.constructor as typeof FwBaseModel;
    for (const key of type.dateProperties) if (key in parsed) parsed[key] = toDate(parsed[key]);
    for (const key of type.booleanProperties) if (key in parsed) parsed[key] = toBoolean(parsed[key]);
    return parsed;
  }
}

/** A `fw_user` row. */
export class FwUserModel extends FwBaseModel {
  static override tableName = 'fw_user';
  static override dateProperties = ['expireDate', 'resetPwdTime', 'createdAt', 'updatedAt'];
  static override booleanProperties = ['isAdmin'];
  declare id: number;
  declare account: string;
  declare name: string | null;
  declare passwordHash: string | null;
  declare passwordSalt: string | null;
  declare isAdmin: boolean;
  declare status: string;
  declare expireDate: Date | null;
  declare whiteIp: string | null;
  declare resetPwdTime: Date | null;
  declare createdAt: Date;
  declare updatedAt: Date;
  declare roles?: FwRoleModel[];
  declare orgs?: FwOrgModel[];

  static override get relationMappings(): objection.RelationMappings {
    return {
      roles: {
        relation: Model.ManyToManyRelation,
        modelClass: FwRoleModel,
        join: { from: 'fw_user.id', through: { from: 'fw_user_role.user_id', to: 'fw_user_role.role_id' }, to: 'fw_role.id' },
      },
      orgs: {
        relation: Model.ManyToManyRelation,
        modelClass: FwOrgModel,
        join: { from: 'fw_user.id', through: { from: 'fw_user_org.user_id', to: 'fw_user_org.org_id' }, to: 'fw_org.id' },
      },
    };
  }
}

/** A `fw_role` row. */
export class FwRoleModel extends FwBaseModel {
  static override tableName = 'fw_role';
  declare id: number;
  declare code: string;
  declare name: string;
  declare status: string;
  declare remark: string | null;
  declare createdAt: Date;
  declare updatedAt: Date;
  declare users?: FwUserModel[];
  declare menus?: FwMenuModel[];

  static override get relationMappings(): objection.RelationMappings {
    return {
      users: {
        relation: Model.ManyToManyRelation,
        modelClass: FwUserModel,
        join: { from: 'fw_role.id', through: { from: 'fw_user_role.role_id', to: 'fw_user_role.user_id' }, to: 'fw_user.id' },
      },
      menus: {
        relation: Model.ManyToManyRelation,
        modelClass: FwMenuModel,
        join: { from: 'fw_role.id', through: { from: 'fw_role_menu.role_id', to: 'fw_role_menu.menu_id' }, to: 'fw_menu.id' },
      },
    };
  }
}

/** A `fw_menu` row. */
export class FwMenuModel extends FwBaseModel {
  static override tableName = 'fw_menu';
  declare id: number;
  declare code: string | null;
  declare name: string;
  declare type: string;
  declare value: string | null;
  declare icon: string | null;
  declare parentId: number | null;
  declare sort: number;
  declare status: string;
  declare createdAt: Date;
  declare updatedAt: Date;
  declare roles?: FwRoleModel[];
  declare children?: FwMenuModel[];

  static override get relationMappings(): objection.RelationMappings {
    return {
      roles: {
        relation: Model.ManyToManyRelation,
        modelClass: FwRoleModel,
        join: { from: 'fw_menu.id', through: { from: 'fw_role_menu.menu_id', to: 'fw_role_menu.role_id' }, to: 'fw_role.id' },
      },
      children: { relation: Model.HasManyRelation, modelClass: FwMenuModel, join: { from: 'fw_menu.id', to: 'fw_menu.parent_id' } },
    };
  }
}

/** A `fw_org` row. */
export class FwOrgModel extends FwBaseModel {
  static override tableName = 'fw_org';
  declare id: number;
  declare code: string | null;
  declare name: string;
  declare parentId: number | null;
  declare sort: number;
  declare createdAt: Date;
  declare updatedAt: Date;
  declare users?: FwUserModel[];
  declare children?: FwOrgModel[];

  static override get relationMappings(): objection.RelationMappings {
    return {
      users: {
        relation: Model.ManyToManyRelation,
        modelClass: FwUserModel,
        join: { from: 'fw_org.id', through: { from: 'fw_user_org.org_id', to: 'fw_user_org.user_id' }, to: 'fw_user.id' },
      },
      children: { relation: Model.HasManyRelation, modelClass: FwOrgModel, join: { from: 'fw_org.id', to: 'fw_org.parent_id' } },
    };
  }
}

/** The built-in models bound to one store's knex. */
export interface BoundModels {
  User: typeof FwUserModel;
  Role: typeof FwRoleModel;
  Menu: typeof FwMenuModel;
  Org: typeof FwOrgModel;
}

/**
 * The models bound to `knex`. Binding (rather than `Model.knex(...)`, which is global) lets
 * several stores on different databases live in one process; objection caches the bound classes
 * per knex instance, and binds relations to the same knex.
 */
export function bindModels(knex: Knex): BoundModels {
  return { User: FwUserModel.bindKnex(knex), Role: FwRoleModel.bindKnex(knex), Menu: FwMenuModel.bindKnex(knex), Org: FwOrgModel.bindKnex(knex) };
}
