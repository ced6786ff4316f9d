import { FwDefinitionError } from './errors.js';
import { describe, isPlainObject, optionalBoolean, optionalString } from './definition-checks.js';
import { checkField, checkRule } from './field-options.js';
import { fieldCapabilities, modelCapabilities } from './field-capabilities.js';
import { checkLocalizedText } from './localized-text.js';
import {
  EditType,
  type FieldDefinition,
  type FieldRule,
  type ModelDefinition,
  type ModelDefinitionInput,
  type ModelFieldRule,
  type RowRule,
  type DataProxy,
} from './model-types.js';
import { checkIndexes } from './model-indexes.js';
import { checkOrderBy } from './order-by.js';
import { DEFAULT_POWER, POWER_FLAGS, type PowerFlags, type PowerHandler } from './power.js';

export {
  EditType,
  IMAGE_TYPES,
  CONDITION_OPERATORS,
  type Choice,
  type ChoiceInput,
  type FieldViews,
  type ReferenceOptions,
  type CollectionOptions,
  type AttachmentOptions,
  type AttachmentValue,
  type FieldEdit,
  type RuleOutcome,
  type FieldRule,
  type ModelFieldRule,
  type RowRule,
  type FieldDefinitionInput,
  type ConditionOperator,
  type Condition,
  type DataSource,
  type DataHookContext,
  type DataProxy,
  type ModelDefinitionInput,
  type FieldDefinition,
  type ModelDefinition,
} from './model-types.js';

type Row = Record<string, unknown>;

const NAME_RE = /^[A-Za-z][A-Za-z0-9_]*$/;
const DATA_PROXY_HOOKS = ['beforeAdd', 'afterAdd', 'beforeUpdate', 'afterUpdate', 'beforeDelete', 'afterDelete', 'beforeFetch', 'afterFetch', 'validate'] as const;
const MODEL_KEYS = new Set([
  'name',
  'title',
  'singularTitle',
  'table',
  'primaryKey',
  'power',
  'fields',
  'rules',
  'rowRules',
  'dataProxy',
  'treeParentField',
  'orderBy',
  'indexes',
  'trash',
]);

function snakeCase(name: string): string {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1_$2')
    .toLowerCase();
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
    fields[field.name] = Object.freeze({ ...field, rules: Object.freeze(rulesByField.get(field.name) ?? []), capabilities: fieldCapabilities({ name, power: flags }, field) });
  }
  const title = checkLocalizedText(`${name}.title`, input.title, name);
  const singular = input.singularTitle === undefined ? undefined : checkLocalizedText(`${name}.singularTitle`, input.singularTitle, name);
  return Object.freeze({
    name,
    title: title.text,
    ...(title.translations ? { titles: title.translations } : {}),
    singularTitle: singular?.text,
    ...(singular?.translations ? { singularTitles: singular.translations } : {}),
    table,
    primaryKey,
    power: Object.freeze(flags),
    powerHandler: handler,
    fields: Object.freeze(fields),
    fieldNames: Object.freeze(fieldNames),
    rowRules: Object.freeze(rowRules),
    dataProxy: Object.freeze({ ...dataProxy }) as Readonly<DataProxy<R>>,
    treeParentField,
    orderBy: checkOrderBy(name, input.orderBy, fields),
    indexes: checkIndexes(name, table, declared, fields, input.indexes),
    capabilities: modelCapabilities({ name, power: flags, table }, fieldNames, fields),
    trash: optionalBoolean(`${name}.trash`, input.trash, true),
    __fwModel: true as const,
  });
}

/** True when `value` came out of {@link defineModel}. */
export function isModelDefinition(value: unknown): value is ModelDefinition {
  return isPlainObject(value) && value.__fwModel === true;
}
