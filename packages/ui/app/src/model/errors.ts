import type { FormInstance } from 'antd';
import { ApiError } from '../client/api';
import type { MessageKey } from '../i18n';

/**
 * A save's failure that the browser words itself, in the person's language: the server could not
 * be reached (the browser's own "Failed to fetch"), or the row is gone (the server's 404 names it
 * in English). Undefined for the rest, whose messages the server's details carry.
 */
export function saveFailure(error: unknown, t: (key: MessageKey) => string): string | undefined {
  if (!(error instanceof ApiError)) return undefined;
  if (error.code === 'NETWORK') return t('save.unreachable');
  if (error.status === 404 && error.code === 'NOT_FOUND') return t('save.rowGone');
  return undefined;
}

/**
 * Puts the server's 422 / 409 details on the form fields they name; returns the messages that
 * name no field of the form (a row-level failure), for an alert.
 */
export function showServerErrors(form: FormInstance, error: unknown, fieldNames: string[], t: (key: MessageKey) => string): string[] {
  if (!(error instanceof ApiError)) return [error instanceof Error ? error.message : String(error)];
  const own = saveFailure(error, t);
  if (own) return [own];
  const byField = new Map<string, string[]>();
  const loose: string[] = [];
  for (const d of error.details) {
    if (fieldNames.includes(d.path)) byField.set(d.path, [...(byField.get(d.path) ?? []), d.message]);
    else loose.push(d.path ? `${d.path}: ${d.message}` : d.message);
  }
  form.setFields([...byField].map(([name, errors]) => ({ name, errors })));
  if (byField.size === 0 && loose.length === 0) loose.push(error.message);
  return loose;
}
