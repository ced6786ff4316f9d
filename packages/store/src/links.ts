import { FwError } from '@fw/core';
import type { Knex } from 'knex';
import type { RepositoryContext } from './context.js';
import { checkIds, chunks, isRowId, toId } from './values.js';

/** A many-to-many join table of the built-in schema, described for {@link replaceLinks}. */
export interface LinkTable {
  table: string;
  ownerColumn: string;
  targetColumn: string;
  ownerTable: string;
  targetTable: string;
  /** Names the owner in a not-found message. */
  ownerName: string;
  /** The input field reported on a bad target id. */
  path: string;
}

/**
 * Replaces the links of one row in a join table: checks the owner and every target exist, then
 * deletes and re-inserts inside one transaction so no reader sees a half-written set.
 */
export async function replaceLinks(ctx: RepositoryContext, link: LinkTable, ownerId: number, targetIds: readonly number[]): Promise<void> {
  const ids = checkIds(link.path, targetIds);
  await ctx.knex.transaction(async (trx: Knex.Transaction) => {
    const owner = isRowId(ownerId) ? await trx(link.ownerTable).where('id', ownerId).first('id') : undefined;
    if (!owner) throw new FwError('ROW_NOT_FOUND', `No ${link.ownerName} with id ${String(ownerId)}`);
    if (ids.length > 0) {
      const found = new Set<number>();
      for (const part of chunks(ids)) {
        for (const row of await trx(link.targetTable).whereIn('id', part).select('id')) found.add(toId(row.id));
      }
      const missing = ids.filter((id) => !found.has(id));
      if (missing.length > 0) {
        const message = `${link.path} names no existing row: ${missing.join(', ')}`;
        throw new FwError('VALIDATION_FAILED', message, { details: [{ path: link.path, type: 'exists', message }] });
      }
    }
    await trx(link.table).where(link.ownerColumn, ownerId).delete();
    for (const part of chunks(ids)) {
      await trx(link.table).insert(part.map((id) => ({ [link.ownerColumn]: ownerId, [link.targetColumn]: id })));
    }
  });
}

/** Ids linked to one row in a join table, ascending. */
export async function linkedIds(ctx: RepositoryContext, table: string, ownerColumn: string, targetColumn: string, ownerId: number): Promise<number[]> {
  if (!isRowId(ownerId)) return [];
  const rows: Array<Record<string, unknown>> = await ctx.knex(table).where(ownerColumn, ownerId).orderBy(targetColumn).select(targetColumn);
  return rows.map((row) => toId(row[targetColumn]));
}
