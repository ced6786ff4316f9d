// The filter builder (issue 23 §1): a Filter button with the number of conditions in force, and a
// drawer where a person puts together rules (field, operator, value) joined by "all of these" or
// "any of these", with groups one level down. Operators and value inputs follow the field's type;
// the result goes into the table query's conditions (see filterTree.ts), so the server checks it
// like any other condition.
import { useEffect, useState } from 'react';
import { Alert, Badge, Button, DatePicker, Drawer, Empty, Input, InputNumber, Segmented, Select, Space, Tooltip } from 'antd';
import { DeleteOutlined, FilterOutlined, PlusOutlined } from '@ant-design/icons';
import dayjs from 'dayjs';
import { useI18n } from '../i18n';
import type { FieldView } from '../types';
import { choiceLabel, columnTitle } from './fields';
import { ReferenceSelect } from './references';
import { countRules, emptyFilter, isGroup, missingFields, opsFor, takesList, takesNoValue, type FilterGroup, type FilterOp, type FilterRule } from './filterTree';

interface ValueProps {
  model: string;
  field: FieldView;
  op: FilterOp;
  value: unknown;
  onChange: (value: unknown) => void;
  label: string;
}

function dateText(d: dayjs.Dayjs | null | undefined, withTime: boolean): string | null {
  if (!d) return null;
  return withTime ? d.toISOString() : d.format('YYYY-MM-DD');
}

/** The value input for a rule: none, a pair, a list, or one value, as the type and operator need. */
function RuleValue({ model, field, op, value, onChange, label }: ValueProps) {
  const { t } = useI18n();
  if (takesNoValue(op)) return null;
  const aria = { 'aria-label': label };
  const withTime = field.type === 'DATETIME';
  const isDate = field.type === 'DATE' || withTime;
  if (op === 'between') {
    const [from, to] = Array.isArray(value) ? (value as unknown[]) : [null, null];
    if (isDate) {
      const d = (s: unknown) => (typeof s === 'string' && s ? dayjs(s) : null);
      return (
        <DatePicker.RangePicker
          {...aria}
          showTime={withTime}
          value={[d(from), d(to)]}
          onChange={(range) => onChange([dateText(range?.[0], withTime), dateText(range?.[1], withTime)])}
          style={{ width: '100%' }}
        />
      );
    }
    return (
      <Space.Compact style={{ width: '100%' }}>
        <InputNumber<number>
          aria-label={`${label} ${t('model.from')}`}
          placeholder={t('model.from')}
          value={(from as number | null) ?? null}
          onChange={(n) => onChange([n, to ?? null])}
          style={{ width: '50%' }}
        />
        <InputNumber<number>
          aria-label={`${label} ${t('model.to')}`}
          placeholder={t('model.to')}
          value={(to as number | null) ?? null}
          onChange={(n) => onChange([from ?? null, n])}
          style={{ width: '50%' }}
        />
      </Space.Compact>
    );
  }
  const choices = (field.choices ?? []).map((c) => ({ value: c.value as string, label: choiceLabel(field, c.value) }));
  if (takesList(op)) {
    if (field.type === 'REFERENCE_TABLE' || field.type === 'REFERENCE_TREE')
      return <ReferenceSelect model={model} field={field.name} multiple value={value} onChange={onChange} placeholder={label} />;
    if (field.type === 'CHOICE')
      return <Select {...aria} mode="multiple" options={choices} value={Array.isArray(value) ? value : []} onChange={onChange} style={{ width: '100%' }} />;
    const numeric = field.type === 'NUMBER' || (field.type === 'HIDDEN' && field.integer);
    return (
      <Select
        {...aria}
        mode="tags"
        open={false}
        tokenSeparators={[',', '，', '\n']}
        value={Array.isArray(value) ? (value as unknown[]).map(String) : []}
        onChange={(list: string[]) => onChange(numeric ? list.map(Number).filter((n) => Number.isFinite(n)) : list)}
        style={{ width: '100%' }}
      />
    );
  }
  switch (field.type) {
    case 'NUMBER':
      return <InputNumber<number> {...aria} value={(value as number | null) ?? null} onChange={onChange} style={{ width: '100%' }} />;
    case 'DATE':
    case 'DATETIME':
      return (
        <DatePicker
          {...aria}
          showTime={withTime}
          value={typeof value === 'string' && value ? dayjs(value) : null}
          onChange={(d) => onChange(dateText(d, withTime))}
          style={{ width: '100%' }}
        />
      );
    case 'BOOLEAN':
      return (
        <Select
          {...aria}
          value={value as boolean | undefined}
          onChange={onChange}
          options={[
            { value: true, label: t('model.yes') },
            { value: false, label: t('model.no') },
          ]}
          style={{ width: '100%' }}
        />
      );
    case 'CHOICE':
    case 'MULTI_CHOICE':
      return <Select {...aria} value={value as string | undefined} onChange={onChange} options={choices} style={{ width: '100%' }} />;
    case 'REFERENCE_TABLE':
    case 'REFERENCE_TREE':
      return <ReferenceSelect model={model} field={field.name} multiple={false} value={value} onChange={onChange} placeholder={label} />;
    default:
      return <Input {...aria} value={typeof value === 'string' || typeof value === 'number' ? String(value) : ''} onChange={(e) => onChange(e.target.value)} maxLength={200} />;
  }
}

interface RuleProps {
  model: string;
  fields: FieldView[];
  rule: FilterRule;
  onChange: (rule: FilterRule) => void;
  onRemove: () => void;
  index: number;
}

function RuleRow({ model, fields, rule, onChange, onRemove, index }: RuleProps) {
  const { t } = useI18n();
  const field = fields.find((f) => f.name === rule.field);
  const ops = field ? opsFor(field) : [];
  const label = `${t('filter.value')} ${index + 1}`;
  return (
    <div className="fw-filter-rule" role="group" aria-label={`${t('filter.field')} ${index + 1}`}>
      <Select
        aria-label={`${t('filter.field')} ${index + 1}`}
        className="fw-filter-field"
        showSearch
        optionFilterProp="label"
        value={field ? rule.field : undefined}
        placeholder={t('filter.field')}
        options={fields.map((f) => ({ value: f.name, label: columnTitle(f) }))}
        onChange={(name: string) => {
          const next = fields.find((f) => f.name === name)!;
          const allowed = opsFor(next);
          onChange({ field: name, op: allowed.includes(rule.op) ? rule.op : allowed[0]! });
        }}
      />
      <Select
        aria-label={`${t('filter.operator')} ${index + 1}`}
        className="fw-filter-op"
        value={field ? rule.op : undefined}
        disabled={!field}
        placeholder={t('filter.operator')}
        options={ops.map((op) => ({ value: op, label: t(`filter.op.${op}` as never) }))}
        onChange={(op: FilterOp) =>
          onChange({ field: rule.field, op, ...(takesList(op) === takesList(rule.op) && op !== 'between' && rule.op !== 'between' ? { value: rule.value } : {}) })
        }
      />
      <div className="fw-filter-value">
        {field ? <RuleValue model={model} field={field} op={rule.op} value={rule.value} onChange={(value) => onChange({ ...rule, value })} label={label} /> : null}
      </div>
      <Tooltip title={t('filter.remove')}>
        <Button type="text" aria-label={`${t('filter.remove')} ${index + 1}`} icon={<DeleteOutlined />} onClick={onRemove} />
      </Tooltip>
    </div>
  );
}

interface GroupProps {
  model: string;
  fields: FieldView[];
  group: FilterGroup;
  onChange: (group: FilterGroup) => void;
  /** Groups may hold groups only at the top (the builder's one level). */
  nested: boolean;
  onRemove?: () => void;
  counter: { next: number };
}

function GroupBox({ model, fields, group, onChange, nested, onRemove, counter }: GroupProps) {
  const { t } = useI18n();
  const set = (i: number, item: FilterRule | FilterGroup) => onChange({ ...group, items: group.items.map((x, j) => (j === i ? item : x)) });
  const drop = (i: number) => onChange({ ...group, items: group.items.filter((_, j) => j !== i) });
  const firstField = fields[0];
  const newRule = (): FilterRule => ({ field: firstField?.name ?? '', op: firstField ? opsFor(firstField)[0]! : 'eq' });
  return (
    <div className={nested ? 'fw-filter-group fw-filter-subgroup' : 'fw-filter-group'}>
      <div className="fw-filter-join">
        <Segmented
          aria-label={nested ? t('filter.group') : t('filter.title')}
          size="small"
          value={group.join}
          onChange={(join) => onChange({ ...group, join: join as FilterGroup['join'] })}
          options={[
            { value: 'and', label: t('filter.all') },
            { value: 'or', label: t('filter.any') },
          ]}
        />
        {onRemove ? (
          <Button size="small" type="text" icon={<DeleteOutlined />} onClick={onRemove}>
            {t('filter.removeGroup')}
          </Button>
        ) : null}
      </div>
      {group.items.map((item, i) =>
        isGroup(item) ? (
          <GroupBox key={i} model={model} fields={fields} group={item} nested onChange={(g) => set(i, g)} onRemove={() => drop(i)} counter={counter} />
        ) : (
          <RuleRow key={i} model={model} fields={fields} rule={item} index={counter.next++} onChange={(r) => set(i, r)} onRemove={() => drop(i)} />
        ),
      )}
      <Space wrap>
        <Button size="small" icon={<PlusOutlined />} onClick={() => onChange({ ...group, items: [...group.items, newRule()] })}>
          {t('filter.addRule')}
        </Button>
        {nested ? null : (
          <Button
            size="small"
            icon={<PlusOutlined />}
            onClick={() => onChange({ ...group, items: [...group.items, { join: group.join === 'and' ? 'or' : 'and', items: [newRule()] }] })}
          >
            {t('filter.addGroup')}
          </Button>
        )}
      </Space>
    </div>
  );
}

/** The Filter button and its drawer. `value` is the filter in force; `onApply` puts a new one in force. */
export function FilterBuilder({
  model,
  fields,
  value,
  onApply,
}: {
  model: string;
  fields: FieldView[];
  value: FilterGroup | undefined;
  onApply: (filter: FilterGroup | undefined) => void;
}) {
  const { t } = useI18n();
  const [open, setOpen] = useState(false);
  const [draft, setDraft] = useState<FilterGroup>(() => value ?? emptyFilter());
  useEffect(() => {
    if (open) setDraft(value ?? emptyFilter());
  }, [open]);
  if (fields.length === 0) return null;
  const count = countRules(value);
  const missing = missingFields(value, fields);
  const apply = (filter: FilterGroup | undefined) => {
    onApply(filter && countRules(filter) > 0 ? filter : undefined);
    setOpen(false);
  };
  return (
    <>
      <Badge count={count} size="small">
        <Button
          icon={<FilterOutlined />}
          onClick={() => setOpen(true)}
          aria-label={count ? `${t('filter.button')} (${t('filter.active', { count })})` : t('filter.button')}
          className="fw-filter-button"
        >
          {t('filter.button')}
        </Button>
      </Badge>
      <Drawer
        title={t('filter.title')}
        open={open}
        onClose={() => setOpen(false)}
        size={Math.min(640, window.innerWidth)}
        destroyOnHidden
        className="fw-filter-drawer"
        footer={
          <Space style={{ justifyContent: 'flex-end', width: '100%' }}>
            <Button onClick={() => apply(undefined)}>{t('filter.clear')}</Button>
            <Button type="primary" onClick={() => apply(draft)}>
              {t('filter.apply')}
            </Button>
          </Space>
        }
      >
        {missing.length > 0 ? <Alert type="warning" showIcon title={t('filter.missing', { fields: missing.join(', ') })} style={{ marginBottom: 12 }} /> : null}
        {draft.items.length === 0 ? <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('filter.empty')} /> : null}
        <GroupBox model={model} fields={fields} group={draft} nested={false} onChange={setDraft} counter={{ next: 0 }} />
      </Drawer>
    </>
  );
}
