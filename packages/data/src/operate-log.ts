import { EditType, type ModelDefinition } from '@fw/core';
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
  const passwords = new Set(model ? Object.values(model.fields).filter((f) => f.edit.type === EditType.PASSWORD).map((f) => f.name) : []);
  const seen = new WeakSet<object>();
  const mask = (value: unknown, key: string | undefined, depth: number): unknown => {
    if (key !== undefined && (passwords.has(key) || SECRET_NAME.test(key))) return value === null || value === undefined ? value : MASK;
    if (typeof value !== 'object' || value === null) return value;
    if (seen.has(value)) return '[circular]';
    if (depth >= MAX_DEPTH) return '[nested too deep]';
    seen.add(value);
    if (Array.isArray(value)) return value.map((v) => mask(v, undefined, depth + 1));
    if (value instanceof Date) return value.toISOString();
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, mask(v, k, depth + 1)]));
  };
  const text = JSON.stringify(mask(data, undefined, 0)) ?? null;
  return text !== null && text.length > MAX_TEXT ? `${text.slice(0, MAX_TEXT)}…` : text;
}

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
  };
}

/**
 * Writes the row of a successful operation inside its transaction, so the change and its record
 * commit together; if the row cannot be written, the operation fails with it.
 */
export async function writeOperateLogIn(store: FwStore, entry: OperateLogEntry, transaction: Knex.Transaction): Promise<void> {
  await store.operateLogs.insert(rowOf(entry), { transaction });
}

/** Writes an operate-log row; a failure to log is reported, never thrown over the request's own answer. */
export async function writeOperateLog(store: FwStore, entry: OperateLogEntry, onError: (error: unknown) => void): Promise<void> {
  try {
    await store.operateLogs.insert(rowOf(entry));
  } catch (error) {
    try {
      onError(error);
    } catch {
      // The operation itself already succeeded or failed on its own; a broken reporter must not
      // turn a committed write into an error answer.
    }
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
