// The component schemas of one model: its row, add, update, cell and copy bodies, table query and
// page, named `<Model>Row`, `<Model>Input`, … The route declarations point at them by name.
import { EditType, type ModelDefinition } from '@fw/core';
import type { JsonSchema } from '@fw/http';
import { cellFields, fieldValueSchema, filterableFields, nullable, ref, referenceFields, ruleConstraints, sortableFields } from './field-schemas.js';

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

