import { FwDefinitionError } from './errors.js';
import { IDENT_RE, describe, isPlainObject, labelFieldOption, optionalBoolean, optionalString } from './definition-checks.js';
import { checkLocalizedText } from './localized-text.js';
import { EditType, IMAGE_TYPES, type AttachmentOptions, type Choice, type CollectionOptions, type FieldDefinition, type FieldRule, type ReferenceOptions } from './model-types.js';

const EDIT_TYPES = new Set<string>(Object.values(EditType));
const RESERVED_FIELD_NAMES = new Set(['__proto__', 'constructor', 'prototype', 'hasOwnProperty', 'toString', 'valueOf']);
const RULE_TYPES = new Set(['required', 'length', 'pattern', 'range', 'choices', 'dynamic']);
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

export function checkRule(key: string, rule: unknown, fieldNames: ReadonlySet<string>): FieldRule {
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
        throw new FwDefinitionError(`${key}[${i}]`, 'must be { value: string | number | boolean, label?: string | { en, zh-CN, … } }');
      }
      const label = checkLocalizedText(`${key}[${i}].label`, choice.label, String(choice.value));
      return Object.freeze({ value: choice.value as Choice['value'], label: label.text, ...(label.translations ? { labels: label.translations } : {}) });
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

export function checkField(model: string, name: string, input: unknown, primaryKey: string): Omit<FieldDefinition, 'rules' | 'capabilities'> & { rawRules: unknown } {
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
  const editTitle = checkLocalizedText(`${key}.edit.title`, edit.title, name);
  // A column without its own title shows the form's, translations included.
  const viewsTitle = views.title === undefined ? editTitle : checkLocalizedText(`${key}.views.title`, views.title, editTitle.text);
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
  // Whole numbers are a kind of number: on a text field `integer` would keep the column text, its
  // values read back as strings that no numeric condition or comparison matches.
  if (edit.integer === true && !isPk && type !== EditType.NUMBER && type !== EditType.HIDDEN) {
    throw new FwDefinitionError(`${key}.edit.integer`, `only NUMBER and HIDDEN fields take integer: true, this one is ${type} (give it type: 'NUMBER')`);
  }
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
      title: viewsTitle.text,
      ...(viewsTitle.translations ? { titles: viewsTitle.translations } : {}),
      show: optionalBoolean(`${key}.views.show`, views.show, !hiddenByDefault),
      sortable: optionalBoolean(`${key}.views.sortable`, views.sortable, stored && type !== EditType.PASSWORD && !attachment),
    }),
    edit: Object.freeze({
      title: editTitle.text,
      ...(editTitle.translations ? { titles: editTitle.translations } : {}),
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
