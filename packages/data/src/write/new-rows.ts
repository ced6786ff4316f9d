// The writes that make a row: an add (the form's body) and a copy (an existing visible row, with
// values that replace the copied ones). Both log the request, insert in one transaction through the
// audited writer, and answer the new row as the details view shows it.
import { FwError, isObject, type ModelDefinition } from '@fw/core';
import type { FormRow } from '@fw/row-patch';
import type { FwStore } from '@fw/store';
import type { AddInput, CopyInput } from '../bodies.js';
import type { RowReader } from '../read/rows.js';
import { hookContext, type Actor } from '../service-types.js';
import type { AuditedWriter } from './audited-write.js';
import { isSecret } from './secrets.js';
import { readBody } from './write-checks.js';

/** What the add and copy writes work with. */
export interface NewRowDeps {
  store: FwStore;
  reader: RowReader;
  writer: AuditedWriter;
}

/** Adds the row of a parsed add body; a refused body is logged, then thrown. */
export async function addRow(deps: NewRowDeps, model: ModelDefinition, actor: Actor, input: AddInput, codes: ReadonlySet<string> | undefined): Promise<FormRow> {
  const { writer, reader } = deps;
  const context = hookContext(model, actor, 'add');
  const id = await writer.logged(model, actor, 'add', null, input.raw, async (log) => {
    if (!input.entity) throw input.refusal!;
    const values = readBody(model, input.entity, 'add');
    const sent = new Set(Object.keys(input.entity));
    log.request = values;
    return writer.transaction(model, log, async (trx) => {
      const newId = await writer.insert(model, actor, trx, values, context, sent, codes);
      log.targetId = String(newId);
      return newId;
    });
  });
  return reader.shown(model, actor, id);
}

/** Adds a copy of the visible row `input.id`; `input.values` is read once the source row is. */
export async function copyRow(deps: NewRowDeps, model: ModelDefinition, actor: Actor, input: CopyInput, codes: ReadonlySet<string> | undefined): Promise<FormRow> {
  const { writer, reader, store } = deps;
  const sourceId = input.id;
  const context = hookContext(model, actor, 'add');
  const id = await writer.logged(model, actor, 'copy', null, { from: sourceId }, async (log) => {
    const source = await reader.loadVisible(model, actor, 'copy', sourceId, store.knex, false);
    const values: FormRow = {};
    for (const field of Object.values(model.fields)) {
      // Files belong to one row: a copy starts without them (deleting one row must not take the other's files).
      if (!field.primaryKey && !field.edit.readonly && !isSecret(field) && !field.edit.attachment) values[field.name] = source[field.name];
    }
    const asked = input.values;
    if (asked !== undefined) {
      if (!isObject(asked)) throw new FwError('BAD_REQUEST', 'values must be an object of field values');
      const read = readBody(model, asked, 'add');
      for (const name of Object.keys(asked)) if (Object.hasOwn(read, name)) values[name] = read[name];
      log.request = { from: sourceId, values: read };
    }
    try {
      return await writer.transaction(model, log, async (trx) => {
        const newId = await writer.insert(model, actor, trx, values, context, new Set(Object.keys(values)), codes);
        log.targetId = String(newId);
        return newId;
      });
    } catch (error) {
      // A copy repeats every value, unique ones too: say which one to give anew.
      const path = error instanceof FwError && error.status === 409 ? error.details?.find((d) => d.type === 'unique')?.path : undefined;
      if (path === undefined) throw error;
      throw new FwError('CONFLICT', `${(error as FwError).message}; give the copy another ${path} in values.${path}`, { details: (error as FwError).details!, cause: error });
    }
  });
  return reader.shown(model, actor, id);
}
