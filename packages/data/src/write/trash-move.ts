// The step of a delete that keeps the rows it removes (issue 23 §3): apart from the trash's
// writer (trash.ts), which works through AuditedWriter, so that the write path can call this step
// without importing back the module that imports it.
import type { ModelDefinition } from '@fw/core';
import type { FormRow } from '@fw/row-patch';
import type { FwStore } from '@fw/store';
import type { Knex } from 'knex';
import { pkColumn } from '../read/row-keys.js';
import type { Actor } from '../service-types.js';
import { isSecret } from './secrets.js';

/** The columns of `model` that hold secrets as stored: PASSWORD columns and their salt columns. */
export function secretColumns(model: ModelDefinition): string[] {
  const out: string[] = [];
  for (const field of Object.values(model.fields)) {
    if (!isSecret(field) || !field.stored) continue;
    out.push(field.column);
    if (field.edit.saltColumn) out.push(field.edit.saltColumn);
  }
  return out;
}

/**
 * Records the rows a delete is about to remove in `fw_trash`, inside its transaction `trx`:
 * each as the edit form loaded it (`rows`, with collections) and its secret columns as stored
 * (hashes, never shown). Runs before the rows are deleted.
 */
export async function moveToTrash(store: FwStore, model: ModelDefinition, actor: Actor, rows: readonly FormRow[], trx: Knex.Transaction, batch?: string): Promise<void> {
  const pk = pkColumn(model);
  const columns = secretColumns(model);
  const secrets = new Map<string, Record<string, unknown>>();
  if (columns.length > 0) {
    const ids = rows.map((row) => row[model.primaryKey] as number);
    for (let i = 0; i < ids.length; i += 500) {
      const stored: Array<Record<string, unknown>> = await trx(model.table).whereIn(pk, ids.slice(i, i + 500)).select(pk, ...columns);
      for (const row of stored) secrets.set(String(row[pk]), Object.fromEntries(columns.map((c) => [c, row[c] ?? null])));
    }
  }
  await store.trash.add(
    rows.map((row) => {
      const rowId = String(row[model.primaryKey]);
      return { model: model.name, rowId, data: { values: row, secrets: secrets.get(rowId) ?? {} }, deletedBy: actor.user.id, batch: batch ?? null };
    }),
    trx,
  );
}

