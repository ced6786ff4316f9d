// Shapes of the Fw HTTP API as the UI reads them (docs/http-api.md). Kept here, not imported
// from the server packages, so the browser bundle pulls in no server code.

/** A declared rule of a field, as `GET /build/{fw}` lists it. */
export interface RuleView {
  type: string;
  min?: number | string;
  max?: number | string;
  pattern?: string;
  values?: unknown[];
  name?: string;
  dependsOn?: string[];
  message?: string;
}

/** One field of a model, as `GET /build/{fw}` describes it. */
export interface FieldView {
  name: string;
  title: string;
  /** The form label per language, when the model declares it so (see i18n/localize.ts). */
  titles?: Record<string, string>;
  type: EditType;
  views: { title: string; titles?: Record<string, string>; show: boolean; sortable: boolean };
  notNull: boolean;
  readonly: boolean;
  /** The field's and the model's cell-edit switches combined with read-only, key, collection and password. */
  cellEdit: boolean;
  integer: boolean;
  primaryKey: boolean;
  /** The table query accepts conditions on it. */
  filterable?: boolean;
  choices?: Array<{ value: string | number | boolean; label: string; labels?: Record<string, string> }>;
  reference?: { model: string; labelField?: string; tree?: boolean };
  collection?: { model: string; labelField?: string };
  defaultValue?: unknown;
  placeholder?: string;
  /** ATTACHMENT: the upload limits. */
  attachment?: { multiple: boolean; image: boolean; maxSize: number; maxFiles: number; accept: string[] };
  rules: RuleView[];
}

/** A model, as `GET /build/{fw}` describes it. */
export interface ModelView {
  name: string;
  title: string;
  /** The title per language, when the model declares it so. */
  titles?: Record<string, string>;
  /** The title of one row ("Book"), when the model declares it. */
  singularTitle?: string;
  /** The singular title per language, when declared so. */
  singularTitles?: Record<string, string>;
  primaryKey: string;
  tree: boolean;
  treeParentField?: string;
  /** The sort a table query gets when it names none (absent from older servers). */
  orderBy?: Array<{ field: string; order: 'asc' | 'desc' }>;
  fields: FieldView[];
  rowRules: Array<{ name: string; fields: string[]; path?: string; message?: string }>;
  /** False when deleted rows are removed for good instead of going to the trash (issue 23 §3). */
  trash?: boolean;
}

/** The caller's effective power on a model. */
export interface PowerObject {
  add: boolean;
  delete: boolean;
  edit: boolean;
  query: boolean;
  viewDetails: boolean;
  export: boolean;
  importable: boolean;
  print: boolean;
  copy: boolean;
  cellEdit: boolean;
  ai: boolean;
  [extra: string]: unknown;
}

/** `GET /build/{fw}`. */
export interface BuildView {
  model: ModelView;
  power: PowerObject;
}

/** The edit types of Fw fields. */
export type EditType =
  | 'INPUT'
  | 'TEXTAREA'
  | 'NUMBER'
  | 'BOOLEAN'
  | 'CHOICE'
  | 'MULTI_CHOICE'
  | 'TAGS'
  | 'DATE'
  | 'DATETIME'
  | 'PASSWORD'
  | 'HIDDEN'
  | 'REFERENCE_TABLE'
  | 'REFERENCE_TREE'
  | 'COLLECTION'
  | 'ATTACHMENT';

/** One file of an ATTACHMENT value. */
export interface AttachmentValue {
  id: string;
  name: string;
  size: number;
  type: string;
}

/** A row as the data routes send it: values keyed by field name. */
export type Row = Record<string, unknown>;

/** One condition of the table query. */
export interface Condition {
  field: string;
  op: 'eq' | 'ne' | 'gt' | 'gte' | 'lt' | 'lte' | 'between' | 'like' | 'startsWith' | 'in' | 'notIn' | 'isNull' | 'notNull';
  value?: unknown;
}

/** A condition, or a group of them of which any one (`or`) or all (`and`) must hold. */
export type ConditionNode = Condition | { or: ConditionNode[] } | { and: ConditionNode[] };

/** The table query (`POST /data/table/{fw}`). */
export interface TableQuery {
  page: number;
  size: number;
  sort?: Array<{ field: string; order: 'asc' | 'desc' }>;
  conditions?: ConditionNode[];
  /** How to count: `auto` (the server's default: exact when cheap, else an estimate), `exact`, `none`. */
  count?: 'auto' | 'exact' | 'none';
  /** The rows after this cursor (the answer's `cursors.next`); `page` is then only a label. */
  after?: string;
  /** The rows before this cursor (the answer's `cursors.prev`). */
  before?: string;
  /** The final page. */
  last?: true;
}

/** `POST /data/table/{fw}`. `labels` maps a reference or collection field to id → label. */
export interface TablePage {
  rows: Row[];
  /** The number of rows; an estimate when `totalIsEstimate`. */
  total: number;
  /** Absent on servers older than issue 21 (their totals are exact). */
  totalIsEstimate?: boolean;
  /** Where the neighbouring pages start; absent on servers older than issue 21. */
  cursors?: { prev: string | null; next: string | null };
  page: number;
  size: number;
  labels?: Record<string, Record<string, string>>;
}

/** `POST /data/reference/{fw}/{field}`. */
export interface ReferencePage {
  rows: Array<{ id: number; label: string; parentId?: number | null }>;
  total: number;
  page: number;
  size: number;
}

/** One failure of an error body's `details`. */
export interface ErrorDetail {
  path: string;
  type?: string;
  message: string;
  code?: string;
  /** Import errors: the spreadsheet row (the header is row 1) and column letter of the cell. */
  row?: number;
  column?: string;
  /** A stale pasted cell (type `stale`): the value the cell shows now, and its row's id. */
  current?: unknown;
  id?: unknown;
}

/**
 * One cell edit (`update-cell`). `expect` is what the editor was seeded with, as the table showed
 * it: when the cell now shows another value nothing is written (409 STALE_CELL).
 */
export interface CellEdit {
  id: unknown;
  field: string;
  value: unknown;
  expect?: unknown;
}

/** A pasted row (`update-many` rows mode); `expect` holds what the grid showed in the cells pasted over. */
export interface PastedRow {
  id: number;
  values: Row;
  expect?: Row;
}

/** A cell that no longer shows what the editor was seeded with (the 409 STALE_CELL body). */
export interface StaleCell {
  field: string;
  current: unknown;
  /** Who: the account the log holds and the user's name now (`name` absent from servers before it was added). */
  changedBy: { id: number | null; account: string | null; name?: string | null } | null;
  changedAt: string | null;
}

/** `GET /login-settings`. */
export interface LoginSettings {
  title: string;
  pwdTransferEncrypt: boolean;
  verifyCodeCount: number;
  providers: Array<{ id: string; name: string; url: string }>;
  /** The password policy every password change is held to (absent from servers before issue 19). */
  passwordPolicy?: PasswordPolicyView;
}

/** The password policy of `GET /login-settings`: its lengths and the rules it checks. */
export interface PasswordPolicyView {
  minLength: number;
  maxLength: number;
  rules: Array<'minLength' | 'maxLength' | 'notAccount' | 'notCommon'>;
}

/** `GET /userinfo`. */
export interface UserInfo {
  id: number;
  account: string;
  name: string;
  isAdmin: boolean;
  resetPwd: boolean;
  roles: Array<{ id: number; code: string; name: string }>;
}

/** One entry of `GET /menu`. */
export interface MenuEntry {
  id: number;
  code: string | null;
  name: string;
  /** A model menu named after its model: the model's titles per language, when declared so. */
  titles?: Record<string, string>;
  type: 'dir' | 'table' | 'tree' | 'page' | 'link' | 'function';
  value: string | null;
  icon: string | null;
  parentId: number | null;
  status: 'open' | 'hidden' | 'disabled';
}
