import { createHash } from 'node:crypto';
import { EditType, type ModelDefinition } from '@fw/core';
import type { FormRow } from '@fw/row-patch';

/**
 * The version of a stored row, as an HTTP entity tag: a digest of every value the edit form
 * loads (collections included, write-only secrets left out), so any change by anyone gives a new
 * tag and no version column is needed. A row changed and changed back gets its old tag again,
 * which is right: saving over it loses nothing.
 */
export function rowVersion(model: ModelDefinition, row: FormRow): string {
  const values = model.fieldNames
    .filter((name) => {
      const field = model.fields[name]!;
      return (field.stored || field.edit.collection !== undefined) && field.edit.type !== EditType.PASSWORD;
    })
    .map((name) => normalise(row[name]));
  return `"${createHash('sha256').update(JSON.stringify(values)).digest('base64url').slice(0, 22)}"`;
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
