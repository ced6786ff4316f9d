export { createStore } from './store.js';
export type { FwMigrator, FwStore, StoreKnexOptions, StoreOptions, StorePoolOptions, StoreUrlOptions } from './store.js';
export { parseStoreUrl, redactUrl } from './url.js';
export type { MssqlConnection, MysqlConnection, ParsedStoreUrl, SqliteConnection } from './url.js';
export { DIALECTS, KNEX_CLIENT, dialectOfKnex } from './dialect.js';
export type { FwDialect } from './dialect.js';
export { BUILTIN_TABLES, MIGRATIONS, MIGRATION_TABLE, compileMigrations, fwMigrationSource } from './migrations.js';
export type { BuiltinTable, CompiledMigration, FwMigration } from './migrations.js';
// The objection classes of the built-in tables; @fw/core's FwUserModel & co. are the data-API
// model definitions of the same tables.
export { FwMenuModel as FwMenuObjection, FwOrgModel as FwOrgObjection, FwRoleModel as FwRoleObjection, FwUserModel as FwUserObjection, bindModels } from './models.js';
export type { BoundModels } from './models.js';
export type { ListOptions } from './context.js';
export type { GrantsRepository } from './grants.js';
export type { SessionRecord, SessionRepository, SessionUserRecord } from './sessions.js';
export type { FwUserPrefRecord, UserPrefRepository } from './prefs.js';
export type { FwSavedViewRecord, SavedViewCreation, SavedViewInput, SavedViewRepository } from './views.js';
export type { NewTrashRecord, TrashRecord, TrashRepository } from './trash.js';
export type { FileRecord, FileRepository, NewFileRecord, PendingQuota, PendingReservation, PendingUsage } from './files.js';
export type { CreateUserInput, FwUserRecord, UpdateUserInput, UserCredentials, UserRepository } from './users.js';
export { ROLE_STATUS } from './roles.js';
export type { CreateRoleInput, FwRoleRecord, RoleRepository, RoleStatus, UpdateRoleInput } from './roles.js';
export { FUNCTION_MENUS, MENU_TYPES, functionMenuCode } from './menus.js';
export type { CreateMenuInput, FwMenuRecord, MenuRepository, MenuType, ModelMenu, ModelMenuOptions, UpdateMenuInput } from './menus.js';
export type { CreateOrgInput, FwOrgRecord, OrgRepository } from './orgs.js';
export { OPERATE_STATUS, operateLogRow } from './logs.js';
export type {
  FwLoginLogRecord,
  FwOperateLogRecord,
  LoginLogInput,
  LoginLogListOptions,
  LoginLogRepository,
  LoginOrigin,
  OperateLogInput,
  OperateLogListOptions,
  OperateLogRepository,
  OperateStatus,
} from './logs.js';
export { OPEN_API_STATUS } from './open-apis.js';
export type { CreateOpenApiInput, CreatedOpenApi, FwOpenApiRecord, OpenApiRepository, OpenApiStatus } from './open-apis.js';
export { ModelTablesError, createModelTables, describeModelTableChanges, planModelTables } from './model-tables.js';
export type { ModelTableChange, ModelTableChangeKind, ModelTablesPlan } from './model-tables.js';
export { DEFAULT_LARGE_TABLE_ROWS, adviseIndexes } from './index-advice.js';
export type { IndexAdvice, IndexAdviceOptions } from './index-advice.js';
export { classifyDbError, violationConcerns } from './db-errors.js';
export type { DbViolation, DbViolationKind } from './db-errors.js';
export { DEFAULT_QUERY_TIMEOUT_MS } from './store.js';
export { QueryTimeoutError } from './query-limit.js';
