// Declared indexes (issue 21 §3): what a table has, read from each dialect's catalog, and the
// statements that create the ones a model declares and the table lacks.
import { createHash } from 'node:crypto';
import type { ModelDefinition, ModelIndex } from '@fw/core';
import type { Knex } from 'knex';
import { dialectOfKnex, type FwDialect } from './dialect.js';
import type { PlannedChange } from './model-table-changes.js';
import { splitTable } from './model-table-sql.js';

/** One index of a table, as the database's catalog lists it. */
export interface TableIndex {
  readonly name: string;
  /** Key columns in order, lower case (included columns and expressions left out). */
  readonly columns: readonly string[];
  /** False for a PostgreSQL index a failed `CREATE INDEX CONCURRENTLY` left behind, unusable. */
  readonly valid: boolean;
}

interface CatalogRow {
  name: string;
  col: string;
  valid?: unknown;
}

function catalogQuery(knex: Knex, dialect: FwDialect, table: string, schema: string | undefined): Knex.Raw {
  switch (dialect) {
    case 'sqlite':
      return knex.raw('select il.name as name, ii.name as col from pragma_index_list(?) il join pragma_index_info(il.name) ii order by il.name, ii.seqno', [table]);
    case 'postgres':
      return knex.raw(
        `select i.relname as name, a.attname as col, ix.indisvalid as valid
         from pg_index ix
         join pg_class t on t.oid = ix.indrelid
         join pg_class i on i.oid = ix.indexrelid
         join pg_namespace n on n.oid = t.relnamespace
         cross join lateral unnest(ix.indkey) with ordinality as k(attnum, ord)
         join pg_attribute a on a.attrelid = t.oid and a.attnum = k.attnum
         where t.relname = ? and n.nspname = coalesce(?, current_schema()) and k.ord <= ix.indnkeyatts
         order by i.relname, k.ord`,
        [table, schema ?? null],
      );
    case 'mysql':
      return knex.raw(
        `select index_name as name, column_name as col from information_schema.statistics
         where table_schema = coalesce(?, database()) and table_name = ? and column_name is not null
         order by index_name, seq_in_index`,
        [schema ?? null, table],
      );
    case 'mssql':
      return knex.raw(
        `select i.name as name, c.name as col from sys.indexes i
         join sys.index_columns ic on ic.object_id = i.object_id and ic.index_id = i.index_id
         join sys.columns c on c.object_id = ic.object_id and c.column_id = ic.column_id
         where i.object_id = object_id(?) and ic.is_included_column = 0 and ic.key_ordinal > 0
         order by i.name, ic.key_ordinal`,
        [schema === undefined ? table : `${schema}.${table}`],
      );
  }
}

function rowsOf(dialect: FwDialect, result: unknown): CatalogRow[] {
  const rows = dialect === 'postgres' ? (result as { rows: unknown[] }).rows : dialect === 'mysql' ? (result as unknown[][])[0] : result;
  if (!Array.isArray(rows)) return [];
  return rows.map((row: Record<string, unknown>) => ({
    name: String(row.name ?? row.NAME ?? row.INDEX_NAME),
    col: String(row.col ?? row.COL ?? row.COLUMN_NAME),
    valid: row.valid,
  }));
}

/** Every index of table `name` (`schema.table` or `table`), primary keys and unique constraints included. */
export async function readIndexes(knex: Knex, name: string): Promise<TableIndex[]> {
  const dialect = dialectOfKnex(knex);
  const { schema, table } = splitTable(name);
  const rows = rowsOf(dialect, await catalogQuery(knex, dialect, table, schema));
  const byName = new Map<string, { columns: string[]; valid: boolean }>();
  for (const row of rows) {
    const entry = byName.get(row.name) ?? { columns: [], valid: row.valid !== false };
    entry.columns.push(row.col.toLowerCase());
    byName.set(row.name, entry);
  }
  return [...byName].map(([indexName, entry]) => ({ name: indexName, columns: entry.columns, valid: entry.valid }));
}

/**
 * True when some usable index starts with `columns`, in order: it serves every filter and sort the
 * declared one would, whatever its name (an index made by hand or by a migration counts).
 */
export function covered(indexes: readonly TableIndex[], columns: readonly string[]): boolean {
  const wanted = columns.map((c) => c.toLowerCase());
  return indexes.some((index) => index.valid && wanted.every((column, i) => index.columns[i] === column));
}

/**
 * The statement creating `index`. PostgreSQL builds an index of a table that already exists
 * `CONCURRENTLY`, so writes go on meanwhile; that cannot run inside a transaction, so a transaction
 * (or a new table, empty) gets a plain `CREATE INDEX`. SQLite and PostgreSQL skip an index of that
 * name that exists; MySQL and SQL Server have no such clause, and their caller checks first.
 */
export function createIndexSql(knex: Knex, tableName: string, index: ModelIndex, concurrently: boolean, longColumns: ReadonlySet<string> = new Set()): string {
  const dialect = dialectOfKnex(knex);
  const { schema, table } = splitTable(tableName);
  // MySQL indexes a text column only by a prefix: 191 characters, 764 bytes in utf8mb4, so three
  // of them stay within InnoDB's 3,072-byte key.
  const columns = index.columns.map((c) => (dialect === 'mysql' && longColumns.has(c.toLowerCase()) ? `??(${MYSQL_TEXT_PREFIX})` : '??')).join(', ');
  switch (dialect) {
    case 'sqlite':
      // SQLite names the schema on the index, never on its table.
      return knex.raw(`create index if not exists ?? on ?? (${columns})`, [schema === undefined ? index.name : `${schema}.${index.name}`, table, ...index.columns]).toQuery();
    case 'postgres':
      return knex.raw(`create index ${concurrently ? 'concurrently ' : ''}if not exists ?? on ?? (${columns})`, [index.name, tableName, ...index.columns]).toQuery();
    case 'mysql':
    case 'mssql':
      return knex.raw(`create index ?? on ?? (${columns})`, [index.name, tableName, ...index.columns]).toQuery();
  }
}

/** The name of `index` made unique to `table`: its usual name's first 54 characters, `_`, a hash of table and columns. */
function ownIndexName(table: string, index: ModelIndex): string {
  const hash = createHash('sha256')
    .update(JSON.stringify([table, index.columns]))
    .digest('hex')
    .slice(0, 8);
  return `${index.name.slice(0, 54)}_${hash}`;
}

/** Characters of a text column a MySQL index keeps (a varchar field stored in a `text` column). */
export const MYSQL_TEXT_PREFIX = 191;

function dropInvalidSql(knex: Knex, tableName: string, indexName: string): string {
  const { schema } = splitTable(tableName);
  return knex.raw('drop index concurrently if exists ??', [schema === undefined ? indexName : `${schema}.${indexName}`]).toQuery();
}

/**
 * The `missingIndex` changes of one model: each declared index no usable index of the table
 * starts with. `indexes` is what the table has (empty for a table about to be created);
 * `longColumns` its columns (lower case) of an unbounded text type, which a varchar field may sit
 * on (a wider column is accepted).
 */
export function planIndexes(
  knex: Knex,
  model: ModelDefinition,
  indexes: readonly TableIndex[],
  tableIsNew: boolean,
  longColumns: ReadonlySet<string> = new Set(),
): { safe: PlannedChange[]; notes: PlannedChange[] } {
  const dialect = dialectOfKnex(knex);
  const concurrently = dialect === 'postgres' && !tableIsNew && !knex.isTransaction;
  const changes: PlannedChange[] = [];
  const notes: PlannedChange[] = [];
  for (const index of model.indexes) {
    if (covered(indexes, index.columns)) continue;
    const long = index.columns.find((c) => longColumns.has(c.toLowerCase()));
    if (dialect === 'mssql' && long !== undefined) {
      // nvarchar(max) cannot be an index key at all: a person converts the column first.
      notes.push({
        model: model.name,
        table: model.table,
        field: index.fields[index.columns.indexOf(long)],
        column: long,
        index: index.name,
        kind: 'indexNotPossible',
        message: `${model.name}: index ${index.name} on ${model.table} (${index.columns.join(', ')}) is not created: column ${long} is nvarchar(max), which SQL Server cannot index; convert it to nvarchar(255) (the field's column type)`,
        sql: `${knex.raw('alter table ?? alter column ?? nvarchar(255)', [model.table, long]).toQuery()};\n${createIndexSql(knex, model.table, index, false)};`,
      });
      continue;
    }
    // A PostgreSQL build that failed half-way leaves an invalid index of that name, which
    // `if not exists` would keep skipping: it goes first.
    const invalid = dialect === 'postgres' && indexes.some((i) => !i.valid && i.name === index.name);
    const create = createIndexSql(knex, model.table, index, concurrently, longColumns);
    const drop = invalid ? dropInvalidSql(knex, model.table, index.name) : undefined;
    changes.push({
      model: model.name,
      table: model.table,
      field: index.fields[0],
      column: index.columns[0],
      index: index.name,
      kind: 'missingIndex',
      message: `${model.name}: index ${index.name} on ${model.table} (${index.columns.join(', ')}) does not exist; it is created${concurrently ? ' concurrently (writes go on meanwhile)' : ''}`,
      sql: [drop, create]
        .filter((s) => s !== undefined)
        .map((s) => `${s};`)
        .join('\n'),
      apply: async () => {
        if (drop !== undefined) await knex.raw(drop);
        const own = () => knex.raw(createIndexSql(knex, model.table, { ...index, name: ownIndexName(model.table, index) }, concurrently, longColumns));
        try {
          await knex.raw(create);
        } catch (error) {
          // Another instance created it between our plan and our statement: the same outcome.
          if (covered(await readIndexes(knex, model.table), index.columns)) return false;
          // MySQL and SQL Server refuse a name this table's other index has ((a_b) and (a, b)
          // are both fw_ix_t_a_b): then it gets a name of its own.
          await own().catch(() => Promise.reject(error));
          return false;
        }
        // PostgreSQL and SQLite name indexes per schema, not per table: `fw_ix_rt_ord_item_status`
        // is both rt_ord_item (status) and rt_ord (item_status), and `if not exists` skipped this
        // one silently when another index had the name. Then it gets a name of its own.
        if ((dialect === 'postgres' || dialect === 'sqlite') && !covered(await readIndexes(knex, model.table), index.columns)) await own();
        return false;
      },
    });
  }
  return { safe: changes, notes };
}
