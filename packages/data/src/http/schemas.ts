// The component schemas of the data routes: per model its row, add, update, cell and copy bodies,
// table query and page; and the schemas every description shares (the error body, power, ids,
// attachments, reference pages). The route declarations (routes.ts and its neighbours) point at
// them by name; `dataSchemas` gives them to an OpenAPI generator.
import { CONDITION_OPERATORS, EditType, FW_LOCALES, POWER_FLAGS, type FieldDefinition, type ModelDefinition } from '@fw/core';
import { schemaRef, type JsonSchema } from '@fw/http';

export type { JsonSchema };

/** `#/components/schemas/<name>`. */
export const ref = schemaRef;

/** The same schema, `null` allowed too. */
export function nullable(schema: JsonSchema): JsonSchema {
  if (Array.isArray(schema.enum)) return { ...schema, enum: [...(schema.enum as unknown[]), null] };
  if (typeof schema.type === 'string') return { ...schema, type: [schema.type, 'null'] };
  return { anyOf: [schema, { type: 'null' }] };
}

// Read through `string`, so this module compiles whether or not the core it is built with knows
// the ATTACHMENT edit type yet.
const isAttachment = (field: FieldDefinition): boolean => (field.edit.type as string) === 'ATTACHMENT';

/** ATTACHMENT fields of a model, in declaration order. */
export function attachmentFields(model: ModelDefinition): string[] {
  return model.fieldNames.filter((name) => isAttachment(model.fields[name]!));
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
function filterableFields(model: ModelDefinition): string[] {
  return model.fieldNames.filter((name) => model.fields[name]!.capabilities.filterable);
}

/** Fields a table query may sort on. */
function sortableFields(model: ModelDefinition): string[] {
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
function ruleConstraints(field: FieldDefinition): JsonSchema {
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

/** Fields a row answer carries: every field except PASSWORD ones. */
function shownFields(model: ModelDefinition): string[] {
  return model.fieldNames.filter((name) => !model.fields[name]!.capabilities.secret);
}

/** Fields an add or form body may name. */
function writableFields(model: ModelDefinition): string[] {
  return [...model.fieldNames];
}

/** The schemas of one model: its row, add body, update body, cell body, copy body, table query and page. */
export function modelSchemas(model: ModelDefinition): Record<string, JsonSchema> {
  const n = model.name;
  const pk = model.primaryKey;
  const row: JsonSchema = {
    type: 'object',
    title: `${model.title} row`,
    description: `A ${n} row as the data routes answer it: field names as keys; PASSWORD fields never included.`,
    properties: Object.fromEntries(
      shownFields(model).map((name) => {
        const f = model.fields[name]!;
        const value = fieldValueSchema(f);
        // The key always has a value and a collection is always a list; anything else may be empty.
        return [name, f.primaryKey || f.edit.type === EditType.COLLECTION ? value : nullable(value)];
      }),
    ),
    required: shownFields(model).filter((name) => model.fields[name]!.primaryKey),
    additionalProperties: false,
  };
  const inputProperties = Object.fromEntries(
    writableFields(model).map((name) => {
      const f = model.fields[name]!;
      const value = { ...fieldValueSchema(f), ...ruleConstraints(f) };
      const described: JsonSchema = f.primaryKey
        ? { ...value, description: 'Ignored on add' }
        : f.edit.readonly
          ? { ...value, readOnly: true, description: 'Read-only: may be sent only empty (or, on update, with its stored value)' }
          : value;
      return [name, nullable(described)];
    }),
  );
  const required = model.fieldNames.filter((name) => {
    const f = model.fields[name]!;
    return f.edit.notNull && !f.primaryKey && !f.edit.readonly && f.edit.defaultValue === undefined;
  });
  const input: JsonSchema = {
    type: 'object',
    title: `New ${n}`,
    description: 'Field values of a new row; absent fields take their default.',
    properties: inputProperties,
    ...(required.length > 0 ? { required } : {}),
    additionalProperties: false,
  };
  const update: JsonSchema = {
    type: 'object',
    title: `${n} update`,
    description: 'The key and the values to save; absent fields keep their stored value.',
    properties: { ...inputProperties, [pk]: { type: ['integer', 'string'], pattern: '^[0-9]{1,15}$', minimum: 1, description: 'The row to update' } },
    required: [pk],
    additionalProperties: false,
  };
  const cells = cellFields(model);
  const schemas: Record<string, JsonSchema> = {
    [`${n}Row`]: row,
    [`${n}Input`]: input,
    [`${n}Update`]: update,
    [`${n}Copy`]: {
      type: 'object',
      properties: { id: ref('FwId'), values: { ...withoutRequired(input), title: 'Values replacing the copied ones' } },
      required: ['id'],
      additionalProperties: false,
    },
    [`${n}TableQuery`]: tableQuery(sortableFields(model), filterableFields(model)),
    [`${n}Page`]: {
      type: 'object',
      properties: {
        rows: { type: 'array', items: ref(`${n}Row`) },
        total: { type: 'integer', minimum: 0, description: 'The matching rows; an estimate (at least the rows seen so far) when totalIsEstimate' },
        totalIsEstimate: { type: 'boolean', description: 'True when total is an estimate (statistics, a cached count, a lower bound), false when counted exact' },
        page: { type: 'integer', minimum: 1 },
        size: { type: 'integer', minimum: 1 },
        cursors: ref('FwPageCursors'),
        labels: {
          type: 'object',
          description: 'Per reference or collection field: the label of each id on the page',
          properties: Object.fromEntries(referenceFields(model).map((name) => [name, { type: 'object', additionalProperties: { type: 'string' } }])),
          required: referenceFields(model),
          additionalProperties: false,
        },
      },
      required: ['rows', 'total', 'totalIsEstimate', 'page', 'size', 'cursors', 'labels'],
      additionalProperties: false,
    },
  };
  if (cells.length > 0) {
    schemas[`${n}Cell`] = {
      type: 'object',
      properties: { id: ref('FwId'), field: { enum: cells }, value: { description: 'The new value; null or "" clears the cell' }, expect: { description: 'The value as the table showed it: 409 STALE_CELL when the cell now shows another' } },
      required: ['id', 'field', 'value'],
      additionalProperties: false,
    };
  }
  return schemas;
}

function withoutRequired(schema: JsonSchema): JsonSchema {
  const copy = { ...schema };
  delete copy.required;
  return copy;
}

function tableQuery(sortable: string[], filterable: string[]): JsonSchema {
  return {
    type: 'object',
    properties: {
      page: {
        type: ['integer', 'string'],
        minimum: 1,
        maximum: 1_000_000,
        default: 1,
        description: 'A page by number (read with OFFSET: its cost grows with the number). With after, before or last, only echoed back',
      },
      size: { type: ['integer', 'string'], minimum: 1, default: 20, description: 'At most limits.maxSize (200 by default)' },
      after: { ...ref('FwCursor'), description: 'The page after this row: cursors.next of an earlier answer (same sort). At most one of after, before, last' },
      before: { ...ref('FwCursor'), description: 'The page before this row: cursors.prev of an earlier answer (same sort)' },
      last: { type: ['boolean', 'string'], enum: [true, false, 'true', 'false'], description: 'true: the final page of the order' },
      sort: {
        description: 'Keys in order: an array, or "field,desc;field2"',
        anyOf: [
          { type: 'string' },
          {
            type: 'array',
            items: {
              type: 'object',
              properties: { field: { enum: sortable }, order: { type: 'string', pattern: '^([Aa][Ss][Cc]|[Dd][Ee][Ss][Cc])$' } },
              required: ['field'],
              additionalProperties: false,
            },
          },
        ],
      },
      conditions: {
        type: 'array',
        maxItems: 50,
        description: 'All must hold; 50 entries in all (groups and their members included)',
        items: {
          anyOf: [
            {
              type: 'object',
              properties: { field: { enum: filterable }, op: ref('FwConditionOp'), value: {} },
              required: ['field'],
              additionalProperties: false,
            },
            ref('FwConditionGroup'),
          ],
        },
      },
      count: {
        enum: ['auto', 'exact', 'none'],
        default: 'auto',
        description:
          'How the total is counted: auto is exact up to limits.exactCountLimit (10000) and an estimate beyond; exact counts within limits.countTimeLimitMs (3000 ms), else an estimate; none runs no count (an estimate, exact only when the page proves it)',
      },
    },
    additionalProperties: false,
  };
}

/** Schemas every description holds, whatever the models. */
export function sharedSchemas(): Record<string, JsonSchema> {
  return {
    FwError: {
      type: 'object',
      description: 'The Fw error body. Branch on `code`; `message` is for people.',
      properties: {
        error: {
          type: 'object',
          properties: {
            code: { type: 'string', pattern: '^[A-Z][A-Z0-9_]*$' },
            message: { type: 'string' },
            details: { type: 'array', items: ref('FwErrorDetail') },
            model: { type: ['string', 'null'] },
            flag: { type: 'string' },
            id: { type: ['integer', 'string'] },
            field: { type: 'string' },
            current: { type: 'object', description: 'STALE_ROW: the row as it is now' },
            version: { type: 'string', description: 'STALE_ROW: the version of `current`' },
          },
          required: ['code', 'message'],
        },
      },
      required: ['error'],
      additionalProperties: false,
    },
    FwErrorDetail: {
      type: 'object',
      properties: {
        path: { type: 'string', description: 'A field, or a place in the request (conditions[0].op, rows[3].price)' },
        type: { type: 'string', description: 'The rule or check that failed' },
        message: { type: 'string' },
        code: { type: 'string' },
        row: { type: 'integer', minimum: 1, description: 'Imports: the spreadsheet row of the cell (the header is row 1)' },
        column: { type: 'string', pattern: '^[A-Z]+$', description: 'Imports: the spreadsheet column letter of the cell' },
      },
      required: ['path', 'message'],
    },
    FwId: { type: ['integer', 'string'], minimum: 1, pattern: '^[0-9]{1,15}$', description: 'A row id: a positive whole number (or its digits as text)' },
    FwConditionOp: { enum: [...CONDITION_OPERATORS], default: 'eq' },
    FwConditionGroup: {
      type: 'object',
      description: 'One of or (at least one member holds) and and (every member holds); members are conditions or groups, nested at most 4 deep',
      properties: { or: { type: 'array', minItems: 1, items: {} }, and: { type: 'array', minItems: 1, items: {} } },
      minProperties: 1,
      maxProperties: 1,
      additionalProperties: false,
    },
    FwAttachment: {
      type: 'object',
      description: 'One stored file of an ATTACHMENT field',
      properties: {
        id: { type: 'string', pattern: '^[A-Za-z0-9_-]{16,}$' },
        name: { type: 'string', description: "The client's file name, kept as a name only" },
        size: { type: 'integer', minimum: 0 },
        type: { type: 'string', description: 'The MIME type sniffed from the bytes' },
      },
      required: ['id', 'name', 'size', 'type'],
      additionalProperties: false,
    },
    FwPower: {
      type: 'object',
      description: "The caller's effective power on the model; a power handler may add keys",
      properties: Object.fromEntries(POWER_FLAGS.map((flag) => [flag, { type: 'boolean' }])),
      required: [...POWER_FLAGS],
    },
    FwTitles: {
      type: 'object',
      description: 'A title per language of the admin UI, as the model declares it (issue 20 §8)',
      properties: Object.fromEntries(FW_LOCALES.map((locale) => [locale, { type: 'string', minLength: 1 }])),
      minProperties: 1,
      additionalProperties: false,
    },
    FwModelView: {
      type: 'object',
      properties: {
        name: { type: 'string' },
        title: { type: 'string' },
        titles: ref('FwTitles'),
        primaryKey: { type: 'string' },
        tree: { type: 'boolean' },
        trash: { type: 'boolean', description: 'Deleted rows go to the trash' },
        singularTitle: { type: 'string' },
        singularTitles: ref('FwTitles'),
        treeParentField: { type: 'string' },
        orderBy: {
          type: 'array',
          description: 'The sort a table query gets when it names none (defineModel({ orderBy }))',
          items: { type: 'object', properties: { field: { type: 'string' }, order: { enum: ['asc', 'desc'] } }, required: ['field', 'order'], additionalProperties: false },
        },
        fields: { type: 'array', items: ref('FwFieldView') },
        rowRules: {
          type: 'array',
          items: {
            type: 'object',
            properties: { name: { type: 'string' }, fields: { type: 'array', items: { type: 'string' } }, path: { type: 'string' }, message: { type: 'string' } },
            required: ['name', 'fields'],
          },
        },
      },
      required: ['name', 'title', 'primaryKey', 'tree', 'orderBy', 'fields', 'rowRules'],
      additionalProperties: false,
    },
    FwFieldView: {
      type: 'object',
      properties: {
        name: { type: 'string' },
        title: { type: 'string' },
        titles: ref('FwTitles'),
        type: { type: 'string' },
        views: {
          type: 'object',
          properties: { title: { type: 'string' }, titles: ref('FwTitles'), show: { type: 'boolean' }, sortable: { type: 'boolean' } },
          required: ['title', 'show', 'sortable'],
        },
        notNull: { type: 'boolean' },
        readonly: { type: 'boolean' },
        cellEdit: { type: 'boolean' },
        integer: { type: 'boolean' },
        primaryKey: { type: 'boolean' },
        filterable: { type: 'boolean' },
        choices: {
          type: 'array',
          items: {
            type: 'object',
            properties: { value: { type: ['string', 'number', 'boolean'] }, label: { type: 'string' }, labels: ref('FwTitles') },
            required: ['value', 'label'],
          },
        },
        reference: {
          type: 'object',
          properties: { model: { type: 'string' }, labelField: { type: 'string' }, tree: { type: 'boolean' } },
          required: ['model', 'labelField', 'tree'],
        },
        collection: { type: 'object', properties: { model: { type: 'string' }, labelField: { type: 'string' } }, required: ['model', 'labelField'] },
        attachment: {
          type: 'object',
          properties: {
            multiple: { type: 'boolean' },
            image: { type: 'boolean' },
            maxSize: { type: 'integer' },
            maxFiles: { type: 'integer' },
            accept: { type: 'array', items: { type: 'string' } },
          },
        },
        defaultValue: {},
        placeholder: { type: 'string' },
        rules: { type: 'array', items: { type: 'object', properties: { type: { type: 'string' } }, required: ['type'] } },
      },
      required: ['name', 'title', 'type', 'views', 'notNull', 'readonly', 'cellEdit', 'integer', 'primaryKey', 'filterable', 'rules'],
      additionalProperties: false,
    },
    FwReferencePage: {
      type: 'object',
      properties: {
        rows: {
          type: 'array',
          items: {
            type: 'object',
            properties: { id: { type: 'integer' }, label: { type: 'string' }, parentId: { type: ['integer', 'null'] } },
            required: ['id', 'label'],
            additionalProperties: false,
          },
        },
        total: { type: 'integer', minimum: 0 },
        page: { type: 'integer', minimum: 1 },
        size: { type: 'integer', minimum: 1 },
      },
      required: ['rows', 'total', 'page', 'size'],
      additionalProperties: false,
    },
    FwCursor: {
      type: 'string',
      minLength: 1,
      maxLength: 2048,
      pattern: '^[A-Za-z0-9_-]+$',
      description: 'An opaque position in one order of one model (base64url); any other is a 400 BAD_QUERY at its path',
    },
    FwPageCursors: {
      type: 'object',
      description: 'Where the neighbouring pages start, by keyset seek (no OFFSET)',
      properties: {
        prev: { anyOf: [ref('FwCursor'), { type: 'null' }], description: 'Send as before for the previous page; null when no row precedes the first row' },
        next: { anyOf: [ref('FwCursor'), { type: 'null' }], description: 'Send as after for the next page; null when no row follows the last row' },
      },
      required: ['prev', 'next'],
      additionalProperties: false,
    },
    FwReferenceQuery: {
      type: 'object',
      properties: {
        search: { type: 'string', maxLength: 200 },
        page: { type: ['integer', 'string'], minimum: 1 },
        size: { type: ['integer', 'string'], minimum: 1 },
        ids: { type: 'array', maxItems: 1000, items: ref('FwId') },
      },
      additionalProperties: false,
    },
  };
}

/** The component schemas the data routes' descriptions point at: the shared ones, then each model's. */
export function dataSchemas(models: readonly ModelDefinition[]): Record<string, JsonSchema> {
  const schemas = sharedSchemas();
  for (const model of models) Object.assign(schemas, modelSchemas(model));
  return schemas;
}
