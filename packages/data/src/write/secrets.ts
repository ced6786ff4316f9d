// PASSWORD fields: never read back out of the database, hashed on the way in.
import { hashPassword, type FieldDefinition, type ModelDefinition } from '@fw/core';
import type { FormRow } from '@fw/row-patch';

/** True for a field whose value is a secret (a PASSWORD): never selected for reading, exporting or copying. */
export function isSecret(field: FieldDefinition): boolean {
  return field.capabilities.secret;
}

/** The qualified columns a read selects: stored fields, secrets only when asked for. */
export function readColumns(model: ModelDefinition, withSecrets = false): string[] {
  return Object.values(model.fields)
    .filter((f) => f.stored && (withSecrets || !isSecret(f)))
    .map((f) => `${model.table}.${f.column}`);
}

/** True when `value` of a secret field asks for a change (an empty one keeps the stored secret). */
export function secretGiven(value: unknown): boolean {
  return value !== undefined && value !== null && value !== '';
}

/**
 * The row as it is written: PASSWORD values hashed (or kept, for `hashed: false`), empty ones
 * dropped so the stored secret stays; salts that live in their own column come back apart.
 */
export async function secretsForStorage(model: ModelDefinition, values: FormRow): Promise<{ row: FormRow; extraColumns: Record<string, unknown> }> {
  const row = { ...values };
  const extraColumns: Record<string, unknown> = {};
  for (const field of Object.values(model.fields)) {
    if (!isSecret(field)) continue;
    const plain = row[field.name];
    if (!secretGiven(plain)) {
      delete row[field.name];
      continue;
    }
    if (field.edit.hashed === false) continue;
    const { hash, salt } = await hashPassword(String(plain));
    if (field.edit.saltColumn) {
      row[field.name] = hash;
      extraColumns[field.edit.saltColumn] = salt;
    } else row[field.name] = `scrypt:${salt}:${hash}`;
  }
  return { row, extraColumns };
}

/**
 * What writing a new sign-in password of `fw_user` row `subjectId` does to its forced change
 * (issue 19 §3): a password someone else set must be changed by its user at the next sign-in
 * (`reset_pwd_time` emptied), one the user set themselves needs no change (`reset_pwd_time` now).
 * Nothing for other tables, or when no password is written.
 */
export function passwordSetColumns(model: ModelDefinition, written: FormRow, actorId: number, subjectId: number): Record<string, unknown> {
  if (model.table !== 'fw_user') return {};
  const set = Object.values(model.fields).some((f) => isSecret(f) && f.stored && f.column === 'password_hash' && f.name in written);
  return set ? { reset_pwd_time: actorId === subjectId ? new Date() : null } : {};
}
