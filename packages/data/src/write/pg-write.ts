// The optimistic PostgreSQL update: read the visible row with its version (`xmin`, which every
// update of the row changes), check and build the new row, then write the changed columns AND
// the operate-log row in ONE statement (a data-modifying WITH), which changes the row only if its
// version is still the one read. One statement is one commit: the change never lands without its
// log row. Two round trips instead of six (BEGIN, SELECT … FOR UPDATE, UPDATE, INSERT, COMMIT),
// and the row is locked for one statement instead of a whole transaction. A row changed in
// between writes nothing; the caller then takes the general (locking) path.
import { createHash } from 'node:crypto';
import type { Knex } from 'knex';
import { bindingsOf, planOf, slot, type Plan } from './plans.js';

/** The part of a node-postgres client used here. */
interface PgClient {
  query(config: { name?: string; text: string; values: unknown[] }): Promise<{ rows: Array<Record<string, unknown>> }>;
}

/** The internals of knex's client this module relies on. */
interface PgKnexClient {
  config?: { postProcessResponse?: unknown; wrapIdentifier?: unknown };
  acquireConnection(): Promise<unknown>;
  releaseConnection(connection: unknown): unknown;
}

/** The column the row's version is read into (no model field is named so). */
export const VERSION_KEY = '__fw_xmin';

/** Runs planned statements on the pooled node-postgres connections of a knex instance, each prepared once per connection. */
export class PgWriter {
  readonly #knex: Knex;
  readonly #client: PgKnexClient;
  readonly #plans = new Map<string, Plan & { name: string }>();
  readonly #names = new Map<string, string>();

  private constructor(knex: Knex) {
    this.#knex = knex;
    this.#client = knex.client as unknown as PgKnexClient;
  }

  /** A writer for `knex` when it is a PostgreSQL knex without response or identifier rewriting; else undefined. */
  static for(knex: Knex, dialect: string): PgWriter | undefined {
    const client = knex.client as unknown as PgKnexClient;
    if (dialect !== 'postgres' || client.config?.postProcessResponse || client.config?.wrapIdentifier) return undefined;
    return new PgWriter(knex);
  }

  /** The plan under `key`, compiled once by `compile` (SQL and bindings with `slot(i)` in place of the i-th value). */
  plan(key: string, compile: (knex: Knex, slotOf: (i: number) => string) => { sql: string; bindings: readonly unknown[] }): Plan & { name: string } {
    let plan = this.#plans.get(key);
    if (!plan) {
      // `?` placeholders as PostgreSQL's $n.
      const query = compile(this.#knex, slot);
      const native = this.#knex.raw(query.sql, query.bindings as Knex.RawBinding[]).toSQL().toNative();
      plan = { ...planOf({ sql: native.sql, bindings: native.bindings }), name: this.nameOf(native.sql) };
      if (this.#plans.size >= 1000) this.#plans.clear();
      this.#plans.set(key, plan);
    }
    return plan;
  }

  /**
   * The name `sql` is prepared under: from a hash of the text, so every writer and reader on the
   * same pool (several services may share one knex) names one text alike and no two texts alike.
   */
  nameOf(sql: string): string {
    let name = this.#names.get(sql);
    if (!name) {
      if (this.#names.size >= 1000) this.#names.clear();
      name = `fw_${createHash('sha256').update(sql).digest('hex').slice(0, 40)}`;
      this.#names.set(sql, name);
    }
    return name;
  }

  /** Runs a planned statement (prepared under its name) with `values` in its slots; its rows. */
  async rows(plan: Plan & { name: string }, values: readonly unknown[], fill: (binding: unknown) => unknown = (b) => b): Promise<Array<Record<string, unknown>>> {
    const connection = (await this.#client.acquireConnection()) as PgClient;
    try {
      return (await connection.query({ name: plan.name, text: plan.sql, values: bindingsOf(plan, values).map(fill) })).rows;
    } finally {
      this.#client.releaseConnection(connection);
    }
  }

  /** Runs a query built for this call (its shape varies per call, so it is not prepared); its rows. */
  async rowsNow(query: { sql: string; bindings: readonly unknown[] }): Promise<Array<Record<string, unknown>>> {
    return (await this.#knex.raw(query.sql, query.bindings as Knex.RawBinding[])).rows as Array<Record<string, unknown>>;
  }
}
