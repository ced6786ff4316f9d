// The synchronous SQLite write: on better-sqlite3 every statement runs synchronously, so a whole
// update (read the visible row, check it, write the changed columns and the operate-log row) can
// run between BEGIN and COMMIT with no await in between: no other request's work interleaves,
// knex's per-transaction machinery is skipped, and statements are prepared once per connection.
// Only the connection comes from knex's pool (so knex's own queries wait for it as usual).
import { EditType, type ModelDefinition } from '@fw/core';
import type { Knex } from 'knex';
import { GRANT_TABLES } from '@fw/core';
import { isSecret } from './secrets.js';

/** The part of a better-sqlite3 statement used here. */
interface Statement {
  get(bindings: unknown[]): unknown;
  run(bindings: unknown[]): { changes: number };
}

/** The part of a better-sqlite3 connection used here. */
interface Connection {
  prepare(sql: string): Statement;
  readonly inTransaction: boolean;
}

/** A statement compiled once per shape: its SQL, and for each binding either a slot number (a value given per call) or a constant. */
export interface Plan {
  sql: string;
  bindings: Array<{ slot: number } | { value: unknown }>;
}

/** The internals of knex's client this module relies on. */
interface SqliteClient {
  driverName?: string;
  config?: { postProcessResponse?: unknown; wrapIdentifier?: unknown };
  acquireConnection(): Promise<unknown>;
  releaseConnection(connection: unknown): unknown;
  _formatBindings(bindings: unknown[]): unknown[];
}

/** Returned by the work of {@link SqliteWriter.transaction} to roll back and let the caller take the general path. */
export const FALLBACK: unique symbol = Symbol('fw.sqlite-fallback');

// Stands for the i-th value while a statement is compiled (unlikely to be a real value).
export const slot = (i: number) => `\u0000fw-slot-${i}\u0000`;
// eslint-disable-next-line no-control-regex -- the NUL marks a slot, as in slot()
const SLOT = /^\u0000fw-slot-(\d+)\u0000$/;

/** The plan of a query compiled with `slot(i)` in place of its values. */
export function planOf(query: { sql: string; bindings: readonly unknown[] }): Plan {
  return {
    sql: query.sql,
    bindings: query.bindings.map((b) => {
      const m = typeof b === 'string' ? SLOT.exec(b) : null;
      return m ? { slot: Number(m[1]) } : { value: b };
    }),
  };
}

/** The bindings of `plan` with `values` in its slots. */
export function bindingsOf(plan: Plan, values: readonly unknown[]): unknown[] {
  return plan.bindings.map((b) => ('slot' in b ? values[b.slot] : b.value));
}

/**
 * True when an update of `model` can take the synchronous path with nothing left out: no hook
 * that takes the transaction (`validate`, `beforeUpdate`, `afterUpdate`), no collections or
 * attachments (their writes and file work stay on the general path), and no grant tables (their
 * writes are checked against grant rules and bump the grants version).
 */
export function modelFits(model: ModelDefinition): boolean {
  const proxy = model.dataProxy;
  if (proxy.validate || proxy.beforeUpdate || proxy.afterUpdate) return false;
  if (GRANT_TABLES.has(model.table)) return false;
  return Object.values(model.fields).every((f) => f.edit.collection === undefined && f.edit.type !== EditType.ATTACHMENT);
}

/** Fields whose change needs the general path: references (their targets are checked) and secrets given a new value (hashed). */
export function needsGeneralPath(model: ModelDefinition, changed: Readonly<Record<string, unknown>>): boolean {
  for (const name of Object.keys(changed)) {
    const field = model.fields[name];
    if (!field || field.edit.reference !== undefined || field.edit.collection !== undefined || isSecret(field)) return true;
  }
  return false;
}

/** Runs synchronous transactions on the pooled better-sqlite3 connection of a knex instance. */
export class SqliteWriter {
  readonly #knex: Knex;
  readonly #client: SqliteClient;
  readonly #fits = new WeakMap<ModelDefinition, boolean>();
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

  /** See {@link modelFits}; cached per model. */
  fits(model: ModelDefinition): boolean {
    let fits = this.#fits.get(model);
    if (fits === undefined) {
      fits = modelFits(model);
      this.#fits.set(model, fits);
    }
    return fits;
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
    return this.#writer.statement(this.#connection, plan.sql).run(this.#writer.format(plan.bindings.map((b) => ('slot' in b ? values[b.slot] : b.value)))).changes;
  }
}
