// How a value reads in the table and the details view, by edit type.
import type { ReactNode } from 'react';
import { Tag } from 'antd';
import type { MessageKey } from '../i18n';
import type { FieldView } from '../types';
import { AttachmentList } from './attachments';
import { choiceLabel } from './fields';
import { uiDateTimeFormat } from '../i18n/dates';

type T = (key: MessageKey) => string;

/** id → label of the reference and collection fields of the rows on screen. */
export type Labels = Record<string, Record<string, string>>;

const dateFormat = new Intl.DateTimeFormat(undefined, { year: 'numeric', month: '2-digit', day: '2-digit', timeZone: 'UTC' });

/** A DATE ("YYYY-MM-DD") in the browser's locale; the calendar day, whatever the time zone. */
export function formatDate(value: unknown): string {
  const m = /^(\d{4})-(\d{2})-(\d{2})/.exec(String(value));
  if (!m) return String(value);
  return dateFormat.format(new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]))));
}

/** A DATETIME in the UI's language and the browser's time zone. */
export function formatDateTime(value: unknown): string {
  const d = new Date(String(value));
  return Number.isNaN(d.getTime()) ? String(value) : uiDateTimeFormat().format(d);
}

function referenceLabel(labels: Labels | undefined, field: string, id: unknown): string {
  return labels?.[field]?.[String(id)] ?? `#${String(id)}`;
}

/** Where a value is shown: the row it belongs to (attachment links need it), and whether images show as thumbnails. */
export interface ValuePlace {
  model: string;
  rowId: unknown;
  thumbnail?: boolean;
}

/** The value of `field` as a person reads it. */
export function renderValue(field: FieldView, value: unknown, labels: Labels | undefined, t: T, place?: ValuePlace): ReactNode {
  if (value === null || value === undefined || value === '') return null;
  switch (field.type) {
    case 'BOOLEAN':
      return value === true ? <Tag color="green">{t('model.yes')}</Tag> : <Tag>{t('model.no')}</Tag>;
    case 'CHOICE':
      return choiceLabel(field, value);
    case 'MULTI_CHOICE':
      return Array.isArray(value) ? value.map((v) => <Tag key={String(v)}>{choiceLabel(field, v)}</Tag>) : String(value);
    case 'TAGS':
      return Array.isArray(value) ? value.map((v) => <Tag key={String(v)}>{String(v)}</Tag>) : String(value);
    case 'DATE':
      return formatDate(value);
    case 'DATETIME':
      return formatDateTime(value);
    case 'PASSWORD':
      return '••••••';
    case 'REFERENCE_TABLE':
    case 'REFERENCE_TREE':
      return referenceLabel(labels, field.name, value);
    case 'COLLECTION':
      return Array.isArray(value) ? value.map((v) => <Tag key={String(v)}>{referenceLabel(labels, field.name, v)}</Tag>) : String(value);
    case 'ATTACHMENT':
      if (place) return <AttachmentList model={place.model} field={field} rowId={place.rowId} value={value} thumbnail={place.thumbnail} />;
      return Array.isArray(value) ? value.map((f: { id?: string; name?: string }) => <Tag key={String(f?.id)}>{String(f?.name ?? '')}</Tag>) : null;
    default:
      return typeof value === 'object' ? JSON.stringify(value) : String(value);
  }
}
