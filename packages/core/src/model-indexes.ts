// Declared indexes: `index: true` on a field and `indexes: [[…], …]` on a model, checked at
// definition time and normalized into one list with deterministic names (issue 21 §3).
import { FwDefinitionError } from './errors.js';
import { describe } from './definition-checks.js';
import { EditType, type FieldDefinition, type ModelIndex } from './model-types.js';

export type { ModelIndex } from './model-types.js';

/** Most columns in one declared index. */
export const MAX_INDEX_COLUMNS = 4;
/**
 * Most string (varchar 255) columns in one declared index: three fit every dialect's key limit
 * (MySQL/MariaDB InnoDB 3,072 bytes at 4 bytes a character, SQL Server 1,700 bytes at 2), so no
 * prefix length is ever needed.
 */
export const MAX_INDEX_STRING_COLUMNS = 3;
/** The longest index name: PostgreSQL's 63 (MySQL allows 64, SQL Server 128). */
export const MAX_INDEX_NAME_LENGTH = 63;

// Long text (unbounded on PostgreSQL, nvarchar(max) on SQL Server, TEXT on MySQL) cannot be an
// index key everywhere, and a long value would make an insert fail where it can. Secrets and files
// are never filtered or sorted on.
const NOT_INDEXABLE: ReadonlySet<string> = new Set([EditType.TEXTAREA, EditType.MULTI_CHOICE, EditType.TAGS, EditType.ATTACHMENT, EditType.PASSWORD, EditType.COLLECTION]);

// 32-bit FNV-1a, in hex: enough to tell apart the few long names one database holds.
function fnv1a(text: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash.toString(16).padStart(8, '0');
}

/**
 * The name Fw gives an index of `table` over `columns`: `fw_ix_<table>_<col>_<col>`, the table
 * without its schema. A name longer than 63 characters keeps its first 54 and ends with `_` and a
 * hash of the whole name, so it fits every dialect and stays the same from run to run.
 * @example indexName('book', ['status', 'created_at']) // 'fw_ix_book_status_created_at'
 */
export function indexName(table: string, columns: readonly string[]): string {
  const bare = table.slice(table.indexOf('.') + 1);
  const full = `fw_ix_${bare}_${columns.join('_')}`.toLowerCase();
  if (full.length <= MAX_INDEX_NAME_LENGTH) return full;
  return `${full.slice(0, MAX_INDEX_NAME_LENGTH - 9)}_${fnv1a(full)}`;
}

/** Whether a field may be an index key: a stored field that is not long text, a secret or files. */
export function isIndexable(field: FieldDefinition): boolean {
  return field.stored && !NOT_INDEXABLE.has(field.edit.type);
}

function isStringColumn(field: FieldDefinition): boolean {
  const type = field.edit.type;
  if (field.primaryKey) return !field.edit.integer;
  return type === EditType.INPUT || type === EditType.CHOICE || (type === EditType.HIDDEN && !field.edit.integer);
}

/**
 * Checks the `index` option of each field and the model's `indexes`, and returns every declared
 * index once: field indexes first (declaration order), then the model's lists.
 * @throws {FwDefinitionError} naming the path of the offending option.
 */
export function checkIndexes(
  model: string,
  table: string,
  rawFields: Readonly<Record<string, unknown>>,
  fields: Readonly<Record<string, FieldDefinition>>,
  input: unknown,
): readonly ModelIndex[] {
  const lists: Array<{ key: string; fields: string[] }> = [];
  for (const [name, raw] of Object.entries(rawFields)) {
    const flag = (raw as { index?: unknown } | undefined)?.index;
    if (flag === undefined || flag === false) continue;
    const key = `${model}.fields.${name}.index`;
    if (flag !== true) throw new FwDefinitionError(key, `must be a boolean, got ${describe(flag)}`);
    if (fields[name]?.primaryKey) throw new FwDefinitionError(key, 'the primary key is indexed already');
    lists.push({ key, fields: [name] });
  }
  if (input !== undefined) {
    if (!Array.isArray(input)) throw new FwDefinitionError(`${model}.indexes`, `must be an array of field-name lists, got ${describe(input)}`);
    input.forEach((list: unknown, i) => {
      const key = `${model}.indexes[${i}]`;
      if (!Array.isArray(list) || list.length === 0) throw new FwDefinitionError(key, `must be a non-empty array of field names, got ${describe(list)}`);
      list.forEach((f: unknown, j) => {
        if (typeof f !== 'string' || !Object.hasOwn(fields, f)) throw new FwDefinitionError(`${key}[${j}]`, `names no field of this model: ${describe(f)}`);
      });
      const names = list as string[];
      const pk = fields[names[0]!]?.primaryKey;
      if (names.length === 1 && pk) throw new FwDefinitionError(key, 'the primary key is indexed already');
      lists.push({ key, fields: names });
    });
  }
  const seen = new Map<string, string>();
  return Object.freeze(
    lists.map(({ key, fields: names }) => {
      if (names.length > MAX_INDEX_COLUMNS) throw new FwDefinitionError(key, `an index holds at most ${MAX_INDEX_COLUMNS} fields, this one ${names.length}`);
      const defs = names.map((name, j) => {
        const field = fields[name]!;
        const where = names.length === 1 && key.endsWith('.index') ? key : `${key}[${j}]`;
        if (names.indexOf(name) !== j) throw new FwDefinitionError(where, `field ${name} is listed twice`);
        if (!isIndexable(field)) {
          throw new FwDefinitionError(where, `a ${field.edit.type} field cannot be indexed (${name}): long text, secrets, files and collections are never an index key`);
        }
        return field;
      });
      if (defs.filter(isStringColumn).length > MAX_INDEX_STRING_COLUMNS) {
        throw new FwDefinitionError(key, `an index holds at most ${MAX_INDEX_STRING_COLUMNS} text fields (they would pass MySQL's and SQL Server's key size)`);
      }
      const signature = names.join(',');
      const earlier = seen.get(signature);
      if (earlier !== undefined) throw new FwDefinitionError(key, `the same index as ${earlier} (${signature})`);
      seen.set(signature, key);
      const columns = defs.map((f) => f.column);
      return Object.freeze({ name: indexName(table, columns), fields: Object.freeze([...names]), columns: Object.freeze(columns) });
    }),
  );
}
