import type { LiveMessage } from './bus.js';

const KINDS = new Set(['insert', 'update', 'delete']);

/**
 * The message in a payload read from a shared channel, or an Error saying why it is not one.
 * Anything may be written on a Redis channel or NOTIFY'd by another client of the database, so
 * the shape is checked before a hub sees it.
 */
export function decodeLiveMessage(payload: string): LiveMessage | Error {
  let value: unknown;
  try {
    value = JSON.parse(payload);
  } catch {
    return new Error(`live bus: dropped a payload that is not JSON (${payload.length} characters)`);
  }
  const m = value as Partial<LiveMessage> | null;
  const ok =
    typeof m === 'object' &&
    m !== null &&
    typeof m.id === 'string' &&
    typeof m.origin === 'string' &&
    typeof m.model === 'string' &&
    typeof m.kind === 'string' &&
    KINDS.has(m.kind) &&
    Array.isArray(m.ids) &&
    m.ids.every((id) => Number.isSafeInteger(id)) &&
    (m.changed === undefined || (Array.isArray(m.changed) && m.changed.every((f) => typeof f === 'string'))) &&
    (m.logIds === undefined || (Array.isArray(m.logIds) && m.logIds.every((id) => Number.isSafeInteger(id)))) &&
    (m.batch === undefined || (typeof m.batch === 'string' && m.batch.length <= 36)) &&
    typeof m.actor === 'object' &&
    m.actor !== null &&
    typeof m.actor.id === 'number' &&
    typeof m.actor.account === 'string' &&
    typeof m.at === 'string';
  return ok ? (m as LiveMessage) : new Error('live bus: dropped a payload that is not a live message');
}

/** Calls every receiver, each on its own: one that throws does not keep the message from the rest. */
export function deliver(receivers: Iterable<(message: LiveMessage) => void>, message: LiveMessage, onError: (error: Error) => void): void {
  for (const receive of [...receivers]) {
    try {
      receive(message);
    } catch (error) {
      onError(error instanceof Error ? error : new Error(String(error)));
    }
  }
}
