import { LIVE_CLIENT_KEY, type LiveBusMessage, type LiveMessage, type LivePresenceMessage } from './bus.js';

const KINDS = new Set(['insert', 'update', 'delete']);

const text = (value: unknown, max: number): value is string => typeof value === 'string' && value.length <= max;

/** Whether `m` is a well-formed presence message (names, a row id, a client key; bounded lengths). */
function isPresence(m: Partial<LivePresenceMessage>): boolean {
  const user = m.user as Partial<LivePresenceMessage['user']> | null | undefined;
  return (
    text(m.id, 300) &&
    text(m.origin, 200) &&
    text(m.model, 200) &&
    typeof user === 'object' &&
    user !== null &&
    Number.isSafeInteger(user.id) &&
    text(user.account, 500) &&
    (user.name === undefined || text(user.name, 500)) &&
    typeof m.client === 'string' &&
    LIVE_CLIENT_KEY.test(m.client) &&
    (m.row === null || Number.isSafeInteger(m.row)) &&
    (m.field === undefined || text(m.field, 200)) &&
    text(m.at, 40)
  );
}

/**
 * The message in a payload read from a shared channel, or an Error saying why it is not one.
 * Anything may be written on a Redis channel or NOTIFY'd by another client of the database, so
 * the shape is checked before a hub sees it.
 */
export function decodeLiveMessage(payload: string): LiveBusMessage | Error {
  let value: unknown;
  try {
    value = JSON.parse(payload);
  } catch {
    return new Error(`live bus: dropped a payload that is not JSON (${payload.length} characters)`);
  }
  if (typeof value === 'object' && value !== null && (value as { kind?: unknown }).kind === 'presence') {
    return isPresence(value as Partial<LivePresenceMessage>) ? (value as LivePresenceMessage) : new Error('live bus: dropped a payload that is not a presence message');
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
    typeof m.actor === 'object' &&
    m.actor !== null &&
    typeof m.actor.id === 'number' &&
    typeof m.actor.account === 'string' &&
    typeof m.at === 'string';
  return ok ? (m as LiveMessage) : new Error('live bus: dropped a payload that is not a live message');
}

/** Calls every receiver, each on its own: one that throws does not keep the message from the rest. */
export function deliver(receivers: Iterable<(message: LiveBusMessage) => void>, message: LiveBusMessage, onError: (error: Error) => void): void {
  for (const receive of [...receivers]) {
    try {
      receive(message);
    } catch (error) {
      onError(error instanceof Error ? error : new Error(String(error)));
    }
  }
}
