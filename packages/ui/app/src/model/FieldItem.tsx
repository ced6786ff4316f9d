import { Form } from 'antd';
import { useI18n } from '../i18n';
import type { FieldView } from '../types';
import { formTitle } from './fields';
import { FieldInput } from './inputs';
import { rulesFor } from './rules';

/**
 * One field of a form: its label, required mark, declared rules and the registry's input. The
 * row form renders one per field; the cell editor renders exactly one, for the cell's field
 * (the "one-field model"), so both validate and convert the same way.
 */
export function FieldItem({
  field,
  model,
  autoFocus,
  inCell,
  keepEmptyPassword,
  disabled,
}: {
  field: FieldView;
  model: string;
  autoFocus?: boolean;
  inCell?: boolean;
  keepEmptyPassword?: boolean;
  disabled?: boolean;
}) {
  const { t } = useI18n();
  return (
    <Form.Item
      name={field.name}
      label={inCell ? undefined : formTitle(field)}
      rules={rulesFor(field, t, { keepEmptyPassword })}
      hidden={field.type === 'HIDDEN' && !inCell}
      extra={keepEmptyPassword && field.type === 'PASSWORD' ? t('form.passwordKeep') : undefined}
      className={`fw-field fw-field-${field.name}`}
    >
      <FieldInput field={field} model={model} autoFocus={autoFocus} inCell={inCell} keepEmptyPassword={keepEmptyPassword} disabled={disabled || field.readonly} />
    </Form.Item>
  );
}
