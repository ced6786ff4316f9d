// Table pages on a SQLite file read through a read-only better-sqlite3 connection of their own,
// with statements prepared once: in WAL mode it sees committed data only and never waits for the
// writer (the store's session lookup does the same). The page and its count run in one read
// transaction, so they agree with each other. Anything else (memory databases, other drivers, a
// knex that rewrites responses) keeps reading through knex.
import { createRequire } from 'node:module';
import type { Knex } from 'knex';
import type { Plan } from './sqlite-write.js';
import { bindingsOf } from './sqlite-write.js';

interface Statement {
  all(bindings: unknown[]): unknown[];
  run(bindings: unknown[]): unknown;
}
interface Connection {
  prepare(sql: string): Statement;
  close(): void;
}
interface SqliteKnexClient {
  driverName?: string;
  config?: { connection?: { filename?: unknown }; postProcessResponse?: unknown; wrapIdentifier?: unknown };
  _formatBindings(bindings: unknown[]): unknown[];
}

/** Reads page plans on a read-only connection of a SQLite file knex. */
export class SqliteReader {
  readonly #file: string;
  readonly #client: SqliteKnexClient;
  #connection: Connection | undefined;
  #failed = false;
  readonly #statements = new Map<string, Statement>();

  private constructor(file: string, client: SqliteKnexClient) {
    this.#file = file;
    this.#client = client;
  }

  /** A reader for a better-sqlite3 knex on a file (not `:memory:`), without response or identifier rewriting; else undefined. */
  static for(knex: Knex, dialect: string): SqliteReader | undefined {
    const client = knex.client as unknown as SqliteKnexClient;
    const file = client.config?.connection?.filename;
    if (dialect !== 'sqlite' || client.driverName !== 'better-sqlite3' || typeof file !== 'string' || file === '' || file.startsWith(':memory:') || file.startsWith('file:')) return undefined;
    if (client.config?.postProcessResponse || client.config?.wrapIdentifier || typeof client._formatBindings !== 'function') return undefined;
    return new SqliteReader(file, client);
  }

  /** The connection, opened on first use; undefined (and knex reads instead) when it cannot be opened. */
  #open(): Connection | undefined {
    if (this.#connection || this.#failed) return this.#connection;
    try {
      const Driver = createRequire(import.meta.url)('better-sqlite3') as new (file: string, options: { readonly: boolean; fileMustExist: boolean }) => Connection;
      this.#connection = new Driver(this.#file, { readonly: true, fileMustExist: true });
    } catch {
      this.#failed = true;
    }
    return this.#connection;
  }

  #statement(connection: Connection, sql: string): Statement {
    let statement = this.#statements.get(sql);
    if (!statement) {
      if (this.#statements.size >= 1000) this.#statements.clear();
      statement = connection.prepare(sql);
      this.#statements.set(sql, statement);
    }
    return statement;
  }

  /**
   * The rows of the page plan and of its count plan, with `values` in their slots and
   * `fill` applied last (the offset); undefined when there is no connection.
   */
  read(page: Plan, count: Plan, values: readonly unknown[], fill: (binding: unknown) => unknown): [Array<Record<string, unknown>>, Array<Record<string, unknown>>] | undefined {
    const connection = this.#open();
    if (!connection) return undefined;
    const bind = (plan: Plan) => this.#client._formatBindings(bindingsOf(plan, values).map(fill));
    const pageStatement = this.#statement(connection, page.sql);
    const countStatement = this.#statement(connection, count.sql);
    const begin = this.#statement(connection, 'begin');
    const commit = this.#statement(connection, 'commit');
    begin.run([]);
    try {
      return [pageStatement.all(bind(page)) as Array<Record<string, unknown>>, countStatement.all(bind(count)) as Array<Record<string, unknown>>];
    } finally {
      commit.run([]);
    }
  }

  /** The rows of one plan with `values` in its slots; undefined when there is no connection. */
  all(plan: Plan, values: readonly unknown[]): Array<Record<string, unknown>> | undefined {
    const connection = this.#open();
    if (!connection) return undefined;
    return this.#statement(connection, plan.sql).all(this.#client._formatBindings(bindingsOf(plan, values))) as Array<Record<string, unknown>>;
  }

  /** Closes the connection, if open. */
  close(): void {
    this.#connection?.close();
    this.#connection = undefined;
    this.#statements.clear();
  }
}
