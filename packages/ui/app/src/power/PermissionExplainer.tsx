// The permission explainer (issue 20 §1): for a user and a model, each power flag with the steps
// that give or take it, read from GET /power/explain/{fw}?user=. Administrators choose any user
// (or arrive from the Users page with ?user=); everyone else sees their own. The page at
// /permissions; reached from the header's user menu and the Users rows.
import { useMemo } from 'react';
import { Alert, Card, Grid, Select, Space, Spin, Table, Typography } from 'antd';
import { CheckCircleFilled, MinusCircleOutlined } from '@ant-design/icons';
import { useI18n } from '../i18n';
import type { MessageKey } from '../i18n/en';
import { navigate, useLocation } from '../router';
import { useMenu, useUserPicker, useUserInfo } from '../client/queries';
import { useExplain, type ExplainStep } from '../client/power';
import './explainer.css';

const FLAG_KEYS: Record<string, MessageKey> = {
  query: 'perm.flag.query',
  add: 'perm.flag.add',
  edit: 'perm.flag.edit',
  delete: 'perm.flag.delete',
  viewDetails: 'perm.flag.viewDetails',
  export: 'perm.flag.export',
  importable: 'perm.flag.importable',
  print: 'perm.flag.print',
  copy: 'perm.flag.copy',
  cellEdit: 'perm.flag.cellEdit',
  ai: 'perm.flag.ai',
};

type T = ReturnType<typeof useI18n>['t'];

/** One step in words. */
export function stepText(step: ExplainStep, t: T): string {
  const onOff = (v: boolean) => t(v ? 'perm.on' : 'perm.off');
  switch (step.kind) {
    case 'declared':
      return t('perm.step.declared', { value: onOff(step.value) });
    case 'admin':
      return t('perm.step.admin');
    case 'modelMenu':
    case 'functionMenu': {
      const roles = (step.roles ?? []).map((r) => r.name).join(', ');
      if (step.held) return t(step.kind === 'modelMenu' ? 'perm.step.modelMenuHeld' : 'perm.step.functionMenuHeld', { code: step.code ?? '', roles });
      return t(step.kind === 'modelMenu' ? 'perm.step.modelMenuMissing' : 'perm.step.functionMenuMissing', { code: step.code ?? '' });
    }
    case 'handler':
      return t(step.changed ? 'perm.step.handlerChanged' : 'perm.step.handlerKept', { value: onOff(step.value) });
    case 'aiGate':
      return t('perm.step.aiGate');
    case 'cellGate':
      return step.value === false && !(step.fields?.length ?? 0) ? t('perm.step.cellGate') : t('perm.step.cellFields', { fields: (step.fields ?? []).join(', ') || '—' });
    case 'requires':
      return t('perm.step.requires', { flag: FLAG_KEYS[step.requires ?? ''] ? t(FLAG_KEYS[step.requires ?? '']!) : (step.requires ?? ''), value: onOff(step.value) });
    default:
      return step.kind;
  }
}

/** Yes or No, as text beside a coloured icon (a tinted tag's text falls short of the contrast ratio). */
function Verdict({ value }: { value: boolean }) {
  const { t } = useI18n();
  return (
    <span className={`fw-explain-${value ? 'yes' : 'no'}`}>
      {value ? <CheckCircleFilled style={{ color: '#389e0d' }} aria-hidden="true" /> : <MinusCircleOutlined aria-hidden="true" />} {t(value ? 'perm.yes' : 'perm.no')}
    </span>
  );
}

/** A flag's steps, in order. */
function Steps({ steps }: { steps: ExplainStep[] }) {
  const { t } = useI18n();
  return (
    <ol className="fw-explain-steps">
      {steps.map((s, i) => (
        <li key={i} className={`fw-step-${s.kind}`}>
          {stepText(s, t)}
        </li>
      ))}
    </ol>
  );
}

/** The explainer page. */
export function PermissionExplainer() {
  const { t } = useI18n();
  // Phones get a list: a three-column table leaves the steps a sliver.
  const narrow = !Grid.useBreakpoint().md;
  const flagLabel = (flag: string) => (FLAG_KEYS[flag] ? t(FLAG_KEYS[flag]) : flag);
  const { query } = useLocation();
  const me = useUserInfo();
  const menus = useMenu();
  const admin = me.data?.isAdmin === true;
  const userParam = Number(query.get('user'));
  const user = admin && Number.isInteger(userParam) && userParam > 0 ? userParam : undefined;
  const fw = query.get('model') ?? undefined;
  const users = useUserPicker(admin);
  const explained = useExplain(fw, user);
  const models = useMemo(() => {
    const seen = new Map<string, string>();
    for (const m of menus.data ?? []) if ((m.type === 'table' || m.type === 'tree') && m.value && !seen.has(m.value)) seen.set(m.value, m.name);
    return [...seen].map(([value, label]) => ({ value, label: `${label} (${value})` }));
  }, [menus.data]);
  const go = (next: { user?: number | undefined; model?: string | undefined }) => {
    const params = new URLSearchParams();
    const u = 'user' in next ? next.user : user;
    const m = 'model' in next ? next.model : fw;
    if (u !== undefined) params.set('user', String(u));
    if (m) params.set('model', m);
    const qs = params.toString();
    navigate(`/permissions${qs ? `?${qs}` : ''}`, { replace: true });
  };

  const data = explained.data;
  return (
    <div className="fw-permissions-page">
      <Typography.Title level={3} className="fw-page-title">
        {t('perm.explainTitle')}
      </Typography.Title>
      <Typography.Paragraph>{t('perm.explainHint')}</Typography.Paragraph>
      <Space wrap className="fw-explain-pickers" style={{ marginBottom: 16 }}>
        {admin && (
          <Select
            showSearch
            allowClear
            className="fw-explain-user"
            style={{ minWidth: 240 }}
            aria-label={t('perm.user')}
            placeholder={t('perm.userSelf')}
            loading={users.isPending}
            value={user}
            optionFilterProp="label"
            onChange={(v: number | undefined) => go({ user: v ?? undefined })}
            options={(users.data?.rows ?? []).map((r) => ({ value: Number(r.id), label: `${String(r.name ?? r.account)} (${String(r.account)})` }))}
          />
        )}
        <Select
          showSearch
          className="fw-explain-model"
          style={{ minWidth: 260 }}
          aria-label={t('perm.model')}
          placeholder={t('perm.model')}
          value={fw}
          optionFilterProp="label"
          onChange={(v: string) => go({ model: v })}
          options={models}
        />
      </Space>
      {explained.isFetching && !data && <Spin />}
      {explained.isError && <Alert type="error" showIcon title={explained.error.message} />}
      {!fw && <Typography.Paragraph>{t('perm.chooseModel')}</Typography.Paragraph>}
      {data && (
        <Card size="small">
          <Typography.Paragraph className="fw-explain-summary">
            <Typography.Text strong>{t('perm.user')}:</Typography.Text>{' '}
            {`${data.user.name ?? data.user.account} (${data.user.account})${data.user.isAdmin ? ` · ${t('perm.admin')}` : ''}`}
            {' · '}
            <Typography.Text strong>{t('perm.model')}:</Typography.Text> {`${data.model.title} (${data.model.name})`}
          </Typography.Paragraph>
          {narrow ? (
            <ul className="fw-explain-list">
              {data.flags.map((r) => (
                <li key={r.flag} className="fw-explain-item" data-flag={r.flag}>
                  <div>
                    <Typography.Text strong>{flagLabel(r.flag)}</Typography.Text> <Verdict value={r.value} />
                  </div>
                  <Steps steps={r.steps} />
                </li>
              ))}
            </ul>
          ) : (
            <Table
              size="small"
              rowKey="flag"
              className="fw-explain-table"
              pagination={false}
              dataSource={data.flags}
              columns={[
                { key: 'flag', title: t('perm.flag'), width: 150, render: (_: unknown, r) => flagLabel(r.flag) },
                { key: 'value', title: t('perm.result'), width: 100, render: (_: unknown, r) => <Verdict value={r.value} /> },
                { key: 'steps', title: t('perm.steps'), render: (_: unknown, r) => <Steps steps={r.steps} /> },
              ]}
            />
          )}
        </Card>
      )}
    </div>
  );
}
