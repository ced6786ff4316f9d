import { CONDITION_OPERATORS, EditType, FwError, isConditionGroup, isObject, positiveInteger, type Condition, type ConditionNode, type ConditionOperator, type FieldDefinition, type ModelDefinition, type StoredKind } from '@fw/core';
import { DIALECT_LIMITS, coerceValue, integerBounds, toDbValues } from '@fw/row-patch';
import type { Knex } from 'knex';
import { columnBounds, parsePageSeek, type PageSeek } from './cursor.js';
import { dataError } from '../error-codes.js';

/** A checked table query. */
export interface TableQuery {
  page: number;
  size: number;
  sort: Array<{ field: string; order: 'asc' | 'desc' }>;
  /** Every entry must hold (AND); an entry may be an `or` / `and` group. */
  conditions: ConditionNode[];
  /** A keyset page: after or before a cursor's row, or the last page (see cursor.ts); absent for a page by number. */
  seek?: PageSeek;
}

/** Bounds of table queries. */
export interface QueryLimits {
  /** Rows per page when the request says nothing. @default 20 */
  defaultSize: number;
  /** Largest page a request may ask for; more is a 400. @default 200 */
  maxSize: number;
  /** Most conditions in one query, counted over the whole tree (every condition and every group). @default 50 */
  maxConditions: number;
  /** Most values of one `in` condition. @default 1000 */
  maxInValues: number;
  /**
   * Largest total a table page counts exactly on its own (`count: 'auto'`): the page counts at most
   * this many rows plus one; a larger total is answered as a labelled estimate (see counts.ts).
   * @default 10000
   */
  exactCountLimit: number;
  /** Longest a full count (`count: 'exact'`, and a background count) may run, in milliseconds; past it the answer is an estimate. @default 3000 */
  countTimeLimitMs: number;
}

/** Defaults of {@link QueryLimits}. */
export const DEFAULT_QUERY_LIMITS: QueryLimits = Object.freeze({ defaultSize: 20, maxSize: 200, maxConditions: 50, maxInValues: 1000, exactCountLimit: 10_000, countTimeLimitMs: 3000 });

const OPERATORS = new Set<string>(CONDITION_OPERATORS);
/** The text operators: a LIKE pattern, only on fields that allow a text search. */
const TEXT_OPERATORS = new Set<string>(['like', 'startsWith']);
/** The comparisons, only on fields whose values have an order. */
const ORDER_OPERATORS = new Set<string>(['gt', 'gte', 'lt', 'lte', 'between']);
/**
 * How deep `or` / `and` groups may nest below the query's own list. Each level is a parenthesis
 * in the SQL and a step of recursion here; four is more than a filter builder offers a person.
 */
export const MAX_CONDITION_DEPTH = 4;
/**
 * Most values of all the `in` / `notIn` conditions of one query together. Each is a bound
 * parameter, and SQLite refuses a statement of more than 32,766 (a 500): fifty conditions of
 * `limits.maxInValues` each would pass every other bound.
 */
export const MAX_CONDITION_VALUES = 10_000;
/** What every dialect's DATE and DATETIME columns can hold; conditions stay within it. */
const TIME_RANGE = DIALECT_LIMITS.postgres;

function bad(message: string, path?: string): FwError {
  return dataError('BAD_QUERY', message, [{ path: path ?? 'query', type: 'query', message }]);
}

/** The declared, stored, non-secret field called `name`, or a 400. */
export function queryableField(model: ModelDefinition, name: unknown, path: string): FieldDefinition {
  const field = typeof name === 'string' && Object.hasOwn(model.fields, name) ? model.fields[name] : undefined;
  if (!field) throw dataError('UNKNOWN_FIELD', `${model.name} has no field ${JSON.stringify(name)}`, [{ path, type: 'unknownField', message: `unknown field ${JSON.stringify(name)}` }]);
  // Secrets and attachments are not queryable (decided by defineModel: core's field-capabilities.ts).
  if (!field.capabilities.queryable) throw bad(`${field.name} cannot be queried`, path);
  return field;
}

function conditionValue(field: FieldDefinition, op: ConditionOperator, value: unknown, path: string, limits: QueryLimits): unknown {
  const one = (v: unknown, p: string): unknown => {
    // PostgreSQL cannot even compare text holding NUL; every dialect answers alike.
    if (typeof v === 'string' && v.includes('\u0000')) throw bad('a condition value must not contain the NUL character', p);
    if (TEXT_OPERATORS.has(op)) {
      if (typeof v !== 'string' || v.length === 0 || v.length > 200) throw bad(`${op} takes a string of 1 to 200 characters`, p);
      return v;
    }
    // Array-valued fields are compared on their stored JSON text only by like.
    const scalar = field.edit.type === EditType.MULTI_CHOICE || field.edit.type === EditType.TAGS ? { ...field, edit: { ...field.edit, type: EditType.INPUT } } : field;
    const result = coerceValue(scalar as FieldDefinition, v);
    if (!result.ok) throw bad(result.message, p);
    if (result.value === null) throw bad('a condition value cannot be empty; use isNull', p);
    // A zone offset can carry a time past 9999 or before 0001 (UTC), which no column holds:
    // MariaDB compared it as some other time and answered with the wrong rows.
    if (field.edit.type === EditType.DATE || field.edit.type === EditType.DATETIME) {
      const range = field.edit.type === EditType.DATE ? TIME_RANGE.date : TIME_RANGE.datetime;
      const text = String(result.value);
      if (text < range.min || text > range.max) throw bad(`${field.name} holds ${field.edit.type === EditType.DATE ? 'dates' : 'times'} from ${range.min} to ${range.max} (UTC)`, p);
    }
    // A number the column cannot hold makes some databases fail the whole query (PostgreSQL).
    // A range open on one side ({ min: 0 }) leaves that side to the column: 32 bits (cursor.ts).
    const declared = integerBounds(field);
    const column = declared && columnBounds(field);
    const bounds = declared && column && { min: Math.max(declared.min, column.min), max: Math.min(declared.max, column.max) };
    if (bounds && typeof result.value === 'number' && (result.value < bounds.min || result.value > bounds.max)) {
      throw bad(`${field.name} holds whole numbers from ${bounds.min} to ${bounds.max}`, p);
    }
    return result.value;
  };
  switch (op) {
    case 'isNull':
    case 'notNull':
      return undefined;
    case 'in':
    case 'notIn': {
      if (!Array.isArray(value) || value.length === 0 || value.length > limits.maxInValues) throw bad(`${op} takes an array of 1 to ${limits.maxInValues} values`, path);
      return value.map((v, i) => one(v, `${path}[${i}]`));
    }
    case 'between': {
      if (!Array.isArray(value) || value.length !== 2) throw bad('between takes [low, high]', path);
      return [one(value[0], `${path}[0]`), one(value[1], `${path}[1]`)];
    }
    default:
      return one(value, path);
  }
}

const CONDITION_SHAPE = 'a condition is { field, op, value }, or a group { or: [...] } or { and: [...] }';

/** One `{ field, op, value }`, checked against the model. */
function parseCondition(model: ModelDefinition, c: Record<string, unknown>, path: string, limits: QueryLimits): Condition {
  const field = queryableField(model, c.field, `${path}.field`);
  const op = c.op ?? 'eq';
  if (typeof op !== 'string' || !OPERATORS.has(op)) throw bad(`unknown operator ${JSON.stringify(op)} (known: ${CONDITION_OPERATORS.join(', ')})`, `${path}.op`);
  if (TEXT_OPERATORS.has(op) && !field.capabilities.textSearch) throw bad(`${op} works on text fields, not on ${field.name}`, `${path}.op`);
  if (ORDER_OPERATORS.has(op) && !field.capabilities.ordered) throw bad(`${op} does not apply to ${field.name}`, `${path}.op`);
  return { field: field.name, op: op as ConditionOperator, value: conditionValue(field, op as ConditionOperator, c.value, `${path}.value`, limits) };
}

/**
 * Checks conditions against the model: declared fields, known operators, values of the field's
 * type. An entry may be a group `{ or: [...] }` or `{ and: [...] }` (nested at most
 * {@link MAX_CONDITION_DEPTH} deep); the whole tree holds at most `limits.maxConditions` entries,
 * groups included, and at most {@link MAX_CONDITION_VALUES} `in` / `notIn` values. Every error names the place, e.g. `conditions[1].or[0].value`.
 * @throws {FwError} 400 `BAD_QUERY` / `UNKNOWN_FIELD`.
 */
export function parseConditions(model: ModelDefinition, raw: unknown, limits: QueryLimits = DEFAULT_QUERY_LIMITS, base = 'conditions'): ConditionNode[] {
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw)) throw bad('conditions must be an array of { field, op, value }', base);
  if (raw.length > limits.maxConditions) throw bad(`at most ${limits.maxConditions} conditions`, base);
  let seen = 0;
  let values = 0;
  const list = (items: unknown[], path: string, depth: number): ConditionNode[] =>
    items.map((c: unknown, i) => {
      const at = `${path}[${i}]`;
      // Counted before it is read: a tree of nested groups is refused before it is walked further.
      if (++seen > limits.maxConditions) throw bad(`at most ${limits.maxConditions} conditions in all, groups included`, at);
      if (!isObject(c)) throw bad(CONDITION_SHAPE, at);
      const kind = Object.hasOwn(c, 'or') ? 'or' : Object.hasOwn(c, 'and') ? 'and' : undefined;
      if (!kind) {
        const condition = parseCondition(model, c, at, limits);
        if (Array.isArray(condition.value) && (condition.op === 'in' || condition.op === 'notIn') && (values += condition.value.length) > MAX_CONDITION_VALUES) {
          throw bad(`at most ${MAX_CONDITION_VALUES} values in all the in and notIn conditions of a query`, `${at}.value`);
        }
        return condition;
      }
      if (Object.keys(c).length !== 1) throw bad(CONDITION_SHAPE, at);
      const members = c[kind];
      if (!Array.isArray(members) || members.length === 0) throw bad(`${kind} takes an array of 1 or more conditions`, `${at}.${kind}`);
      if (depth >= MAX_CONDITION_DEPTH) throw bad(`groups nest at most ${MAX_CONDITION_DEPTH} deep`, `${at}.${kind}`);
      const nested = list(members, `${at}.${kind}`, depth + 1);
      return kind === 'or' ? { or: nested } : { and: nested };
    });
  return list(raw, base, 0);
}

/** `nodes` with each condition on a field replaced by `f(condition)`, groups kept as they are. */
export function mapConditions(nodes: readonly ConditionNode[], f: (c: Condition) => Condition): ConditionNode[] {
  return nodes.map((n) => {
    if (!isConditionGroup(n)) return f(n);
    return n.or ? { or: mapConditions(n.or, f) } : { and: mapConditions(n.and ?? [], f) };
  });
}

/** A page number or size: `fallback` when absent, else a whole number from 1 to `max` (core's `positiveInteger`, any size, so a large one is "at most"). */
function pageNumber(value: unknown, fallback: number, path: string, max: number): number {
  if (value === undefined || value === null) return fallback;
  const n = positiveInteger(value, { anySize: true });
  if (n === undefined) throw bad(`${path} must be a whole number of at least 1`, path);
  if (n > max) throw bad(`${path} must be at most ${max}`, path);
  return n;
}

/**
 * Checks a table-query body `{ page, size, sort, conditions }`. `sort` is `[{ field, order }]` or
 * `"field"` / `"field,desc"`; none (or `[]`) means the model's `orderBy`. Every field must be
 * declared and queryable.
 * @throws {FwError} 400 `BAD_QUERY` / `UNKNOWN_FIELD` naming the offending part.
 */
export function parseTableQuery(model: ModelDefinition, body: unknown, limits: QueryLimits = DEFAULT_QUERY_LIMITS): TableQuery {
  if (body !== undefined && body !== null && !isObject(body)) throw bad('the query body must be an object');
  const input = (body ?? {}) as Record<string, unknown>;
  const page = pageNumber(input.page, 1, 'page', 1_000_000);
  const size = pageNumber(input.size, limits.defaultSize, 'size', limits.maxSize);
  const rawSort = typeof input.sort === 'string' ? input.sort.split(';').filter(Boolean).map((s) => { const [field, order] = s.split(','); return { field, order }; }) : input.sort;
  if (rawSort !== undefined && rawSort !== null && !Array.isArray(rawSort)) throw bad('sort must be [{ field, order }] or "field,desc"', 'sort');
  const sort = ((rawSort as unknown[] | undefined) ?? []).slice(0, 5).map((s, i) => {
    if (!isObject(s)) throw bad('a sort entry is { field, order }', `sort[${i}]`);
    const field = queryableField(model, s.field, `sort[${i}].field`);
    if (!field.capabilities.sortable) throw bad(`${field.name} is not sortable`, `sort[${i}].field`);
    const order = s.order === undefined ? 'asc' : String(s.order).toLowerCase();
    if (order !== 'asc' && order !== 'desc') throw bad('order is asc or desc', `sort[${i}].order`);
    return { field: field.name, order: order as 'asc' | 'desc' };
  });
  // A request that names no sort gets the model's default (`defineModel({ orderBy })`, issue 20 §5).
  const sorted = sort.length > 0 ? sort : model.orderBy.map((s) => ({ field: s.field, order: s.order }));
  const conditions = parseConditions(model, input.conditions, limits);
  const seek = parsePageSeek(model, input, sorted);
  return { page, size, sort: sorted, conditions, ...(seek ? { seek } : {}) };
}

/** A table-query body as the table route takes it: the query and its count strategy. */
export interface TableRequest extends TableQuery {
  count: CountMode;
}

/**
 * The whole table-query body: {@link parseTableQuery}, then `count` (`countMode`), in that order.
 * @throws {FwError} 400 `BAD_QUERY` / `UNKNOWN_FIELD` as those do.
 */
export function parseTableRequest(model: ModelDefinition, body: unknown, limits: QueryLimits): TableRequest {
  const query = parseTableQuery(model, body, limits) as TableRequest;
  // Put on the object the parser made rather than copied into another one: the table is a hot path.
  query.count = countMode(body);
  return query;
}

/** How a table page counts its total (the request's `count`). */
export type CountMode = 'auto' | 'exact' | 'none';

const MODES: readonly string[] = ['auto', 'exact', 'none'] satisfies CountMode[];

/**
 * The count strategy of a table-query body: `count` is `'auto'` (the default), `'exact'` or `'none'`.
 * @throws {FwError} 400 `BAD_QUERY` at path `count` for anything else.
 */
export function countMode(body: unknown): CountMode {
  const value = isObject(body) ? body.count : undefined;
  if (value === undefined || value === null) return 'auto';
  if (typeof value === 'string' && MODES.includes(value)) return value as CountMode;
  const message = `count is one of ${MODES.join(', ')}`;
  throw dataError('BAD_QUERY', message, [{ path: 'count', type: 'query', message }]);
}

/** `value` inside a LIKE pattern, with `!` as the escape character (the same in every dialect). */
export function likePattern(value: string): string {
  return `%${escapeLike(value)}%`;
}

/** The pattern of `startsWith`: `value` escaped as in {@link likePattern}, then any rest. */
export function prefixPattern(value: string): string {
  return `${escapeLike(value)}%`;
}

function escapeLike(value: string): string {
  // `[` too: SQL Server reads `[a-z]` in a LIKE pattern as a set of characters.
  return value.replace(/[!%_[]/g, (c) => `!${c}`);
}

/** A form value of `field` as the database stores it (dates as the driver binds them, booleans, …). */
function storedValue(model: ModelDefinition, field: FieldDefinition, value: unknown): unknown {
  if (typeof value === 'string' && (field.edit.type === EditType.MULTI_CHOICE || field.edit.type === EditType.TAGS)) return value;
  return toDbValues(model, { [field.name]: value })[field.column];
}

/**
 * Adds conditions to a knex query; field names are mapped to declared columns only, values to
 * their stored form. Conditions from `beforeFetch` go through here too, unchecked by
 * {@link parseConditions} but still limited to declared fields.
 */
export function applyConditions(qb: Knex.QueryBuilder, model: ModelDefinition, conditions: readonly ConditionNode[], table = model.table): Knex.QueryBuilder {
  return applyStoredConditions(qb, model, storedConditions(model, conditions, qb.client.dialect as string | undefined), table);
}

/**
 * An `in` / `notIn` list bound as one JSON text instead of one parameter per value. SQL Server
 * takes at most 2,100 parameters in a statement and a query may carry {@link MAX_CONDITION_VALUES}
 * values, so there a long list becomes `col IN (SELECT CAST([value] AS type) FROM OPENJSON(?))`.
 * `json` is the JSON text, or the slot a compiled page plan puts it in (rows.ts).
 */
export class JsonList {
  constructor(readonly json: unknown) {}
}

/**
 * Longest `in` / `notIn` list SQL Server gets inline (a parameter per value); a longer one is a
 * {@link JsonList}. Short lists keep the plain form the optimizer knows best; at this size the
 * default bound of 50 conditions stays far below 2,100 parameters (50 × 16 = 800).
 */
export const MSSQL_INLINE_VALUES = 16;

// The column type a JSON value is cast to, per stored kind (store's model-table-columns.ts makes
// the columns: int for integers, float, nvarchar, date, datetime2, bit). Integers as bigint, so a
// wider key column than int compares alike; datetimes arrive as ISO text ending in Z, which
// datetime2 does not read but datetimeoffset does.
const MSSQL_CAST: Record<StoredKind, (value: string) => string> = {
  string: (v) => `CAST(${v} AS nvarchar(max))`,
  text: (v) => `CAST(${v} AS nvarchar(max))`,
  integer: (v) => `CAST(${v} AS bigint)`,
  number: (v) => `CAST(${v} AS float)`,
  boolean: (v) => `CAST(${v} AS bit)`,
  date: (v) => `CAST(${v} AS date)`,
  datetime: (v) => `CAST(CAST(${v} AS datetimeoffset) AS datetime2)`,
};

/**
 * The conditions with their values in stored form, as {@link applyConditions} binds them (a
 * `like` or `startsWith` value as its escaped pattern), groups kept. On `dialect` `mssql` an
 * `in` / `notIn` list longer than {@link MSSQL_INLINE_VALUES} becomes a {@link JsonList}.
 * @throws {Error} for a condition on a field that is not stored.
 */
export function storedConditions(model: ModelDefinition, conditions: readonly ConditionNode[], dialect?: string): ConditionNode[] {
  return mapConditions(conditions, (raw) => {
    const field = Object.hasOwn(model.fields, raw.field) ? model.fields[raw.field] : undefined;
    if (!field || !field.stored) throw new Error(`${model.name}: a condition names ${JSON.stringify(raw.field)}, which is not a stored field`);
    const convert = (v: unknown) => (raw.op === 'like' ? likePattern(String(v)) : raw.op === 'startsWith' ? prefixPattern(String(v)) : storedValue(model, field, v));
    const value = Array.isArray(raw.value) ? raw.value.map(convert) : raw.value === undefined ? undefined : convert(raw.value);
    if (dialect === 'mssql' && (raw.op === 'in' || raw.op === 'notIn') && Array.isArray(value) && value.length > MSSQL_INLINE_VALUES) {
      return { ...raw, value: new JsonList(JSON.stringify(value)) as unknown as Condition['value'] };
    }
    return { ...raw, value: value as Condition['value'] };
  });
}

/**
 * Stored conditions with each value replaced by `put(value)` (the slot of a compiled plan): a
 * list value by value, a {@link JsonList} as its one JSON text; a null stays (knex writes
 * `IS NULL` for it, not a binding).
 */
export function slotConditions(conditions: readonly ConditionNode[], put: (value: unknown) => unknown): ConditionNode[] {
  return mapConditions(conditions, (c) => {
    const value = c.value instanceof JsonList ? new JsonList(put(c.value.json)) : Array.isArray(c.value) ? c.value.map(put) : c.value === undefined || c.value === null ? c.value : put(c.value);
    return { ...c, value } as Condition;
  });
}

/** {@link applyConditions} for conditions whose values are already in stored form ({@link storedConditions}). */
export function applyStoredConditions(qb: Knex.QueryBuilder, model: ModelDefinition, conditions: readonly ConditionNode[], table = model.table): Knex.QueryBuilder {
  for (const node of conditions) {
    if (isConditionGroup(node)) {
      // Each group is one parenthesised term ANDed with its siblings, so an `or` inside it can
      // never reach past it: row visibility, ANDed beside the user's groups, always holds.
      // An `or` of nothing holds for no row. The parser refuses it, but a `beforeFetch` filter is
      // not parsed, and knex drops an empty parenthesis: the table would open to every row.
      if (node.or && node.or.length === 0) qb.whereRaw('1 = 0');
      else if (node.or) qb.where((w) => void node.or.forEach((member) => w.orWhere((one) => void applyStoredConditions(one, model, [member], table))));
      else qb.where((w) => void applyStoredConditions(w, model, node.and ?? [], table));
      continue;
    }
    applyCondition(qb, model, node, table);
  }
  return qb;
}

function applyCondition(qb: Knex.QueryBuilder, model: ModelDefinition, c: Condition, table: string): void {
  const field = Object.hasOwn(model.fields, c.field) ? model.fields[c.field] : undefined;
  if (!field || !field.stored) throw new Error(`${model.name}: a condition names ${JSON.stringify(c.field)}, which is not a stored field`);
  const column = `${table}.${field.column}`;
  switch (c.op) {
    case 'eq':
      qb.where(column, c.value as Knex.Value);
      break;
    case 'ne':
      qb.where((w) => w.whereNot(column, c.value as Knex.Value).orWhereNull(column));
      break;
    case 'gt':
      qb.where(column, '>', c.value as Knex.Value);
      break;
    case 'gte':
      qb.where(column, '>=', c.value as Knex.Value);
      break;
    case 'lt':
      qb.where(column, '<', c.value as Knex.Value);
      break;
    case 'lte':
      qb.where(column, '<=', c.value as Knex.Value);
      break;
    case 'between': {
      const [low, high] = c.value as [Knex.Value, Knex.Value];
      qb.whereBetween(column, [low, high]);
      break;
    }
    case 'in':
      if (c.value instanceof JsonList) qb.whereRaw(`?? IN (SELECT ${MSSQL_CAST[field.capabilities.storedKind ?? 'text']('[value]')} FROM OPENJSON(?))`, [column, c.value.json as Knex.Value]);
      else qb.whereIn(column, c.value as Knex.Value[]);
      break;
    case 'notIn':
      // Like `ne`: an empty cell is not one of the values either.
      if (c.value instanceof JsonList) qb.whereRaw(`(?? NOT IN (SELECT ${MSSQL_CAST[field.capabilities.storedKind ?? 'text']('[value]')} FROM OPENJSON(?)) OR ?? IS NULL)`, [column, c.value.json as Knex.Value, column]);
      else qb.where((w) => w.whereNotIn(column, c.value as Knex.Value[]).orWhereNull(column));
      break;
    case 'like':
    case 'startsWith':
      qb.whereRaw(`LOWER(??) LIKE LOWER(?) ESCAPE '!'`, [column, c.value as Knex.Value]);
      break;
    case 'isNull':
      qb.whereNull(column);
      break;
    case 'notNull':
      qb.whereNotNull(column);
      break;
    default:
      // Never skip an unknown operator: it may be a row-visibility filter.
      throw new Error(`${model.name}: unknown condition operator ${JSON.stringify(c.op)} on ${c.field}`);
  }
}
