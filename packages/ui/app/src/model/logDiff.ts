// The before/after of one operate-log row, field by field (issue 20 §7), from what the server
// logged: `beforeData` (the stored row before the change) and `request` (for an update
// `{ id, changes }`, for an add the values, for a copy `{ from, values }`). Both are already
// masked by the server (PASSWORD fields and secret-looking names read `******`); names that look
// secret are masked here again, so an older row or another writer cannot show one.

/** One field's line of the diff. */
export interface DiffLine {
  field: string;
  /** `undefined` when the side has no value (an add has no before, a delete no after). */
  before: unknown;
  after: unknown;
  changed: boolean;
  secret: boolean;
}

/** The mask the server writes for a secret. */
export const MASKED = '******';
const SECRET_NAME = /pass(word)?|pwd|secret|token|api[-_]?key/i;

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** JSON text as a value; text that is no JSON (cut short by the log's size cap) stays text. */
export function parseLogged(text: unknown): unknown {
  if (typeof text !== 'string' || text === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function lines(before: Obj | undefined, after: Obj | undefined, changedKeys: Set<string> | undefined, secretFields: ReadonlySet<string>, key: string | undefined): DiffLine[] {
  const fields = [...new Set([...Object.keys(before ?? {}), ...Object.keys(after ?? {})])].filter((f) => f !== key);
  return fields.map((field) => {
    const secret = secretFields.has(field) || SECRET_NAME.test(field);
    const b = before?.[field];
    // An update logs only what changed: the other fields are as they were.
    const a = after && field in after ? after[field] : changedKeys ? b : undefined;
    const changed = changedKeys ? changedKeys.has(field) : JSON.stringify(b) !== JSON.stringify(a);
    return { field, before: secret && b !== undefined && b !== null ? MASKED : b, after: secret && a !== undefined && a !== null ? MASKED : a, changed, secret };
  });
}

/**
 * The diff lines of a logged operation, changed ones first; `undefined` for an operation that
 * has no field-by-field shape (an import, a delete of several rows, a row cut short by the cap).
 */
export function logDiff(action: string, beforeText: unknown, requestText: unknown, secretFields: ReadonlySet<string> = new Set(), key?: string): DiffLine[] | undefined {
  const before = parseLogged(beforeText);
  const request = parseLogged(requestText);
  let out: DiffLine[] | undefined;
  if (action === 'update' && isObj(request) && isObj(request.changes)) {
    out = lines(isObj(before) ? before : {}, request.changes, new Set(Object.keys(request.changes)), secretFields, key);
  } else if (action === 'add' && isObj(request)) {
    out = lines(undefined, request, undefined, secretFields, key);
  } else if (action === 'copy' && isObj(request) && isObj(request.values)) {
    out = lines(undefined, request.values, undefined, secretFields, key);
  } else if (action === 'delete' && isObj(before)) {
    out = lines(before, undefined, undefined, secretFields, key);
  }
  return out?.sort((x, y) => Number(y.changed) - Number(x.changed));
}
