// The rows as they were before a change (issue 24 §2). Every update and delete writes its
// operate-log row with the row it found (`before_data`), in the transaction of the change; the
// message of the change names those log rows (`logIds`, or the `batch` of a bulk write). The hub
// reads them once per message, so it can judge a viewer's row filter on the row before the change
// as well as after it: a row the viewer's page load showed is then known to have left their
// filter, or to have been deleted, although the stream never sent it.
import type { ModelDefinition } from '@fw/core';
import type { FormRow } from '@fw/row-patch';
import { OPERATE_STATUS } from '@fw/store';
import type { Knex } from 'knex';
import { logged } from '../read/history.js';
import { MASK, OPERATE_LOG_TABLE } from '../write/operate-log.js';
import type { LiveMessage } from './bus.js';
import { LIVE_IDS_PER_MESSAGE } from './publish.js';

/**
 * The rows of `message`'s ids as they were before its change, by row id: from its log rows
 * (`logIds`), or from the first log row of each id in its batch. Rows whose log row is missing,
 * or whose logged data was cut short by the log's size cap, are left out.
 */
export async function beforeRows(knex: Knex, model: ModelDefinition, message: LiveMessage): Promise<Map<number, FormRow>> {
  const out = new Map<number, FormRow>();
  if (message.kind === 'insert') return out;
  // A message holds at most 1,000 ids (publish.ts); one from elsewhere is read no further.
  const targets = message.ids.slice(0, LIVE_IDS_PER_MESSAGE).map(String);
  const logIds = (message.logIds ?? []).slice(0, LIVE_IDS_PER_MESSAGE);
  if (targets.length === 0 || (logIds.length === 0 && !message.batch)) return out;
  // The model, action and target are checked whatever the message names: it points at log rows
  // of this change, never at another model's.
  const query = knex(OPERATE_LOG_TABLE)
    .select('id', 'target_id', 'before_data')
    .where('model', model.name)
    .where('action', message.kind)
    .where('status', OPERATE_STATUS.SUCCESS)
    .whereIn('target_id', targets);
  if (logIds.length > 0) query.whereIn('id', logIds);
  else query.where('batch', message.batch!);
  const rows = (await query.orderBy('id')) as Array<{ target_id: unknown; before_data: unknown }>;
  for (const row of rows) {
    const id = Number(row.target_id);
    // A batch may change a row twice (an undo of several entries): the first change's row is the one before it.
    if (out.has(id)) continue;
    const before = logged(row.before_data);
    if (typeof before === 'object' && before !== null && !Array.isArray(before)) out.set(id, before as FormRow);
  }
  return out;
}

/** True when the log masked a value the conditions read (a field whose name looks secret): such a row cannot be judged. */
export function maskedIn(row: FormRow, fields: ReadonlySet<string>): boolean {
  for (const field of fields) if (row[field] === MASK) return true;
  return false;
}
