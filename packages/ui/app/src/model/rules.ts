// The declared rules of a field as antd form rules, so the browser refuses at once what the
// server would refuse; the server still judges (dynamic rules and row rules run only there, and
// its 422 details are put on the fields they name).
import type { Rule } from 'antd/es/form';
import type { MessageKey } from '../i18n';
import type { FieldView } from '../types';
import { formTitle } from './fields';

type T = (key: MessageKey, params?: Record<string, string | number>) => string;

function empty(value: unknown): boolean {
  return value === undefined || value === null || value === '' || (Array.isArray(value) && value.length === 0);
}

function compare(a: unknown, b: number | string): number {
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  if (typeof a === 'number') return a - Number(b);
  return String(a) < String(b) ? -1 : String(a) > String(b) ? 1 : 0;
}

/**
 * The antd rules of a field. `keepEmptyPassword`: on the edit form an empty PASSWORD keeps the
 * stored one, so it is not required there.
 */
export function rulesFor(field: FieldView, t: T, options: { keepEmptyPassword?: boolean } = {}): Rule[] {
  const label = formTitle(field);
  const out: Rule[] = [];
  const requiredRule = field.rules.find((r) => r.type === 'required');
  const required = (field.notNull || requiredRule !== undefined) && !field.readonly && !(options.keepEmptyPassword && field.type === 'PASSWORD');
  if (required) out.push({ required: true, message: requiredRule?.message ?? t('form.required', { field: label }) });
  for (const rule of field.rules) {
    const message = rule.message;
    switch (rule.type) {
      case 'length':
        out.push({
          validator: async (_, value: unknown) => {
            if (empty(value)) return;
            const length = Array.isArray(value) ? value.length : [...String(value)].length;
            if (typeof rule.min === 'number' && length < rule.min) throw new Error(message ?? t('form.minLength', { field: label, min: rule.min }));
            if (typeof rule.max === 'number' && length > rule.max) throw new Error(message ?? t('form.maxLength', { field: label, max: rule.max }));
          },
        });
        break;
      case 'pattern': {
        let re: RegExp | undefined;
        try {
          re = rule.pattern ? new RegExp(rule.pattern) : undefined;
        } catch {
          re = undefined; // a pattern only the server's engine understands: the server checks it
        }
        if (re) {
          const pattern = re;
          out.push({
            validator: async (_, value: unknown) => {
              if (empty(value)) return;
              if (!pattern.test(String(value))) throw new Error(message ?? t('form.pattern', { field: label }));
            },
          });
        }
        break;
      }
      case 'range':
        out.push({
          validator: async (_, value: unknown) => {
            if (empty(value)) return;
            if (rule.min !== undefined && compare(value, rule.min) < 0) throw new Error(message ?? t('form.min', { field: label, min: rule.min }));
            if (rule.max !== undefined && compare(value, rule.max) > 0) throw new Error(message ?? t('form.max', { field: label, max: rule.max }));
          },
        });
        break;
      case 'choices':
        if (Array.isArray(rule.values)) {
          const values = rule.values;
          out.push({
            validator: async (_, value: unknown) => {
              if (empty(value)) return;
              const list = Array.isArray(value) ? value : [value];
              if (!list.every((v) => values.includes(v))) throw new Error(message ?? t('form.choices', { field: label }));
            },
          });
        }
        break;
      default:
        // required is handled above; dynamic rules read other fields and run on the server only.
        break;
    }
  }
  return out;
}
