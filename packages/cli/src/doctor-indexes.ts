// `fw doctor`'s index advice (issue 21 §3): the lines it prints for fields of large tables that the
// table page filters or sorts on without an index.
import type { ModelDefinition } from '@fw/core';
import { DEFAULT_LARGE_TABLE_ROWS, adviseIndexes, type FwStore } from '@fw/store';
import { CliError } from './errors.js';

/**
 * The `--large-table-rows` option: a positive whole number of rows.
 * @throws {CliError} exit code 2 for anything else.
 */
export function largeTableRows(value: string | undefined): number {
  if (value === undefined) return DEFAULT_LARGE_TABLE_ROWS;
  const rows = /^\d+$/.test(value) ? Number(value) : NaN;
  if (!Number.isSafeInteger(rows) || rows < 1) throw new CliError(`--large-table-rows must be a positive whole number of rows, got "${value}"`, 2);
  return rows;
}

/** One heading line, then one `Advice:` line per field, each naming the option to add. */
export async function indexAdvice(store: FwStore, models: readonly ModelDefinition[], largeRows: number): Promise<string[]> {
  const advice = await adviseIndexes(store.knex, models, { largeTableRows: largeRows });
  const threshold = largeRows.toLocaleString('en-US');
  if (advice.length === 0) return [`Indexes: no large table (${threshold} rows or more) lacks an index on a field its page filters or sorts on.`];
  return [
    `Indexes: ${advice.length} field(s) of tables of ${threshold} rows or more are filtered or sorted on without an index (advice; each such page reads the whole table):`,
    ...advice.map(
      (a) =>
        `Advice: ${a.model}.${a.field} (${a.table}.${a.column}, about ${a.rows.toLocaleString('en-US')} rows) is used to ${a.use} with no index starting with it: declare ${a.field}: { index: true, … } (or list it first in the model's indexes), then run "fw migrate"`,
    ),
  ];
}
