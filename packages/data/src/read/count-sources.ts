// Where a table page's total comes from when the page's own bounded count cannot prove it: a full
// count held to a time limit, and the database's own statistics. One function per job, one branch
// per dialect; the strategy that picks between them is in counts.ts.
import type { ConditionNode, ModelDefinition } from '@fw/core';
import type { Knex } from 'knex';
import { applyStoredConditions } from './query.js';
import { CountWorkerUnavailable } from './sqlite-count-worker.js';
import type { SqliteReader } from './sqlite-reader.js';

/** What the counts read with. */
export interface CountSource {
  knex: Knex;
  dialect: string;
  /** The read-only connection of a SQLite file, when there is one (see sqlite-reader.ts). */
  sqlite: SqliteReader | undefined;
}

/** Rows of a `knex.raw` result, whatever the driver wraps them in. */
export function rawRows(dialect: string, result: unknown): Array<Record<string, unknown>> {
  if (dialect === 'postgres') return (result as { rows: Array<Record<string, unknown>> }).rows;
  if (dialect === 'mysql') return (result as [Array<Record<string, unknown>>])[0];
  return result as Array<Record<string, unknown>>;
}

/**
 * `select count(*) as n from (select 1 … where <conditions> limit <limit>)`: reads at most `limit`
 * matching rows, so its cost does not grow with the table. An answer below `limit` is the exact total.
 */
export function boundedCountQuery(knex: Knex, model: ModelDefinition, conditions: readonly ConditionNode[], limit: number): Knex.QueryBuilder {
  const inner = applyStoredConditions(knex(model.table).select(knex.raw('1 as fw_one')), model, conditions).limit(limit);
  return knex.from(inner.as('fw_bounded')).count({ n: '*' });
}

async function run(source: CountSource, query: { sql: string; bindings: readonly unknown[] }): Promise<Array<Record<string, unknown>>> {
  const direct = source.sqlite?.all(query.sql, query.bindings);
  if (direct) return direct;
  return rawRows(source.dialect, await source.knex.raw(query.sql, query.bindings as Knex.RawBinding[]));
}

function finite(value: unknown): number | undefined {
  const n = Number(value);
  return Number.isFinite(n) && n >= 0 ? Math.round(n) : undefined;
}

/**
 * The database's own guess at the number of matching rows, without counting them: PostgreSQL's
 * planner estimate (`EXPLAIN (FORMAT JSON)`, which scales `pg_class.reltuples` to the table's
 * current size and applies the conditions' selectivity); MariaDB/MySQL `information_schema.TABLES`
 * for a whole table, `EXPLAIN` rows for an index range; SQL Server's partition statistics for a
 * whole table. SQLite: for a whole table, the span of a whole-number key (max − min + 1, an upper
 * bound when keys were deleted), else the row count of its last ANALYZE. Undefined when the
 * database has nothing to say (or refuses).
 */
export async function statisticsEstimate(source: CountSource, model: ModelDefinition, conditions: readonly ConditionNode[]): Promise<number | undefined> {
  const { knex, dialect } = source;
  try {
    if (dialect === 'postgres') {
      const { sql, bindings } = applyStoredConditions(knex(model.table).select(knex.raw('1')), model, conditions).toSQL();
      const [row] = rawRows(dialect, await knex.raw(`explain (format json) ${sql}`, bindings as Knex.RawBinding[]));
      const plan = row?.['QUERY PLAN'] as Array<{ Plan?: Record<string, unknown> }> | undefined;
      return finite(plan?.[0]?.Plan?.['Plan Rows']);
    }
    if (dialect === 'mysql') {
      if (conditions.length === 0) {
        const [row] = rawRows(dialect, await knex.raw('select TABLE_ROWS as n from information_schema.TABLES where TABLE_SCHEMA = database() and TABLE_NAME = ?', [model.table]));
        return finite(row?.n);
      }
      const { sql, bindings } = applyStoredConditions(knex(model.table).select(knex.raw('1')), model, conditions).toSQL();
      const [row] = rawRows(dialect, await knex.raw(`explain ${sql}`, bindings as Knex.RawBinding[]));
      // A full scan's `rows` is the table's size, not the matches: no estimate of a filter.
      return row && row.type !== 'ALL' && row.type !== 'index' ? finite(row.rows) : undefined;
    }
    if (dialect === 'sqlite' && conditions.length === 0) {
      // SQLite keeps no row count. A whole-number key's span (two index look-ups) is at least the
      // rows there are (deleted keys leave gaps); else ANALYZE's count, when it was ever run.
      const pk = model.fields[model.primaryKey]!;
      if (pk.edit.integer) {
        const [row] = await run(source, knex(model.table).select(knex.raw('max(??) - min(??) + 1 as n', [pk.column, pk.column])).toSQL());
        return finite(row?.n ?? 0);
      }
      // Each of the table's rows in sqlite_stat1 starts with the rows it covers (a partial index fewer).
      const stats = await run(source, knex('sqlite_stat1').select('stat').where('tbl', model.table).toSQL());
      const counted = stats.map((row) => finite(String(row.stat).split(' ')[0])).filter((n): n is number => n !== undefined);
      return counted.length > 0 ? Math.max(...counted) : undefined;
    }
    if (dialect === 'mssql' && conditions.length === 0) {
      const [row] = rawRows(dialect, await knex.raw('select sum(row_count) as n from sys.dm_db_partition_stats where object_id = object_id(?) and index_id in (0, 1)', [model.table]));
      return finite(row?.n);
    }
  } catch {
    // Statistics are a hint: a database that will not give them (rights, versions) gives none.
  }
  return undefined;
}

// MariaDB and MySQL spell a statement's time limit differently; asked once per knex.
const mariadb = new WeakMap<Knex, Promise<boolean>>();

function isMariaDb(knex: Knex): Promise<boolean> {
  let known = mariadb.get(knex);
  if (!known) {
    known = knex.raw('select version() as v').then((result) => /mariadb/i.test(String(rawRows('mysql', result)[0]?.v ?? '')));
    mariadb.set(knex, known);
  }
  return known;
}

/**
 * The exact number of matching rows, or undefined when it could not be had within `timeLimitMs`
 * (one `count(*)` through {@link readWithin}).
 */
export async function exactCount(source: CountSource, model: ModelDefinition, conditions: readonly ConditionNode[], timeLimitMs: number): Promise<number | undefined> {
  const count = applyStoredConditions(source.knex(model.table).count({ n: '*' }), model, conditions);
  const rows = await readWithin(source, count, timeLimitMs, 'first');
  return rows === undefined ? undefined : Number(rows[0]?.n ?? 0);
}

/**
 * The rows of one read-only statement, or undefined when it could not run to its end within
 * `timeLimitMs`. PostgreSQL: under `SET LOCAL statement_timeout`. MariaDB: `SET STATEMENT
 * max_statement_time … FOR`; MySQL: the `MAX_EXECUTION_TIME` hint. SQLite: on a worker thread with
 * its own read-only connection, given up at the time limit (better-sqlite3 runs a statement to its
 * end on the calling thread); `first` asks the worker for the first column of the first row only
 * (a count), answered as `[{ n }]`. SQL Server: the plain statement (no time limit).
 */
export async function readWithin(source: CountSource, query: Knex.QueryBuilder, timeLimitMs: number, first?: 'first'): Promise<Array<Record<string, unknown>> | undefined> {
  const { knex, dialect } = source;
  const { sql, bindings } = query.toSQL();
  if (dialect === 'sqlite') return sqliteRead(source, { sql, bindings }, timeLimitMs, first === 'first');
  if (dialect === 'postgres') {
    try {
      return await knex.transaction(async (trx) => {
        // A whole number checked at start-up (QueryLimits), so safe to write into the statement.
        await trx.raw(`set local statement_timeout = ${Math.trunc(timeLimitMs)}`);
        return rawRows(dialect, await trx.raw(sql, bindings as Knex.RawBinding[]));
      });
    } catch (error) {
      if ((error as { code?: unknown }).code === '57014') return undefined;
      throw error;
    }
  }
  if (dialect === 'mysql') {
    const maria = await isMariaDb(knex);
    const limited = maria ? `set statement max_statement_time = ${(timeLimitMs / 1000).toFixed(3)} for ${sql}` : sql.replace(/^select /i, `select /*+ MAX_EXECUTION_TIME(${Math.trunc(timeLimitMs)}) */ `);
    try {
      return rawRows(dialect, await knex.raw(limited, bindings as Knex.RawBinding[]));
    } catch (error) {
      // ER_STATEMENT_TIMEOUT (MariaDB), ER_QUERY_TIMEOUT (MySQL).
      const errno = (error as { errno?: unknown }).errno;
      if (errno === 1969 || errno === 3024) return undefined;
      throw error;
    }
  }
  return (await query) as Array<Record<string, unknown>>;
}

/**
 * A SQLite read on the reader's worker thread (one statement: one snapshot). Without a reader (a
 * memory database, small by nature) or without worker threads, on this thread.
 */
async function sqliteRead(source: CountSource, query: { sql: string; bindings: readonly unknown[] }, timeLimitMs: number, first: boolean): Promise<Array<Record<string, unknown>> | undefined> {
  if (source.sqlite) {
    try {
      if (!first) return await source.sqlite.rowsApart(query.sql, query.bindings, timeLimitMs);
      const n = await source.sqlite.countApart(query.sql, query.bindings, timeLimitMs);
      return n === undefined ? undefined : [{ n }];
    } catch (error) {
      if (!(error instanceof CountWorkerUnavailable)) throw error;
    }
  }
  return run(source, query);
}
