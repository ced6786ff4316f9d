import { randomBytes } from 'node:crypto';
import { accountProblem } from './account.js';
import { menuTargetProblem } from './menu-target.js';
import { defineModel, type ModelDefinition } from './model.js';
import { LOGIN_FAILURE_REASON } from './user.js';

// The framework's own models over its built-in tables (created by @fw/store's migrations), so
// administrators manage users, roles, menus and configuration through the same data API, like every
// model. Field names and the `cellEdit: false` switches are part of the contract
// (DESIGN.md §4 "Cell edit"): identity, privilege and security fields are never edited in a cell.

const STATUS_CHOICES = [
  { value: 'normal', label: 'Normal' },
  { value: 'locked', label: 'Locked' },
];

const stamps = {
  createdAt: { column: 'created_at', views: { title: 'Created', show: false }, edit: { type: 'DATETIME', readonly: true } },
  updatedAt: { column: 'updated_at', views: { title: 'Updated', show: false }, edit: { type: 'DATETIME', readonly: true } },
} as const;

function accountRule(value: unknown): true | string {
  const problem = accountProblem(value);
  return problem === undefined ? true : `account ${problem}`;
}

/** Users (`fw_user`). The password is write-only: hashed into password_hash / password_salt, never returned. */
export const FwUserModel = defineModel({
  name: 'FwUser',
  title: 'Users',
  table: 'fw_user',
  singularTitle: 'User',
  fields: {
    account: {
      views: { title: 'Account' },
      edit: { notNull: true, cellEdit: false },
      // No look-alike accounts (`admin` + a zero-width space), nothing a log line or a database chokes on.
      rules: [
        { type: 'length', min: 1, max: 64 },
        { type: 'dynamic', name: 'account', dependsOn: [], test: (value) => accountRule(value) },
      ],
    },
    name: { views: { title: 'Name' }, rules: [{ type: 'length', max: 128 }] },
    // Its lengths and the other rules are the password policy's (`passwordPolicy` of this package),
    // which the data API applies on every write path with the configured minimum (issue 19 §2).
    password: { column: 'password_hash', views: { title: 'Password' }, edit: { type: 'PASSWORD', saltColumn: 'password_salt' } },
    isAdmin: { column: 'is_admin', views: { title: 'Administrator' }, edit: { type: 'BOOLEAN', defaultValue: false, cellEdit: false } },
    status: { views: { title: 'Status' }, edit: { type: 'CHOICE', choices: STATUS_CHOICES, defaultValue: 'normal', notNull: true, cellEdit: false } },
    expireDate: { column: 'expire_date', views: { title: 'Expires' }, edit: { type: 'DATETIME', cellEdit: false } },
    whiteIp: { column: 'white_ip', views: { title: 'IP allowlist' }, edit: { type: 'TEXTAREA', cellEdit: false }, rules: [{ type: 'length', max: 1024 }] },
    resetPwdTime: { column: 'reset_pwd_time', views: { title: 'Password changed', show: false }, edit: { type: 'DATETIME', readonly: true } },
    roles: {
      views: { title: 'Roles' },
      edit: { type: 'COLLECTION', cellEdit: false, collection: { model: 'FwRole', joinTable: 'fw_user_role', ownKey: 'user_id', foreignKey: 'role_id', labelField: 'name' } },
    },
    orgs: {
      views: { title: 'Organisations' },
      edit: { type: 'COLLECTION', cellEdit: false, collection: { model: 'FwOrg', joinTable: 'fw_user_org', ownKey: 'user_id', foreignKey: 'org_id', labelField: 'name' } },
    },
    ...stamps,
  },
});

/** Roles (`fw_role`) and the menus they grant. */
export const FwRoleModel = defineModel({
  name: 'FwRole',
  title: 'Roles',
  table: 'fw_role',
  singularTitle: 'Role',
  fields: {
    code: { views: { title: 'Code' }, edit: { notNull: true, cellEdit: false }, rules: [{ type: 'length', min: 1, max: 64 }] },
    name: { views: { title: 'Name' }, edit: { notNull: true }, rules: [{ type: 'length', max: 128 }] },
    status: { views: { title: 'Status' }, edit: { type: 'CHOICE', choices: STATUS_CHOICES, defaultValue: 'normal', notNull: true, cellEdit: false } },
    remark: { views: { title: 'Remark' }, edit: { type: 'TEXTAREA' }, rules: [{ type: 'length', max: 512 }] },
    menus: {
      views: { title: 'Menus' },
      edit: { type: 'COLLECTION', collection: { model: 'FwMenu', joinTable: 'fw_role_menu', ownKey: 'role_id', foreignKey: 'menu_id', labelField: 'name' } },
    },
    ...stamps,
  },
});

/** Organisations (`fw_org`), a tree. */
export const FwOrgModel = defineModel({
  name: 'FwOrg',
  title: 'Organisations',
  table: 'fw_org',
  singularTitle: 'Organisation',
  treeParentField: 'parentId',
  fields: {
    code: { views: { title: 'Code' }, rules: [{ type: 'length', max: 64 }] },
    name: { views: { title: 'Name' }, edit: { notNull: true }, rules: [{ type: 'length', max: 128 }] },
    parentId: { column: 'parent_id', views: { title: 'Parent' }, edit: { type: 'REFERENCE_TREE', reference: { model: 'FwOrg', labelField: 'name' } } },
    sort: { views: { title: 'Order' }, edit: { type: 'NUMBER', integer: true, defaultValue: 0, notNull: true } },
    ...stamps,
  },
});

/** Menus (`fw_menu`), a tree: pages, model menus and their function menus. */
export const FwMenuModel = defineModel({
  name: 'FwMenu',
  title: 'Menus',
  table: 'fw_menu',
  singularTitle: 'Menu',
  treeParentField: 'parentId',
  fields: {
    code: { views: { title: 'Code' }, rules: [{ type: 'length', max: 128 }] },
    name: { views: { title: 'Name' }, edit: { notNull: true }, rules: [{ type: 'length', max: 128 }] },
    type: {
      views: { title: 'Type' },
      edit: {
        type: 'CHOICE',
        notNull: true,
        choices: ['dir', 'table', 'tree', 'page', 'link', 'function'].map((value) => ({ value })),
      },
    },
    value: { views: { title: 'Value' }, rules: [{ type: 'length', max: 255 }] },
    icon: { views: { title: 'Icon' }, rules: [{ type: 'length', max: 64 }] },
    parentId: { column: 'parent_id', views: { title: 'Parent' }, edit: { type: 'REFERENCE_TREE', reference: { model: 'FwMenu', labelField: 'name' } } },
    sort: { views: { title: 'Order' }, edit: { type: 'NUMBER', integer: true, defaultValue: 0, notNull: true } },
    status: {
      views: { title: 'Status' },
      edit: {
        type: 'CHOICE',
        notNull: true,
        defaultValue: 'open',
        choices: [
          { value: 'open', label: 'Open' },
          { value: 'hidden', label: 'Hidden' },
          { value: 'disabled', label: 'Disabled' },
        ],
      },
    },
    ...stamps,
  },
  // A row rule, so every write path sees it (add, copy, the edit form, a cell, import, the AI
  // tools), administrators' included: a page is framed inside the admin UI with its origin and
  // storage, a link opens in a new tab (issue 19 §1; see menu-target.ts).
  rowRules: [
    {
      name: 'menuTarget',
      fields: ['type', 'value'],
      path: 'value',
      test: (row) => {
        const problem = menuTargetProblem(row.type, row.value);
        return problem === undefined ? true : `${row.type === 'page' ? 'A page' : 'A link'} ${problem}`;
      },
    },
  ],
});

/** Open-API keys (`fw_open_api`): an app id and a secret that stands for a user. */
export const FwOpenApiModel = defineModel({
  name: 'FwOpenApi',
  title: 'Open API keys',
  table: 'fw_open_api',
  singularTitle: 'Open API key',
  fields: {
    // Generated when the key is added (read-only to clients).
    appId: { column: 'app_id', views: { title: 'App id' }, edit: { readonly: true } },
    name: { views: { title: 'Name' }, edit: { notNull: true }, rules: [{ type: 'length', max: 128 }] },
    // Chosen by the administrator when adding the key, stored hashed, never shown again.
    secret: {
      column: 'secret_hash',
      views: { title: 'Secret' },
      edit: { type: 'PASSWORD', saltColumn: 'secret_salt', notNull: true, cellEdit: false },
      rules: [{ type: 'length', min: 16, max: 200 }],
    },
    userId: { column: 'user_id', views: { title: 'User' }, edit: { type: 'REFERENCE_TABLE', notNull: true, reference: { model: 'FwUser', labelField: 'account' } } },
    expireDate: { column: 'expire_date', views: { title: 'Expires' }, edit: { type: 'DATETIME', cellEdit: false } },
    status: { views: { title: 'Status' }, edit: { type: 'CHOICE', choices: STATUS_CHOICES, defaultValue: 'normal', notNull: true, cellEdit: false } },
    ...stamps,
  },
  dataProxy: {
    beforeAdd: (row) => {
      row.appId = randomBytes(12).toString('base64url');
    },
  },
});

/** Language models (`fw_llm`): plain configuration for AI features. */
export const FwLlmModel = defineModel({
  name: 'FwLlm',
  title: 'Language models',
  table: 'fw_llm',
  singularTitle: 'Language model',
  fields: {
    name: { views: { title: 'Name' }, edit: { notNull: true }, rules: [{ type: 'length', max: 128 }] },
    provider: { views: { title: 'Provider' }, rules: [{ type: 'length', max: 64 }] },
    apiDomain: { column: 'api_domain', views: { title: 'API domain' }, edit: { notNull: true, cellEdit: false }, rules: [{ type: 'length', max: 255 }] },
    apiKey: { column: 'api_key', views: { title: 'API key' }, edit: { type: 'PASSWORD', hashed: false }, rules: [{ type: 'length', max: 512 }] },
    model: { views: { title: 'Model' }, rules: [{ type: 'length', max: 128 }] },
    enabled: { views: { title: 'Enabled' }, edit: { type: 'BOOLEAN', defaultValue: true } },
    ...stamps,
  },
});

/** Embedding models (`fw_embedding_model`). */
export const FwEmbeddingModelModel = defineModel({
  name: 'FwEmbeddingModel',
  title: 'Embedding models',
  table: 'fw_embedding_model',
  singularTitle: 'Embedding model',
  fields: {
    name: { views: { title: 'Name' }, edit: { notNull: true }, rules: [{ type: 'length', max: 128 }] },
    apiDomain: { column: 'api_domain', views: { title: 'API domain' }, edit: { notNull: true, cellEdit: false }, rules: [{ type: 'length', max: 255 }] },
    apiKey: { column: 'api_key', views: { title: 'API key' }, edit: { type: 'PASSWORD', hashed: false }, rules: [{ type: 'length', max: 512 }] },
    model: { views: { title: 'Model' }, rules: [{ type: 'length', max: 128 }] },
    dimensions: { views: { title: 'Dimensions' }, edit: { type: 'NUMBER', integer: true }, rules: [{ type: 'range', min: 1 }] },
    ...stamps,
  },
});

/** Agents (`fw_agent`). */
export const FwAgentModel = defineModel({
  name: 'FwAgent',
  title: 'Agents',
  table: 'fw_agent',
  singularTitle: 'Agent',
  fields: {
    name: { views: { title: 'Name' }, edit: { notNull: true }, rules: [{ type: 'length', max: 128 }] },
    url: {
      views: { title: 'URL' },
      edit: { notNull: true, cellEdit: false },
      rules: [
        { type: 'pattern', pattern: '^https?://', message: 'must be an http(s) URL' },
        { type: 'length', max: 512 },
      ],
    },
    description: { views: { title: 'Description' }, edit: { type: 'TEXTAREA' }, rules: [{ type: 'length', max: 1024 }] },
    enabled: { views: { title: 'Enabled' }, edit: { type: 'BOOLEAN', defaultValue: true } },
    ...stamps,
  },
});

/** BI data sources (`fw_bi_datasource`); the connection string is never returned. */
export const FwBiDatasourceModel = defineModel({
  name: 'FwBiDatasource',
  title: 'BI data sources',
  table: 'fw_bi_datasource',
  singularTitle: 'BI data source',
  fields: {
    name: { views: { title: 'Name' }, edit: { notNull: true }, rules: [{ type: 'length', max: 128 }] },
    dialect: { views: { title: 'Dialect' }, rules: [{ type: 'length', max: 32 }] },
    connectionString: {
      column: 'connection_string',
      views: { title: 'Connection string' },
      edit: { type: 'PASSWORD', hashed: false, notNull: true, cellEdit: false },
      rules: [{ type: 'length', max: 1024 }],
    },
    ...stamps,
  },
});

const readOnly = { add: false, edit: false, delete: false, copy: false, cellEdit: false, importable: false, export: true } as const;

// The log tables count their rows in 64-bit keys: ids past 2^31 exist there (and are looked up).
const bigKey = { edit: { type: 'HIDDEN', readonly: true, integer: true }, rules: [{ type: 'range', min: 1, max: Number.MAX_SAFE_INTEGER }] } as const;

// Labels of the failure classes, in the order an administrator meets them most.
const LOGIN_FAILURE_CHOICES = [
  { value: LOGIN_FAILURE_REASON.BAD_CREDENTIALS, label: 'Unknown account or wrong password' },
  { value: LOGIN_FAILURE_REASON.CAPTCHA, label: 'Verification code missing or wrong' },
  { value: LOGIN_FAILURE_REASON.THROTTLED, label: 'Too many attempts' },
  { value: LOGIN_FAILURE_REASON.LOCKED, label: 'Account locked' },
  { value: LOGIN_FAILURE_REASON.EXPIRED, label: 'Account expired' },
  { value: LOGIN_FAILURE_REASON.IP_NOT_ALLOWED, label: 'Address not allowed' },
  { value: LOGIN_FAILURE_REASON.NOT_STORED, label: 'No such user' },
  { value: LOGIN_FAILURE_REASON.REFUSED_BY_HOOK, label: 'Refused by the login hook' },
  { value: LOGIN_FAILURE_REASON.HOOK_ERROR, label: 'Login hook error' },
  { value: LOGIN_FAILURE_REASON.RATE_LIMITED, label: 'Not logged one by one (summary)' },
];

/** Sign-ins (`fw_login_log`), successful and failed, read only. */
export const FwLoginLogModel = defineModel({
  name: 'FwLoginLog',
  // A log row deleted is gone for good: the logs are the record, not data to take back.
  trash: false,
  title: 'Login log',
  table: 'fw_login_log',
  singularTitle: 'Login log entry',
  power: readOnly,
  // Newest first (issue 20 §5); the id breaks ties between sign-ins of the same millisecond.
  orderBy: [
    { field: 'loginTime', order: 'desc' },
    { field: 'id', order: 'desc' },
  ],
  // What the page reads (issue 21 §3): newest first, one account's or user's sign-ins newest
  // first, failures newest first. The migrations create them (0002, 0012, 0016).
  indexes: [
    ['loginTime', 'id'],
    ['userId', 'loginTime', 'id'],
    ['account', 'loginTime', 'id'],
    ['success', 'loginTime'],
  ],
  fields: {
    userId: { column: 'user_id', views: { title: 'User id' }, edit: { type: 'NUMBER', integer: true, readonly: true } },
    account: { views: { title: 'Account' }, edit: { readonly: true } },
    loginTime: { column: 'login_time', views: { title: 'Time' }, edit: { type: 'DATETIME', readonly: true } },
    // Issue 19 §6: failed sign-ins are rows too; these fields let the login-log page filter them.
    success: { views: { title: 'Succeeded' }, edit: { type: 'BOOLEAN', readonly: true } },
    reason: { views: { title: 'Failure reason' }, edit: { type: 'CHOICE', choices: LOGIN_FAILURE_CHOICES, readonly: true } },
    accountTyped: { column: 'account_typed', views: { title: 'Account as typed' }, edit: { readonly: true } },
    attempts: { views: { title: 'Attempts' }, edit: { type: 'NUMBER', integer: true, readonly: true } },
    ip: { views: { title: 'IP' }, edit: { readonly: true } },
    userAgent: { column: 'user_agent', views: { title: 'User agent' }, edit: { readonly: true } },
    method: { views: { title: 'Method' }, edit: { readonly: true } },
    id: bigKey,
  },
});

/** Data operations (`fw_operate_log`), read only. */
export const FwOperateLogModel = defineModel({
  name: 'FwOperateLog',
  // A log row deleted is gone for good: the logs are the record, not data to take back.
  trash: false,
  title: 'Operation log',
  table: 'fw_operate_log',
  singularTitle: 'Operation log entry',
  power: readOnly,
  orderBy: [
    { field: 'createdAt', order: 'desc' },
    { field: 'id', order: 'desc' },
  ],
  // Newest first, one user's operations, one model's operations (issue 21 §3); one batch, one
  // row's history (issue 23); created by the migrations (0002, 0015, 0016, 0017).
  indexes: [['createdAt', 'id'], ['userId', 'createdAt'], ['model', 'createdAt'], ['batch'], ['model', 'targetId', 'id']],
  fields: {
    userId: { column: 'user_id', views: { title: 'User id' }, edit: { type: 'NUMBER', integer: true, readonly: true } },
    account: { views: { title: 'Account' }, edit: { readonly: true } },
    ip: { views: { title: 'IP' }, edit: { readonly: true } },
    model: { views: { title: 'Model' }, edit: { readonly: true } },
    action: { views: { title: 'Action' }, edit: { readonly: true } },
    source: { views: { title: 'Source' }, edit: { readonly: true } },
    targetId: { column: 'target_id', views: { title: 'Target' }, edit: { readonly: true } },
    beforeData: { column: 'before_data', views: { title: 'Before', show: false }, edit: { type: 'TEXTAREA', readonly: true } },
    request: { views: { title: 'Request', show: false }, edit: { type: 'TEXTAREA', readonly: true } },
    status: { views: { title: 'Status' }, edit: { readonly: true } },
    error: { views: { title: 'Error' }, edit: { type: 'TEXTAREA', readonly: true } },
    durationMs: { column: 'duration_ms', views: { title: 'Duration (ms)' }, edit: { type: 'NUMBER', integer: true, readonly: true } },
    batch: { views: { title: 'Batch', show: false }, edit: { readonly: true } },
    createdAt: { column: 'created_at', views: { title: 'Time' }, edit: { type: 'DATETIME', readonly: true } },
    id: bigKey,
  },
});

/** Every built-in model, users first. Register them with the host's own models. */
export const BUILTIN_MODELS: readonly ModelDefinition[] = Object.freeze([
  FwUserModel,
  FwRoleModel,
  FwOrgModel,
  FwMenuModel,
  FwOpenApiModel,
  FwLlmModel,
  FwEmbeddingModelModel,
  FwAgentModel,
  FwBiDatasourceModel,
  FwLoginLogModel,
  FwOperateLogModel,
]);

export { GRANT_TABLES } from './grant-tables.js';
