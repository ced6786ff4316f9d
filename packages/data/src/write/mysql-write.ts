// The MariaDB/MySQL update in two round trips. The general path sends six statements one after
// another (BEGIN, SELECT … FOR UPDATE, UPDATE, INSERT of the operate-log row, COMMIT, each
// waiting for the one before); here the same transaction goes out as two texts on one pooled
// mysql2 connection: `START TRANSACTION; SELECT … FOR UPDATE` (the visible row, locked), then,
// after the checks, `UPDATE …; INSERT INTO fw_operate_log …; COMMIT`. The server stops a text at
// its first failing statement, so a refused write (a unique key, say) is followed by a ROLLBACK
// and nothing of it stays. It needs mysql2's `multipleStatements` on the pool's connections (the
// store turns it on for the connections it opens; see docs/performance.md for why that is safe);
// on a connection without it, the update takes the general path.
import { toFormRow, type FormRow } from '@fw/row-patch';
import { operateLogRow } from '@fw/store';
import { FwError, type Condition, type DataHookContext, type ModelDefinition } from '@fw/core';
import type { Knex } from 'knex';
import { applyConditions } from '../read/query.js';
import { pkColumn, rowNotFound } from '../read/row-keys.js';
import { plainColumns } from './fast-update.js';
import { rowOf } from './operate-log.js';
import { bindingsOf, planOf, slot, type Plan } from './plans.js';
import { readColumns } from './secrets.js';
import { FALLBACK, type LogNotes, type UpdateBackend } from './update-recipe.js';
import { validateWholeRow, violationError } from './write-checks.js';

/** The part of a mysql2 connection used here (callback form, as knex uses it). */
interface Connection {
  query(sql: string, values: unknown[], callback: (error: Error | null, results: unknown) => void): unknown;
  config?: { multipleStatements?: boolean };
  /** Set to make knex's pool drop the connection instead of lending it again. */
  __knex__disposed?: unknown;
}

/** The internals of knex's client this module relies on. */
interface MysqlKnexClient {
  config?: { postProcessResponse?: unknown; wrapIdentifier?: unknown };
  acquireConnection(): Promise<unknown>;
  releaseConnection(connection: unknown): unknown;
}

/** A statement of a transaction's text, and its values. */
interface Statement {
  plan: Plan;
  values: readonly unknown[];
}

/**
 * The database gave up waiting for a lock: an InnoDB deadlock or lock wait timeout (or a
 * PostgreSQL deadlock). The statement, or the whole transaction, wrote nothing that stays.
 */
export function isLockFailure(error: unknown): boolean {
  const { code, errno } = (error ?? {}) as { code?: unknown; errno?: unknown };
  return code === 'ER_LOCK_DEADLOCK' || code === 'ER_LOCK_WAIT_TIMEOUT' || errno === 1213 || errno === 1205 || code === '40P01';
}

/**
 * Runs a write transaction, and once more when it failed on a lock (see {@link isLockFailure}),
 * after `reset` forgot what the first attempt noted; a second lock failure is a 409 CONFLICT
 * (nothing was written: the client may try again), never a server error.
 */
export async function retryingLockFailure<T>(run: () => Promise<T>, reset: () => void, what: string): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (!isLockFailure(error)) throw error;
  }
  reset();
  try {
    return await run();
  } catch (error) {
    if (!isLockFailure(error)) throw error;
    throw new FwError('CONFLICT', `${what} is being changed by another request; nothing was written, try again`, { cause: error });
  }
}

/** Runs two-text transactions on the pooled mysql2 connections of a knex instance. */
export class MysqlWriter {
  readonly #knex: Knex;
  readonly #client: MysqlKnexClient;
  readonly #plans = new Map<string, Plan>();

  private constructor(knex: Knex) {
    this.#knex = knex;
    this.#client = knex.client as unknown as MysqlKnexClient;
  }

  /** A writer for `knex` when it is a MariaDB/MySQL knex without response or identifier rewriting; else undefined. */
  static for(knex: Knex, dialect: string): MysqlWriter | undefined {
    const client = knex.client as unknown as MysqlKnexClient;
    if (dialect !== 'mysql' || client.config?.postProcessResponse || client.config?.wrapIdentifier) return undefined;
    return new MysqlWriter(knex);
  }

  /** The plan under `key`, compiled once by `compile` (SQL and bindings with `slot(i)` in place of the i-th value). */
  plan(key: string, compile: (knex: Knex, slotOf: (i: number) => string) => { sql: string; bindings: readonly unknown[] }): Plan {
    let plan = this.#plans.get(key);
    if (!plan) {
      plan = planOf(compile(this.#knex, slot));
      if (this.#plans.size >= 1000) this.#plans.clear();
      this.#plans.set(key, plan);
    }
    return plan;
  }

  /** A query built for this call as a plan (its shape varies per call, so it is not kept). */
  planNow(build: (knex: Knex) => { toSQL(): { sql: string; bindings: readonly unknown[] } }): Plan {
    return planOf(build(this.#knex).toSQL());
  }

  /**
   * Runs `work` on one pooled connection. A throw rolls back what it began and rethrows;
   * {@link FALLBACK} rolls back and is returned, and so does a deadlock or a lock wait timeout
   * (nothing stays of the attempt: the general path then tries again). FALLBACK at once when the
   * connection does not take several statements in one text (a host's own knex).
   */
  async transaction<T>(work: (tx: MysqlTx) => Promise<T | typeof FALLBACK>): Promise<T | typeof FALLBACK> {
    const connection = (await this.#client.acquireConnection()) as Connection;
    const tx = new MysqlTx(connection);
    try {
      if (connection.config?.multipleStatements !== true) return FALLBACK;
      const result = await work(tx);
      if (tx.open) await tx.rollback();
      return result;
    } catch (error) {
      if (tx.open) await tx.rollback();
      if (isLockFailure(error)) return FALLBACK;
      throw error;
    } finally {
      this.#client.releaseConnection(connection);
    }
  }
}

/** One transaction in two texts: {@link begin} opens it with a read, {@link commit} ends it with the writes. */
export class MysqlTx {
  readonly #connection: Connection;
  /** True from the first text sent until COMMIT or ROLLBACK answered. */
  open = false;

  constructor(connection: Connection) {
    this.#connection = connection;
  }

  #send(sql: string, values: unknown[]): Promise<unknown[]> {
    return new Promise((resolve, reject) => {
      this.#connection.query(sql, values, (error, results) => (error ? reject(error) : resolve(results as unknown[])));
    });
  }

  /** `START TRANSACTION; <read>` in one round trip; the read's rows. */
  async begin(read: Statement): Promise<Array<Record<string, unknown>>> {
    this.open = true;
    const results = await this.#send(`START TRANSACTION; ${read.plan.sql}`, bindingsOf(read.plan, read.values));
    return results[1] as Array<Record<string, unknown>>;
  }

  /**
   * `<write>; …; COMMIT` in one round trip. A failing statement stops the text: the caller's
   * rollback undoes the ones before it. Answers each write's result (an INSERT's `insertId`).
   */
  async commit(writes: readonly Statement[]): Promise<Array<{ insertId?: number }>> {
    const results = await this.#send(`${writes.map((w) => w.plan.sql).join('; ')}; COMMIT`, writes.flatMap((w) => bindingsOf(w.plan, w.values)));
    this.open = false;
    return results.slice(0, writes.length) as Array<{ insertId?: number }>;
  }

  /** ROLLBACK; a connection where even that fails is dropped from the pool (its transaction ends with it). */
  async rollback(): Promise<void> {
    try {
      await this.#send('ROLLBACK', []);
    } catch (error) {
      this.#connection.__knex__disposed = error;
    }
    this.open = false;
  }
}

/**
 * The recipe's backend on MariaDB/MySQL for a model the fast paths fit (`modelFits`): the visible
 * row read under its lock in the round trip that opens the transaction, then the changed columns,
 * the operate-log row and COMMIT in a second one. FALLBACK (nothing written) when a step needs
 * the general path.
 */
export function mysqlBackend(mysql: MysqlWriter, tx: MysqlTx, model: ModelDefinition, id: number, conditions: Condition[], log: LogNotes, context: DataHookContext): UpdateBackend {
  const pk = pkColumn(model);
  return {
    checkMayChangeRow: false,
    async readVisible() {
      const select = (k: Knex, idValue: string | number) => applyConditions(k(model.table).select(readColumns(model)).where(`${model.table}.${pk}`, idValue), model, conditions).first().forUpdate();
      const plan = conditions.length === 0 ? mysql.plan(`select\u0000${model.name}`, (k, slotOf) => select(k, slotOf(0)).toSQL()) : mysql.planNow((k) => select(k, id));
      const row = (await tx.begin({ plan, values: [id] }))[0];
      // A row the user cannot see is a row that does not exist, as far as they can tell.
      if (!row) throw rowNotFound(model, id);
      return toFormRow(model, row);
    },
    check: (_stored, next) => validateWholeRow(model, next, context, 'mysql'),
    columns: (stored, next, changed) => plainColumns(model, stored, next, changed),
    async write(columns, _stored, next: FormRow) {
      const names = Object.keys(columns);
      const writes: Statement[] = [];
      if (names.length > 0) {
        const plan = mysql.plan(`update\u0000${model.table}\u0000${names.join('\u0000')}`, (k, slotOf) =>
          k(model.table)
            .where(pk, slotOf(names.length))
            .update(Object.fromEntries(names.map((name, i) => [name, slotOf(i)])))
            .toSQL(),
        );
        writes.push({ plan, values: [...names.map((name) => columns[name]), id] });
      }
      // The success row of the operate log commits with the change.
      const logRow = operateLogRow(rowOf(log.success!()));
      const logNames = Object.keys(logRow) as Array<keyof typeof logRow>;
      const logPlan = mysql.plan(`insert\u0000fw_operate_log`, (k, slotOf) => k('fw_operate_log').insert(Object.fromEntries(logNames.map((name, i) => [name, slotOf(i)]))).toSQL());
      writes.push({ plan: logPlan, values: logNames.map((name) => logRow[name]) });
      let results: Array<{ insertId?: number }>;
      try {
        results = await tx.commit(writes);
      } catch (error) {
        throw violationError(model, error, next) ?? error;
      }
      log.written = true;
      // The log row's id: live messages name it, so viewers can judge the row as it was before.
      const logId = Number(results[writes.length - 1]?.insertId);
      if (Number.isSafeInteger(logId) && logId > 0) log.id = logId;
      return undefined;
    },
  };
}
