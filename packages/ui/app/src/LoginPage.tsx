// The sign-in page: account and password (encoded for transfer when the server says so), the
// captcha once the server asks for it, the lockout message with its wait, "Sign in with …" per
// OAuth provider; then the forced password change when the account still has its first password.
import { useState } from 'react';
import { Alert, Button, Divider, Form, Input, Space, Typography } from 'antd';
import { LockOutlined, UserOutlined } from '@ant-design/icons';
import { useQueryClient } from '@tanstack/react-query';
import { encodePassword } from '@fw/login/client';
import { ApiError } from './client/api';
import { captchaUrl } from './client/links';
import { useSignIn } from './client/mutations';
import type { LoginAnswer } from './client/routes';
import { setToken, takeReturn, rememberReturn } from './auth';
import { config } from './config';
import { useI18n } from './i18n';
import { navigate } from './router';
import { useLoginSettings } from './client/queries';
import { LocaleSwitch } from './shell/LocaleSwitch';

function newMark(): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  const bytes = crypto.getRandomValues(new Uint8Array(24));
  return Array.from(bytes, (b) => alphabet[b % alphabet.length]).join('');
}

/** The sign-in page. */
export function LoginPage() {
  const { t } = useI18n();
  const settings = useLoginSettings();
  const queryClient = useQueryClient();
  const [form] = Form.useForm<{ account: string; password: string; verifyCode?: string }>();
  const [captchaAsked, setCaptchaAsked] = useState(false);
  const [mark, setMark] = useState(newMark);
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const title = settings.data?.title || config.title;
  const needCaptcha = captchaAsked || settings.data?.verifyCodeCount === 0;
  const encode = settings.data?.pwdTransferEncrypt ?? true;

  const signIn = useSignIn();
  const submit = async (values: { account: string; password: string; verifyCode?: string }) => {
    // The shell's code comes while the server checks the password (it is not part of this page's load).
    // The shell's chunk (the same one prefetch.ts's loadShell asks for; imported here directly so
    // this page does not import back the module that loads it).
    void import('./shell/route').catch(() => undefined);
    setBusy(true);
    setError(undefined);
    try {
      const body: Record<string, string> = { account: values.account, pwd: encode ? encodePassword(values.password) : values.password };
      if (needCaptcha) {
        body.verifyCode = values.verifyCode ?? '';
        body.verifyCodeMark = mark;
      }
      const data = await signIn.mutateAsync(body);
      if (!data.pass || !data.token) throw new Error(data.reason ?? t('login.failed'));
      setToken(data.token);
      queryClient.clear();
      const back = takeReturn();
      if (data.resetPwd) {
        // Keep the place for after the new password.
        if (back) rememberReturn(back);
        navigate('/password', { replace: true });
      } else navigate(back ?? '/', { replace: true });
    } catch (e) {
      if (e instanceof ApiError) {
        const answer = e.body as Partial<LoginAnswer>;
        if (answer.useVerifyCode) setCaptchaAsked(true);
        if (e.status === 429) setError(t('login.lockedOut', { seconds: e.retryAfter ?? answer.retryAfter ?? 60 }));
        else if (e.status === 503) setError(t('login.unavailable', { seconds: e.retryAfter ?? 30 }));
        else setError(e.message || t('login.failed'));
      } else setError(e instanceof Error ? e.message : t('login.failed'));
      // A captcha answer is good for one attempt only.
      setMark(newMark());
      form.setFieldValue('verifyCode', '');
    } finally {
      setBusy(false);
    }
  };

  return (
    <div className="fw-center">
      {/* A plain panel, not antd's Card: Card brings Tabs, Menu and Skeleton into the first load (issue 20 §10). */}
      <section className="fw-login-card">
        <Typography.Title level={3} className="fw-login-title">
          {title}
        </Typography.Title>
        {error && <Alert type="error" showIcon title={error} className="fw-login-error" style={{ marginBottom: 16 }} role="alert" />}
        <Form
          form={form}
          layout="vertical"
          onFinish={submit}
          // A refusal belongs to the attempt it answered: editing a field or trying again clears it.
          onValuesChange={() => setError(undefined)}
          onFinishFailed={() => setError(undefined)}
          requiredMark={false}
          name="login"
        >
          <Form.Item name="account" label={t('login.account')} rules={[{ required: true, message: t('login.required', { what: t('login.account') }) }]}>
            <Input prefix={<UserOutlined />} autoComplete="username" autoFocus />
          </Form.Item>
          <Form.Item name="password" label={t('login.password')} rules={[{ required: true, message: t('login.required', { what: t('login.password') }) }]}>
            <Input.Password prefix={<LockOutlined />} autoComplete="current-password" />
          </Form.Item>
          {needCaptcha && (
            <Form.Item label={t('login.captcha')} required extra={t('login.captchaHint')}>
              <div className="fw-captcha">
                <Form.Item name="verifyCode" noStyle rules={[{ required: true, message: t('login.required', { what: t('login.captcha') }) }]}>
                  <Input autoComplete="off" aria-label={t('login.captcha')} />
                </Form.Item>
                <img src={captchaUrl(mark)} alt={t('login.captcha')} onClick={() => setMark(newMark())} />
              </div>
            </Form.Item>
          )}
          <Button type="primary" htmlType="submit" block loading={busy}>
            {t('login.submit')}
          </Button>
        </Form>
        {settings.data && settings.data.providers.length > 0 && (
          <>
            <Divider plain>{t('login.or')}</Divider>
            <Space orientation="vertical" style={{ width: '100%' }}>
              {settings.data.providers.map((p) => (
                <Button key={p.id} block href={p.url}>
                  {t('login.with', { name: p.name })}
                </Button>
              ))}
            </Space>
          </>
        )}
        <div style={{ marginTop: 16, textAlign: 'center' }}>
          <LocaleSwitch />
        </div>
      </section>
    </div>
  );
}
