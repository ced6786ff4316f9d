import { EditType, FwError, isObject, type Condition, type DataHookContext, type FieldDefinition, type ModelDefinition, type ModelRegistry } from '@fw/core';
import { integerBounds, toFormRow, type FormRow } from '@fw/row-patch';
import type { Knex } from 'knex';
import { dataError } from '../error-codes.js';
import { applyConditions, likePattern, type QueryLimits } from './query.js';

/** Fields a model's rows are named by when a reference does not say (the first one the model has wins). */
export const LABEL_FIELD_CANDIDATES: readonly string[] = Object.freeze(['name', 'title', 'label', 'account', 'code']);

/** Labels of the reference and collection values of a table page: field → id → label. */
export type ReferenceLabels = Record<string, Record<string, string>>;

/** One candidate of a reference or collection field. */
export interface ReferenceCandidate {
  id: number;
  label: string;
  /** Tree references only: the candidate's parent (null at the top). */
  parentId?: number | null;
}

/** The answer of the candidates route. */
export interface ReferenceCandidatePage {
  rows: ReferenceCandidate[];
  total: number;
  page: number;
  size: number;
}

/** What the reference helpers need of the data service. */
export interface ReferenceDeps {
  knex: Knex;
  registry: ModelRegistry;
  limits: QueryLimits;
  /** The referenced model's row-visibility conditions (its `beforeFetch`), for this actor. */
  visibility(model: ModelDefinition, action: DataHookContext['action']): Promise<Condition[]>;
}

/** Where a reference or collection field points, with the field its rows are labelled by. */
export interface ReferenceTarget {
  field: FieldDefinition;
  target: ModelDefinition;
  labelField: string;
  /** A REFERENCE_TREE field into a model with a tree parent field: candidates carry `parentId`. */
  tree: boolean;
}

/** Largest page of the candidates route for a tree picker, which needs the whole tree at once. */
export const TREE_CANDIDATES_MAX = 1000;

/** Ids asked for in one statement when reading labels (below SQL Server's 2,100 parameters, with room for visibility conditions). */
export const ID_CHUNK = 1000;

const TEXTUAL = new Set<string>([EditType.INPUT, EditType.TEXTAREA, EditType.CHOICE, EditType.HIDDEN]);

/** Whether the label can be searched with `like` (text columns only: PostgreSQL has no LOWER of a number). */
function searchable(field: FieldDefinition): boolean {
  return TEXTUAL.has(field.edit.type) && !field.edit.integer;
}

/**
 * The field `target`'s rows are labelled by: `declared` when given, else the first of
 * {@link LABEL_FIELD_CANDIDATES} that is a stored, non-secret field, else the primary key.
 */
export function labelFieldOf(target: ModelDefinition, declared?: string): string {
  if (declared !== undefined) return declared;
  const found = LABEL_FIELD_CANDIDATES.find((name) => {
    const f = Object.hasOwn(target.fields, name) ? target.fields[name] : undefined;
    return f !== undefined && f.stored && !f.capabilities.secret;
  });
  return found ?? target.primaryKey;
}

/** The target of a REFERENCE_TABLE, REFERENCE_TREE or COLLECTION field; undefined for other fields. */
export function referenceTarget(registry: ModelRegistry, field: FieldDefinition): ReferenceTarget | undefined {
  const options = field.edit.reference ?? field.edit.collection;
  if (!options) return undefined;
  const target = registry.get(options.model);
  if (!target) return undefined;
  return {
    field,
    target,
    labelField: labelFieldOf(target, options.labelField),
    tree: field.edit.type === EditType.REFERENCE_TREE && target.treeParentField !== undefined,
  };
}

/** A reference value as a row id, or undefined when it cannot name a row. */
function idOf(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isSafeInteger(value) && value > 0 ? value : undefined;
}

function labelText(value: unknown, id: number): string {
  if (value === null || value === undefined || value === '') return String(id);
  return Array.isArray(value) ? value.join(', ') : String(value);
}

function column(model: ModelDefinition, name: string): string {
  return `${model.table}.${model.fields[name]!.column}`;
}

/**
 * The labels of every reference and collection value in `rows`, read with one query per
 * referenced model (however many fields and rows point at it), through that model's row
 * visibility: a row its `beforeFetch` hides gets no label, so its text does not leak.
 */
export async function tableLabels(deps: ReferenceDeps, model: ModelDefinition, rows: readonly FormRow[]): Promise<ReferenceLabels> {
  const labels: ReferenceLabels = {};
  const byTarget = new Map<ModelDefinition, Array<{ ref: ReferenceTarget; ids: Set<number> }>>();
  for (const field of Object.values(model.fields)) {
    const ref = referenceTarget(deps.registry, field);
    if (!ref) continue;
    labels[field.name] = {};
    const ids = new Set<number>();
    for (const row of rows) {
      const value = row[field.name];
      for (const v of Array.isArray(value) ? value : [value]) {
        const id = idOf(v);
        if (id !== undefined) ids.add(id);
      }
    }
    if (ids.size === 0) continue;
    const list = byTarget.get(ref.target) ?? [];
    list.push({ ref, ids });
    byTarget.set(ref.target, list);
  }
  for (const [target, refs] of byTarget) {
    const bounds = integerBounds(target.fields[target.primaryKey]!);
    const ids = [...new Set(refs.flatMap((r) => [...r.ids]))].filter((id) => !bounds || id <= bounds.max);
    if (ids.length === 0) continue;
    const labelNames = [...new Set(refs.map((r) => r.ref.labelField))];
    const columns = [...new Set([target.primaryKey, ...labelNames])].map((name) => column(target, name));
    const visibility = await deps.visibility(target, 'query');
    const found = new Map<number, FormRow>();
    // A page of rows with multi-valued references can name thousands of ids; SQL Server binds at
    // most 2,100 values a statement, so they are asked for ID_CHUNK at a time.
    for (let i = 0; i < ids.length; i += ID_CHUNK) {
      const qb = deps.knex(target.table).select(columns).whereIn(column(target, target.primaryKey), ids.slice(i, i + ID_CHUNK));
      applyConditions(qb, target, visibility);
      for (const raw of (await qb) as Array<Record<string, unknown>>) {
        const row = toFormRow(target, raw);
        found.set(Number(row[target.primaryKey]), row);
      }
    }
    for (const { ref, ids: wanted } of refs) {
      const out = labels[ref.field.name]!;
      for (const id of wanted) {
        const row = found.get(id);
        if (row) out[String(id)] = labelText(row[ref.labelField], id);
      }
    }
  }
  return labels;
}

function bad(message: string, path: string): FwError {
  return dataError('BAD_QUERY', message, [{ path, type: 'query', message }]);
}

function wholeNumber(value: unknown, fallback: number, path: string, max: number): number {
  if (value === undefined || value === null) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) throw bad(`${path} must be a whole number of at least 1`, path);
  if (value > max) throw bad(`${path} must be at most ${max}`, path);
  return value;
}

/** The candidates body `{ search?, page?, size?, ids? }`, checked. */
/** A checked candidates body: `{ search?, page?, size?, ids? }`. */
export interface CandidatesQuery {
  search?: string;
  page: number;
  size: number;
  ids?: number[];
}

/**
 * The candidates body of a field whose target is (`tree`) or is not a tree.
 * @throws {FwError} 400 `BAD_QUERY` naming the part.
 */
export function readCandidatesBody(body: unknown, tree: boolean, limits: QueryLimits): CandidatesQuery {
  if (body !== undefined && body !== null && !isObject(body)) throw bad('the body must be { search?, page?, size?, ids? }', 'body');
  const input = (body ?? {}) as Record<string, unknown>;
  for (const key of Object.keys(input)) if (!['search', 'page', 'size', 'ids'].includes(key)) throw bad(`unknown key ${JSON.stringify(key)} (known: search, page, size, ids)`, key);
  const { search, ids } = input;
  if (search !== undefined && search !== null && (typeof search !== 'string' || search.length > 200 || search.includes('\u0000'))) {
    throw bad('search must be a text of at most 200 characters', 'search');
  }
  let idList: number[] | undefined;
  if (ids !== undefined && ids !== null) {
    if (!Array.isArray(ids) || ids.length > TREE_CANDIDATES_MAX) throw bad(`ids must be an array of at most ${TREE_CANDIDATES_MAX} row ids`, 'ids');
    idList = [
      ...new Set(
        ids.map((id, i) => {
          if (idOf(id) === undefined) throw bad('a row id is a positive whole number', `ids[${i}]`);
          return id as number;
        }),
      ),
    ];
  }
  return {
    ...(typeof search === 'string' && search.trim() !== '' ? { search: search.trim() } : {}),
    page: wholeNumber(input.page, 1, 'page', 1_000_000),
    size: wholeNumber(input.size, idList ? Math.max(1, idList.length) : limits.defaultSize, 'size', tree || idList ? TREE_CANDIDATES_MAX : limits.maxSize),
    ...(idList ? { ids: idList } : {}),
  };
}

/**
 * One page of the rows a reference or collection field of `model` may point at, as
 * `{ id, label, parentId? }`, through the referenced model's row visibility. `search` is a
 * case-insensitive substring of the label; `ids` returns just those rows (the labels of a form's
 * current value). The caller checks the actor's power on `model` first.
 * @throws {FwError} 400 `UNKNOWN_FIELD` for a field that is not a reference or collection of `model`; 400 `BAD_QUERY` for a bad body.
 */
export async function referenceCandidates(deps: ReferenceDeps, model: ModelDefinition, fieldName: string, body: unknown): Promise<ReferenceCandidatePage> {
  const ref = referenceOf(deps.registry, model, fieldName);
  return candidatePage(deps, ref, readCandidatesBody(body, ref.tree, deps.limits));
}

/**
 * What the reference or collection field `fieldName` of `model` points at.
 * @throws {FwError} 400 `UNKNOWN_FIELD` (path `field`) for a name that is no such field.
 */
export function referenceOf(registry: ModelRegistry, model: ModelDefinition, fieldName: string): ReferenceTarget {
  const field = Object.hasOwn(model.fields, fieldName) ? model.fields[fieldName] : undefined;
  const ref = field ? referenceTarget(registry, field) : undefined;
  if (!ref) {
    const message = field ? `${model.name}.${fieldName} is not a reference or collection field` : `${model.name} has no field ${JSON.stringify(fieldName)}`;
    throw dataError('UNKNOWN_FIELD', message, [{ path: 'field', type: 'unknownField', message }]);
  }
  return ref;
}

/** One page of the candidates of `ref` for a checked body. */
export async function candidatePage(deps: ReferenceDeps, ref: ReferenceTarget, query: CandidatesQuery): Promise<ReferenceCandidatePage> {
  const { target, labelField } = ref;
  const pk = column(target, target.primaryKey);
  const label = target.fields[labelField]!;
  const conditions = await deps.visibility(target, 'query');
  const filtered = (qb: Knex.QueryBuilder): Knex.QueryBuilder => {
    applyConditions(qb, target, conditions);
    if (query.ids) {
      const bounds = integerBounds(target.fields[target.primaryKey]!);
      const ids = query.ids.filter((id) => !bounds || id <= bounds.max);
      if (ids.length === 0) qb.whereRaw('1 = 0');
      else qb.whereIn(pk, ids);
    }
    if (query.search !== undefined) {
      if (searchable(label)) qb.whereRaw(`LOWER(??) LIKE LOWER(?) ESCAPE '!'`, [column(target, labelField), likePattern(query.search)]);
      // A label that is no text (a number, a date) is matched whole, as the id is.
      else if (labelField === target.primaryKey && /^\d{1,15}$/.test(query.search)) qb.where(pk, Number(query.search));
      else qb.whereRaw('1 = 0');
    }
    return qb;
  };
  const parentField = ref.tree ? target.treeParentField : undefined;
  const names = [...new Set([target.primaryKey, labelField, ...(parentField ? [parentField] : [])])];
  const select = filtered(deps.knex(target.table).select(names.map((n) => column(target, n))))
    .orderBy(column(target, labelField), 'asc')
    .orderBy(pk, 'asc')
    .limit(query.size);
  if (query.page > 1) select.offset((query.page - 1) * query.size);
  const [raw, counted] = (await Promise.all([select, filtered(deps.knex(target.table).count({ n: '*' }))])) as [Array<Record<string, unknown>>, Array<Record<string, unknown>>];
  const rows = raw.map((r) => {
    const row = toFormRow(target, r);
    const id = Number(row[target.primaryKey]);
    return {
      id,
      label: labelText(row[labelField], id),
      ...(parentField ? { parentId: idOf(row[parentField]) ?? null } : {}),
    };
  });
  return { rows, total: Number(counted[0]?.n ?? 0), page: query.page, size: query.size };
}
