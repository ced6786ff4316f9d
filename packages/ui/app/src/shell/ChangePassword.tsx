import { useState } from 'react';
import { Alert, App, Button, Card, Form, Input, Typography } from 'antd';
import { useQueryClient } from '@tanstack/react-query';
import { encodePassword } from '@fw/login/client';
import { ApiError } from '../client/api';
import { useChangePassword } from '../client/mutations';
import { takeReturn } from '../auth';
import { useI18n } from '../i18n';
import { currentPath, navigate } from '../router';
import { keys, useLoginSettings } from '../client/queries';
import { localPolicyRefusal, policyMessage } from '../passwordPolicy';

/** The password page's path, naming the page to return to afterwards (the one the person is on). */
export function passwordPath(from: string = currentPath()): string {
  return from.startsWith('/password') ? from : `/password?back=${encodeURIComponent(from)}`;
}

/** Where to go after a change: the page named by `back` (an app path), else the sign-in's remembered place, else home. */
function returnPath(): string {
  const back = new URLSearchParams(currentPath().split('?')[1] ?? '').get('back');
  if (back && back.startsWith('/') && !back.startsWith('//') && !back.startsWith('/password')) return back;
  return takeReturn() ?? '/';
}

interface Values {
  pwd: string;
  newPwd: string;
  newPwd2: string;
}

/**
 * Change password; `forced` when the account still has the password an administrator gave it (the
 * server then answers nothing else, so the screen offers signing out instead). The policy from
 * `GET /login-settings` is shown under the new password and checked as it is typed.
 */
export function ChangePassword({ forced, account, onSignOut }: { forced: boolean; account?: string; onSignOut?: () => void }) {
  const { t } = useI18n();
  const { message } = App.useApp();
  const settings = useLoginSettings();
  const policy = settings.data?.passwordPolicy;
  const queryClient = useQueryClient();
  const [form] = Form.useForm<Values>();
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);

  const changePassword = useChangePassword();
  const submit = async (values: Values) => {
    const encode = settings.data?.pwdTransferEncrypt ?? true;
    const wire = (s: string) => (encode ? encodePassword(s) : s);
    setBusy(true);
    setError(undefined);
    try {
      await changePassword.mutateAsync({ pwd: wire(values.pwd), newPwd: wire(values.newPwd), newPwd2: wire(values.newPwd2) });
      message.success(t('pwd.done'));
      await queryClient.invalidateQueries({ queryKey: keys.userinfo });
      await queryClient.invalidateQueries({ queryKey: keys.menu });
      form.resetFields();
      navigate(returnPath(), { replace: true });
    } catch (e) {
      if (e instanceof ApiError && e.status === 429) setError(t('login.lockedOut', { seconds: e.retryAfter ?? 60 }));
      else if (e instanceof ApiError && e.code === 'PASSWORD_POLICY') {
        // Named by rule: shown on the field, in the reader's language.
        form.setFields([{ name: 'newPwd', errors: e.details.filter((d) => d.path === 'newPwd').map((d) => policyMessage(t, d.type ?? '', policy, d.message)) }]);
      } else setError(e instanceof Error ? e.message : String(e));
    } finally {
      setBusy(false);
    }
  };

  return (
    <div className="fw-center">
      <Card className="fw-login-card">
        <Typography.Title level={4} className="fw-login-title">
          {t('pwd.title')}
        </Typography.Title>
        {forced && <Alert type="info" showIcon title={t('pwd.forced')} style={{ marginBottom: 16 }} />}
        {error && <Alert type="error" showIcon title={error} style={{ marginBottom: 16 }} role="alert" />}
        <Form form={form} layout="vertical" onFinish={submit} name="change-password">
          <Form.Item name="pwd" label={t('pwd.current')} rules={[{ required: true, message: t('login.required', { what: t('pwd.current') }) }]}>
            <Input.Password autoComplete="current-password" autoFocus />
          </Form.Item>
          <Form.Item
            name="newPwd"
            label={t('pwd.new')}
            extra={policy ? t('pwd.policy', { min: policy.minLength }) : undefined}
            rules={[
              { required: true, message: t('login.required', { what: t('pwd.new') }) },
              {
                validator: (_, value: string | undefined) => {
                  const rule = localPolicyRefusal(value ?? '', policy, account);
                  return rule ? Promise.reject(new Error(policyMessage(t, rule, policy, rule))) : Promise.resolve();
                },
              },
            ]}
          >
            <Input.Password autoComplete="new-password" />
          </Form.Item>
          <Form.Item
            name="newPwd2"
            label={t('pwd.repeat')}
            dependencies={['newPwd']}
            rules={[
              { required: true, message: t('login.required', { what: t('pwd.repeat') }) },
              ({ getFieldValue }) => ({
                validator: (_, value) => (!value || getFieldValue('newPwd') === value ? Promise.resolve() : Promise.reject(new Error(t('pwd.differ')))),
              }),
            ]}
          >
            <Input.Password autoComplete="new-password" />
          </Form.Item>
          <Button type="primary" htmlType="submit" block loading={busy}>
            {t('pwd.submit')}
          </Button>
          {!forced && (
            <Button block type="link" onClick={() => window.history.back()} style={{ marginTop: 8 }}>
              {t('form.cancel')}
            </Button>
          )}
          {forced && onSignOut && (
            <Button block type="link" onClick={onSignOut} style={{ marginTop: 8 }} className="fw-pwd-sign-out">
              {t('pwd.signOut')}
            </Button>
          )}
        </Form>
      </Card>
    </div>
  );
}
