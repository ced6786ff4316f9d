import type { PowerDeclaration, PowerFlags, PowerHandler } from './power.js';
import type { FwUser } from './user.js';
import type { LocalizedText, LocalizedTitles } from './localized-text.js';

/**
 * The edit types a field can have: they decide the form widget, how an incoming value is
 * converted, and how the column is stored.
 */
export const EditType = {
  /** One line of text. */
  INPUT: 'INPUT',
  /** Several lines of text. */
  TEXTAREA: 'TEXTAREA',
  /** A number; `integer: true` for whole numbers. */
  NUMBER: 'NUMBER',
  /** true / false. */
  BOOLEAN: 'BOOLEAN',
  /** One value out of `choices`. */
  CHOICE: 'CHOICE',
  /** Several values out of `choices` (stored as a JSON array). */
  MULTI_CHOICE: 'MULTI_CHOICE',
  /** Free strings (stored as a JSON array). */
  TAGS: 'TAGS',
  /** A calendar date, `YYYY-MM-DD`. */
  DATE: 'DATE',
  /** A point in time, ISO 8601. */
  DATETIME: 'DATETIME',
  /** A secret: never returned by any route. */
  PASSWORD: 'PASSWORD',
  /** Stored and submitted but not shown in the form. */
  HIDDEN: 'HIDDEN',
  /** The id of a row of another model, picked from a table. */
  REFERENCE_TABLE: 'REFERENCE_TABLE',
  /** The id of a row of another (tree-shaped) model, picked from a tree. */
  REFERENCE_TREE: 'REFERENCE_TREE',
  /** Many-to-many: ids of rows of another model, kept in a join table, not a column. */
  COLLECTION: 'COLLECTION',
  /**
   * Uploaded files (see `edit.attachment`): the value is an array of {@link AttachmentValue},
   * stored as JSON text; the bytes live in a file storage (`@fw/files`).
   */
  ATTACHMENT: 'ATTACHMENT',
} as const;

/** One of {@link EditType}. */
export type EditType = (typeof EditType)[keyof typeof EditType];

/** One allowed value of a CHOICE or MULTI_CHOICE field, as declared. */
export interface ChoiceInput {
  value: string | number | boolean;
  /** Shown instead of the value; one text, or one per language (`{ en: 'Draft', 'zh-CN': '草稿' }`). @default the value */
  label?: LocalizedText;
}

/** One allowed value of a CHOICE or MULTI_CHOICE field, checked. */
export interface Choice {
  value: string | number | boolean;
  /** The label (the English one when given per language). */
  label?: string;
  /** The labels per language, when declared so. */
  labels?: LocalizedTitles;
}

/** How a field appears in the table view (the reference framework's `@View`). */
export interface FieldViews {
  /** Column title; one text, or one per language. @default the edit title, else the field name */
  title?: LocalizedText;
  /** Shown as a table column. @default true (false for PASSWORD, HIDDEN and COLLECTION) */
  show?: boolean;
  /** The table may sort on it. @default true for stored scalar fields */
  sortable?: boolean;
}

/** A REFERENCE_TABLE / REFERENCE_TREE target. */
export interface ReferenceOptions {
  /** Name of the referenced model. */
  model: string;
  /**
   * Field of the referenced model shown as the label (table cells, pickers).
   * @default the referenced model's first field among name, title, label, account, code; else its primary key
   */
  labelField?: string;
}

/** A COLLECTION (many-to-many) field's join table. */
export interface CollectionOptions {
  /** Name of the model on the other side. */
  model: string;
  /** The join table. */
  joinTable: string;
  /** Join-table column holding this model's key. */
  ownKey: string;
  /** Join-table column holding the other model's key. */
  foreignKey: string;
  /**
   * Field of the other model shown as the label of each value (table cells, pickers).
   * @default the other model's first field among name, title, label, account, code; else its primary key
   */
  labelField?: string;
}

/** An ATTACHMENT field's files and limits (`edit.attachment`). */
export interface AttachmentOptions {
  /** Several files in the field. @default false */
  multiple?: boolean;
  /**
   * Images only: accepts image/png, image/jpeg, image/gif and image/webp (the bytes are checked,
   * not the name), and the table shows a thumbnail. @default false
   */
  image?: boolean;
  /** Largest file, in bytes. @default 10 MiB (10485760) */
  maxSize?: number;
  /** Most files in the field (and in one upload). @default 1, or 10 when `multiple` */
  maxFiles?: number;
  /**
   * Accepted types: MIME types (`'application/pdf'`, `'image/*'`) or extensions (`'.pdf'`).
   * The type is sniffed from the bytes; an extension names the sniffed type's usual extension.
   * @default any type (images only with `image: true`)
   * @example ['application/pdf', '.docx']
   */
  accept?: readonly string[];
}

/** One file of an ATTACHMENT value, as rows and JSON hold it. */
export interface AttachmentValue {
  /** The file's id: a random key made by the server. */
  id: string;
  /** The client's file name, kept only as a name (never a path). */
  name: string;
  /** Size in bytes. */
  size: number;
  /** The MIME type sniffed from the bytes. */
  type: string;
}

/** Image types an `image: true` ATTACHMENT field accepts. */
export const IMAGE_TYPES = Object.freeze(['image/png', 'image/jpeg', 'image/gif', 'image/webp'] as const);

/** How a field is edited (the reference framework's `@Edit`). */
export interface FieldEdit {
  /** Form label; one text, or one per language (`{ en: 'Price', 'zh-CN': '价格' }`). @default the field name */
  title?: LocalizedText;
  /** Widget and value conversion. @default 'INPUT' */
  type?: EditType;
  /** A value is required (null, undefined and '' are refused). @default false */
  notNull?: boolean;
  /** Shown but never written by add, edit, cell edit or import. @default false */
  readonly?: boolean;
  /**
   * In-table single-cell editing of this field. `false` is final: no role, handler or admin
   * status reopens it. @default true
   */
  cellEdit?: boolean;
  /** Allowed values; required for CHOICE and MULTI_CHOICE. */
  choices?: readonly ChoiceInput[];
  /** NUMBER only: whole numbers. @default false */
  integer?: boolean;
  /** REFERENCE_TABLE / REFERENCE_TREE only. */
  reference?: ReferenceOptions;
  /** COLLECTION only. */
  collection?: CollectionOptions;
  /** Value used by add when the body has none. */
  defaultValue?: unknown;
  /** Form placeholder text. */
  placeholder?: string;
  /**
   * PASSWORD only: store an scrypt hash (true) or the value itself (false, for secrets the server
   * must read back, such as an API key). Either way the value is never returned. @default true
   */
  hashed?: boolean;
  /**
   * PASSWORD with `hashed` only: a column for the hex salt, the hash going to `column` as hex.
   * Without it, `column` holds `scrypt:<salt>:<hash>`.
   */
  saltColumn?: string;
  /** ATTACHMENT only: how many files, which types, how large. */
  attachment?: AttachmentOptions;
}

/** The outcome of a custom rule: `true` passes; `false` fails with the rule's message; a string fails with that text. */
export type RuleOutcome = boolean | string;

/** A validation rule of one field. */
export type FieldRule =
  | { type: 'required'; message?: string }
  | { type: 'length'; min?: number; max?: number; message?: string }
  | { type: 'pattern'; pattern: RegExp | string; message?: string }
  | { type: 'range'; min?: number | string; max?: number | string; message?: string }
  | { type: 'choices'; values?: readonly unknown[]; message?: string }
  | {
      /**
       * A rule that reads other fields of the same row. With the cell editor, the other fields
       * hold their stored values, so the rule sees the whole row.
       */
      type: 'dynamic';
      /** Name of the rule, reported as the failure `type`. @default 'dynamic' */
      name?: string;
      /** The fields the rule reads (checked to exist at start-up). */
      dependsOn: readonly string[];
      test: (value: unknown, row: Readonly<Record<string, unknown>>) => RuleOutcome | Promise<RuleOutcome>;
      message?: string;
    };

/** A field rule declared at model level, naming its field. */
export type ModelFieldRule = FieldRule & { field: string };

/**
 * A model-level rule over several fields of a row (a cross-field invariant, such as an end date
 * after a start date). It runs with the whole row, so it also guards single-cell edits.
 */
export interface RowRule {
  /** Reported as the failure `type`. */
  name: string;
  /** The fields it reads; they must exist. The failure is reported on the first one unless `path` is set. */
  fields: readonly string[];
  /** Field the failure is reported on. @default fields[0] */
  path?: string;
  test: (row: Readonly<Record<string, unknown>>) => RuleOutcome | Promise<RuleOutcome>;
  message?: string;
}

/** A field as declared. */
export interface FieldDefinitionInput {
  /** Database column. @default the field name */
  column?: string;
  views?: FieldViews;
  edit?: FieldEdit;
  rules?: readonly FieldRule[];
  /**
   * Ask for an index on this field's column, for tables large enough that filtering or sorting on
   * it would read every row; `createModelTables` creates it. Not for long text (TEXTAREA, TAGS,
   * MULTI_CHOICE), PASSWORD, ATTACHMENT or COLLECTION fields, nor the primary key. See the model's
   * `indexes` for an index over several fields. @default false
   */
  index?: boolean;
}

/**
 * Filter operators usable in conditions (table query, `beforeFetch`, AI queries). `like` is
 * "contains" and `startsWith` "begins with", both ignoring case; `ne` and `notIn` also match an
 * empty cell; `isNull` / `notNull` are "empty" / "not empty".
 */
export const CONDITION_OPERATORS = ['eq', 'ne', 'gt', 'gte', 'lt', 'lte', 'between', 'like', 'startsWith', 'in', 'notIn', 'isNull', 'notNull'] as const;
/** One of {@link CONDITION_OPERATORS}. */
export type ConditionOperator = (typeof CONDITION_OPERATORS)[number];

/** A condition on a declared field; field names never reach SQL unless declared. */
export interface Condition {
  field: string;
  op: ConditionOperator;
  value?: unknown;
}

/**
 * Conditions of which at least one (`or`) or every one (`and`) must hold. Groups nest; the table
 * query bounds how deep and how many (issue 23 §1).
 * @example { or: [{ field: 'genre', op: 'eq', value: 'novel' }, { and: [{ field: 'price', op: 'lt', value: 5 }, { field: 'inPrint', value: true }] }] }
 */
export type ConditionGroup = { or: ConditionNode[]; and?: never; field?: never } | { and: ConditionNode[]; or?: never; field?: never };

/** A condition on a field, or a group of them. */
export type ConditionNode = Condition | ConditionGroup;

/** True when `node` is an `or` / `and` group rather than a condition on a field. */
export function isConditionGroup(node: ConditionNode): node is ConditionGroup {
  return Array.isArray((node as { or?: unknown }).or) || Array.isArray((node as { and?: unknown }).and);
}

/** Where a data operation came from: `bulk` is a bulk edit (update-many), `restore` a restored version, `undo` an undone batch. */
export type DataSource = 'http' | 'ai' | 'import' | 'cell' | 'bulk' | 'restore' | 'undo';

/** What a data-proxy hook is told about the operation. */
export interface DataHookContext {
  /** The acting user. */
  user: FwUser;
  /** The model's name. */
  model: string;
  /** The operation. */
  action: 'add' | 'update' | 'delete' | 'query' | 'details' | 'export' | 'import' | 'print' | 'copy';
  /** Who asked. */
  source: DataSource;
  /**
   * The operation's database transaction, in the hooks that run inside one (add, update, delete
   * and their before/after hooks): a knex `Transaction` (`context.transaction as Knex.Transaction`).
   * Write related rows through it, so they commit or roll back with the change — and on SQLite,
   * whose single connection the transaction holds, so they do not wait for it.
   */
  transaction?: unknown;
}

type Row = Record<string, unknown>;
type Awaitable<T> = T | Promise<T>;

/**
 * Hooks around a model's data operations; every one is optional and awaited. Rows handed to
 * update hooks are complete entities (the whole stored row with the change applied).
 */
export interface DataProxy<R extends Row = Row> {
  /** Before a new row is written; may change it. */
  beforeAdd?(row: R, context: DataHookContext): Awaitable<void>;
  /** After a new row is written, inside the same transaction; throwing rolls it back. */
  afterAdd?(row: R, context: DataHookContext): Awaitable<void>;
  /** Before an update (form, cell, AI) is written; receives the complete entity and may change it. */
  beforeUpdate?(row: R, context: DataHookContext): Awaitable<void>;
  /** After an update, inside the same transaction; throwing rolls it back. */
  afterUpdate?(row: R, context: DataHookContext): Awaitable<void>;
  /** Before rows are deleted; receives the complete rows. */
  beforeDelete?(rows: R[], context: DataHookContext): Awaitable<void>;
  /** After rows are deleted, inside the same transaction. */
  afterDelete?(rows: R[], context: DataHookContext): Awaitable<void>;
  /**
   * Row visibility: conditions added to every read, and to the row lookup of details, update,
   * cell edit and delete, so a row the user cannot see cannot be touched either.
   */
  beforeFetch?(context: DataHookContext): Awaitable<Condition[] | void>;
  /** Rewrites fetched rows for display; return new rows or change them in place. */
  afterFetch?(rows: R[], context: DataHookContext): Awaitable<R[] | void>;
  /** Extra validation after the schema passed; return failures to refuse the row. */
  validate?(row: R, context: DataHookContext): Awaitable<{ path?: string; message: string; type?: string }[] | void>;
}

/** What {@link defineModel} accepts. */
export interface ModelDefinitionInput<R extends Row = Row> {
  /** The `{fw}` path segment and registry key: letters, digits, `_`, starting with a letter. */
  name: string;
  /** Display name; one text, or one per language (`{ en: 'Books', 'zh-CN': '图书' }`). @default name */
  title?: LocalizedText;
  /**
   * The title of one row (`'Book'` for `'Books'`), one text or one per language: the admin UI's
   * drawers read "Add Book", "Edit Book #3". Without it (or without it in the UI's language when
   * the title is translated) they read "Books: new entry", "Books: edit #3".
   */
  singularTitle?: LocalizedText;
  /** Database table. @default the name in snake_case */
  table?: string;
  /** Primary-key field; declared automatically as a hidden integer when absent from `fields`. @default 'id' */
  primaryKey?: string;
  /** Power switches; unset ones take {@link DEFAULT_POWER}. */
  power?: PowerDeclaration;
  /** The fields, by name. */
  fields: Record<string, FieldDefinitionInput>;
  /** Field rules declared at model level (each names its field). */
  rules?: readonly ModelFieldRule[];
  /** Cross-field invariants over the whole row. */
  rowRules?: readonly RowRule[];
  /** Data-operation hooks. */
  dataProxy?: DataProxy<R>;
  /** Tree-shaped models: the field holding the parent id. */
  treeParentField?: string;
  /**
   * The table's sort when a query names none: `{ field, order }` entries like a table query's
   * `sort`, each a sortable field. @default [] (by primary key)
   * @example orderBy: [{ field: 'created', order: 'desc' }]
   */
  orderBy?: ReadonlyArray<{ field: string; order?: 'asc' | 'desc' }>;
  /**
   * Indexes over several fields, each a list of field names in key order (at most 4, at most 3 of
   * them text): a filter on the first with a sort on the next reads only the rows it shows.
   * `createModelTables` creates each one missing. @default []
   * @example indexes: [['status', 'createdAt']]
   */
  indexes?: ReadonlyArray<readonly string[]>;
  /**
   * Whether a delete moves the rows to the trash (`fw_trash`), from which they can be undeleted
   * until they are purged; `false` deletes them for good at once (logs, scratch tables).
   * @default true
   */
  trash?: boolean;
}

/** A field after {@link defineModel} filled in every default. */
export interface FieldDefinition {
  readonly name: string;
  readonly column: string;
  /** `title` is the plain (English or only) text; `titles` the translations when declared per language. */
  readonly views: Readonly<{ title: string; titles?: LocalizedTitles; show: boolean; sortable: boolean }>;
  readonly edit: Readonly<
    Required<Pick<FieldEdit, 'type' | 'notNull' | 'readonly' | 'cellEdit' | 'integer'>> &
      Pick<FieldEdit, 'reference' | 'collection' | 'defaultValue' | 'placeholder' | 'hashed' | 'saltColumn'> & {
        readonly title: string;
        /** The form label per language, when declared so. */
        readonly titles?: LocalizedTitles;
        readonly choices?: readonly Choice[];
        /** ATTACHMENT only, every default filled in. */
        readonly attachment?: Readonly<Required<AttachmentOptions>>;
      }
  >;
  /** Field rules, from the field and from the model's `rules`. */
  readonly rules: readonly FieldRule[];
  /** COLLECTION fields have no column. */
  readonly stored: boolean;
  readonly primaryKey: boolean;
  /** What the field can do, decided once by {@link defineModel} (see field-capabilities.ts). */
  readonly capabilities: FieldCapabilities;
}

/**
 * How a field's value is stored: the kind of column it needs (`string` is short text, 255
 * characters; `text` long text, JSON lists included; `number` a double). A COLLECTION field has
 * none (its values live in a join table).
 */
export type StoredKind = 'string' | 'text' | 'integer' | 'number' | 'boolean' | 'date' | 'datetime';

/** Why a cell edit is refused, in the order the checks run (the codes of `@fw/row-patch`). */
export type CellEditRefusalCode = 'CELL_EDIT_DISABLED' | 'FIELD_CELL_EDIT_DISABLED' | 'PRIMARY_KEY_FIELD' | 'COLLECTION_FIELD' | 'PASSWORD_FIELD' | 'READONLY_FIELD';

/** Whether a cell editor may change a value: yes, or no with a stable code and the reason in words. */
export type CellEditAnswer = Readonly<{ ok: true }> | Readonly<{ ok: false; code: CellEditRefusalCode; reason: string }>;

/** What one field can do, fixed when the model is defined. Frozen. */
export interface FieldCapabilities {
  /** A PASSWORD field: never in an answer, masked in logs, never compared. */
  readonly secret: boolean;
  /** Conditions and sorts may name it: a stored field that is neither a secret nor a list of files. */
  readonly queryable: boolean;
  /** The table query accepts conditions on it (the `filterable` flag of the build answer); the same as `queryable`. */
  readonly filterable: boolean;
  /** A table query may sort on it: queryable and `views.sortable`. */
  readonly sortable: boolean;
  /** The `like` operator applies: a text field (not a HIDDEN one declared `integer`). */
  readonly textSearch: boolean;
  /** The range operators (`gt`, `gte`, `lt`, `lte`, `between`) apply. */
  readonly ordered: boolean;
  /** Whether the update-cell route may change it, the model's own switch included. */
  readonly cellEdit: CellEditAnswer;
  /** The column's kind; undefined for a COLLECTION field. */
  readonly storedKind: StoredKind | undefined;
}

/** What a whole model can do, fixed when it is defined. Frozen. */
export interface ModelCapabilities {
  /** The model's cell-edit switch (`power.cellEdit`), as the update-cell route answers it before looking at the field. */
  readonly cellEdit: CellEditAnswer;
  /** Names of the secret (PASSWORD) fields, in declaration order. */
  readonly secretFields: readonly string[];
  /** Names of the fields a stored row gives back to a reader: stored and not secret, in declaration order. */
  readonly readableFields: readonly string[];
  /** Names of the COLLECTION fields (rows linked through a join table), in declaration order. */
  readonly collectionFields: readonly string[];
  /** Names of the ATTACHMENT fields, in declaration order. */
  readonly attachmentFields: readonly string[];
  /** Writing the model can change what grants resolve to: it is stored in, or links rows through, a grant table (`GRANT_TABLES`). */
  readonly touchesGrants: boolean;
  /**
   * Writing the model can hand out permissions: it is stored in a permission table or a link
   * between them, or links rows through such a link (`PERMISSION_TABLES`, `PERMISSION_LINKS`).
   * A non-administrator's writes to it are held to the grant rules.
   */
  readonly holdsGrants: boolean;
}

/** A checked, normalized, frozen model definition. */
export interface ModelDefinition<R extends Row = Row> {
  readonly name: string;
  /** The plain title (the English one when given per language). */
  readonly title: string;
  /** The title per language, when declared so. */
  readonly titles?: LocalizedTitles;
  /** The title of one row, when declared. */
  readonly singularTitle: string | undefined;
  /** The singular title per language, when declared so. */
  readonly singularTitles?: LocalizedTitles;
  readonly table: string;
  readonly primaryKey: string;
  /** The declared switches with defaults applied; what enforcement points check `ai` / `cellEdit` against. */
  readonly power: Readonly<PowerFlags>;
  readonly powerHandler: PowerHandler | undefined;
  readonly fields: Readonly<Record<string, FieldDefinition>>;
  /** Field names in declaration order. */
  readonly fieldNames: readonly string[];
  readonly rowRules: readonly RowRule[];
  readonly dataProxy: Readonly<DataProxy<R>>;
  readonly treeParentField: string | undefined;
  /** The default sort, checked, `order` filled in; empty when the model declares none. */
  readonly orderBy: ReadonlyArray<Readonly<{ field: string; order: 'asc' | 'desc' }>>;
  /** Every declared index (fields' `index: true` first, then the model's `indexes`), named. */
  readonly indexes: readonly ModelIndex[];
  /** What the model can do as a whole, decided once by {@link defineModel}. */
  readonly capabilities: ModelCapabilities;
  /** Whether a delete moves rows to the trash (`trash` option, default true). */
  readonly trash: boolean;
  /** Marks objects made by defineModel. */
  readonly __fwModel: true;
}

/** One index a model declares, as {@link defineModel} normalized it. */
export interface ModelIndex {
  /** The index's name in the database: `fw_ix_<table>_<columns>`, shortened with a hash past 63 characters. */
  readonly name: string;
  /** The fields it covers, in order. */
  readonly fields: readonly string[];
  /** Their columns, in the same order. */
  readonly columns: readonly string[];
}
