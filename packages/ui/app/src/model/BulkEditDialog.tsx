// Bulk edit (issue 23 §2): set one or more fields on the selected rows, or on every row the
// current search and filter match. The server runs each row through the cell editor's path (the
// same switches, conversion, whole-row validation and hooks) in one transaction, so either every
// row is saved or none is; its per-row failures are listed here.
import { useMemo, useState } from 'react';
import { Alert, Form, Modal, Radio, Select, Space, Typography } from 'antd';
import { useQueryClient } from '@tanstack/react-query';
import { ApiError } from '../client/api';
import { useUpdateMany } from '../client/mutations';
import { invalidateModel } from '../client/queries';
import { useI18n } from '../i18n';
import type { BuildView, ConditionNode, Row } from '../types';
import { FieldItem } from './FieldItem';
import { formTitle } from './fields';
import { useUndoOffer } from './UndoProvider';

/** The rows a bulk edit may target. */
export interface BulkTarget {
  selected: number[];
  /** The conditions of the table as shown (search and filter), when any are in force. */
  conditions: ConditionNode[];
  /** How many rows those conditions match, as the table counted them. */
  matching?: { total: number; estimate: boolean };
}

/** The bulk edit dialog; `onDone` runs after a save (to clear the selection). */
export function BulkEditDialog({ build, target, onClose, onDone }: { build: BuildView; target: BulkTarget; onClose: () => void; onDone: () => void }) {
  const { t } = useI18n();
  const queryClient = useQueryClient();
  const [form] = Form.useForm<Row>();
  const fw = build.model.name;
  const editable = useMemo(() => build.model.fields.filter((f) => f.cellEdit && !f.readonly && !f.primaryKey && f.type !== 'ATTACHMENT'), [build.model]);
  const [chosen, setChosen] = useState<string[]>([]);
  const [scope, setScope] = useState<'selected' | 'matching'>(target.selected.length > 0 ? 'selected' : 'matching');
  const [problems, setProblems] = useState<string[]>([]);
  const updateMany = useUpdateMany(fw);
  const offer = useUndoOffer(fw);
  const count = scope === 'selected' ? target.selected.length : (target.matching?.total ?? 0);
  const countText = scope === 'matching' && target.matching?.estimate ? `~${count}` : String(count);

  const submit = async (values: Row) => {
    setProblems([]);
    const sent: Row = {};
    for (const name of chosen) sent[name] = values[name] ?? null;
    try {
      const answer = await updateMany.mutateAsync({ target: scope === 'selected' ? { ids: target.selected } : { conditions: target.conditions }, values: sent });
      offer(t('bulk.done', { count: answer.updated }), answer.batch);
      await invalidateModel(queryClient, fw);
      onDone();
      onClose();
    } catch (error) {
      if (error instanceof ApiError && error.status === 401) return;
      if (error instanceof ApiError && error.details.length > 0) setProblems(error.details.slice(0, 50).map((d) => (d.path ? `${d.path}: ${d.message}` : d.message)));
      else setProblems([error instanceof Error ? error.message : String(error)]);
    }
  };

  return (
    <Modal
      open
      title={t('bulk.title')}
      onCancel={onClose}
      okText={t('bulk.apply', { count: countText })}
      okButtonProps={{ disabled: chosen.length === 0 || count === 0, loading: updateMany.isPending, className: 'fw-bulk-apply' }}
      onOk={() => form.submit()}
      destroyOnHidden
      className="fw-bulk-dialog"
    >
      <Space orientation="vertical" style={{ width: '100%' }} size="middle">
        <div>
          <Typography.Text strong>{t('bulk.target')}</Typography.Text>
          <Radio.Group value={scope} onChange={(e) => setScope(e.target.value as typeof scope)} style={{ display: 'flex', flexDirection: 'column', gap: 4, marginTop: 4 }}>
            <Radio value="selected" disabled={target.selected.length === 0}>
              {t('bulk.selected', { count: target.selected.length })}
            </Radio>
            <Radio value="matching" disabled={!target.matching || target.matching.total === 0}>
              {t(target.conditions.length > 0 ? 'bulk.matching' : 'bulk.all', {
                count: target.matching ? (target.matching.estimate ? `~${target.matching.total}` : String(target.matching.total)) : '0',
              })}
            </Radio>
          </Radio.Group>
        </div>
        <div>
          <Typography.Text strong id="fw-bulk-fields">
            {t('bulk.fields')}
          </Typography.Text>
          <Select
            aria-labelledby="fw-bulk-fields"
            mode="multiple"
            className="fw-bulk-fields"
            style={{ width: '100%', marginTop: 4 }}
            value={chosen}
            onChange={setChosen}
            optionFilterProp="label"
            options={editable.map((f) => ({ value: f.name, label: formTitle(f) }))}
            placeholder={t('bulk.none')}
          />
          <Typography.Paragraph type="secondary" style={{ marginTop: 4, marginBottom: 0 }}>
            {t('bulk.hint')}
          </Typography.Paragraph>
        </div>
        {problems.length > 0 && (
          <Alert
            type="error"
            showIcon
            className="fw-bulk-error"
            title={t('bulk.failed', { count: problems.length })}
            description={
              <ul className="fw-bulk-problems">
                {problems.map((p, i) => (
                  <li key={i}>{p}</li>
                ))}
              </ul>
            }
          />
        )}
        <Form form={form} layout="vertical" onFinish={submit} name="bulk-edit">
          {editable
            .filter((f) => chosen.includes(f.name))
            .map((f) => (
              <FieldItem key={f.name} field={f} model={fw} />
            ))}
        </Form>
      </Space>
    </Modal>
  );
}
