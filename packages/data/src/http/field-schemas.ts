// The JSON Schema of one field of a model, and the lists of fields the route descriptions name
// (cell-editable, reference, attachment, filterable, sortable), read from what defineModel decided
// (`field.capabilities`). model-schemas.ts builds a model's schemas from them.
import { EditType, type FieldDefinition, type ModelDefinition } from '@fw/core';
import { schemaRef, type JsonSchema } from '@fw/http';

/** `#/components/schemas/<name>`. */
export const ref = schemaRef;

/** The same schema, `null` allowed too. */
export function nullable(schema: JsonSchema): JsonSchema {
  if (Array.isArray(schema.enum)) return { ...schema, enum: [...(schema.enum as unknown[]), null] };
  if (typeof schema.type === 'string') return { ...schema, type: [schema.type, 'null'] };
  return { anyOf: [schema, { type: 'null' }] };
}

/** ATTACHMENT fields of a model, in declaration order (as defineModel listed them). */
export function attachmentFields(model: ModelDefinition): string[] {
  return [...model.capabilities.attachmentFields];
}

/** REFERENCE_TABLE, REFERENCE_TREE and COLLECTION fields of a model. */
export function referenceFields(model: ModelDefinition): string[] {
  const types = new Set<string>([EditType.REFERENCE_TABLE, EditType.REFERENCE_TREE, EditType.COLLECTION]);
  return model.fieldNames.filter((name) => types.has(model.fields[name]!.edit.type));
}

/** Fields the update-cell route can edit (the answer defineModel gave: not the key, a collection, a password, read-only or switched off). */
export function cellFields(model: ModelDefinition): string[] {
  return model.fieldNames.filter((name) => model.fields[name]!.capabilities.cellEdit.ok);
}

/** Fields a table query may filter on (stored, not a secret, not files). */
export function filterableFields(model: ModelDefinition): string[] {
  return model.fieldNames.filter((name) => model.fields[name]!.capabilities.filterable);
}

/** Fields a table query may sort on. */
export function sortableFields(model: ModelDefinition): string[] {
  return model.fieldNames.filter((name) => model.fields[name]!.capabilities.sortable);
}

/** The JSON value of one field, as rows carry it (without `null`). */
export function fieldValueSchema(field: FieldDefinition): JsonSchema {
  const title = field.views.title;
  const choices = (field.edit.choices ?? []).map((c) => c.value);
  switch (field.edit.type as string) {
    case EditType.NUMBER:
      return { type: field.edit.integer ? 'integer' : 'number', title };
    case EditType.HIDDEN:
      return { type: field.edit.integer ? 'integer' : 'string', title };
    case EditType.BOOLEAN:
      return { type: 'boolean', title };
    case EditType.CHOICE:
      return { enum: choices, title, description: choiceLabels(field) };
    case EditType.MULTI_CHOICE:
      return { type: 'array', items: { enum: choices }, title, description: choiceLabels(field) };
    case EditType.TAGS:
      return { type: 'array', items: { type: 'string' }, title };
    case EditType.DATE:
      return { type: 'string', format: 'date', title };
    case EditType.DATETIME:
      return { type: 'string', format: 'date-time', title };
    case EditType.PASSWORD:
      return { type: 'string', writeOnly: true, title };
    case EditType.REFERENCE_TABLE:
    case EditType.REFERENCE_TREE:
      return { type: 'integer', title, description: `The id of a ${field.edit.reference?.model ?? ''} row` };
    case EditType.COLLECTION:
      return { type: 'array', items: { type: 'integer' }, uniqueItems: true, title, description: `Ids of ${field.edit.collection?.model ?? ''} rows, sorted` };
    case 'ATTACHMENT':
      return { type: 'array', items: ref('FwAttachment'), title, description: attachmentLimits(field) };
    default:
      return { type: 'string', title };
  }
}

/**
 * The declared length, pattern and number range rules, as JSON Schema keywords, for request
 * bodies only: rows stored before a rule changed may break it, so answers are not held to them.
 */
export function ruleConstraints(field: FieldDefinition): JsonSchema {
  const text = new Set<string>([EditType.INPUT, EditType.TEXTAREA, EditType.PASSWORD]).has(field.edit.type) || (field.edit.type === EditType.HIDDEN && !field.edit.integer);
  const out: JsonSchema = {};
  for (const rule of field.rules) {
    if (rule.type === 'length' && text) {
      if (rule.min !== undefined) out.minLength = rule.min;
      if (rule.max !== undefined) out.maxLength = rule.max;
    } else if (rule.type === 'pattern' && text) {
      // A pattern with flags (case-insensitive, …) means something else without them: left out.
      if (typeof rule.pattern === 'string') out.pattern = rule.pattern;
      else if (rule.pattern.flags.replace(/[gu]/g, '') === '') out.pattern = rule.pattern.source;
    } else if (rule.type === 'range' && field.edit.type === EditType.NUMBER) {
      if (typeof rule.min === 'number') out.minimum = rule.min;
      if (typeof rule.max === 'number') out.maximum = rule.max;
    }
  }
  return out;
}

function choiceLabels(field: FieldDefinition): string {
  return `Choices: ${(field.edit.choices ?? []).map((c) => `${JSON.stringify(c.value)} (${c.label ?? String(c.value)})`).join(', ')}`;
}

interface AttachmentLimits {
  multiple?: boolean;
  image?: boolean;
  maxSize?: number;
  maxFiles?: number;
  accept?: readonly string[];
}

/** The limits of an ATTACHMENT field (filled in by defineModel), for descriptions. */
export function attachmentOptions(field: FieldDefinition): AttachmentLimits {
  return (field.edit as { attachment?: AttachmentLimits }).attachment ?? {};
}

function attachmentLimits(field: FieldDefinition): string {
  const a = attachmentOptions(field);
  const accept = a.accept && a.accept.length > 0 ? a.accept.join(', ') : a.image ? 'images' : 'any type';
  return `Files uploaded with POST /data/upload first. At most ${a.maxFiles ?? 1} file(s) of ${a.maxSize ?? 10485760} bytes each; ${accept}`;
}
