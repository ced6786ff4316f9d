// Saved views (issue 23 §1) above the table: pick one of your views or one shared with your roles
// to get its filter, sort, page size and columns; save what the table shows now as a view (new, or
// over one of yours), shared with roles you hold; delete your own. A view naming fields the model
// no longer has, or columns this person may not see, says so instead of failing.
import { useState } from 'react';
import { Alert, App, Button, Form, Input, Modal, Popconfirm, Radio, Select, Space, Tag, Tooltip } from 'antd';
import { DeleteOutlined, PushpinOutlined, WarningOutlined } from '@ant-design/icons';
import { useQueryClient } from '@tanstack/react-query';
import { ApiError } from '../client/api';
import type { SavedView } from '../client/answers';
import { useDeleteView, useSaveView } from '../client/mutations';
import { keys, useUserInfo, useViews } from '../client/queries';
import { useI18n } from '../i18n';
import type { ConditionNode } from '../types';

/** What the table shows now, as a view would keep it. */
export interface CurrentView {
  conditions: ConditionNode[];
  sort: Array<{ field: string; order: 'asc' | 'desc' }>;
  size: number;
  /** The columns shown, in order. */
  columns: string[];
}

function SaveViewDialog({
  fw,
  current,
  chosen,
  onClose,
  onSaved,
}: {
  fw: string;
  current: CurrentView;
  chosen: SavedView | undefined;
  onClose: () => void;
  onSaved: (view: SavedView) => void;
}) {
  const { t } = useI18n();
  const { message } = App.useApp();
  const queryClient = useQueryClient();
  const roles = useUserInfo().data?.roles ?? [];
  const save = useSaveView(fw);
  const [form] = Form.useForm<{ name: string; roles: number[]; target: 'new' | 'replace' }>();
  const replaceable = chosen?.mine === true;
  const [problem, setProblem] = useState<string>();
  const submit = async (values: { name: string; roles?: number[]; target?: 'new' | 'replace' }) => {
    setProblem(undefined);
    try {
      const view = await save.mutateAsync({
        ...(replaceable && values.target === 'replace' ? { id: chosen.id } : {}),
        name: values.name.trim(),
        conditions: current.conditions,
        sort: current.sort,
        size: current.size,
        columns: current.columns,
        roles: values.roles ?? [],
      });
      message.success(t('views.saved'));
      await queryClient.invalidateQueries({ queryKey: keys.views(fw) });
      onSaved(view);
      onClose();
    } catch (error) {
      if (!(error instanceof ApiError && error.status === 401))
        setProblem(error instanceof ApiError && error.details[0] ? `${error.message} ${error.details[0].message}` : error instanceof Error ? error.message : String(error));
    }
  };
  return (
    <Modal
      open
      title={t('views.saveTitle')}
      onCancel={onClose}
      onOk={() => form.submit()}
      okText={t('views.save')}
      okButtonProps={{ loading: save.isPending, className: 'fw-view-save-ok' }}
      destroyOnHidden
    >
      {problem && <Alert type="error" showIcon title={problem} style={{ marginBottom: 12 }} />}
      <Form
        form={form}
        layout="vertical"
        name="save-view"
        onFinish={submit}
        initialValues={{ name: replaceable ? chosen.name : '', roles: replaceable ? (chosen.roles ?? []) : [], target: replaceable ? 'replace' : 'new' }}
      >
        {replaceable && (
          <Form.Item name="target">
            <Radio.Group
              options={[
                { value: 'replace', label: t('views.update', { name: chosen.name }) },
                { value: 'new', label: t('views.saveNew') },
              ]}
            />
          </Form.Item>
        )}
        <Form.Item name="name" label={t('views.name')} rules={[{ required: true, whitespace: true, message: t('views.nameRequired') }, { max: 100 }]}>
          <Input autoFocus maxLength={100} />
        </Form.Item>
        {roles.length > 0 && (
          <Form.Item name="roles" label={t('views.share')} extra={t('views.shareHint')}>
            <Select mode="multiple" allowClear options={roles.map((r) => ({ value: r.id, label: r.name }))} />
          </Form.Item>
        )}
      </Form>
    </Modal>
  );
}

/**
 * The views bar; `onApply` puts a view's filter, sort, size and columns in force (undefined: back
 * to all rows). `missingColumns`: the chosen view's columns the table cannot show this person.
 */
export function ViewsBar({
  fw,
  chosenId,
  current,
  missingColumns,
  onApply,
}: {
  fw: string;
  chosenId: number | undefined;
  current: CurrentView;
  missingColumns: readonly string[];
  onApply: (view: SavedView | undefined) => void;
}) {
  const { t } = useI18n();
  const { message } = App.useApp();
  const queryClient = useQueryClient();
  const views = useViews(fw);
  const remove = useDeleteView(fw);
  const [saving, setSaving] = useState(false);
  const list = views.data?.views ?? [];
  const chosen = list.find((v) => v.id === chosenId);
  const mine = list.filter((v) => v.mine);
  const shared = list.filter((v) => !v.mine);
  // Columns the table cannot show are told apart below: the view still works without them.
  const brokenFields = (chosen?.broken?.fields ?? []).filter((f) => !missingColumns.includes(f));
  const option = (v: SavedView) => ({
    value: v.id,
    label: (
      <span className="fw-view-option">
        {v.broken ? <WarningOutlined style={{ color: 'var(--ant-color-warning)' }} aria-label={t('views.brokenShort')} /> : null} {v.name}
        {!v.mine && v.owner.account ? <Tag style={{ marginInlineStart: 6 }}>{v.owner.account}</Tag> : null}
      </span>
    ),
    title: v.name,
  });
  return (
    <div className="fw-views">
      <Space wrap>
        <Select
          aria-label={t('views.label')}
          className="fw-view-select"
          style={{ minWidth: 200 }}
          allowClear
          loading={views.isPending}
          placeholder={t('views.placeholder')}
          value={chosen ? chosen.id : undefined}
          onChange={(id: number | undefined) => onApply(list.find((v) => v.id === id))}
          options={[
            ...(mine.length ? [{ label: t('views.mine'), options: mine.map(option) }] : []),
            ...(shared.length ? [{ label: t('views.shared'), options: shared.map(option) }] : []),
          ]}
          notFoundContent={t('views.none')}
        />
        <Tooltip title={t('views.saveTitle')}>
          <Button icon={<PushpinOutlined />} onClick={() => setSaving(true)} className="fw-view-save">
            {t('views.save')}
          </Button>
        </Tooltip>
        {chosen?.mine && (
          <Popconfirm
            title={t('views.deleteConfirm', { name: chosen.name })}
            okButtonProps={{ danger: true }}
            onConfirm={async () => {
              try {
                await remove.mutateAsync(chosen.id);
                message.success(t('views.deleted'));
                await queryClient.invalidateQueries({ queryKey: keys.views(fw) });
                onApply(undefined);
              } catch (error) {
                if (!(error instanceof ApiError && error.status === 401)) message.error(error instanceof Error ? error.message : String(error));
              }
            }}
          >
            <Button icon={<DeleteOutlined />} aria-label={t('views.delete')} className="fw-view-delete" />
          </Popconfirm>
        )}
      </Space>
      {chosen?.broken && (brokenFields.length > 0 || chosen.broken.fields.length === 0) && (
        <Alert type="warning" showIcon className="fw-view-broken" style={{ marginBlock: 8 }} title={t('views.broken', { fields: brokenFields.join(', ') })} />
      )}
      {chosen && missingColumns.length > 0 && (
        <Alert type="info" showIcon className="fw-view-columns-missing" style={{ marginBlock: 8 }} title={t('views.columnsMissing', { fields: missingColumns.join(', ') })} />
      )}
      {saving && <SaveViewDialog fw={fw} current={current} chosen={chosen} onClose={() => setSaving(false)} onSaved={(v) => onApply(v)} />}
    </div>
  );
}
