// The synchronous SQLite write: on better-sqlite3 every statement runs synchronously, so a whole
// update (read the visible row, check it, write the changed columns and the operate-log row) can
// run between BEGIN and COMMIT with no await in between: no other request's work interleaves,
// knex's per-transaction machinery is skipped, and statements are prepared once per connection.
// Only the connection comes from knex's pool (so knex's own queries wait for it as usual).
import type { Knex } from 'knex';
import { planOf, slot, type Plan } from './plans.js';
import { FALLBACK } from './update-recipe.js';

/** The part of a better-sqlite3 statement used here. */
interface Statement {
  get(bindings: unknown[]): unknown;
  run(bindings: unknown[]): { changes: number; lastInsertRowid: number | bigint };
}

/** The part of a better-sqlite3 connection used here. */
interface Connection {
  prepare(sql: string): Statement;
  readonly inTransaction: boolean;
}

/** The internals of knex's client this module relies on. */
interface SqliteClient {
  driverName?: string;
  config?: { postProcessResponse?: unknown; wrapIdentifier?: unknown };
  acquireConnection(): Promise<unknown>;
  releaseConnection(connection: unknown): unknown;
  _formatBindings(bindings: unknown[]): unknown[];
}

/** Runs synchronous transactions on the pooled better-sqlite3 connection of a knex instance. */
export class SqliteWriter {
  readonly #knex: Knex;
  readonly #client: SqliteClient;
  readonly #plans = new Map<string, Plan>();
  readonly #statements = new WeakMap<object, Map<string, Statement>>();

  private constructor(knex: Knex) {
    this.#knex = knex;
    this.#client = knex.client as unknown as SqliteClient;
  }

  /** A writer for `knex` when it is a better-sqlite3 knex without response or identifier rewriting; else undefined. */
  static for(knex: Knex, dialect: string): SqliteWriter | undefined {
    const client = knex.client as unknown as SqliteClient;
    if (dialect !== 'sqlite' || client.driverName !== 'better-sqlite3') return undefined;
    if (client.config?.postProcessResponse || client.config?.wrapIdentifier || typeof client._formatBindings !== 'function') return undefined;
    return new SqliteWriter(knex);
  }

  /**
   * Runs `work` between BEGIN IMMEDIATE and COMMIT on the pooled connection, synchronously.
   * A throw rolls back and rethrows; {@link FALLBACK} rolls back and is returned.
   */
  async transaction<T>(work: (tx: SqliteTx) => T | typeof FALLBACK): Promise<T | typeof FALLBACK> {
    const connection = (await this.#client.acquireConnection()) as Connection;
    try {
      if (connection.inTransaction) return FALLBACK;
      const tx = new SqliteTx(this, connection);
      tx.exec('begin immediate');
      let result: T | typeof FALLBACK;
      try {
        result = work(tx);
      } catch (error) {
        if (connection.inTransaction) tx.exec('rollback');
        throw error;
      }
      tx.exec(result === FALLBACK ? 'rollback' : 'commit');
      return result;
    } finally {
      this.#client.releaseConnection(connection);
    }
  }

  /** The statement of `sql` on `connection`, prepared once. @internal */
  statement(connection: Connection, sql: string): Statement {
    let map = this.#statements.get(connection);
    if (!map) {
      map = new Map();
      this.#statements.set(connection, map);
    }
    let statement = map.get(sql);
    if (!statement) {
      if (map.size >= 500) map.clear();
      statement = connection.prepare(sql);
      map.set(sql, statement);
    }
    return statement;
  }

  /**
   * The plan under `key`, compiled once by `compile` (a knex query built with `slot(i)` in place
   * of the i-th value). @internal
   */
  plan(key: string, compile: (knex: Knex, slotOf: (i: number) => string) => Knex.QueryBuilder): Plan {
    let plan = this.#plans.get(key);
    if (!plan) {
      plan = planOf(compile(this.#knex, slot).toSQL());
      if (this.#plans.size >= 1000) this.#plans.clear();
      this.#plans.set(key, plan);
    }
    return plan;
  }

  /** A query built now (its shape varies per call), as SQL and bindings. @internal */
  compileNow(build: (knex: Knex) => Knex.QueryBuilder): { sql: string; bindings: unknown[] } {
    const { sql, bindings } = build(this.#knex).toSQL();
    return { sql, bindings: [...bindings] };
  }

  /** Bindings as knex's better-sqlite3 client sends them (a Date as epoch milliseconds, a boolean as 0/1). @internal */
  format(bindings: unknown[]): unknown[] {
    return this.#client._formatBindings(bindings);
  }
}

/** One running synchronous transaction. */
export class SqliteTx {
  readonly #writer: SqliteWriter;
  readonly #connection: Connection;

  constructor(writer: SqliteWriter, connection: Connection) {
    this.#writer = writer;
    this.#connection = connection;
  }

  exec(sql: string): void {
    this.#writer.statement(this.#connection, sql).run([]);
  }

  /** The first row of a planned query with `values` in its slots. */
  get(plan: Plan, values: readonly unknown[]): Record<string, unknown> | undefined {
    return this.#writer.statement(this.#connection, plan.sql).get(this.#writer.format(plan.bindings.map((b) => ('slot' in b ? values[b.slot] : b.value)))) as Record<string, unknown> | undefined;
  }

  /** The first row of a query compiled for this call. */
  getNow(query: { sql: string; bindings: unknown[] }): Record<string, unknown> | undefined {
    return this.#writer.statement(this.#connection, query.sql).get(this.#writer.format(query.bindings)) as Record<string, unknown> | undefined;
  }

  /** Runs a planned write with `values` in its slots; the number of rows changed. */
  run(plan: Plan, values: readonly unknown[]): number {
    return this.#result(plan, values).changes;
  }

  /** Runs a planned insert of one row with `values` in its slots; the new row's id. */
  insert(plan: Plan, values: readonly unknown[]): number {
    return Number(this.#result(plan, values).lastInsertRowid);
  }

  #result(plan: Plan, values: readonly unknown[]): { changes: number; lastInsertRowid: number | bigint } {
    return this.#writer.statement(this.#connection, plan.sql).run(this.#writer.format(plan.bindings.map((b) => ('slot' in b ? values[b.slot] : b.value))));
  }
}
