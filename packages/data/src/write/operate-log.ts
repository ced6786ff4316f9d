import type { ModelDefinition } from '@fw/core';
import type { FwStore } from '@fw/store';
import type { Knex } from 'knex';

/** Replaces every secret in logged data. */
export const MASK = '******';
const SECRET_NAME = /pass(word)?|pwd|secret|token|api[-_]?key/i;
const MAX_TEXT = 16_000;
// Deeper than any form row: what lies below is summarised, so a request nested thousands of
// levels deep (the JSON parser takes it) cannot overflow the stack and lose its log row.
const MAX_DEPTH = 32;

/**
 * A copy of `data` fit for a log: the model's PASSWORD fields and anything whose name looks
 * secret are masked, and the JSON is capped in size.
 */
export function maskForLog(model: ModelDefinition | undefined, data: unknown): string | null {
  if (data === undefined) return null;
  const passwords = passwordFields(model);
  // Most logged data is a form row or a small request: plain objects of plain values with no
  // secret in them, whose JSON is the masked copy's JSON, without making the copy.
  const text = (isPlain(data, passwords, 0, []) ? JSON.stringify(data) : JSON.stringify(masked(data, passwords))) ?? null;
  return text !== null && text.length > MAX_TEXT ? `${text.slice(0, MAX_TEXT)}…` : text;
}

const NO_PASSWORDS: readonly string[] = [];

function passwordFields(model: ModelDefinition | undefined): readonly string[] {
  return model ? model.capabilities.secretFields : NO_PASSWORDS;
}

// Whether a key looks secret, remembered for the keys met (field names, mostly); bounded, since
// keys come from requests too.
const secretNames = new Map<string, boolean>();
function looksSecret(key: string): boolean {
  let secret = secretNames.get(key);
  if (secret === undefined) {
    secret = SECRET_NAME.test(key);
    if (secretNames.size < 10_000) secretNames.set(key, secret);
  }
  return secret;
}

/**
 * True when `value` is JSON as it stands and holds nothing to mask: null, text, a number or a
 * boolean; a list of those; or a plain object (to a small depth) of such values under names that
 * are neither a PASSWORD field nor secret-looking, with no object met twice. Anything else (dates,
 * class instances, deep or shared structures, secrets) takes the masking copy.
 */
function isPlain(value: unknown, passwords: readonly string[], depth: number, seen: object[]): boolean {
  if (value === null) return true;
  switch (typeof value) {
    case 'string':
    case 'number':
    case 'boolean':
    case 'undefined':
      return true;
    case 'object':
      break;
    default:
      return false;
  }
  // The masking copy writes an object met twice as '[circular]': leave that to it.
  if (depth >= 3 || seen.includes(value)) return false;
  seen.push(value);
  if (Array.isArray(value)) {
    for (const item of value) if (item !== null && item !== undefined && typeof item !== 'string' && typeof item !== 'number' && typeof item !== 'boolean') return false;
    return true;
  }
  const proto: unknown = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return false;
  for (const key of Object.keys(value)) {
    if (passwords.includes(key) || looksSecret(key)) return false;
    if (!isPlain((value as Record<string, unknown>)[key], passwords, depth + 1, seen)) return false;
  }
  return true;
}

/** The masked copy of `data` (see {@link maskForLog}). */
function masked(data: unknown, passwords: readonly string[]): unknown {
  const seen = new WeakSet<object>();
  const mask = (value: unknown, key: string | undefined, depth: number): unknown => {
    if (key !== undefined && (passwords.includes(key) || looksSecret(key))) return value === null || value === undefined ? value : MASK;
    if (typeof value !== 'object' || value === null) return value;
    if (seen.has(value)) return '[circular]';
    if (depth >= MAX_DEPTH) return '[nested too deep]';
    seen.add(value);
    if (Array.isArray(value)) return value.map((v) => mask(v, undefined, depth + 1));
    if (value instanceof Date) return value.toISOString();
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, mask(v, k, depth + 1)]));
  };
  return mask(data, undefined, 0);
}

/** The table the operate log is written to (the FwOperateLog model's). */
export const OPERATE_LOG_TABLE = 'fw_operate_log';

/** One operate-log entry as the data service writes it. */
export interface OperateLogEntry {
  model: ModelDefinition;
  action: string;
  source: string;
  user: { id: number; account: string };
  ip: string | null;
  targetId: string | null;
  before: unknown;
  request: unknown;
  error: unknown;
  startedAt: number;
  /** The batch id the operation belongs to (bulk edit, bulk delete, restore). */
  batch?: string | null;
}

/** The operate-log row of an entry (as `operateLogs.insert` takes it). */
export function rowOf(entry: OperateLogEntry) {
  return {
    userId: entry.user.id,
    account: entry.user.account,
    ip: entry.ip,
    model: entry.model.name,
    action: entry.action,
    source: entry.source,
    targetId: entry.targetId,
    beforeData: maskForLog(entry.model, entry.before),
    request: maskForLog(entry.model, entry.request),
    status: entry.error === undefined ? ('success' as const) : ('failure' as const),
    error: entry.error === undefined ? null : errorText(entry.error),
    durationMs: Math.max(0, Math.round(performance.now() - entry.startedAt)),
    batch: entry.batch ?? null,
  };
}

/**
 * Writes the row of a successful operation inside its transaction, so the change and its record
 * commit together; if the row cannot be written, the operation fails with it. @returns the row's id
 */
export async function writeOperateLogIn(store: FwStore, entry: OperateLogEntry, transaction: Knex.Transaction): Promise<number> {
  return (await store.operateLogs.insert(rowOf(entry), { transaction })).id;
}

/**
 * Writes an operate-log row; true once it is written. A failure to log is reported (false), never
 * thrown over the request's own answer.
 */
export async function writeOperateLog(store: FwStore, entry: OperateLogEntry, onError: (error: unknown) => void): Promise<boolean> {
  try {
    await store.operateLogs.insert(rowOf(entry));
    return true;
  } catch (error) {
    try {
      onError(error);
    } catch {
      // The operation itself already succeeded or failed on its own; a broken reporter must not
      // turn a committed write into an error answer.
    }
    return false;
  }
}

function errorText(error: unknown): string {
  const e = error as { code?: unknown; message?: unknown };
  const text = typeof e?.code === 'string' ? `${e.code}: ${String(e.message)}` : error instanceof Error ? error.message : String(error);
  // An error may quote the request (an unknown field's name); PostgreSQL refuses NUL in text, and
  // the failure row of a probe must not be lost to it.
  // eslint-disable-next-line no-control-regex -- the NUL is what is being escaped
  return text.slice(0, 2000).replace(/\u0000/g, '\\u0000');
}
