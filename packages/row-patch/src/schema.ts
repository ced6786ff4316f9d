import * as yup from 'yup';
import type { FwErrorDetail, ModelDefinition } from '@fw/core';
import { createRowTests, isAbsent, NeedsAsync, type FieldTest, type RowTests } from './row-tests.js';
import type { FormRow } from './storage.js';
import { storageIssues, type StorageDialect } from './storable.js';
import { isPlainObject } from './values.js';

/** Options of {@link validateRow}. */
export interface ValidateRowOptions {
  /** The database the row is written to, for its date bounds; without one, the bounds every dialect but MySQL shares. */
  dialect?: StorageDialect;
}

/** The yup object schema of a model's form row (see {@link buildRowSchema}). */
export type RowSchema = yup.ObjectSchema<yup.AnyObject>;

type FieldSchema = yup.AnySchema;

const cache = new WeakMap<ModelDefinition, { schema: RowSchema; tests: RowTests }>();

/** Models with a rule that answered with a promise: {@link validateRowSync} does not try them again. */
const asyncModels = new WeakSet<ModelDefinition>();

function createRowSchema(model: ModelDefinition, tests: RowTests): RowSchema {
  const shape: Record<string, FieldSchema> = {};
  for (const { name, tests: fieldTests } of tests.fields) {
    let schema: FieldSchema = yup.mixed().nullable().strict(true).label(model.fields[name]!.edit.title);
    for (const test of fieldTests) schema = schema.test(test);
    shape[name] = schema;
  }
  let schema: RowSchema = yup.object(shape).strict(true);
  for (const test of tests.row) schema = schema.test(test);
  return schema;
}

/**
 * The yup object schema of a model's form row, built once per model (cached in a `WeakMap`).
 * The add path, the edit form, import, copy, AI writes and the cell editor all validate with it,
 * through {@link validateRow}.
 *
 * Each field gets, in this order: a type check (the value must be in its form representation:
 * `typeError`, or `oneOf` for CHOICE/MULTI_CHOICE), `required` (from `edit.notNull` or a
 * `required` rule: null, `''` and `[]` fail), then its rules: `length` → `min`/`max` (characters,
 * or items of a list), `pattern` → `matches`, `range` → `min`/`max` (numbers numerically,
 * DATE/DATETIME text chronologically), `choices` → `oneOf`, `dynamic` → its `name` (default
 * `dynamic`), called as `test(value, row)` with the whole row. Then the model's `rowRules` run on
 * the whole row and report on their `path` (default their first field), typed by their `name`.
 * A rule's `message` replaces the default; a string returned by a test is the message. Messages
 * may use `${path}` (the field's title) and the rule's `${min}`, `${max}`, `${values}`.
 *
 * The schema is strict: it never converts or rewrites a value.
 *
 * @throws {FwDefinitionError} for a `choices` rule without values on a field without choices.
 */
export function buildRowSchema(model: ModelDefinition): RowSchema {
  return compiled(model).schema;
}

function compiled(model: ModelDefinition): { schema: RowSchema; tests: RowTests } {
  let entry = cache.get(model);
  if (!entry) {
    const tests = createRowTests(model);
    entry = { schema: createRowSchema(model, tests), tests };
    cache.set(model, entry);
  }
  return entry;
}

/** What {@link passesAll}'s context answers to `createError`: the mark of a failed test. */
const FAILED: unique symbol = Symbol('fw.row-test-failed');

/**
 * True when every test of the row passes, judged by calling the very tests the yup schema holds,
 * in the same order, with the same skipping of absent values; without yup's per-test machinery
 * (about a tenth of its cost on a valid row). Anything but a plain pass on every test (a failure, a
 * promise, a throw) answers false, and the caller asks yup, which then reports the failures
 * exactly as before: this decides only that a row is valid, never what is wrong with it.
 */
function passesAll(model: ModelDefinition, tests: RowTests, row: Readonly<FormRow>): boolean {
  if (asyncModels.has(model)) return false;
  const context = {
    parent: row,
    path: '',
    options: { sync: true },
    originalValue: undefined as unknown,
    createError: () => FAILED,
  };
  const passed = (test: FieldTest, value: unknown): boolean => {
    context.originalValue = value;
    const outcome = (test.test as (this: unknown, value: unknown, context: unknown) => unknown).call(context, value, context);
    // yup's own rule: an error or a falsy answer fails, anything else passes; a promise is left to yup.
    return !!outcome && outcome !== FAILED && !(outcome instanceof yup.ValidationError) && typeof (outcome as PromiseLike<unknown>).then !== 'function';
  };
  try {
    for (const { name, tests: fieldTests } of tests.fields) {
      const value = row[name];
      context.path = name;
      for (const test of fieldTests) {
        if (test.skipAbsent && isAbsent(value)) continue;
        if (!passed(test, value)) return false;
      }
    }
    context.path = '';
    for (const test of tests.row) if (!passed(test, row)) return false;
    return true;
  } catch (error) {
    // A rule that threw, or answered with a promise (its model is then validated by yup alone).
    if (error instanceof NeedsAsync) asyncModels.add(model);
    return false;
  }
}

/** A copy the rules can read but not change, so validation never alters the caller's row. */
function snapshot(row: Readonly<FormRow>): Readonly<FormRow> {
  const copy: FormRow = {};
  for (const [key, value] of Object.entries(row)) {
    Object.defineProperty(copy, key, { value: Array.isArray(value) ? Object.freeze([...value]) : value, enumerable: true });
  }
  return Object.freeze(copy);
}

/**
 * Validates a complete form row against {@link buildRowSchema}`(model)`, reporting every failure
 * (yup's `abortEarly: false`). Async rules are awaited. The row is not changed.
 *
 * @returns `[]` when the row is valid, else one `{ path, type, message }` per failure as yup
 * reports it (`type` is the rule: `required`, `min`, `max`, `matches`, `oneOf`, `typeError`, a
 * dynamic rule's name, a row rule's name), then one per field the database could not store as
 * it is ({@link storageIssues}: `invalidCharacter` for a NUL character, `min` / `max` for a date
 * outside `options.dialect`'s columns).
 * @example
 * const details = await validateRow(Project, { name: 'X', startDate: '2024-05-01', endDate: '2024-04-01' });
 * // [{ path: 'endDate', type: 'endAfterStart', message: 'the end date must not be before the start date' }]
 */
export async function validateRow(model: ModelDefinition, row: Readonly<FormRow>, options: ValidateRowOptions = {}): Promise<FwErrorDetail[]> {
  if (!isPlainObject(row)) return [{ type: 'typeError', message: 'the row must be an object' }];
  const { schema, tests } = compiled(model);
  const copy = snapshot(row);
  if (passesAll(model, tests, copy)) return withStorageIssues(model, row, [], options);
  let failures: FwErrorDetail[] = [];
  try {
    await schema.validate(copy, { abortEarly: false, strict: true });
  } catch (error) {
    failures = failuresOf(error);
  }
  return withStorageIssues(model, row, failures, options);
}

/**
 * {@link validateRow} without a promise, for a caller that must not wait (a write inside a
 * synchronous SQLite transaction): the same schema, the same details. Returns `undefined` when a
 * rule of the model answers with a promise; the caller then validates with {@link validateRow}.
 */
export function validateRowSync(model: ModelDefinition, row: Readonly<FormRow>, options: ValidateRowOptions = {}): FwErrorDetail[] | undefined {
  if (asyncModels.has(model)) return undefined;
  if (!isPlainObject(row)) return [{ type: 'typeError', message: 'the row must be an object' }];
  const { schema, tests } = compiled(model);
  const copy = snapshot(row);
  if (passesAll(model, tests, copy)) return withStorageIssues(model, row, [], options);
  let failures: FwErrorDetail[] = [];
  try {
    schema.validateSync(copy, { abortEarly: false, strict: true });
  } catch (error) {
    if (error instanceof NeedsAsync) {
      asyncModels.add(model);
      return undefined;
    }
    failures = failuresOf(error);
  }
  return withStorageIssues(model, row, failures, options);
}

/** yup's failures as details; anything but a validation error is rethrown. */
function failuresOf(error: unknown): FwErrorDetail[] {
  if (!(error instanceof yup.ValidationError)) throw error;
  const inner = error.inner.length > 0 ? error.inner : [error];
  return inner.map((failure) => ({
    ...(failure.path !== undefined && failure.path !== '' ? { path: failure.path } : {}),
    ...(failure.type !== undefined ? { type: failure.type } : {}),
    message: failure.message,
  }));
}

/** What the database cannot store, for the fields the rules found nothing wrong with. */
function withStorageIssues(model: ModelDefinition, row: Readonly<FormRow>, failures: FwErrorDetail[], options: ValidateRowOptions): FwErrorDetail[] {
  const failed = new Set(failures.map((f) => f.path));
  return [...failures, ...storageIssues(model, row, options.dialect).filter((issue) => !failed.has(issue.path))];
}
