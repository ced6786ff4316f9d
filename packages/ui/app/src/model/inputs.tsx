// One registry of inputs keyed by edit type. The add / edit form and the in-table cell editor
// both render a field through `FieldInput`, so a value is converted, validated and picked alike
// in both. Every input takes and gives the value in the API's form representation
// (DATE "YYYY-MM-DD", DATETIME ISO 8601, references as ids), so nothing converts elsewhere.
import type { ComponentType } from 'react';
import { DatePicker, Input, InputNumber, Select, Switch } from 'antd';
import dayjs, { type Dayjs } from 'dayjs';
import type { EditType } from '../types';
import { AttachmentInput } from './attachments';
import type { InputProps } from './input-props';
import { ReferenceSelect, ReferenceTreeSelect } from './references';
import { PermissionMatrix } from '../power/PermissionMatrix';
import { AssignPicker } from '../power/AssignPicker';

export type { InputProps } from './input-props';

const text = (value: unknown): string => (value === null || value === undefined ? '' : String(value));

function TextInput({ field, value, onChange, id, autoFocus, disabled }: InputProps) {
  return <Input id={id} value={text(value)} onChange={(e) => onChange?.(e.target.value)} autoFocus={autoFocus} disabled={disabled} placeholder={field.placeholder} />;
}

function TextAreaInput({ field, value, onChange, id, autoFocus, disabled, inCell }: InputProps) {
  return (
    <Input.TextArea
      id={id}
      value={text(value)}
      onChange={(e) => onChange?.(e.target.value)}
      autoFocus={autoFocus}
      disabled={disabled}
      placeholder={field.placeholder}
      autoSize={{ minRows: inCell ? 1 : 2, maxRows: 8 }}
    />
  );
}

function NumberInput({ field, value, onChange, id, autoFocus, disabled }: InputProps) {
  const n = value === null || value === undefined || value === '' ? null : Number(value);
  return (
    <InputNumber<number>
      id={id}
      value={n !== null && Number.isFinite(n) ? n : null}
      onChange={(next) => onChange?.(next ?? null)}
      precision={field.integer ? 0 : undefined}
      autoFocus={autoFocus}
      disabled={disabled}
      placeholder={field.placeholder}
      style={{ width: '100%', minWidth: 120 }}
    />
  );
}

function BooleanInput({ value, onChange, id, autoFocus, disabled }: InputProps) {
  return <Switch id={id} checked={value === true} onChange={(checked) => onChange?.(checked)} autoFocus={autoFocus} disabled={disabled} />;
}

function ChoiceInput({ field, value, onChange, id, autoFocus, disabled, inCell }: InputProps) {
  return (
    <Select
      id={id}
      value={value ?? null}
      onChange={(next: unknown) => onChange?.(next ?? null)}
      options={(field.choices ?? []).map((c) => ({ value: c.value as string, label: c.label }))}
      allowClear={!field.notNull}
      autoFocus={autoFocus}
      disabled={disabled}
      defaultOpen={inCell}
      placeholder={field.placeholder}
      style={{ width: '100%', minWidth: 140 }}
    />
  );
}

function MultiChoiceInput({ field, value, onChange, id, autoFocus, disabled, inCell }: InputProps) {
  return (
    <Select
      id={id}
      mode="multiple"
      value={Array.isArray(value) ? value : []}
      onChange={(next: unknown[]) => onChange?.(next)}
      options={(field.choices ?? []).map((c) => ({ value: c.value as string, label: c.label }))}
      allowClear
      autoFocus={autoFocus}
      disabled={disabled}
      defaultOpen={inCell}
      placeholder={field.placeholder}
      style={{ width: '100%', minWidth: 180 }}
    />
  );
}

function TagsInput({ field, value, onChange, id, autoFocus, disabled }: InputProps) {
  return (
    <Select
      id={id}
      mode="tags"
      value={Array.isArray(value) ? value.map(String) : []}
      onChange={(next: string[]) => onChange?.(next)}
      open={false}
      tokenSeparators={[',']}
      autoFocus={autoFocus}
      disabled={disabled}
      placeholder={field.placeholder}
      style={{ width: '100%', minWidth: 180 }}
    />
  );
}

function toDayjs(value: unknown): Dayjs | null {
  if (value === null || value === undefined || value === '') return null;
  const d = dayjs(String(value));
  return d.isValid() ? d : null;
}

function DateInput({ field, value, onChange, id, autoFocus, disabled, inCell }: InputProps) {
  return (
    <DatePicker
      id={id}
      value={toDayjs(value)}
      onChange={(d) => onChange?.(d ? d.format('YYYY-MM-DD') : null)}
      autoFocus={autoFocus}
      disabled={disabled}
      defaultOpen={inCell}
      placeholder={field.placeholder}
      style={{ width: '100%', minWidth: 140 }}
    />
  );
}

function DateTimeInput({ field, value, onChange, id, autoFocus, disabled, inCell }: InputProps) {
  return (
    <DatePicker
      id={id}
      showTime
      value={toDayjs(value)}
      onChange={(d) => onChange?.(d ? d.toISOString() : null)}
      autoFocus={autoFocus}
      disabled={disabled}
      defaultOpen={inCell}
      placeholder={field.placeholder}
      style={{ width: '100%', minWidth: 200 }}
    />
  );
}

function PasswordInput({ field, value, onChange, id, autoFocus, disabled }: InputProps) {
  return (
    <Input.Password
      id={id}
      value={text(value)}
      onChange={(e) => onChange?.(e.target.value)}
      autoFocus={autoFocus}
      disabled={disabled}
      placeholder={field.placeholder}
      autoComplete="new-password"
    />
  );
}

function ReferenceTableInput({ field, model, value, onChange, id, autoFocus, disabled, inCell }: InputProps) {
  return (
    <ReferenceSelect
      model={model}
      field={field.name}
      value={value}
      onChange={onChange}
      multiple={false}
      id={id}
      autoFocus={autoFocus}
      disabled={disabled}
      placeholder={field.placeholder}
      defaultOpen={inCell}
    />
  );
}

function ReferenceTreeInput({ field, model, value, onChange, id, autoFocus, disabled, inCell }: InputProps) {
  return (
    <ReferenceTreeSelect
      model={model}
      field={field.name}
      value={value}
      onChange={onChange}
      id={id}
      autoFocus={autoFocus}
      disabled={disabled}
      placeholder={field.placeholder}
      defaultOpen={inCell}
    />
  );
}

function CollectionInput({ field, model, value, onChange, id, autoFocus, disabled, inCell }: InputProps) {
  const picker = (
    <ReferenceSelect
      model={model}
      field={field.name}
      value={value}
      onChange={onChange}
      multiple
      id={id}
      autoFocus={autoFocus}
      disabled={disabled}
      placeholder={field.placeholder}
    />
  );
  // A role's menus: the permission matrix (issue 20 §1), the plain picker when it cannot load.
  if (field.collection?.model === 'FwMenu' && !inCell) return <PermissionMatrix value={value} onChange={onChange} id={id} disabled={disabled} fallback={picker} />;
  // A user's roles and organisations: a searchable checklist of what the editor may give.
  if ((field.collection?.model === 'FwRole' || field.collection?.model === 'FwOrg') && !inCell)
    return <AssignPicker model={model} field={field.name} value={value} onChange={onChange} id={id} disabled={disabled} fallback={picker} />;
  return picker;
}

/** The input of each edit type. HIDDEN is a text input for the rare table that shows one; forms carry it hidden. */
export const INPUTS: Record<EditType, ComponentType<InputProps>> = {
  INPUT: TextInput,
  TEXTAREA: TextAreaInput,
  NUMBER: NumberInput,
  BOOLEAN: BooleanInput,
  CHOICE: ChoiceInput,
  MULTI_CHOICE: MultiChoiceInput,
  TAGS: TagsInput,
  DATE: DateInput,
  DATETIME: DateTimeInput,
  PASSWORD: PasswordInput,
  HIDDEN: TextInput,
  REFERENCE_TABLE: ReferenceTableInput,
  REFERENCE_TREE: ReferenceTreeInput,
  COLLECTION: CollectionInput,
  ATTACHMENT: AttachmentInput,
};

/** The registry's input for a field (an unknown type gets a text input). */
export function FieldInput(props: InputProps) {
  const Component = INPUTS[props.field.type] ?? TextInput;
  return <Component {...props} />;
}
