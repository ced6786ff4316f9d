import { Ajv, type ValidateFunction } from 'ajv';
import { CONDITION_OPERATORS, FwError, type FwUser } from '@fw/core';
import { MAX_CONDITION_DEPTH, modelView, type DataService } from '@fw/data';
import { aiGate, isAiVisible } from '@fw/power';

/** The seven tools, as MCP lists them. */
export interface ToolDefinition {
  name: string;
  description: string;
  inputSchema: { type: 'object'; properties: Record<string, unknown>; required?: string[]; additionalProperties: false };
}

/** Who calls a tool, and the grants version already read for the request (if any). */
export interface ToolActor {
  user: FwUser;
  ip: string | null;
  grantsVersion?: number;
  /** The token of the request, so a tool that changes its own user's password keeps this session. */
  token?: string;
}

/** Most rows `fwDataQuery` returns, whatever the call asks. */
export const AI_ROW_CAP = 200;

const model = { type: 'string', description: 'The model name, as fwModelList gives it.', minLength: 1, maxLength: 64 };
const id = { type: ['integer', 'string'], description: 'The primary key of a row.', pattern: '^[0-9]{1,15}$', minimum: 1 };

const condition = {
  type: 'object',
  additionalProperties: false,
  required: ['field', 'op'],
  properties: {
    field: { type: 'string', maxLength: 64 },
    op: { type: 'string', enum: [...CONDITION_OPERATORS] },
    value: { description: 'A value of the field’s type; a list for in / notIn, [low, high] for between; text for like (contains) and startsWith; none for isNull / notNull.' },
  },
};

/**
 * A condition, or a group of them nested at most `depth` deep. Spelled out level by level rather
 * than with a `$ref`, so a client that does not follow references still reads the whole shape.
 */
function conditionSchema(depth: number): Record<string, unknown> {
  if (depth === 0) return condition;
  const members = { type: 'array', minItems: 1, maxItems: 50, items: conditionSchema(depth - 1) };
  // One group object holding exactly one of `or` / `and`, so each level appears once.
  return { anyOf: [condition, { type: 'object', additionalProperties: false, minProperties: 1, maxProperties: 1, properties: { or: members, and: members } }] };
}

/** The tools and their argument schemas (JSON Schema, draft 2020-12 subset). */
export const TOOL_DEFINITIONS: readonly ToolDefinition[] = Object.freeze([
  {
    name: 'fwModelList',
    description: 'Lists the data models you may query. Models closed to AI tools are never listed.',
    inputSchema: { type: 'object', properties: {}, additionalProperties: false },
  },
  {
    name: 'fwSchema',
    description: 'Describes one model: its fields, their types, rules and choices, and what you may do with it.',
    inputSchema: { type: 'object', properties: { model }, required: ['model'], additionalProperties: false },
  },
  {
    name: 'fwDataQuery',
    description: `Queries rows of a model with a structured filter on declared fields (never SQL). At most ${AI_ROW_CAP} rows per call (fewer where the data API's page limit is lower); page through the rest.`,
    inputSchema: {
      type: 'object',
      properties: {
        model,
        filter: {
          type: 'object',
          additionalProperties: false,
          properties: {
            conditions: {
              type: 'array',
              maxItems: 50,
              description: 'All must hold. An entry is a condition, or a group { or: [...] } (one must hold) or { and: [...] }; groups nest up to 4 deep, 50 entries in all.',
              items: conditionSchema(MAX_CONDITION_DEPTH),
            },
            sort: {
              type: 'array',
              maxItems: 5,
              items: {
                type: 'object',
                additionalProperties: false,
                required: ['field'],
                properties: { field: { type: 'string', maxLength: 64 }, order: { type: 'string', enum: ['asc', 'desc'] } },
              },
            },
            page: { type: 'integer', minimum: 1 },
            size: { type: 'integer', minimum: 1, maximum: AI_ROW_CAP },
            after: {
              type: 'string',
              maxLength: 2048,
              description: 'cursors.next of an earlier answer (same sort and filter): the rows after it. Cheaper than a page number deep in a table.',
            },
            before: { type: 'string', maxLength: 2048, description: 'cursors.prev of an earlier answer: the rows before it.' },
            last: { type: 'boolean', description: 'true: the final rows of the order.' },
          },
        },
      },
      required: ['model'],
      additionalProperties: false,
    },
  },
  {
    name: 'findFwDataByPk',
    description: 'Reads one row by its primary key.',
    inputSchema: { type: 'object', properties: { model, id }, required: ['model', 'id'], additionalProperties: false },
  },
  {
    name: 'insertFwData',
    description: 'Adds one row. `data` holds field values by field name; the row is validated like the edit form.',
    inputSchema: { type: 'object', properties: { model, data: { type: 'object' } }, required: ['model', 'data'], additionalProperties: false },
  },
  {
    name: 'updateFwData',
    description: 'Changes fields of one row; fields absent from `data` keep their value. Validated like the edit form.',
    inputSchema: { type: 'object', properties: { model, id, data: { type: 'object' } }, required: ['model', 'id', 'data'], additionalProperties: false },
  },
  {
    name: 'deleteFwData',
    description: 'Deletes rows by primary key, all or none.',
    inputSchema: { type: 'object', properties: { model, ids: { type: 'array', minItems: 1, maxItems: 1000, items: id } }, required: ['model', 'ids'], additionalProperties: false },
  },
] satisfies ToolDefinition[]);

type ToolName = (typeof TOOL_DEFINITIONS)[number]['name'];

/**
 * The AI model toolbox: seven tools acting as the calling user, through the data API's own code
 * path (`DataService`), so validation, hooks, row visibility, the operate log (source `ai`) and
 * edit events all apply. Every tool that names a model runs the AI gate first — before any
 * administrator bypass — and then the same permission checks as the HTTP API.
 */
export class FwAiToolbox {
  readonly #data: DataService;
  readonly #validators: Map<string, ValidateFunction>;

  constructor(data: DataService) {
    this.#data = data;
    const ajv = new Ajv({ allErrors: true, strict: false });
    this.#validators = new Map(TOOL_DEFINITIONS.map((t) => [t.name, ajv.compile(t.inputSchema)]));
  }

  /** The tool list. */
  definitions(): readonly ToolDefinition[] {
    return TOOL_DEFINITIONS;
  }

  /**
   * Runs a tool as `actor`.
   * @throws {FwError} `AI_DISABLED` (the gate), `POWER_DENIED`, `MODEL_NOT_FOUND`, `ROW_NOT_FOUND`,
   * validation and query errors, with the same texts the HTTP API uses; `BAD_REQUEST` for
   * arguments that do not fit the tool's schema or an unknown tool.
   */
  async call(name: string, args: unknown, actor: ToolActor): Promise<unknown> {
    const validate = this.#validators.get(name);
    if (!validate) throw new FwError('BAD_REQUEST', `Unknown tool ${JSON.stringify(name)}`);
    const input = (args ?? {}) as Record<string, unknown>;
    // The gate first, before anything else is judged: a closed model answers with the gate's
    // text whatever else is wrong with the call.
    const named = typeof input === 'object' && input !== null && typeof input.model === 'string' ? this.#data.registry.get(input.model) : undefined;
    if (named) aiGate(named);
    if (!validate(input)) {
      const details = (validate.errors ?? []).map((e) => ({
        path: e.instancePath.replace(/^\//, '').replace(/\//g, '.') || '(arguments)',
        type: e.keyword,
        message: e.message ?? 'invalid',
      }));
      throw new FwError('BAD_REQUEST', `Invalid arguments for ${name}: ${details.map((d) => `${d.path} ${d.message}`).join('; ')}`, { details });
    }
    const who = {
      user: actor.user,
      ip: actor.ip,
      source: 'ai' as const,
      ...(actor.grantsVersion !== undefined ? { grantsVersion: actor.grantsVersion } : {}),
      ...(actor.token ? { token: actor.token } : {}),
    };
    if (name === 'fwModelList') return this.#modelList(actor);
    const target = this.#data.model(input.model);
    // The gate reads the definition itself and runs before anything else, administrators included.
    aiGate(target);
    switch (name as Exclude<ToolName, 'fwModelList'>) {
      case 'fwSchema': {
        const power = await this.#data.requirePower(target, who, 'query');
        return { model: modelView(target, this.#data.registry), power };
      }
      case 'fwDataQuery': {
        const filter = (input.filter ?? {}) as Record<string, unknown>;
        const { defaultSize, maxSize } = this.#data.limits;
        const size = Math.min(typeof filter.size === 'number' ? filter.size : defaultSize, maxSize, AI_ROW_CAP);
        const page = await this.#data.query(target.name, who, { ...filter, size });
        return { ...page, rows: page.rows.slice(0, AI_ROW_CAP) };
      }
      case 'findFwDataByPk':
        return this.#data.details(target.name, who, String(input.id));
      case 'insertFwData':
        return this.#data.add(target.name, who, input.data);
      case 'updateFwData':
        return this.#data.update(target.name, who, { ...(input.data as Record<string, unknown>), [target.primaryKey]: input.id });
      case 'deleteFwData':
        return this.#data.delete(target.name, who, { ids: input.ids });
    }
  }

  /** The models the user may query, without those closed to AI. */
  async #modelList(actor: ToolActor): Promise<Array<{ name: string; title: string }>> {
    const out: Array<{ name: string; title: string }> = [];
    for (const candidate of this.#data.registry.list()) {
      if (!isAiVisible(candidate)) continue;
      const power = await this.#data.power(candidate, actor.user, actor.grantsVersion);
      if (power.query) out.push({ name: candidate.name, title: candidate.title });
    }
    return out;
  }
}
