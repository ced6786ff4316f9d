// What a write is checked against before and while it reaches the database: the request body,
// the row schema and the model's `validate` hook, references that must exist (and trees that must
// not loop), and the database's own constraint errors turned into client errors.
import { EditType, FwError, isObject, type DataHookContext, type FieldDefinition, type FwErrorDetail, type ModelDefinition, type ModelRegistry, type PasswordPolicy } from '@fw/core';
import { readEntity, validateRow, type FormRow, type StorageDialect } from '@fw/row-patch';
import { classifyDbError, violationConcerns } from '@fw/store';
import type { Knex } from 'knex';
import { dataError } from '../error-codes.js';
import { isSecret, secretGiven } from './secrets.js';
import { pkColumn } from '../read/row-keys.js';
import { sameValue } from './row-changes.js';

/**
 * The field values of an add or update body, checked against the model. For an update, the
 * stored row lets the edit form send read-only fields back unchanged.
 * @throws {FwError} 400 `BAD_REQUEST`, `UNKNOWN_FIELD`, `READONLY_FIELD`; 422 `VALIDATION_FAILED`.
 */
/** 422 `VALIDATION_FAILED` with the fields' details. */
export function validationError(details: FwErrorDetail[], message = 'The row is not valid'): FwError {
  return new FwError('VALIDATION_FAILED', message, { details });
}

export function readBody(model: ModelDefinition, body: unknown, mode: 'add' | 'update', stored?: FormRow): FormRow {
  if (!isObject(body)) throw new FwError('BAD_REQUEST', 'The body must be a JSON object');
  let input = body;
  if (mode === 'update' && stored) {
    // The edit form sends the whole entity back, read-only fields included: unchanged ones are fine.
    // Own fields only: a key such as `toString` must reach readEntity and be refused there.
    const field = (k: string) => (Object.hasOwn(model.fields, k) ? model.fields[k] : undefined);
    input = Object.fromEntries(Object.entries(body).filter(([k, v]) => !(field(k)?.edit.readonly && !field(k)?.primaryKey && sameValue(v, stored[k]))));
    delete input[model.primaryKey];
  }
  const { values, errors } = readEntity(model, input, mode);
  if (errors.length > 0) {
    const unknown = errors.filter((e) => e.type === 'unknownField');
    if (unknown.length > 0) throw dataError('UNKNOWN_FIELD', `${model.name} has no field ${unknown.map((e) => e.path).join(', ')}`, unknown);
    const readonly = errors.filter((e) => e.type === 'readonly');
    if (readonly.length > 0) throw dataError('READONLY_FIELD', undefined, readonly);
    throw validationError(errors, 'Some values have the wrong type');
  }
  return values;
}

/**
 * The fields of `model` that hold sign-in passwords: PASSWORD fields written to
 * `fw_user.password_hash`, the column the login reads (FwUser's `password`, or a host's own model
 * over that table).
 */
function signInPasswordFields(model: ModelDefinition): FieldDefinition[] {
  if (model.table !== 'fw_user') return [];
  return Object.values(model.fields).filter((f) => f.stored && f.column === 'password_hash' && isSecret(f));
}

/**
 * The password-policy refusals of a row about to be written: each sign-in password it sets (an
 * empty one keeps the stored password and is not checked), against the row's account. The same
 * policy as change-pwd, the first administrator and the CLI (issue 19 §2).
 */
export function passwordRefusals(model: ModelDefinition, row: Readonly<FormRow>, policy: PasswordPolicy | undefined): FwErrorDetail[] {
  if (!policy) return [];
  const details: FwErrorDetail[] = [];
  for (const field of signInPasswordFields(model)) {
    const value = row[field.name];
    if (!secretGiven(value)) continue;
    const account = typeof row.account === 'string' ? row.account : null;
    details.push(...policy.check(String(value), { account, path: field.name }));
  }
  return details;
}

/**
 * The whole row against the schema and, for a user's password, the password policy; then the
 * model's `validate` hook. @throws {FwError} 422 `VALIDATION_FAILED`.
 */
export async function validateWholeRow(model: ModelDefinition, row: FormRow, context: DataHookContext, dialect: StorageDialect, policy?: PasswordPolicy): Promise<void> {
  const details = [...(await validateRow(model, row, { dialect })), ...passwordRefusals(model, row, policy)];
  if (details.length > 0) throw validationError(details);
  const extra = await model.dataProxy.validate?.(row, context);
  if (Array.isArray(extra) && extra.length > 0) {
    throw validationError(extra.map((e) => ({ path: e.path ?? '', type: e.type ?? 'validate', message: e.message })));
  }
}

/**
 * A constraint or value error of the database on a write to `model`, as the client error it is:
 * a taken unique key is 409 `CONFLICT`, a missing referenced row, a null in a NOT NULL column or
 * a value the column refuses is 422 `VALIDATION_FAILED`, each naming the field where the driver
 * tells which column (`row` supplies the value when the driver does not print it).
 */
export function violationError(model: ModelDefinition, error: unknown, row?: Readonly<FormRow>): FwError | undefined {
  const violation = classifyDbError(error);
  if (!violation) return undefined;
  const field = Object.values(model.fields).find(
    (f) => (f.stored && violationConcerns(violation, model.table, f.column)) || (f.edit.collection !== undefined && violationConcerns(violation, f.edit.collection.joinTable, f.edit.collection.foreignKey)),
  );
  const title = field?.edit.title ?? 'a value';
  const at = field ? { path: field.name } : {};
  const given = field && row && Object.hasOwn(row, field.name) ? row[field.name] : undefined;
  const value = violation.value !== undefined ? JSON.stringify(violation.value) : given !== undefined && given !== null ? JSON.stringify(given) : undefined;
  switch (violation.kind) {
    case 'unique': {
      const message = `${title}${value === undefined ? '' : ` ${value}`} is already taken`;
      return new FwError('CONFLICT', `${model.name}: ${message}`, { details: [{ ...at, type: 'unique', message }], cause: error });
    }
    case 'stillReferenced':
      return new FwError('CONFLICT', `${model.name}: other rows still refer to this row`, { details: [{ path: model.primaryKey, type: 'referenced', message: 'other rows still refer to this row' }], cause: error });
    case 'missingReference':
      return new FwError('VALIDATION_FAILED', 'The row is not valid', { details: [{ ...at, type: 'reference', message: `${title} names a row that does not exist` }], cause: error });
    case 'notNull':
      return new FwError('VALIDATION_FAILED', 'The row is not valid', { details: [{ ...at, type: 'required', message: `${title} is a required field` }], cause: error });
    case 'outOfRange':
    case 'invalidValue':
      return new FwError('VALIDATION_FAILED', 'The row is not valid', { details: [{ ...at, type: 'typeError', message: `${title} cannot be stored in its column` }], cause: error });
  }
}

/** Runs one write statement on `model`, turning a constraint error into its client error. */
export async function writing<T>(model: ModelDefinition, row: Readonly<FormRow> | undefined, work: () => PromiseLike<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw violationError(model, error, row) ?? error;
  }
}

/**
 * References and collections of `row` must name existing rows of their model (when that model is
 * registered): a 422 naming each field that points nowhere. Only values that differ from
 * `stored` are checked, so a row whose old reference went stale can still be edited.
 */
export async function checkReferences(registry: ModelRegistry, model: ModelDefinition, db: Knex, row: Readonly<FormRow>, stored?: Readonly<FormRow>): Promise<void> {
  const details: FwErrorDetail[] = [];
  for (const field of Object.values(model.fields)) {
    const targetName = field.edit.reference?.model ?? field.edit.collection?.model;
    if (targetName === undefined || !Object.hasOwn(row, field.name)) continue;
    const target = registry.get(targetName);
    const value = row[field.name];
    if (!target || value === null || value === undefined || (stored && sameValue(value, stored[field.name]))) continue;
    const ids = (Array.isArray(value) ? value : [value]).filter((v): v is number => typeof v === 'number');
    const before = new Set(stored && Array.isArray(stored[field.name]) ? (stored[field.name] as unknown[]) : []);
    const asked = [...new Set(ids.filter((v) => !before.has(v)))];
    if (asked.length === 0) continue;
    const key = pkColumn(target);
    const found = new Set<number>();
    for (let i = 0; i < asked.length; i += 500) {
      const rows: Array<Record<string, unknown>> = await db(target.table).whereIn(key, asked.slice(i, i + 500)).select(key);
      for (const r of rows) found.add(Number(r[key]));
    }
    const missing = asked.filter((v) => !found.has(v));
    if (missing.length > 0) details.push({ path: field.name, type: 'reference', message: `${field.edit.title} names no existing ${target.name}: ${missing.slice(0, 10).join(', ')}` });
    else if (field.edit.type === EditType.REFERENCE_TREE && target === model && typeof value === 'number' && (await underItself(model, db, field, Number(row[model.primaryKey]), value))) {
      details.push({ path: field.name, type: 'cycle', message: `${field.edit.title} cannot be the row itself or one of the rows below it` });
    }
  }
  if (details.length > 0) throw validationError(details);
}

/** True when `parent` is the row `id` or lies below it in the tree `field` builds (a new row has no id and no rows below it). */
async function underItself(model: ModelDefinition, db: Knex, field: FieldDefinition, id: number, parent: number): Promise<boolean> {
  if (!Number.isSafeInteger(id) || id < 1) return false;
  const key = pkColumn(model);
  const seen = new Set<number>();
  // Walk up from the new parent; a tree that already loops ends the walk when it comes round.
  for (let cursor: number | null = parent; cursor !== null && !seen.has(cursor); ) {
    if (cursor === id) return true;
    seen.add(cursor);
    const up: Record<string, unknown> | undefined = await db(model.table).where(key, cursor).first(field.column);
    const above: unknown = up?.[field.column];
    cursor = above === null || above === undefined ? null : Number(above);
  }
  return false;
}
