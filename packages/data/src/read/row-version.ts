import { createHmac, randomInt } from 'node:crypto';
import type { ModelDefinition } from '@fw/core';
import type { FormRow } from '@fw/row-patch';
import type { FwStore } from '@fw/store';
import type { Knex } from 'knex';

/**
 * The version of a stored row, as an HTTP entity tag: a keyed digest (HMAC-SHA-256, see
 * {@link versionKeyOf}) of every value the edit form loads (collections included, write-only
 * secrets left out), so any change by anyone gives a new tag and no version column is needed. A
 * row changed and changed back gets its old tag again, which is right: saving over it loses
 * nothing. The key matters: the tag covers fields `afterFetch` takes out for some callers, and an
 * unkeyed digest would let such a caller test guesses of a hidden value offline.
 */
export function rowVersion(model: ModelDefinition, row: FormRow, key: Uint8Array): string {
  const values = model.fieldNames
    .filter((name) => {
      const field = model.fields[name]!;
      return (field.stored || field.edit.collection !== undefined) && !field.capabilities.secret;
    })
    .map((name) => normalise(row[name]));
  return `"${createHmac('sha256', key).update(JSON.stringify(values)).digest('base64url').slice(0, 22)}"`;
}

function normalise(value: unknown): unknown {
  if (value === undefined) return null;
  if (value instanceof Date) return value.toISOString();
  return value;
}

/**
 * Whether an `If-Match` header value names `version`: `*`, or a list of tags. Weak ones (`W/`) are
 * compared by their opaque part. RFC 9110 asks for the strong comparison in `If-Match`, but a
 * proxy that compresses answers weakens the tag a client receives, and a save must not fail
 * forever for that; our tags are digests of the stored values either way.
 */
export function matchesVersion(ifMatch: string, version: string): boolean {
  const wanted = ifMatch.trim();
  if (wanted === '*') return true;
  return wanted.split(',').some((tag) => tag.trim().replace(/^W\//, '') === version);
}

// The key's parts in `fw_meta` (each a random 48-bit number; the table holds whole numbers).
const KEY_PARTS = ['row_version_key_1', 'row_version_key_2', 'row_version_key_3', 'row_version_key_4'];
const keys = new WeakMap<FwStore, Promise<Buffer>>();

/**
 * The key of {@link rowVersion} for the database of `store`: made once (random, 192 bits, kept in
 * `fw_meta`) by the first instance that asks, and read by every other, so a tag one instance
 * gives is the tag another checks. Read once per store.
 */
export function versionKeyOf(store: FwStore, db: Knex = store.knex): Promise<Buffer> {
  let key = keys.get(store);
  if (!key) {
    // Inside a write's transaction the key is read through it: on SQLite the transaction holds
    // the one connection, and a read beside it would wait for it forever.
    key = loadKey(store, db);
    // A failed read (the database down at start) is asked again next time.
    key.catch(() => keys.delete(store));
    keys.set(store, key);
  }
  return key;
}

async function loadKey(store: FwStore, db: Knex): Promise<Buffer> {
  const read = async () => new Map(((await db('fw_meta').whereIn('name', KEY_PARTS).select('name', 'value')) as Array<{ name: string; value: unknown }>).map((r) => [r.name, BigInt(String(r.value))]));
  let parts = await read();
  for (const name of KEY_PARTS) {
    if (parts.has(name)) continue;
    // Two instances starting together: the second insert meets the first's row and leaves it (a
    // failed statement would end a PostgreSQL transaction, so it is not let fail), and both read
    // the first's. SQL Server has no such clause: a failed insert leaves its transaction usable.
    const row = { name, value: randomInt(1, 2 ** 48 - 1) };
    if (store.dialect === 'mssql') await db('fw_meta').insert(row).catch(() => undefined);
    else await db('fw_meta').insert(row).onConflict('name').ignore();
  }
  if (parts.size < KEY_PARTS.length) parts = await read();
  const key = Buffer.alloc(KEY_PARTS.length * 8);
  KEY_PARTS.forEach((name, i) => {
    const part = parts.get(name);
    if (part === undefined) throw new Error(`fw_meta has no ${name}: the row-version key could not be stored`);
    key.writeBigUInt64BE(part, i * 8);
  });
  return key;
}
