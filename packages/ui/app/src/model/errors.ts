import type { FormInstance } from 'antd';
import { ApiError } from '../client/api';

/**
 * Puts the server's 422 / 409 details on the form fields they name; returns the messages that
 * name no field of the form (a row-level failure), for an alert.
 */
export function showServerErrors(form: FormInstance, error: unknown, fieldNames: string[]): string[] {
  if (!(error instanceof ApiError)) return [error instanceof Error ? error.message : String(error)];
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
