export { FW_ERROR_CODES } from './error-codes.js';
export type { FwErrorCode } from './error-codes.js';
export { FwError, FwDefinitionError, FwConfigError, isFwError } from './errors.js';
export type { FwErrorBody, FwErrorDetail } from './errors.js';
export { accountProblem, normalizeAccount } from './account.js';
export { linkTargetProblem, menuTargetProblem, pageTargetProblem } from './menu-target.js';
export { OVERLOADED_RETRY_AFTER, UNAVAILABLE_RETRY_AFTER, connectionReason, isUnavailableError, overloadedError, unavailableError } from './unavailable.js';
export { POWER_FLAGS, DEFAULT_POWER, runPowerHandler } from './power.js';
export type { PowerFlag, PowerFlags, PowerObject, PowerHandler, PowerHandlerFn, PowerHandlerContext, PowerDeclaration } from './power.js';
export { EditType, CONDITION_OPERATORS, IMAGE_TYPES, defineModel, isModelDefinition } from './model.js';
export { ORDER_BY_MAX } from './order-by.js';
export { MAX_INDEX_COLUMNS, MAX_INDEX_NAME_LENGTH, MAX_INDEX_STRING_COLUMNS, indexName, isIndexable } from './model-indexes.js';
export type { ModelIndex } from './model-indexes.js';
export type { OrderByEntry } from './order-by.js';
export type {
  AttachmentOptions,
  AttachmentValue,
  Choice,
  ChoiceInput,
  CollectionOptions,
  Condition,
  ConditionOperator,
  DataHookContext,
  DataProxy,
  DataSource,
  FieldDefinition,
  FieldDefinitionInput,
  FieldEdit,
  FieldRule,
  FieldViews,
  ModelDefinition,
  ModelDefinitionInput,
  ModelFieldRule,
  ReferenceOptions,
  RowRule,
  RuleOutcome,
} from './model.js';
export { fieldCapabilities, modelCapabilities } from './field-capabilities.js';
export type { FieldFacts, ModelFacts } from './field-capabilities.js';
export type { CellEditAnswer, CellEditRefusalCode, ConditionGroup, ConditionNode, FieldCapabilities, ModelCapabilities, StoredKind } from './model-types.js';
export { isConditionGroup } from './model-types.js';
export { FW_LOCALES, checkLocalizedText, localizedText } from './localized-text.js';
export type { CheckedText, FwLocale, LocalizedText, LocalizedTitles } from './localized-text.js';
export { ModelRegistry, createRegistry } from './registry.js';
export { CONFIG_KEYS, envNames, loadConfig } from './config.js';
export type { FwConfig, FwConfigKey, LoadConfigOptions } from './config.js';
export { USER_STATUS, MENU_STATUS, LOGIN_FAILURE_REASON, toFwUser } from './user.js';
export type { FwUser, StoredUserLike, ToFwUserOptions, UserStatus, MenuStatus, LoginFailureReason } from './user.js';
export { hashPassword, verifyPassword } from './password.js';
export { escapeHtml, isObject, positiveInteger } from './plain-values.js';
export { PERMISSION_LINKS, PERMISSION_TABLES } from './grant-tables.js';
// Issue 19 §5: the security headers of Fw's HTML pages.
export { DEFAULT_FRAME_ANCESTORS, checkFrameAncestors, pageContentSecurityPolicy } from './page-policy.js';
export type { FwPageKind } from './page-policy.js';
export type { PasswordHash } from './password.js';
export { PASSWORD_RULES, PASSWORD_TRANSPORT_MAX, isCommonPassword, passwordPolicy, passwordPolicyFromConfig, resolvePasswordPolicy } from './password-policy.js';
export type { PasswordCheckInput, PasswordPolicy, PasswordPolicyDescription, PasswordPolicyOptions, PasswordRefusal, PasswordRule } from './password-policy.js';
export {
  BUILTIN_MODELS,
  GRANT_TABLES,
  FwAgentModel,
  FwBiDatasourceModel,
  FwEmbeddingModelModel,
  FwLlmModel,
  FwLoginLogModel,
  FwMenuModel,
  FwOpenApiModel,
  FwOperateLogModel,
  FwOrgModel,
  FwRoleModel,
  FwUserModel,
} from './builtin-models.js';
