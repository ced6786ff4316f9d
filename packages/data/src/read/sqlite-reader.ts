// Table pages on a SQLite file read through a read-only better-sqlite3 connection of their own,
// with statements prepared once: in WAL mode it sees committed data only and never waits for the
// writer (the store's session lookup does the same). The page and its count run in one read
// transaction, so they agree with each other. Anything else (memory databases, other drivers, a
// knex that rewrites responses) keeps reading through knex.
import { createRequire } from 'node:module';
import type { Knex } from 'knex';
import { SqliteCountWorker } from './sqlite-count-worker.js';
import { bindingsOf, type Plan } from '../write/plans.js';

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
  #counter: SqliteCountWorker | undefined;

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
   * The rows of the page plan and of its count plan (none when `count` is undefined), with
   * `values` in their slots and `fill` applied last (the offset); undefined when there is no connection.
   */
  read(page: Plan, count: Plan | undefined, values: readonly unknown[], fill: (binding: unknown) => unknown): [Array<Record<string, unknown>>, Array<Record<string, unknown>> | undefined] | undefined {
    const connection = this.#open();
    if (!connection) return undefined;
    const bind = (plan: Plan) => this.#client._formatBindings(bindingsOf(plan, values).map(fill));
    const pageStatement = this.#statement(connection, page.sql);
    const countStatement = count && this.#statement(connection, count.sql);
    const begin = this.#statement(connection, 'begin');
    const commit = this.#statement(connection, 'commit');
    begin.run([]);
    try {
      return [pageStatement.all(bind(page)) as Array<Record<string, unknown>>, count && (countStatement!.all(bind(count)) as Array<Record<string, unknown>>)];
    } finally {
      commit.run([]);
    }
  }

  /** The rows of one statement (knex-compiled SQL and bindings), outside any transaction; undefined when there is no connection. */
  all(sql: string, bindings: readonly unknown[]): Array<Record<string, unknown>> | undefined {
    const connection = this.#open();
    if (!connection) return undefined;
    return this.#statement(connection, sql).all(this.#client._formatBindings([...bindings])) as Array<Record<string, unknown>>;
  }

  /**
   * The number a `count(*)` statement (knex-compiled SQL and bindings) selects, counted on a
   * worker thread so that the event loop goes on meanwhile (sqlite-count-worker.ts); undefined
   * when it takes longer than `timeLimitMs`.
   * @throws {CountWorkerUnavailable} when no worker thread can be started.
   */
  countApart(sql: string, bindings: readonly unknown[], timeLimitMs: number): Promise<number | undefined> {
    this.#counter ??= new SqliteCountWorker(this.#file);
    return this.#counter.count(sql, this.#client._formatBindings([...bindings]), timeLimitMs);
  }

  /**
   * Every row a statement (knex-compiled SQL and bindings) selects, read on the count worker's
   * thread (see {@link countApart}); undefined when it takes longer than `timeLimitMs`.
   * @throws {CountWorkerUnavailable} when no worker thread can be started.
   */
  rowsApart(sql: string, bindings: readonly unknown[], timeLimitMs: number): Promise<Array<Record<string, unknown>> | undefined> {
    this.#counter ??= new SqliteCountWorker(this.#file);
    return this.#counter.rows(sql, this.#client._formatBindings([...bindings]), timeLimitMs);
  }

  /** Closes the connection and ends the count worker, if open. */
  close(): void {
    this.#counter?.close();
    this.#counter = undefined;
    this.#connection?.close();
    this.#connection = undefined;
    this.#statements.clear();
  }
}
