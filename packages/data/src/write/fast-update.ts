// The fast backends of the update recipe (update-recipe.ts): on SQLite one synchronous
// transaction with prepared statements, on PostgreSQL one statement writing the row and its
// operate-log row. They run the same steps as the general path and hand over to it (before
// writing anything) whenever a step needs it.
import { type Condition, type DataHookContext, type ModelDefinition } from '@fw/core';
import { changedColumns, toFormRow, validateRowSync, type FormRow } from '@fw/row-patch';
import { operateLogRow } from '@fw/store';
import type { Knex } from 'knex';
import { applyConditions } from '../read/query.js';
import { pkColumn, rowNotFound } from '../read/row-keys.js';
import { rowOf } from './operate-log.js';
import { VERSION_KEY, type PgWriter } from './pg-write.js';
import { readColumns } from './secrets.js';
import type { SqliteTx, SqliteWriter } from './sqlite-write.js';
import { FALLBACK, type LogNotes, type UpdateBackend } from './update-recipe.js';
import { validateWholeRow, validationError, violationError } from './write-checks.js';

/**
 * True when an update of `model` can take a fast path with nothing left out: no hook that takes
 * the transaction (`validate`, `beforeUpdate`, `afterUpdate`), no collections or attachments
 * (their writes and file work stay on the general path), and no grant tables (their writes are
 * checked against grant rules and bump the grants version). Read from what defineModel decided
 * (`model.capabilities`), so it costs a few property reads.
 */
export function modelFits(model: ModelDefinition): boolean {
  const proxy = model.dataProxy;
  if (proxy.validate || proxy.beforeUpdate || proxy.afterUpdate) return false;
  const { touchesGrants, collectionFields, attachmentFields } = model.capabilities;
  return !touchesGrants && collectionFields.length === 0 && attachmentFields.length === 0;
}

/** Fields whose change needs the general path: references (their targets are checked) and secrets given a new value (hashed). */
export function needsGeneralPath(model: ModelDefinition, changed: Readonly<Record<string, unknown>>): boolean {
  for (const name of Object.keys(changed)) {
    const field = model.fields[name];
    if (!field || field.edit.reference !== undefined || field.edit.collection !== undefined || field.capabilities.secret) return true;
  }
  return false;
}

/** The changed columns of a row with no secret in it (the fast paths never take one: needsGeneralPath), key left out; FALLBACK when a change needs the general path. */
export function plainColumns(model: ModelDefinition, stored: FormRow, next: FormRow, changed: FormRow): Record<string, unknown> | typeof FALLBACK {
  if (needsGeneralPath(model, changed)) return FALLBACK;
  // Like secretsForStorage, leave secrets out.
  const withoutSecrets: FormRow = { ...next };
  for (const name of model.capabilities.secretFields) delete withoutSecrets[name];
  const columns: Record<string, unknown> = changedColumns(model, stored, withoutSecrets);
  delete columns[pkColumn(model)];
  return columns;
}

/**
 * The recipe's backend on PostgreSQL for a model {@link modelFits}: the visible row read with its
 * version (`xmin`), then the changed columns and the operate-log row in one statement that writes
 * only if the row's version is unchanged. FALLBACK (nothing written) when a step needs the
 * general path, no column changes, or the row changed since it was read.
 */
export function pgBackend(pg: PgWriter, knex: Knex, model: ModelDefinition, id: number, conditions: Condition[], log: LogNotes, context: DataHookContext): UpdateBackend {
  const pk = pkColumn(model);
  let version: unknown;
  return {
    checkMayChangeRow: false,
    async readVisible() {
      const select = (k: Knex, idValue: string | number) =>
        applyConditions(k(model.table).select([...readColumns(model), k.raw('xmin::text as ??', [VERSION_KEY])]).where(`${model.table}.${pk}`, idValue), model, conditions).first();
      const rows = conditions.length === 0 ? await pg.rows(pg.plan(`select\u0000${model.name}`, (k, slot) => select(k, slot(0)).toSQL()), [id]) : await pg.rowsNow(select(knex, id).toSQL());
      const row = rows[0];
      // A row the user cannot see is a row that does not exist, as far as they can tell.
      if (!row) throw rowNotFound(model, id);
      version = row[VERSION_KEY];
      delete row[VERSION_KEY];
      return toFormRow(model, row);
    },
    check: (_stored, next) => validateWholeRow(model, next, context, 'postgres'),
    columns: (stored, next, changed) => plainColumns(model, stored, next, changed),
    async write(columns, _stored, next) {
      const names = Object.keys(columns);
      if (names.length === 0) return FALLBACK;
      const logRow = operateLogRow(rowOf(log.success!()));
      const logNames = Object.keys(logRow) as Array<keyof typeof logRow>;
      const plan = pg.plan(`update\u0000${model.table}\u0000${names.join('\u0000')}`, (k, slot) => {
        const update = k(model.table)
          .where(pk, slot(names.length))
          .andWhereRaw('xmin::text = ?', [slot(names.length + 1)])
          .update(Object.fromEntries(names.map((name, i) => [name, slot(i)])))
          .toSQL();
        const first = names.length + 2;
        return {
          sql: `with "fw_changed" as (${update.sql} returning 1) insert into "fw_operate_log" (${logNames.map((n) => `"${n}"`).join(', ')}) select ${logNames.map(() => '?').join(', ')} from "fw_changed" returning "id"`,
          bindings: [...update.bindings, ...logNames.map((_, i) => slot(first + i))],
        };
      });
      let written: Array<Record<string, unknown>>;
      try {
        written = await pg.rows(plan, [...names.map((name) => columns[name]), id, version, ...logNames.map((name) => logRow[name])]);
      } catch (error) {
        throw violationError(model, error, next) ?? error;
      }
      // The row changed since it was read: nothing was written; the general path reads it again under a lock.
      if (written.length === 0) return FALLBACK;
      log.written = true;
      log.id = Number(written[0]!.id);
      return undefined;
    },
  };
}

/**
 * The recipe's backend inside one synchronous SQLite transaction, for a model
 * {@link modelFits}: every step answers at once, so nothing awaits between BEGIN and COMMIT, and
 * the operate-log row commits with the change. FALLBACK (before anything is written) when a
 * step needs the general path: an async rule, a changed reference or secret.
 */
export function sqliteBackend(sqlite: SqliteWriter, tx: SqliteTx, model: ModelDefinition, id: number, conditions: Condition[], log: LogNotes): UpdateBackend {
  const pk = pkColumn(model);
  return {
    checkMayChangeRow: false,
    readVisible() {
      const select = (knex: Knex, idValue: string | number) => applyConditions(knex(model.table).select(readColumns(model)).where(`${model.table}.${pk}`, idValue), model, conditions).first();
      const row = conditions.length === 0 ? tx.get(sqlite.plan(`select\u0000${model.name}`, (knex, slot) => select(knex, slot(0))), [id]) : tx.getNow(sqlite.compileNow((knex) => select(knex, id)));
      // A row the user cannot see is a row that does not exist, as far as they can tell.
      if (!row) throw rowNotFound(model, id);
      return toFormRow(model, row);
    },
    check(_stored, next) {
      const details = validateRowSync(model, next, { dialect: 'sqlite' });
      if (!details) return FALLBACK;
      if (details.length > 0) throw validationError(details);
      return undefined;
    },
    columns: (stored, next, changed) => plainColumns(model, stored, next, changed),
    write(columns, _stored, next) {
      const names = Object.keys(columns);
      if (names.length > 0) {
        const plan = sqlite.plan(`update\u0000${model.table}\u0000${names.join('\u0000')}`, (knex, slot) =>
          knex(model.table)
            .where(pk, slot(names.length))
            .update(Object.fromEntries(names.map((name, i) => [name, slot(i)]))),
        );
        try {
          tx.run(plan, [...names.map((name) => columns[name]), id]);
        } catch (error) {
          throw violationError(model, error, next) ?? error;
        }
      }
      // The success row of the operate log commits with the change.
      const logRow = operateLogRow(rowOf(log.success!()));
      const logNames = Object.keys(logRow) as Array<keyof typeof logRow>;
      const logPlan = sqlite.plan(`insert\u0000fw_operate_log`, (knex, slot) => knex('fw_operate_log').insert(Object.fromEntries(logNames.map((name, i) => [name, slot(i)]))));
      log.id = tx.insert(logPlan, logNames.map((name) => logRow[name]));
      log.written = true;
      return undefined;
    },
  };
}
