// The tests of a model's form row, built from its field rules, implicit column bounds and row
// rules: the functions that the yup schema (schema.ts) runs and that a valid row is checked
// against directly.
import type * as yup from 'yup';
import { EditType, FwDefinitionError, type FieldDefinition, type FieldRule, type ModelDefinition, type RowRule, type RuleOutcome } from '@fw/core';
import { coerceValue, expectation, findChoice, isTextField } from './coerce.js';
import { formValuesEqual, isPlainObject } from './values.js';

type TestContext = yup.TestContext<yup.AnyObject>;

const DEFAULT_MESSAGES = {
  required: '${path} is a required field',
  minChars: '${path} must be at least ${min} characters',
  maxChars: '${path} must be at most ${max} characters',
  minItems: '${path} must have at least ${min} items',
  maxItems: '${path} must have at most ${max} items',
  minNumber: '${path} must be greater than or equal to ${min}',
  maxNumber: '${path} must be less than or equal to ${max}',
  minDate: '${path} must be ${min} or later',
  maxDate: '${path} must be ${max} or earlier',
  matches: '${path} must match the following: "${regex}"',
  oneOf: '${path} must be one of the following values: ${values}',
  invalid: '${path} is invalid',
} as const;

export function isAbsent(value: unknown): value is null | undefined {
  return value === null || value === undefined;
}

/** A value whose length a `length` rule measures: text, lists, and numbers by their text. */
function lengthOf(value: unknown): number | undefined {
  if (typeof value === 'string' || Array.isArray(value)) return value.length;
  if (typeof value === 'number') return String(value).length;
  return undefined;
}

/**
 * The failure of a rule whose test returned `outcome`: only `true` passes (a JS rule that forgets
 * to return fails closed); a non-empty string is the message; otherwise the rule's message.
 */
function outcomeError(
  ctx: TestContext,
  outcome: RuleOutcome | unknown,
  message: string | undefined,
  extra: { path?: string; params?: Record<string, unknown> } = {},
): true | yup.ValidationError {
  if (outcome === true) return true;
  const text = typeof outcome === 'string' && outcome !== '' ? outcome : (message ?? DEFAULT_MESSAGES.invalid);
  return ctx.createError({ message: text, ...extra });
}

function requiredTest(field: FieldDefinition, message: string | undefined): yup.TestConfig<unknown, yup.AnyObject> {
  // A PASSWORD (never loaded) or COLLECTION (join table) field absent from a stored row keeps
  // its stored value; readEntity on add puts null there, so a missing one still fails.
  const absentIsKept = field.edit.type === EditType.PASSWORD || field.edit.type === EditType.COLLECTION;
  return {
    name: 'required',
    message: message ?? DEFAULT_MESSAGES.required,
    test: (value) => {
      if (value === undefined && absentIsKept) return true;
      return !(isAbsent(value) || value === '' || (Array.isArray(value) && value.length === 0));
    },
  };
}

function lengthTests(rule: Extract<FieldRule, { type: 'length' }>): yup.TestConfig<unknown, yup.AnyObject>[] {
  const tests: yup.TestConfig<unknown, yup.AnyObject>[] = [];
  const { min, max } = rule;
  if (min !== undefined) {
    tests.push({
      name: 'min',
      params: { min },
      test(value) {
        const n = lengthOf(value);
        return n === undefined || n >= min || this.createError({ message: rule.message ?? (Array.isArray(value) ? DEFAULT_MESSAGES.minItems : DEFAULT_MESSAGES.minChars) });
      },
    });
  }
  if (max !== undefined) {
    tests.push({
      name: 'max',
      params: { max },
      test(value) {
        const n = lengthOf(value);
        return n === undefined || n <= max || this.createError({ message: rule.message ?? (Array.isArray(value) ? DEFAULT_MESSAGES.maxItems : DEFAULT_MESSAGES.maxChars) });
      },
    });
  }
  return tests;
}

function patternTest(rule: Extract<FieldRule, { type: 'pattern' }>): yup.TestConfig<unknown, yup.AnyObject> {
  // A global or sticky RegExp keeps `lastIndex` between calls and would pass and fail in turn.
  const source = typeof rule.pattern === 'string' ? new RegExp(rule.pattern) : rule.pattern;
  const regex = new RegExp(source.source, source.flags.replace(/[gy]/g, ''));
  const matches = (item: unknown): boolean => (typeof item === 'string' || typeof item === 'number' ? regex.test(String(item)) : true);
  return {
    name: 'matches',
    message: rule.message ?? DEFAULT_MESSAGES.matches,
    params: { regex },
    test: (value) => (Array.isArray(value) ? value.every(matches) : matches(value)),
  };
}

/**
 * Range bounds: numbers compare as numbers; DATE and DATETIME values compare as text, which for
 * `YYYY-MM-DD` and `toISOString()` text is chronological order. DATETIME bounds are normalized
 * to `toISOString()` so `'2024-01-01'` bounds a DATETIME as its UTC midnight.
 */
function rangeTests(field: FieldDefinition, rule: Extract<FieldRule, { type: 'range' }>): yup.TestConfig<unknown, yup.AnyObject>[] {
  const bound = (b: number | string): number | string => {
    if (field.edit.type === EditType.DATETIME && typeof b === 'string') {
      const normalized = coerceValue(field, b);
      if (normalized.ok && typeof normalized.value === 'string') return normalized.value;
    }
    return b;
  };
  const compare = (value: unknown, b: number | string): number | undefined => {
    if (typeof value === 'number') {
      const n = typeof b === 'number' ? b : Number(b);
      return Number.isNaN(n) ? undefined : value - n;
    }
    if (typeof value === 'string') {
      const text = String(b);
      return value < text ? -1 : value > text ? 1 : 0;
    }
    return undefined;
  };
  const dates = field.edit.type === EditType.DATE || field.edit.type === EditType.DATETIME;
  const tests: yup.TestConfig<unknown, yup.AnyObject>[] = [];
  if (rule.min !== undefined) {
    const min = bound(rule.min);
    tests.push({
      name: 'min',
      message: rule.message ?? (dates ? DEFAULT_MESSAGES.minDate : DEFAULT_MESSAGES.minNumber),
      params: { min },
      test: (value) => {
        const c = compare(value, min);
        return c === undefined || c >= 0;
      },
    });
  }
  if (rule.max !== undefined) {
    const max = bound(rule.max);
    tests.push({
      name: 'max',
      message: rule.message ?? (dates ? DEFAULT_MESSAGES.maxDate : DEFAULT_MESSAGES.maxNumber),
      params: { max },
      test: (value) => {
        const c = compare(value, max);
        return c === undefined || c <= 0;
      },
    });
  }
  return tests;
}

function choicesTest(model: ModelDefinition, field: FieldDefinition, rule: Extract<FieldRule, { type: 'choices' }>): yup.TestConfig<unknown, yup.AnyObject> {
  const values = rule.values ?? field.edit.choices?.map((c) => c.value);
  if (!values) {
    throw new FwDefinitionError(`${model.name}.fields.${field.name}.rules`, 'a choices rule needs `values` on a field without edit.choices');
  }
  const choices = values.filter((v): v is string | number | boolean => ['string', 'number', 'boolean'].includes(typeof v)).map((value) => ({ value }));
  const allowed = (item: unknown): boolean => findChoice(choices, item) !== undefined;
  return {
    name: 'oneOf',
    message: rule.message ?? DEFAULT_MESSAGES.oneOf,
    params: { values: values.map(String).join(', ') },
    test: (value) => isAbsent(value) || (Array.isArray(value) ? value.every(allowed) : allowed(value)),
  };
}

/** Thrown inside a synchronous validation when a rule answered with a promise (see {@link validateRowSync}). */
export class NeedsAsync extends Error {}

/**
 * A rule's outcome, judged at once when the rule answered synchronously and once it settles when
 * it answered with a promise. In a synchronous validation a promise stops the run (its outcome is
 * dropped, its failure kept from becoming an unhandled rejection) so the caller validates again
 * asynchronously.
 */
function settle(ctx: TestContext, outcome: unknown, judge: (outcome: unknown) => true | yup.ValidationError): true | yup.ValidationError | Promise<true | yup.ValidationError> {
  if (typeof (outcome as PromiseLike<unknown> | null)?.then !== 'function') return judge(outcome);
  if ((ctx.options as { sync?: boolean }).sync) {
    Promise.resolve(outcome).catch(() => undefined);
    throw new NeedsAsync();
  }
  return Promise.resolve(outcome).then(judge);
}

function dynamicTest(rule: Extract<FieldRule, { type: 'dynamic' }>): yup.TestConfig<unknown, yup.AnyObject> {
  return {
    name: rule.name ?? 'dynamic',
    // Runs on null too: "required when another field is set" is a dynamic rule.
    test(value) {
      const row: unknown = this.parent;
      return settle(this, rule.test(value, isPlainObject(row) ? row : {}), (outcome) => outcomeError(this, outcome, rule.message));
    },
  };
}

/**
 * The type check of a field: the value must already be in its form representation, i.e.
 * converting it changes nothing. CHOICE and MULTI_CHOICE report it as `oneOf`, the others as
 * `typeError`. `''` is a string (text fields), and on a required field `required` reports it.
 */
function typeTest(field: FieldDefinition, required: boolean): yup.TestConfig<unknown, yup.AnyObject> {
  const choiceType = field.edit.type === EditType.CHOICE || field.edit.type === EditType.MULTI_CHOICE;
  const emptyIsFine = required || isTextField(field);
  return {
    name: choiceType ? 'oneOf' : 'typeError',
    skipAbsent: true,
    test(value) {
      if (value === '' && emptyIsFine) return true;
      const result = coerceValue(field, value);
      if (result.ok && formValuesEqual(result.value, value)) return true;
      return this.createError({ message: `\${path} ${result.ok ? expectation(field) : result.message}` });
    },
  };
}

/** The widest value a column of this field can hold, in characters. */
export const IMPLICIT_MAX_CHARS = { short: 255, long: 16_000 } as const;
/** The range of a 32-bit integer column. */
export const INT32 = { min: -2_147_483_648, max: 2_147_483_647 } as const;

/** True for fields whose form value is a whole number stored in an integer column. */
function isIntegerField(field: FieldDefinition): boolean {
  const type = field.edit.type;
  return ((type === EditType.NUMBER || type === EditType.HIDDEN) && field.edit.integer) || type === EditType.REFERENCE_TABLE || type === EditType.REFERENCE_TREE;
}

/**
 * The whole numbers an integer field's column holds: its declared `range` rule, else the 32-bit
 * range Fw's columns have. `undefined` for a field that is not an integer (NUMBER without
 * `integer`, text, dates, …). The data API bounds row ids and condition values with it, so a
 * number no row can hold is a 404 or a 400, not a database error.
 * @example integerBounds(Book.fields.id); // { min: -2147483648, max: 2147483647 }
 */
export function integerBounds(field: FieldDefinition): { min: number; max: number } | undefined {
  if (!isIntegerField(field)) return undefined;
  const bounds: { min: number; max: number } = { ...INT32 };
  const declared = field.rules.filter((r): r is Extract<FieldRule, { type: 'range' }> => r.type === 'range');
  if (declared.length === 0) return bounds;
  bounds.min = Number.MIN_SAFE_INTEGER;
  bounds.max = Number.MAX_SAFE_INTEGER;
  for (const rule of declared) {
    if (typeof rule.min === 'number') bounds.min = Math.max(bounds.min, rule.min);
    if (typeof rule.max === 'number') bounds.max = Math.min(bounds.max, rule.max);
  }
  return bounds;
}

/**
 * Bounds the storage sets even where the model declares none, so a value too long for its column
 * or an integer beyond 32 bits is a validation failure and never a database error (a 500). A
 * declared `length` max or `range` replaces them; a model over wider columns declares its own.
 */
function implicitRules(field: FieldDefinition): FieldRule[] {
  const declaredMax = field.rules.some((r) => r.type === 'length' && r.max !== undefined);
  const declaredRange = field.rules.some((r) => r.type === 'range');
  const type = field.edit.type;
  const rules: FieldRule[] = [];
  const shortText =
    type === EditType.INPUT || type === EditType.CHOICE || (type === EditType.HIDDEN && !field.edit.integer) || (type === EditType.PASSWORD && field.edit.hashed === false);
  if (!declaredMax && shortText) rules.push({ type: 'length', max: IMPLICIT_MAX_CHARS.short });
  if (!declaredMax && (type === EditType.TEXTAREA || (type === EditType.PASSWORD && field.edit.hashed !== false))) rules.push({ type: 'length', max: IMPLICIT_MAX_CHARS.long });
  if (!declaredRange && isIntegerField(field)) rules.push({ type: 'range', min: INT32.min, max: INT32.max });
  return rules;
}

/** One test of a field, as yup runs it: absent values (null, undefined) skip it when `skipAbsent`. */
export type FieldTest = yup.TestConfig<unknown, yup.AnyObject>;

/** A field's tests in the order yup runs them: type, required, then its rules. */
function fieldTests(model: ModelDefinition, field: FieldDefinition): FieldTest[] {
  const requiredRule = field.rules.find((r) => r.type === 'required');
  const required = field.edit.notNull || requiredRule !== undefined;
  const all: FieldTest[] = [typeTest(field, required)];
  if (required) all.push(requiredTest(field, requiredRule?.message));
  for (const rule of [...field.rules, ...implicitRules(field)]) {
    const tests: FieldTest[] = [];
    switch (rule.type) {
      case 'required':
        break;
      case 'length':
        tests.push(...lengthTests(rule));
        break;
      case 'pattern':
        tests.push(patternTest(rule));
        break;
      case 'range':
        tests.push(...rangeTests(field, rule));
        break;
      case 'choices':
        tests.push(choicesTest(model, field, rule));
        break;
      case 'dynamic':
        tests.push(dynamicTest(rule));
        break;
    }
    // Only `required` and dynamic rules judge a missing value; the others pass it.
    for (const test of tests) all.push(rule.type === 'dynamic' ? test : { skipAbsent: true, ...test });
  }
  return all;
}

/** A row rule of the model as an object-level test. */
function rowRuleTest(model: ModelDefinition, rule: RowRule): FieldTest {
  const path = rule.path ?? rule.fields[0] ?? model.primaryKey;
  const label = model.fields[path]?.edit.title ?? path;
  return {
    name: rule.name,
    test(row) {
      return settle(this, rule.test(isPlainObject(row) ? row : {}), (outcome) => outcomeError(this, outcome, rule.message, { path, params: { label } }));
    },
  };
}

/** The tests of a model's row, compiled once: per field, then the row rules. */
export interface RowTests {
  fields: Array<{ name: string; tests: FieldTest[] }>;
  row: FieldTest[];
}

/**
 * The tests of `model`'s form row, in the order yup runs them.
 * @throws {FwDefinitionError} for a `choices` rule without values on a field without choices.
 */
export function createRowTests(model: ModelDefinition): RowTests {
  const fields: RowTests['fields'] = [];
  for (const name of model.fieldNames) {
    const field = model.fields[name];
    if (field) fields.push({ name, tests: fieldTests(model, field) });
  }
  return { fields, row: model.rowRules.map((rule) => rowRuleTest(model, rule)) };
}
