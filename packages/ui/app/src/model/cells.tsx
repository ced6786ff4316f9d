// How a value reads in the table and the details view, by edit type.
import type { ReactNode } from 'react';
import { Tag } from 'antd';
import type { MessageKey } from '../i18n';
import type { FieldView } from '../types';
import { AttachmentList } from './attachments';
import { choiceLabel } from './fields';

type T = (key: MessageKey) => string;

/** id → label of the reference and collection fields of the rows on screen. */
export type Labels = Record<string, Record<string, string>>;

const pad = (n: number) => String(n).padStart(2, '0');

/**
 * A DATE as `YYYY-MM-DD`, the calendar day whatever the time zone: one format in the table, the
 * details, the form's date picker, exports and the print page (issue 20).
 */
export function formatDate(value: unknown): string {
  const m = /^(\d{4})-(\d{2})-(\d{2})/.exec(String(value));
  return m ? `${m[1]}-${m[2]}-${m[3]}` : String(value);
}

/** A DATETIME as `YYYY-MM-DD HH:mm:ss` in the browser's time zone, as the form's date-time picker shows it. */
export function formatDateTime(value: unknown): string {
  const d = new Date(String(value));
  if (Number.isNaN(d.getTime())) return String(value);
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}

function referenceLabel(labels: Labels | undefined, field: string, id: unknown): string {
  return labels?.[field]?.[String(id)] ?? `#${String(id)}`;
}

/** Where a value is shown: the row it belongs to (attachment links need it), and whether images show as thumbnails. */
export interface ValuePlace {
  model: string;
  rowId: unknown;
  thumbnail?: boolean;
  /** The details view: image files show a preview above their download link. */
  preview?: boolean;
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
      if (place) return <AttachmentList model={place.model} field={field} rowId={place.rowId} value={value} thumbnail={place.thumbnail} preview={place.preview} />;
      return Array.isArray(value) ? value.map((f: { id?: string; name?: string }) => <Tag key={String(f?.id)}>{String(f?.name ?? '')}</Tag>) : null;
    default:
      return typeof value === 'object' ? JSON.stringify(value) : String(value);
  }
}
