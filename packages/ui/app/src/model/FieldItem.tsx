import { Form } from 'antd';
import { useI18n } from '../i18n';
import { localPolicyRefusal, policyMessage } from '../passwordPolicy';
import { useLoginSettings } from '../client/queries';
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
  const policy = useLoginSettings().data?.passwordPolicy;
  // FwUser's password is a sign-in password: the server holds it to the password policy, which
  // is shown before submit (issue 19 §2). Other PASSWORD fields (API keys, say) are not.
  const signIn = model === 'FwUser' && field.type === 'PASSWORD' && field.name === 'password' && policy !== undefined;
  const hints = [keepEmptyPassword && field.type === 'PASSWORD' ? t('form.passwordKeep') : undefined, signIn ? t('pwd.policyFor', { min: policy.minLength }) : undefined].filter(
    Boolean,
  );
  return (
    <Form.Item
      name={field.name}
      // In a cell too: there the label is read out but not shown (app.css), the column says it.
      label={formTitle(field)}
      rules={[
        ...rulesFor(field, t, { keepEmptyPassword }),
        ...(signIn
          ? [
              ({ getFieldValue }: { getFieldValue: (name: string) => unknown }) => ({
                validator: (_: unknown, value: unknown) => {
                  const account = getFieldValue('account');
                  const rule = localPolicyRefusal(typeof value === 'string' ? value : '', policy, typeof account === 'string' ? account : undefined);
                  return rule ? Promise.reject(new Error(policyMessage(t, rule, policy, rule))) : Promise.resolve();
                },
              }),
            ]
          : []),
      ]}
      hidden={field.type === 'HIDDEN' && !inCell}
      extra={hints.length > 0 ? hints.join(' ') : undefined}
      className={`fw-field fw-field-${field.name}`}
    >
      <FieldInput field={field} model={model} autoFocus={autoFocus} inCell={inCell} keepEmptyPassword={keepEmptyPassword} disabled={disabled || field.readonly || undefined} />
    </Form.Item>
  );
}
