// What the model description says about where each field appears.
import type { FieldView, ModelView } from '../types';

/** The key's name (rows always carry it; the update-cell route calls it `id`). */
export function keyOf(model: ModelView): string {
  return model.primaryKey || 'id';
}

/** Whether the key is a column of its own declaration (else the table adds one for it). */
export function keyShown(model: ModelView): boolean {
  return model.fields.some((f) => f.name === keyOf(model) && f.views.show);
}

/** Table columns: fields shown in the table view. */
export function columnFields(model: ModelView): FieldView[] {
  return model.fields.filter((f) => f.views.show && f.type !== 'PASSWORD');
}

/** Fields the table query can filter on and the search form offers (those shown as columns). */
export function searchFields(model: ModelView): FieldView[] {
  return model.fields.filter((f) => {
    const filterable = f.filterable ?? (f.type !== 'PASSWORD' && f.type !== 'COLLECTION');
    return filterable && f.views.show && !f.primaryKey;
  });
}

/**
 * Whether the table offers a sort on `f`: the server's answer (a sortable view on a field the query
 * accepts, decided once by defineModel); a server without `filterable` sorts any stored field.
 */
export function sortableField(f: FieldView): boolean {
  return f.views.sortable && (f.filterable ?? f.type !== 'COLLECTION');
}

/** Fields of the add / edit form: everything but the key; HIDDEN ones are carried, not shown. */
export function formFields(model: ModelView): FieldView[] {
  return model.fields.filter((f) => !f.primaryKey && f.name !== keyOf(model));
}

/** A choice's label. */
export function choiceLabel(field: FieldView, value: unknown): string {
  const choice = field.choices?.find((c) => c.value === value || String(c.value) === String(value));
  return choice ? choice.label : String(value);
}

/** The column title of a field. */
export function columnTitle(field: FieldView): string {
  return field.views.title || field.title || field.name;
}

/** The form label of a field: its edit title when one was given (it defaults to the name), else the column title. */
export function formTitle(field: FieldView): string {
  return field.title && field.title !== field.name ? field.title : columnTitle(field);
}
