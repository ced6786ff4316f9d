// The search form: one input per field the table query can filter on, turned into the table
// query's conditions (text fields "contain", numbers and dates a from–to range, the rest equal).
import { useId, useState } from 'react';
import { Button, DatePicker, Form, Input, InputNumber, Select, Space, type FormInstance } from 'antd';
import { SearchOutlined } from '@ant-design/icons';
import dayjs from 'dayjs';
import { useI18n } from '../i18n';
import type { Condition, FieldView } from '../types';
import { choiceLabel, columnTitle } from './fields';
import { ReferenceSelect } from './references';

/** The search values as the URL keeps them: per field a text, a value, or a [from, to] pair. */
export type SearchValues = Record<string, unknown>;

const filled = (v: unknown) => v !== undefined && v !== null && v !== '' && !(Array.isArray(v) && v.length === 0);

/** The table conditions of the search values. */
export function toConditions(fields: FieldView[], values: SearchValues): Condition[] {
  const out: Condition[] = [];
  for (const f of fields) {
    const v = values[f.name];
    if (!filled(v)) continue;
    switch (f.type) {
      case 'INPUT':
      case 'TEXTAREA':
      case 'TAGS':
      case 'MULTI_CHOICE':
        out.push({ field: f.name, op: 'like', value: String(v).trim() });
        break;
      case 'HIDDEN':
        out.push({ field: f.name, op: f.integer ? 'eq' : 'like', value: v });
        break;
      case 'NUMBER':
      case 'DATE':
      case 'DATETIME': {
        const [from, to] = Array.isArray(v) ? v : [];
        if (filled(from) && filled(to)) out.push({ field: f.name, op: 'between', value: [from, to] });
        else if (filled(from)) out.push({ field: f.name, op: 'gte', value: from });
        else if (filled(to)) out.push({ field: f.name, op: 'lte', value: to });
        break;
      }
      default:
        out.push({ field: f.name, op: 'eq', value: v });
    }
  }
  return out.filter((c) => c.value !== '');
}

function RangeNumber({ value, onChange, id }: { value?: unknown; onChange?: (v: unknown) => void; id?: string }) {
  const { t } = useI18n();
  const [from, to] = Array.isArray(value) ? (value as Array<number | null>) : [null, null];
  return (
    <Space.Compact>
      <InputNumber<number> id={id} placeholder={t('model.from')} value={from ?? null} onChange={(n) => onChange?.([n ?? null, to ?? null])} style={{ width: 100 }} />
      <InputNumber<number> placeholder={t('model.to')} value={to ?? null} onChange={(n) => onChange?.([from ?? null, n ?? null])} style={{ width: 100 }} />
    </Space.Compact>
  );
}

function RangeDate({ value, onChange, withTime, id }: { value?: unknown; onChange?: (v: unknown) => void; withTime: boolean; id?: string }) {
  const [from, to] = Array.isArray(value) ? (value as Array<string | null>) : [null, null];
  const d = (s: string | null | undefined) => (s ? dayjs(s) : null);
  return (
    <DatePicker.RangePicker
      id={id}
      showTime={withTime}
      allowEmpty={[true, true]}
      value={[d(from), d(to)]}
      onChange={(range) => {
        const [a, b] = range ?? [null, null];
        const out = (x: dayjs.Dayjs | null | undefined) => (x ? (withTime ? x.toISOString() : x.format('YYYY-MM-DD')) : null);
        onChange?.([out(a), out(b)]);
      }}
    />
  );
}

function SearchInput({ field, model, value, onChange, id }: { field: FieldView; model: string; value?: unknown; onChange?: (v: unknown) => void; id?: string }) {
  const { t } = useI18n();
  const io = { value, onChange, id };
  switch (field.type) {
    case 'NUMBER':
      return <RangeNumber {...io} />;
    case 'DATE':
      return <RangeDate {...io} withTime={false} />;
    case 'DATETIME':
      return <RangeDate {...io} withTime />;
    case 'BOOLEAN':
      return (
        <Select
          {...io}
          allowClear
          placeholder={t('model.any')}
          style={{ width: 110 }}
          options={[
            { value: true, label: t('model.yes') },
            { value: false, label: t('model.no') },
          ]}
        />
      );
    case 'CHOICE':
    case 'MULTI_CHOICE':
      return (
        <Select
          {...io}
          allowClear
          placeholder={t('model.any')}
          style={{ minWidth: 140 }}
          options={(field.choices ?? []).map((c) => ({ value: c.value as string, label: choiceLabel(field, c.value) }))}
        />
      );
    case 'REFERENCE_TABLE':
    case 'REFERENCE_TREE':
      return <ReferenceSelect {...io} model={model} field={field.name} multiple={false} />;
    default:
      return <Input id={id} value={typeof value === 'string' ? value : ''} onChange={(e) => onChange?.(e.target.value)} allowClear style={{ width: 180 }} />;
  }
}

/**
 * The search form above the table. On a phone (under 576 px) it folds behind a "Search" button
 * (with the number of fields in use), so the table is on the first screen; wider, the button is
 * not there and the form always shows.
 */
export function SearchForm({ model, fields, values, onSearch }: { model: string; fields: FieldView[]; values: SearchValues; onSearch: (values: SearchValues) => void }) {
  const { t } = useI18n();
  const [form] = Form.useForm<SearchValues>();
  const [open, setOpen] = useState(false);
  const formId = useId();
  if (fields.length === 0) return null;
  const inUse = fields.filter((f) => filled(values[f.name]) && !(Array.isArray(values[f.name]) && (values[f.name] as unknown[]).every((v) => !filled(v)))).length;
  return (
    <div className={open ? 'fw-search-wrap fw-search-open' : 'fw-search-wrap'}>
      <Button className="fw-search-toggle" icon={<SearchOutlined />} aria-expanded={open} aria-controls={formId} onClick={() => setOpen((o) => !o)}>
        {inUse > 0 ? `${t('model.search')} (${inUse})` : t('model.search')}
      </Button>
      <SearchFields form={form} formId={formId} model={model} fields={fields} values={values} onSearch={onSearch} />
    </div>
  );
}

function SearchFields({
  form,
  formId,
  model,
  fields,
  values,
  onSearch,
}: {
  form: FormInstance<SearchValues>;
  formId: string;
  model: string;
  fields: FieldView[];
  values: SearchValues;
  onSearch: (values: SearchValues) => void;
}) {
  const { t } = useI18n();
  return (
    <Form form={form} id={formId} layout="inline" initialValues={values} onFinish={onSearch} className="fw-search" name="search">
      {fields.map((f) => (
        <Form.Item key={f.name} name={f.name} label={columnTitle(f)}>
          <SearchInput field={f} model={model} />
        </Form.Item>
      ))}
      <Form.Item>
        <Space>
          <Button type="primary" htmlType="submit" icon={<SearchOutlined />}>
            {t('model.search')}
          </Button>
          <Button
            onClick={() => {
              form.resetFields();
              const cleared = Object.fromEntries(fields.map((f) => [f.name, undefined]));
              form.setFieldsValue(cleared);
              onSearch({});
            }}
          >
            {t('model.reset')}
          </Button>
        </Space>
      </Form.Item>
    </Form>
  );
}
