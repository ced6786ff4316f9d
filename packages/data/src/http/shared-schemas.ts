// The component schemas every description of the data routes holds, whatever the models: the
// error body, ids, conditions, attachments, power, the model and field views, reference pages and
// page cursors.
import { CONDITION_OPERATORS, FW_LOCALES, POWER_FLAGS } from '@fw/core';
import type { JsonSchema } from '@fw/http';
import { ref } from './field-schemas.js';

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
