// Where a table page's total comes from when the page's own bounded count cannot prove it: a full
// count held to a time limit, and the database's own statistics. One function per job, one branch
// per dialect; the strategy that picks between them is in counts.ts.
import type { Condition, ModelDefinition } from '@fw/core';
import type { Knex } from 'knex';
import { applyStoredConditions } from './query.js';
import { pkColumn } from './service-util.js';
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
export function boundedCountQuery(knex: Knex, model: ModelDefinition, conditions: readonly Condition[], limit: number): Knex.QueryBuilder {
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
 * whole table. SQLite keeps none. Undefined when the database has nothing to say (or refuses).
 */
export async function statisticsEstimate(source: CountSource, model: ModelDefinition, conditions: readonly Condition[]): Promise<number | undefined> {
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
 * The exact number of matching rows, or undefined when it could not be had within `timeLimitMs`.
 * PostgreSQL: one count under `SET LOCAL statement_timeout`. MariaDB: `SET STATEMENT
 * max_statement_time … FOR`; MySQL: the `MAX_EXECUTION_TIME` hint. SQLite: counts in primary-key
 * ranges, yielding to other requests between them (better-sqlite3 is synchronous), and trusts the
 * sum only when no write committed meanwhile — unless `strict` is false, for a count that will only
 * ever serve as an estimate. SQL Server: one plain count (no time limit).
 */
export async function exactCount(source: CountSource, model: ModelDefinition, conditions: readonly Condition[], timeLimitMs: number, strict = true): Promise<number | undefined> {
  const { knex, dialect } = source;
  const count = applyStoredConditions(knex(model.table).count({ n: '*' }), model, conditions);
  if (dialect === 'sqlite') return sqliteCount(source, model, conditions, Date.now() + timeLimitMs, strict);
  if (dialect === 'postgres') {
    try {
      return await knex.transaction(async (trx) => {
        // A whole number checked at start-up (QueryLimits), so safe to write into the statement.
        await trx.raw(`set local statement_timeout = ${Math.trunc(timeLimitMs)}`);
        const [row] = rawRows(dialect, await trx.raw(count.toSQL().sql, count.toSQL().bindings as Knex.RawBinding[]));
        return Number(row?.n ?? 0);
      });
    } catch (error) {
      if ((error as { code?: unknown }).code === '57014') return undefined;
      throw error;
    }
  }
  if (dialect === 'mysql') {
    const { sql, bindings } = count.toSQL();
    const maria = await isMariaDb(knex);
    const limited = maria ? `set statement max_statement_time = ${(timeLimitMs / 1000).toFixed(3)} for ${sql}` : sql.replace(/^select /i, `select /*+ MAX_EXECUTION_TIME(${Math.trunc(timeLimitMs)}) */ `);
    try {
      const [row] = rawRows(dialect, await knex.raw(limited, bindings as Knex.RawBinding[]));
      return Number(row?.n ?? 0);
    } catch (error) {
      // ER_STATEMENT_TIMEOUT (MariaDB), ER_QUERY_TIMEOUT (MySQL).
      const errno = (error as { errno?: unknown }).errno;
      if (errno === 1969 || errno === 3024) return undefined;
      throw error;
    }
  }
  const [row] = await count;
  return Number((row as Record<string, unknown> | undefined)?.n ?? 0);
}

/** A SQLite count in primary-key ranges, each range small enough to keep the event loop free. */
async function sqliteCount(source: CountSource, model: ModelDefinition, conditions: readonly Condition[], deadline: number, strict: boolean): Promise<number | undefined> {
  const { knex } = source;
  const pk = `${model.table}.${pkColumn(model)}`;
  // `data_version` moves when another connection commits, `total_changes()` when this one writes:
  // equal before and after, nothing changed while the ranges were counted one by one.
  const version = async () => {
    const [a] = await run(source, { sql: 'pragma data_version', bindings: [] });
    const [b] = await run(source, { sql: 'select total_changes() as c', bindings: [] });
    return `${String(a?.data_version)}/${String(b?.c)}`;
  };
  let step = 8192;
  while (Date.now() < deadline) {
    const before = await version();
    const [range] = await run(source, knex(model.table).min({ lo: pk }).max({ hi: pk }).toSQL());
    let total = 0;
    if (range?.lo !== null && range?.lo !== undefined) {
      // Ranges need whole-number keys: a text key (or one past 2^53) would make every range
      // empty and the sum a wrong 0. No count within the time limit then; the total stays an estimate.
      if (!Number.isSafeInteger(Number(range.lo)) || !Number.isSafeInteger(Number(range.hi))) return undefined;
      let from = Number(range.lo) - 1;
      const hi = Number(range.hi);
      while (from < hi) {
        if (Date.now() >= deadline) return undefined;
        const to = Math.min(hi, from + step);
        const started = Date.now();
        const [row] = await run(source, applyStoredConditions(knex(model.table).count({ n: '*' }).where(pk, '>', from).andWhere(pk, '<=', to), model, conditions).toSQL());
        total += Number(row?.n ?? 0);
        from = to;
        // Ranges of a few milliseconds each: longer ones would hold up other requests.
        const took = Date.now() - started;
        if (took < 4) step = Math.min(step * 2, 1 << 24);
        else if (took > 16) step = Math.max(256, Math.floor(step / 2));
        await new Promise((resolve) => setImmediate(resolve));
      }
    }
    if (!strict || (await version()) === before) return total;
  }
  return undefined;
}
