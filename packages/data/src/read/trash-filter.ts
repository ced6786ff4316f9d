// Conditions judged on a trashed row's stored values (issue 23 §3, and the red-team leftovers
// §1). A trashed row lives as JSON in `fw_trash`, out of reach of SQL, so the condition tree the
// table query compiles (query.ts, `applyStoredConditions`) is walked here instead, with the
// same meaning per operator: `ne` / `notIn` hold for an empty cell (SQL's `OR col IS NULL`),
// `like` / `startsWith` compare case-insensitively (`LOWER(col) LIKE LOWER(pattern)`), an `or` of
// nothing holds for no row. Where the answer depends on the database (case and accents outside
// ASCII, the case-insensitive collations of MariaDB and SQL Server, orders between texts) it is
// judged for the store's dialect when that is known to be exact (SQLite compares text byte by byte
// and folds ASCII only) and is "cannot tell" otherwise, never a guess: the caller decides what
// that means (trash-page.ts).
import { EditType, isObject, type Condition, type FieldDefinition, type ModelDefinition } from '@fw/core';
import { coerceValue, type FormRow } from '@fw/row-patch';
import type { FwDialect } from '@fw/store';
import { isSecret } from '../write/secrets.js';

/** `true` surely holds, `false` surely does not, `undefined` cannot be told here. */
export type Verdict = boolean | undefined;

function comparable(field: FieldDefinition, value: unknown): number | string | boolean | undefined {
  if (value === null || value === undefined) return undefined;
  switch (field.edit.type) {
    case EditType.DATETIME: {
      const time = new Date(String(value)).getTime();
      return Number.isFinite(time) ? time : undefined;
    }
    case EditType.BOOLEAN:
      return typeof value === 'boolean' ? value : undefined;
    case EditType.MULTI_CHOICE:
    case EditType.TAGS:
    case EditType.ATTACHMENT:
      // Lists are compared by the database on their JSON text: not judged here.
      return undefined;
    default:
      return typeof value === 'number' || typeof value === 'string' ? value : undefined;
  }
}

/** A condition's value in the field's form, or undefined when it has none. */
function conditionValue(field: FieldDefinition, value: unknown): unknown {
  const result = coerceValue(field, value);
  return result.ok ? result.value : undefined;
}

/**
 * Whether `text` holds a character whose comparison differs between the databases: a letter
 * with case outside ASCII (SQLite's LOWER folds ASCII only, PostgreSQL's follows its locale) or
 * one with an accent (MariaDB's usual collations ignore accents).
 */
function foldsDiffer(text: string): boolean {
  // Printable ASCII, and text with no cased or composed character (Chinese, Japanese, digits),
  // compare alike everywhere.
  if (/^[\x20-\x7e]*$/.test(text)) return false;
  for (const c of text) {
    if (c.charCodeAt(0) < 0x80) continue;
    if (c.toLowerCase() !== c.toUpperCase() || c.normalize('NFD') !== c) return true;
  }
  return false;
}

function asciiLower(text: string): string {
  return text.replace(/[A-Z]+/g, (s) => s.toLowerCase());
}

/**
 * `text` folded as loosely as the loosest of the databases compares it: accents dropped, every letter in
 * lower case. Texts that differ even so differ on every dialect (short of a collation's rarer
 * equivalences, such as MariaDB's ß = s).
 */
function loose(text: string): string {
  return text.normalize('NFKD').replace(/\p{M}+/gu, '').toLowerCase();
}

/** Whether two texts may be equal under some dialect's collation although they differ: case, accents, trailing spaces (MariaDB's PAD SPACE). */
function looselyEqual(a: string, b: string): boolean {
  return loose(a).trimEnd() === loose(b).trimEnd();
}

/**
 * `LOWER(text) LIKE LOWER(pattern)` for a pattern that is `value` anywhere (`like`) or at the
 * start (`startsWith`), with wildcards in `value` taken as plain characters (query.ts escapes
 * them). A match found with ASCII folding alone holds in every dialect; a miss is sure only
 * when neither side has a character that the dialects fold differently.
 */
function textMatch(text: string, value: string, prefix: boolean, dialect: FwDialect | undefined): Verdict {
  const a = asciiLower(text);
  const b = asciiLower(value);
  if (prefix ? a.startsWith(b) : a.includes(b)) return true;
  // SQLite's LOWER (without ICU) folds ASCII only, and its LIKE is then exact: a miss is sure.
  if (dialect === 'sqlite' || !(foldsDiffer(text) || foldsDiffer(value))) return false;
  // Elsewhere a miss is sure only when even the loosest folding of the dialect finds no match:
  // PostgreSQL's LOWER follows the locale (ASCII only under C) but LIKE keeps accents; MariaDB's
  // and SQL Server's collations may drop accents too.
  const fold = dialect === 'postgres' ? (s: string) => s.toLowerCase() : loose;
  const c = fold(text);
  const d = fold(value);
  return (prefix ? c.startsWith(d) : c.includes(d)) ? undefined : false;
}

/**
 * Whether text equality is exact on `dialect` (two texts are equal only when identical): SQLite
 * (BINARY) and PostgreSQL (deterministic collations). MariaDB's and SQL Server's usual collations
 * ignore case (and more); an unknown dialect is taken as exact for `eq` / `in` (the stricter
 * reading) and as unknown for `ne` / `notIn`.
 */
function exactText(dialect: FwDialect | undefined): boolean {
  return dialect === 'sqlite' || dialect === 'postgres';
}

/** `a` against `b` as SQLite orders texts (BINARY: the bytes of UTF-8), numbers as numbers. */
function sqliteOrder(a: number | string, b: number | string): number {
  if (typeof a === 'string' && typeof b === 'string') return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The values of an `in` / `notIn` condition in comparable form, and whether any could not be converted. */
interface InList {
  values: Set<number | string | boolean>;
  /** The text values loosely folded ({@link loose}, trailing spaces cut), to spot a value that differs from a cell only in case or accents. */
  folded: Set<string>;
  unknown: boolean;
}

const inLists = new WeakMap<object, InList>();

// The values are converted once per condition rather than once per trashed row (up to 10,000
// of them, over every trashed row).
function inList(condition: object, value: unknown[], one: (v: unknown) => number | string | boolean | undefined): InList {
  let list = inLists.get(condition);
  if (!list) {
    list = { values: new Set(), folded: new Set(), unknown: false };
    for (const v of value) {
      const theirs = one(v);
      if (theirs === undefined) list.unknown = true;
      else list.values.add(theirs);
      if (typeof theirs === 'string') list.folded.add(loose(theirs).trimEnd());
    }
    inLists.set(condition, list);
  }
  return list;
}

/** Whether a stored text differs from a value only in case, accents or trailing spaces: equal under a case-insensitive collation (MariaDB), not elsewhere. */
function caseOnly(mine: unknown, theirs: unknown): boolean {
  return typeof mine === 'string' && typeof theirs === 'string' && mine !== theirs && looselyEqual(mine, theirs);
}

/** One condition on a field. */
function meetsCondition(model: ModelDefinition, row: Readonly<FormRow>, condition: Record<string, unknown>, dialect: FwDialect | undefined): Verdict {
  if (typeof condition.field !== 'string' || !Object.hasOwn(model.fields, condition.field)) return undefined;
  const field = model.fields[condition.field]!;
  if (!field.stored || isSecret(field)) return undefined;
  const { op, value } = condition as unknown as Condition;
  const stored = Object.hasOwn(row, field.name) ? row[field.name] : undefined;
  const empty = stored === null || stored === undefined || (Array.isArray(stored) && stored.length === 0 && field.edit.type === EditType.ATTACHMENT);
  if (op === 'isNull') return stored === null || stored === undefined;
  if (op === 'notNull') return !(stored === null || stored === undefined);
  if (op === 'like' || op === 'startsWith') {
    if (typeof value !== 'string') return undefined;
    // LIKE on an empty cell is NULL, which no WHERE keeps.
    if (empty) return false;
    const text = typeof stored === 'string' ? stored : Array.isArray(stored) ? JSON.stringify(stored) : String(stored);
    return textMatch(text, value, op === 'startsWith', dialect);
  }
  const mine = comparable(field, stored);
  const text = typeof mine === 'string' && field.edit.type !== EditType.DATE;
  const one = (v: unknown): number | string | boolean | undefined => comparable(field, conditionValue(field, v));
  switch (op) {
    case 'eq': {
      const theirs = one(value);
      if (theirs === undefined) return undefined;
      if (empty) return false;
      if (mine === undefined) return undefined;
      // A text that differs only in case: equal under a case-insensitive collation.
      if (caseOnly(mine, theirs) && (dialect === 'mysql' || dialect === 'mssql')) return undefined;
      return mine === theirs;
    }
    case 'in': {
      if (!Array.isArray(value)) return undefined;
      const list = inList(condition, value, one);
      if (!empty && mine !== undefined && list.values.has(mine)) return true;
      if (list.unknown) return undefined;
      if (!empty && mine === undefined && list.values.size > 0) return undefined;
      if (typeof mine === 'string' && (dialect === 'mysql' || dialect === 'mssql') && list.folded.has(loose(mine).trimEnd())) return undefined;
      return false;
    }
    case 'ne': {
      if (empty) return true;
      const theirs = one(value);
      if (theirs === undefined || mine === undefined) return undefined;
      if (caseOnly(mine, theirs) && !exactText(dialect)) return undefined;
      return mine !== theirs;
    }
    case 'notIn': {
      if (!Array.isArray(value)) return undefined;
      if (empty) return true;
      const list = inList(condition, value, one);
      if (mine !== undefined && list.values.has(mine)) return false;
      if (list.unknown || mine === undefined) return undefined;
      if (typeof mine === 'string' && !exactText(dialect) && list.folded.has(loose(mine).trimEnd())) return undefined;
      return true;
    }
    case 'gt':
    case 'gte':
    case 'lt':
    case 'lte':
    case 'between': {
      // An order between texts is the collation's: told only for SQLite's byte order.
      if (text && dialect !== 'sqlite') return undefined;
      const bounds = op === 'between' ? (Array.isArray(value) && value.length === 2 ? value.map(one) : [undefined]) : [one(value)];
      if (bounds.some((b) => b === undefined || typeof b === 'boolean')) return undefined;
      if (empty) return false;
      if (mine === undefined || typeof mine === 'boolean') return undefined;
      const [low, high] = bounds as Array<number | string>;
      const from = sqliteOrder(mine, low!);
      if (op === 'gt') return from > 0;
      if (op === 'gte') return from >= 0;
      if (op === 'lt') return from < 0;
      if (op === 'lte') return from <= 0;
      return from >= 0 && sqliteOrder(mine, high!) <= 0;
    }
    default:
      return undefined;
  }
}

/**
 * Whether `row` (form values) meets `node`, a condition or an `{ or }` / `{ and }` group, as far
 * as can be told for sure without the database. A group is judged in three-valued logic: an `or`
 * holds when one member surely holds and fails when every member surely fails; an `and` the
 * other way round (see {@link meetsAll}). `dialect`, the store's, lets text comparisons be told
 * where that dialect makes them exact; without it they are judged for every dialect at once.
 */
export function meets(model: ModelDefinition, row: Readonly<FormRow>, node: unknown, dialect?: FwDialect): Verdict {
  if (!isObject(node)) return undefined;
  const or = Object.hasOwn(node, 'or');
  if (or || Object.hasOwn(node, 'and')) {
    const members = or ? node.or : node.and;
    // A group beside a field, or both kinds at once, is nothing the table query would run.
    if (!Array.isArray(members) || Object.keys(node).length !== 1) return undefined;
    return or ? meetsAny(model, row, members, dialect) : meetsAll(model, row, members, dialect);
  }
  return meetsCondition(model, row, node, dialect);
}

/** An `or` group: true when one member surely holds, false when all surely fail (or there are none), else undefined. */
export function meetsAny(model: ModelDefinition, row: Readonly<FormRow>, nodes: readonly unknown[], dialect?: FwDialect): Verdict {
  let verdict: Verdict = false;
  for (const node of nodes) {
    const one = meets(model, row, node, dialect);
    if (one === true) return true;
    if (one === undefined) verdict = undefined;
  }
  return verdict;
}

/** Every condition at once: false when one surely fails, true when all surely hold, else undefined. */
export function meetsAll(model: ModelDefinition, row: Readonly<FormRow>, nodes: readonly unknown[], dialect?: FwDialect): Verdict {
  let verdict: Verdict = true;
  for (const node of nodes) {
    const one = meets(model, row, node, dialect);
    if (one === false) return false;
    if (one === undefined) verdict = undefined;
  }
  return verdict;
}
