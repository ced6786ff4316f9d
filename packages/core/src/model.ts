import { FwDefinitionError } from './errors.js';
import { DEFAULT_POWER, POWER_FLAGS, type PowerDeclaration, type PowerFlags, type PowerHandler } from './power.js';
import type { FwUser } from './user.js';

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

const EDIT_TYPES = new Set<string>(Object.values(EditType));

/** One allowed value of a CHOICE or MULTI_CHOICE field. */
export interface Choice {
  value: string | number | boolean;
  label?: string;
}

/** How a field appears in the table view (the reference framework's `@View`). */
export interface FieldViews {
  /** Column title. @default the edit title, else the field name */
  title?: string;
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
  /** Form label. @default the field name */
  title?: string;
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
  choices?: readonly Choice[];
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
}

/** Filter operators usable in conditions (table query, `beforeFetch`, AI queries). */
export const CONDITION_OPERATORS = ['eq', 'ne', 'gt', 'gte', 'lt', 'lte', 'between', 'like', 'in', 'isNull', 'notNull'] as const;
/** One of {@link CONDITION_OPERATORS}. */
export type ConditionOperator = (typeof CONDITION_OPERATORS)[number];

/** A condition on a declared field; field names never reach SQL unless declared. */
export interface Condition {
  field: string;
  op: ConditionOperator;
  value?: unknown;
}

/** Where a data operation came from. */
export type DataSource = 'http' | 'ai' | 'import' | 'cell';

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
  /** Display name. @default name */
  title?: string;
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
}

/** A field after {@link defineModel} filled in every default. */
export interface FieldDefinition {
  readonly name: string;
  readonly column: string;
  readonly views: Required<FieldViews>;
  readonly edit: Readonly<
    Required<Pick<FieldEdit, 'title' | 'type' | 'notNull' | 'readonly' | 'cellEdit' | 'integer'>> &
      Pick<FieldEdit, 'choices' | 'reference' | 'collection' | 'defaultValue' | 'placeholder' | 'hashed' | 'saltColumn'> & {
        /** ATTACHMENT only, every default filled in. */
        readonly attachment?: Readonly<Required<AttachmentOptions>>;
      }
  >;
  /** Field rules, from the field and from the model's `rules`. */
  readonly rules: readonly FieldRule[];
  /** COLLECTION fields have no column. */
  readonly stored: boolean;
  readonly primaryKey: boolean;
}

/** A checked, normalized, frozen model definition. */
export interface ModelDefinition<R extends Row = Row> {
  readonly name: string;
  readonly title: string;
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
  /** Marks objects made by defineModel. */
  readonly __fwModel: true;
}

const NAME_RE = /^[A-Za-z][A-Za-z0-9_]*$/;
const IDENT_RE = /^[A-Za-z_][A-Za-z0-9_]*$/;
const RESERVED_FIELD_NAMES = new Set(['__proto__', 'constructor', 'prototype', 'hasOwnProperty', 'toString', 'valueOf']);
const RULE_TYPES = new Set(['required', 'length', 'pattern', 'range', 'choices', 'dynamic']);
const DATA_PROXY_HOOKS = ['beforeAdd', 'afterAdd', 'beforeUpdate', 'afterUpdate', 'beforeDelete', 'afterDelete', 'beforeFetch', 'afterFetch', 'validate'] as const;
const EDIT_KEYS = new Set([
  'title',
  'type',
  'notNull',
  'readonly',
  'cellEdit',
  'choices',
  'integer',
  'reference',
  'collection',
  'defaultValue',
  'placeholder',
  'hashed',
  'saltColumn',
  'attachment',
]);
const MODEL_KEYS = new Set(['name', 'title', 'table', 'primaryKey', 'power', 'fields', 'rules', 'rowRules', 'dataProxy', 'treeParentField']);

function snakeCase(name: string): string {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1_$2')
    .toLowerCase();
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function optionalBoolean(key: string, value: unknown, fallback: boolean): boolean {
  if (value === undefined) return fallback;
  if (typeof value !== 'boolean') throw new FwDefinitionError(key, `must be a boolean, got ${describe(value)}`);
  return value;
}

function optionalString(key: string, value: unknown, fallback: string): string {
  if (value === undefined) return fallback;
  if (typeof value !== 'string' || value.length === 0) throw new FwDefinitionError(key, `must be a non-empty string, got ${describe(value)}`);
  return value;
}

/** `{ labelField }` when one is given (a non-empty string; the registry checks it names a field). */
function labelFieldOption(key: string, value: unknown): { labelField?: string } {
  if (value === undefined) return {};
  return { labelField: optionalString(key, value, '') };
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  return typeof value === 'object' ? 'an object' : `${typeof value} ${String(value)}`;
}

function checkPower(model: string, power: unknown): { flags: PowerFlags; handler: PowerHandler | undefined } {
  const key = `${model}.power`;
  if (power === undefined) return { flags: { ...DEFAULT_POWER }, handler: undefined };
  if (!isPlainObject(power)) throw new FwDefinitionError(key, `must be an object, got ${describe(power)}`);
  const flags: PowerFlags = { ...DEFAULT_POWER };
  for (const [name, value] of Object.entries(power)) {
    if (name === 'powerHandler') continue;
    if (!(POWER_FLAGS as readonly string[]).includes(name)) {
      throw new FwDefinitionError(`${key}.${name}`, `unknown power attribute (known: ${POWER_FLAGS.join(', ')}, powerHandler)`);
    }
    flags[name as keyof PowerFlags] = optionalBoolean(`${key}.${name}`, value, true);
  }
  const handler = power.powerHandler;
  if (handler !== undefined && typeof handler !== 'function' && !(isPlainObject(handler) && typeof handler.handler === 'function')) {
    throw new FwDefinitionError(`${key}.powerHandler`, 'must be a function or an object with a handler(power) method');
  }
  return { flags, handler: handler as PowerHandler | undefined };
}

function checkRule(key: string, rule: unknown, fieldNames: ReadonlySet<string>): FieldRule {
  if (!isPlainObject(rule)) throw new FwDefinitionError(key, `must be a rule object, got ${describe(rule)}`);
  if (typeof rule.type !== 'string' || !RULE_TYPES.has(rule.type)) {
    throw new FwDefinitionError(`${key}.type`, `unknown rule type ${describe(rule.type)} (known: ${[...RULE_TYPES].join(', ')})`);
  }
  if (rule.message !== undefined && typeof rule.message !== 'string') throw new FwDefinitionError(`${key}.message`, 'must be a string');
  switch (rule.type) {
    case 'length':
      for (const bound of ['min', 'max'] as const) {
        const v = rule[bound];
        if (v !== undefined && (typeof v !== 'number' || !Number.isInteger(v) || v < 0)) {
          throw new FwDefinitionError(`${key}.${bound}`, `must be a non-negative integer, got ${describe(v)}`);
        }
      }
      break;
    case 'pattern':
      if (typeof rule.pattern === 'string') {
        try {
          new RegExp(rule.pattern);
        } catch (error) {
          throw new FwDefinitionError(`${key}.pattern`, `is not a valid regular expression: ${(error as Error).message}`);
        }
      } else if (!(rule.pattern instanceof RegExp)) {
        throw new FwDefinitionError(`${key}.pattern`, 'must be a RegExp or a string');
      }
      break;
    case 'range':
      for (const bound of ['min', 'max'] as const) {
        const v = rule[bound];
        if (v !== undefined && typeof v !== 'number' && typeof v !== 'string') {
          throw new FwDefinitionError(`${key}.${bound}`, `must be a number or a date string, got ${describe(v)}`);
        }
      }
      break;
    case 'choices':
      if (rule.values !== undefined && !Array.isArray(rule.values)) throw new FwDefinitionError(`${key}.values`, 'must be an array');
      break;
    case 'dynamic':
      if (typeof rule.test !== 'function') throw new FwDefinitionError(`${key}.test`, 'must be a function (value, row) => boolean | string');
      if (!Array.isArray(rule.dependsOn)) throw new FwDefinitionError(`${key}.dependsOn`, 'must list the fields the rule reads');
      rule.dependsOn.forEach((dep: unknown, i: number) => {
        if (typeof dep !== 'string' || !fieldNames.has(dep)) {
          throw new FwDefinitionError(`${key}.dependsOn[${i}]`, `names no field of this model: ${describe(dep)}`);
        }
      });
      break;
  }
  return Object.freeze({ ...rule }) as FieldRule;
}

function checkChoices(key: string, choices: unknown): readonly Choice[] {
  if (!Array.isArray(choices) || choices.length === 0) throw new FwDefinitionError(key, 'must be a non-empty array of { value, label }');
  return Object.freeze(
    choices.map((choice: unknown, i) => {
      if (!isPlainObject(choice) || !['string', 'number', 'boolean'].includes(typeof choice.value)) {
        throw new FwDefinitionError(`${key}[${i}]`, 'must be { value: string | number | boolean, label?: string }');
      }
      return Object.freeze({ value: choice.value as Choice['value'], label: typeof choice.label === 'string' ? choice.label : String(choice.value) });
    }),
  );
}

const ATTACHMENT_KEYS = new Set(['multiple', 'image', 'maxSize', 'maxFiles', 'accept']);
const MIME_RE = /^[a-z0-9][a-z0-9!#$&^_.+-]*\/(?:\*|[a-z0-9][a-z0-9!#$&^_.+-]*)$/;
const EXTENSION_RE = /^\.[a-z0-9][a-z0-9._-]*$/;

/** The ATTACHMENT options with defaults; `image` refuses an `accept` naming a non-image type. */
function checkAttachment(key: string, input: unknown): Readonly<Required<AttachmentOptions>> {
  const options = input === undefined ? {} : input;
  if (!isPlainObject(options)) throw new FwDefinitionError(key, `must be an object, got ${describe(options)}`);
  for (const k of Object.keys(options))
    if (!ATTACHMENT_KEYS.has(k)) throw new FwDefinitionError(`${key}.${k}`, `unknown attachment option (known: ${[...ATTACHMENT_KEYS].join(', ')})`);
  const multiple = optionalBoolean(`${key}.multiple`, options.multiple, false);
  const image = optionalBoolean(`${key}.image`, options.image, false);
  const positive = (name: 'maxSize' | 'maxFiles', fallback: number): number => {
    const v = options[name];
    if (v === undefined) return fallback;
    if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 1) throw new FwDefinitionError(`${key}.${name}`, `must be a positive integer, got ${describe(v)}`);
    return v;
  };
  const maxSize = positive('maxSize', 10 * 1024 * 1024);
  const maxFiles = positive('maxFiles', multiple ? 10 : 1);
  if (!multiple && maxFiles > 1) throw new FwDefinitionError(`${key}.maxFiles`, 'more than one file needs multiple: true');
  let accept: readonly string[] = image ? IMAGE_TYPES : [];
  if (options.accept !== undefined) {
    if (!Array.isArray(options.accept) || options.accept.length === 0) throw new FwDefinitionError(`${key}.accept`, 'must be a non-empty array of MIME types or extensions');
    accept = options.accept.map((entry: unknown, i) => {
      const text = typeof entry === 'string' ? entry.trim().toLowerCase() : '';
      if (!MIME_RE.test(text) && !EXTENSION_RE.test(text)) {
        throw new FwDefinitionError(`${key}.accept[${i}]`, `must be a MIME type ('application/pdf', 'image/*') or an extension ('.pdf'), got ${describe(entry)}`);
      }
      if (image && !(text.startsWith('image/') || EXTENSION_RE.test(text)))
        throw new FwDefinitionError(`${key}.accept[${i}]`, `an image field accepts only image types, got ${describe(entry)}`);
      return text;
    });
  }
  return Object.freeze({ multiple, image, maxSize, maxFiles, accept: Object.freeze([...accept]) });
}

function checkField(model: string, name: string, input: unknown, primaryKey: string): Omit<FieldDefinition, 'rules'> & { rawRules: unknown } {
  const key = `${model}.fields.${name}`;
  if (!IDENT_RE.test(name)) throw new FwDefinitionError(key, 'a field name must be an identifier (letters, digits, _)');
  // Rows are plain objects keyed by field name: these names would reach the prototype chain.
  if (RESERVED_FIELD_NAMES.has(name)) throw new FwDefinitionError(key, `${name} cannot be a field name`);
  if (!isPlainObject(input)) throw new FwDefinitionError(key, `must be an object, got ${describe(input)}`);
  const edit = input.edit === undefined ? {} : input.edit;
  if (!isPlainObject(edit)) throw new FwDefinitionError(`${key}.edit`, `must be an object, got ${describe(edit)}`);
  for (const k of Object.keys(edit)) if (!EDIT_KEYS.has(k)) throw new FwDefinitionError(`${key}.edit.${k}`, 'unknown edit option');
  const type = edit.type === undefined ? EditType.INPUT : edit.type;
  if (typeof type !== 'string' || !EDIT_TYPES.has(type)) {
    throw new FwDefinitionError(`${key}.edit.type`, `unknown edit type ${describe(type)} (known: ${[...EDIT_TYPES].join(', ')})`);
  }
  const views = input.views === undefined ? {} : input.views;
  if (!isPlainObject(views)) throw new FwDefinitionError(`${key}.views`, `must be an object, got ${describe(views)}`);

  const isPk = name === primaryKey;
  const stored = type !== EditType.COLLECTION;
  const editTitle = optionalString(`${key}.edit.title`, edit.title, name);
  let choices: readonly Choice[] | undefined;
  if (type === EditType.CHOICE || type === EditType.MULTI_CHOICE) choices = checkChoices(`${key}.edit.choices`, edit.choices);
  else if (edit.choices !== undefined) throw new FwDefinitionError(`${key}.edit.choices`, `only CHOICE and MULTI_CHOICE fields take choices, this one is ${type}`);
  let reference: ReferenceOptions | undefined;
  if (type === EditType.REFERENCE_TABLE || type === EditType.REFERENCE_TREE) {
    const ref = edit.reference;
    if (!isPlainObject(ref) || typeof ref.model !== 'string' || ref.model === '') {
      throw new FwDefinitionError(`${key}.edit.reference`, `a ${type} field needs reference: { model }`);
    }
    reference = Object.freeze({ model: ref.model, ...labelFieldOption(`${key}.edit.reference.labelField`, ref.labelField) });
  }
  let collection: CollectionOptions | undefined;
  if (type === EditType.COLLECTION) {
    const col = edit.collection;
    if (!isPlainObject(col) || !['model', 'joinTable', 'ownKey', 'foreignKey'].every((k) => typeof col[k] === 'string' && col[k] !== '')) {
      throw new FwDefinitionError(`${key}.edit.collection`, 'a COLLECTION field needs collection: { model, joinTable, ownKey, foreignKey }');
    }
    collection = Object.freeze({
      model: col.model as string,
      joinTable: col.joinTable as string,
      ownKey: col.ownKey as string,
      foreignKey: col.foreignKey as string,
      ...labelFieldOption(`${key}.edit.collection.labelField`, col.labelField),
    });
  }
  let secret: { hashed: boolean; saltColumn?: string } | undefined;
  if (type === EditType.PASSWORD) {
    secret = { hashed: optionalBoolean(`${key}.edit.hashed`, edit.hashed, true) };
    if (edit.saltColumn !== undefined) {
      if (!secret.hashed) throw new FwDefinitionError(`${key}.edit.saltColumn`, 'needs hashed: true');
      const salt = optionalString(`${key}.edit.saltColumn`, edit.saltColumn, '');
      if (!IDENT_RE.test(salt)) throw new FwDefinitionError(`${key}.edit.saltColumn`, 'a column name must be an identifier (letters, digits, _)');
      secret.saltColumn = salt;
    }
  } else if (edit.hashed !== undefined || edit.saltColumn !== undefined) {
    throw new FwDefinitionError(`${key}.edit.${edit.hashed !== undefined ? 'hashed' : 'saltColumn'}`, `only PASSWORD fields take this option, this one is ${type}`);
  }
  let attachment: Readonly<Required<AttachmentOptions>> | undefined;
  if (type === EditType.ATTACHMENT) attachment = checkAttachment(`${key}.edit.attachment`, edit.attachment);
  else if (edit.attachment !== undefined) throw new FwDefinitionError(`${key}.edit.attachment`, `only ATTACHMENT fields take this option, this one is ${type}`);
  // Files are claimed by the form's save (add, update); a cell edit would bypass that check.
  if (attachment && edit.cellEdit === true) throw new FwDefinitionError(`${key}.edit.cellEdit`, 'an ATTACHMENT field cannot be edited in a cell');
  const column = optionalString(`${key}.column`, input.column, name);
  if (!IDENT_RE.test(column)) throw new FwDefinitionError(`${key}.column`, 'a column name must be an identifier (letters, digits, _)');
  const hiddenByDefault = type === EditType.PASSWORD || type === EditType.HIDDEN || type === EditType.COLLECTION;
  return {
    name,
    column,
    stored,
    primaryKey: isPk,
    views: Object.freeze({
      title: optionalString(`${key}.views.title`, views.title, editTitle),
      show: optionalBoolean(`${key}.views.show`, views.show, !hiddenByDefault),
      sortable: optionalBoolean(`${key}.views.sortable`, views.sortable, stored && type !== EditType.PASSWORD && !attachment),
    }),
    edit: Object.freeze({
      title: editTitle,
      type: type as EditType,
      notNull: optionalBoolean(`${key}.edit.notNull`, edit.notNull, false),
      // The primary key is never written by a client.
      readonly: optionalBoolean(`${key}.edit.readonly`, edit.readonly, false) || isPk,
      cellEdit: optionalBoolean(`${key}.edit.cellEdit`, edit.cellEdit, !attachment),
      integer: optionalBoolean(`${key}.edit.integer`, edit.integer, isPk),
      ...(choices ? { choices } : {}),
      ...(reference ? { reference } : {}),
      ...(collection ? { collection } : {}),
      ...(edit.defaultValue !== undefined ? { defaultValue: edit.defaultValue } : {}),
      ...(typeof edit.placeholder === 'string' ? { placeholder: edit.placeholder } : {}),
      ...(secret ?? {}),
      ...(attachment ? { attachment } : {}),
    }),
    rawRules: input.rules,
  };
}

/**
 * Checks and normalizes a model definition: the TypeScript form of the reference framework's
 * `@Fw(name, power = @Power(...))` class with `@FwField(views, edit)` fields.
 *
 * @throws {FwDefinitionError} naming the offending key, for an unknown edit type, a non-boolean
 * power flag, a rule on a field that does not exist, and every other malformed option.
 * @example
 * const Book = defineModel({
 *   name: 'Book',
 *   power: { export: true, ai: false },
 *   fields: {
 *     title: { views: { title: 'Title' }, edit: { type: 'INPUT', notNull: true }, rules: [{ type: 'length', max: 200 }] },
 *     status: { edit: { type: 'CHOICE', choices: [{ value: 'draft' }, { value: 'published' }], cellEdit: false } },
 *   },
 * });
 */
export function defineModel<R extends Row = Row>(input: ModelDefinitionInput<R>): ModelDefinition<R> {
  if (!isPlainObject(input)) throw new FwDefinitionError('model', `a model definition must be an object, got ${describe(input)}`);
  const rawName = (input as { name?: unknown }).name;
  if (typeof rawName !== 'string' || !NAME_RE.test(rawName)) {
    throw new FwDefinitionError('model.name', `must start with a letter and hold only letters, digits and _, got ${describe(rawName)}`);
  }
  const name = rawName;
  for (const k of Object.keys(input)) if (!MODEL_KEYS.has(k)) throw new FwDefinitionError(`${name}.${k}`, 'unknown model option');
  const table = optionalString(`${name}.table`, input.table, snakeCase(name));
  if (!/^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)?$/.test(table)) throw new FwDefinitionError(`${name}.table`, 'must be an identifier, optionally schema-qualified');
  const primaryKey = optionalString(`${name}.primaryKey`, input.primaryKey, 'id');
  const { flags, handler } = checkPower(name, input.power);
  if (!isPlainObject(input.fields)) throw new FwDefinitionError(`${name}.fields`, 'must be an object of field definitions');

  const declared: Record<string, unknown> = { ...input.fields };
  if (!(primaryKey in declared)) declared[primaryKey] = { edit: { type: EditType.HIDDEN, readonly: true, integer: true } };
  const fieldNames = Object.keys(declared);
  const names = new Set(fieldNames);
  const columns = new Map<string, string>();
  const checked = fieldNames.map((fieldName) => {
    const field = checkField(name, fieldName, declared[fieldName], primaryKey);
    const other = columns.get(field.column);
    if (field.stored && other !== undefined) throw new FwDefinitionError(`${name}.fields.${fieldName}.column`, `column ${field.column} is already used by field ${other}`);
    if (field.stored) columns.set(field.column, fieldName);
    const salt = field.edit.saltColumn;
    if (salt !== undefined) {
      const holder = columns.get(salt);
      if (holder !== undefined) throw new FwDefinitionError(`${name}.fields.${fieldName}.edit.saltColumn`, `column ${salt} is already used by field ${holder}`);
      columns.set(salt, fieldName);
    }
    return field;
  });
  const pkField = checked.find((f) => f.name === primaryKey);
  if (pkField && !pkField.stored) throw new FwDefinitionError(`${name}.primaryKey`, 'the primary key cannot be a COLLECTION field');

  const rulesByField = new Map<string, FieldRule[]>(fieldNames.map((f) => [f, []]));
  for (const field of checked) {
    if (field.rawRules === undefined) continue;
    if (!Array.isArray(field.rawRules)) throw new FwDefinitionError(`${name}.fields.${field.name}.rules`, 'must be an array of rules');
    field.rawRules.forEach((rule, i) => rulesByField.get(field.name)!.push(checkRule(`${name}.fields.${field.name}.rules[${i}]`, rule, names)));
  }
  if (input.rules !== undefined) {
    if (!Array.isArray(input.rules)) throw new FwDefinitionError(`${name}.rules`, 'must be an array of rules');
    input.rules.forEach((rule: unknown, i) => {
      const target = isPlainObject(rule) ? rule.field : undefined;
      if (typeof target !== 'string' || !names.has(target)) {
        throw new FwDefinitionError(`${name}.rules[${i}].field`, `names no field of this model: ${describe(target)}`);
      }
      const { field: _ignored, ...rest } = rule as ModelFieldRule;
      rulesByField.get(target)!.push(checkRule(`${name}.rules[${i}]`, rest, names));
    });
  }
  const rowRules = (input.rowRules ?? []).map((rule: unknown, i) => {
    const key = `${name}.rowRules[${i}]`;
    if (!isPlainObject(rule) || typeof rule.test !== 'function') throw new FwDefinitionError(key, 'must be { name, fields, test(row) }');
    if (typeof rule.name !== 'string' || rule.name === '') throw new FwDefinitionError(`${key}.name`, 'must be a non-empty string');
    if (!Array.isArray(rule.fields) || rule.fields.length === 0) throw new FwDefinitionError(`${key}.fields`, 'must list the fields the rule reads');
    rule.fields.forEach((f: unknown, j: number) => {
      if (typeof f !== 'string' || !names.has(f)) throw new FwDefinitionError(`${key}.fields[${j}]`, `names no field of this model: ${describe(f)}`);
    });
    if (rule.path !== undefined && (typeof rule.path !== 'string' || !names.has(rule.path))) {
      throw new FwDefinitionError(`${key}.path`, `names no field of this model: ${describe(rule.path)}`);
    }
    return Object.freeze({ ...rule }) as unknown as RowRule;
  });

  const dataProxy = input.dataProxy ?? {};
  if (!isPlainObject(dataProxy)) throw new FwDefinitionError(`${name}.dataProxy`, 'must be an object of hooks');
  for (const [hook, fn] of Object.entries(dataProxy)) {
    if (!(DATA_PROXY_HOOKS as readonly string[]).includes(hook)) {
      throw new FwDefinitionError(`${name}.dataProxy.${hook}`, `unknown hook (known: ${DATA_PROXY_HOOKS.join(', ')})`);
    }
    if (typeof fn !== 'function') throw new FwDefinitionError(`${name}.dataProxy.${hook}`, 'must be a function');
  }
  let treeParentField: string | undefined;
  if (input.treeParentField !== undefined) {
    if (typeof input.treeParentField !== 'string' || !names.has(input.treeParentField)) {
      throw new FwDefinitionError(`${name}.treeParentField`, `names no field of this model: ${describe(input.treeParentField)}`);
    }
    treeParentField = input.treeParentField;
  }

  const fields: Record<string, FieldDefinition> = {};
  for (const { rawRules: _raw, ...field } of checked) {
    fields[field.name] = Object.freeze({ ...field, rules: Object.freeze(rulesByField.get(field.name) ?? []) });
  }
  return Object.freeze({
    name,
    title: optionalString(`${name}.title`, input.title, name),
    table,
    primaryKey,
    power: Object.freeze(flags),
    powerHandler: handler,
    fields: Object.freeze(fields),
    fieldNames: Object.freeze(fieldNames),
    rowRules: Object.freeze(rowRules),
    dataProxy: Object.freeze({ ...dataProxy }) as Readonly<DataProxy<R>>,
    treeParentField,
    __fwModel: true as const,
  });
}

/** True when `value` came out of {@link defineModel}. */
export function isModelDefinition(value: unknown): value is ModelDefinition {
  return isPlainObject(value) && value.__fwModel === true;
}
