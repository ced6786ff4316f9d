import type { ModelDefinition } from '@fw/core';
import type { FormRow } from '@fw/row-patch';
import type { FwStore } from '@fw/store';

// An open-API key signs in as its user: the tokens exchanged with it are sessions of that key, and
// they must end when the key stops standing for that user as it did when they were issued — a new
// secret, a lock, an expiry, another user, or no key at all — just as a user's sessions end with
// their password (issue 10 §3). The login log links each such token to its key (method
// `open-api:<appId>`, token hash).

const OPEN_API_TABLE = 'fw_open_api';
/** Columns of `fw_open_api` whose change ends the key's sessions. */
const KEY_COLUMNS = new Set(['secret_hash', 'status', 'expire_date', 'user_id']);

/** What ending a key's sessions needs of a token service. */
export interface KeyTokenRevoker {
  revokeHash(hash: string): Promise<boolean>;
}

/** True when `changes` (form field → new value) to a row of `model` end the sessions of that open-API key. */
export function endsKeySessions(model: ModelDefinition, changes: Readonly<FormRow>): boolean {
  if (model.table !== OPEN_API_TABLE) return false;
  return Object.keys(changes).some((name) => {
    const field = Object.hasOwn(model.fields, name) ? model.fields[name] : undefined;
    return field !== undefined && field.stored && KEY_COLUMNS.has(field.column);
  });
}

/** The app ids of open-API key rows of `model` (none for any other model). */
export function keyAppIds(model: ModelDefinition, rows: ReadonlyArray<Readonly<FormRow>>): string[] {
  if (model.table !== OPEN_API_TABLE) return [];
  const field = Object.values(model.fields).find((f) => f.stored && f.column === 'app_id');
  if (!field) return [];
  return rows.map((row) => row[field.name]).filter((id): id is string => typeof id === 'string' && id !== '');
}

/** Revokes every token exchanged with the given keys; resolves how many were still live. */
export async function endKeySessions(store: FwStore, tokens: KeyTokenRevoker, appIds: readonly string[]): Promise<number> {
  let ended = 0;
  for (const appId of appIds) {
    const rows: Array<{ token_hash: unknown }> = await store
      .knex('fw_login_log')
      .where('method', `open-api:${appId}`)
      .whereNotNull('token_hash')
      .select('token_hash');
    const hashes = [...new Set(rows.map((r) => String(r.token_hash).trimEnd()))];
    for (let i = 0; i < hashes.length; i += 50) {
      const done = await Promise.all(hashes.slice(i, i + 50).map((hash) => tokens.revokeHash(hash)));
      ended += done.filter(Boolean).length;
    }
  }
  return ended;
}
