// What a write compares and fills in: a new row's defaults, the fields an update changes, the
// update stamp.
import { EditType, type FieldDefinition, type ModelDefinition } from '@fw/core';
import type { FormRow } from '@fw/row-patch';
import { isSecret, secretGiven } from './secrets.js';

/** True when two values are the same once written as JSON (absent and null alike). */
export function sameValue(a: unknown, b: unknown): boolean {
  return JSON.stringify(a ?? null) === JSON.stringify(b ?? null);
}

/** A new row: the given values, then each absent field's default (or null / no links). */
export function newRow(model: ModelDefinition, values: FormRow): FormRow {
  const row: FormRow = {};
  for (const field of Object.values(model.fields)) {
    if (field.primaryKey) continue;
    if (field.name in values) row[field.name] = values[field.name];
    else if (field.edit.defaultValue !== undefined) row[field.name] = field.edit.defaultValue;
    else row[field.name] = field.edit.collection ? [] : null;
  }
  return row;
}

/**
 * The field stamped with the time of each update that changes the row: a read-only DATETIME
 * over a column named `updated_at` (the built-in tables' convention; the database only fills it
 * when the row is created).
 */
export function updateStamp(model: ModelDefinition): FieldDefinition | undefined {
  return Object.values(model.fields).find((f) => f.stored && f.column === 'updated_at' && f.edit.type === EditType.DATETIME && f.edit.readonly);
}

/** The fields (passwords and the key aside) whose value differs between two form rows. */
export function changes(model: ModelDefinition, before: FormRow, after: FormRow): FormRow {
  const out: FormRow = {};
  for (const field of Object.values(model.fields)) {
    if (field.primaryKey || !(field.name in after)) continue;
    if (isSecret(field)) {
      if (secretGiven(after[field.name])) out[field.name] = after[field.name];
    } else if (!sameValue(after[field.name], before[field.name])) out[field.name] = after[field.name];
  }
  return out;
}
