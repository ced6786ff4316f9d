import type { FieldRule, LocalizedTitles, ModelDefinition, ModelRegistry } from '@fw/core';
import { referenceTarget } from './references.js';

/** A field as the `build` route describes it to a UI (functions and secrets left out). */
export interface FieldView {
  name: string;
  title: string;
  /** The form label per language, when the model declares it so (a UI picks the user's language). */
  titles?: LocalizedTitles;
  type: string;
  views: { title: string; titles?: LocalizedTitles; show: boolean; sortable: boolean };
  notNull: boolean;
  readonly: boolean;
  cellEdit: boolean;
  integer: boolean;
  primaryKey: boolean;
  /** The table query accepts conditions on it (a stored field that is not a secret). */
  filterable: boolean;
  choices?: Array<{ value: string | number | boolean; label: string; labels?: LocalizedTitles }>;
  /** REFERENCE_TABLE / REFERENCE_TREE: the referenced model, the field its rows are labelled by, and whether a tree picker applies. */
  reference?: { model: string; labelField: string; tree: boolean };
  /** COLLECTION: the model on the other side and the field its rows are labelled by. */
  collection?: { model: string; labelField: string };
  /** ATTACHMENT: the limits the upload route applies (for the form to show). */
  attachment?: { multiple: boolean; image: boolean; maxSize: number; maxFiles: number; accept: string[] };
  defaultValue?: unknown;
  placeholder?: string;
  rules: Array<Record<string, unknown>>;
}

/** A model as the `build` route describes it. */
export interface ModelView {
  name: string;
  title: string;
  /** The title per language, when the model declares it so. */
  titles?: LocalizedTitles;
  /** The title of one row, when the model declares it (`singularTitle`). */
  singularTitle?: string;
  /** The singular title per language, when declared so. */
  singularTitles?: LocalizedTitles;
  primaryKey: string;
  tree: boolean;
  /** Whether deleted rows go to the trash (issue 23 §3), so a UI offers the trash and undelete. */
  trash: boolean;
  /** Tree models: the field holding a row's parent. */
  treeParentField?: string;
  fields: FieldView[];
  /** The sort a table query gets when it names none (`defineModel({ orderBy })`); empty: by primary key. */
  orderBy: Array<{ field: string; order: 'asc' | 'desc' }>;
  rowRules: Array<{ name: string; fields: string[]; path?: string; message?: string }>;
}

function ruleView(rule: FieldRule): Record<string, unknown> {
  switch (rule.type) {
    case 'pattern':
      return { type: 'pattern', pattern: rule.pattern instanceof RegExp ? rule.pattern.source : rule.pattern, ...(rule.message ? { message: rule.message } : {}) };
    case 'dynamic':
      // The test runs on the server only; a UI learns that one exists and what it reads.
      return { type: 'dynamic', name: rule.name ?? 'dynamic', dependsOn: [...rule.dependsOn], ...(rule.message ? { message: rule.message } : {}) };
    default:
      return { ...rule };
  }
}

/**
 * The JSON description of a model for a UI. The registry holds the models that reference and
 * collection fields point at: their views name the label field of that model (declared, or its
 * default) and whether a tree picker applies.
 */
export function modelView(model: ModelDefinition, registry: ModelRegistry): ModelView {
  return {
    name: model.name,
    title: model.title,
    ...(model.titles ? { titles: model.titles } : {}),
    ...(model.singularTitle !== undefined ? { singularTitle: model.singularTitle } : {}),
    ...(model.singularTitles ? { singularTitles: model.singularTitles } : {}),
    primaryKey: model.primaryKey,
    tree: model.treeParentField !== undefined,
    trash: model.trash,
    ...(model.treeParentField !== undefined ? { treeParentField: model.treeParentField } : {}),
    orderBy: model.orderBy.map((s) => ({ field: s.field, order: s.order })),
    fields: model.fieldNames.map((name) => {
      const f = model.fields[name]!;
      const target = referenceTarget(registry, f);
      // A registry that lacks the target (not checked with createRegistry) still gets a view.
      const labelField = target?.labelField ?? (f.edit.reference ?? f.edit.collection)?.labelField ?? 'id';
      return {
        name,
        title: f.edit.title,
        ...(f.edit.titles ? { titles: f.edit.titles } : {}),
        type: f.edit.type,
        views: { ...f.views },
        notNull: f.edit.notNull,
        readonly: f.edit.readonly,
        // The same answer the update-cell route gives: a UI offers a cell editor only where it works.
        cellEdit: f.capabilities.cellEdit.ok,
        integer: f.edit.integer,
        primaryKey: f.primaryKey,
        // What parseConditions accepts: stored fields that are not secrets.
        filterable: f.capabilities.filterable,
        ...(f.edit.choices ? { choices: f.edit.choices.map((c) => ({ value: c.value, label: c.label ?? String(c.value), ...(c.labels ? { labels: c.labels } : {}) })) } : {}),
        ...(f.edit.reference ? { reference: { model: f.edit.reference.model, labelField, tree: target?.tree ?? false } } : {}),
        ...(f.edit.collection ? { collection: { model: f.edit.collection.model, labelField } } : {}),
        ...(f.edit.attachment ? { attachment: { ...f.edit.attachment, accept: [...f.edit.attachment.accept] } } : {}),
        ...(f.edit.defaultValue !== undefined ? { defaultValue: f.edit.defaultValue } : {}),
        ...(f.edit.placeholder !== undefined ? { placeholder: f.edit.placeholder } : {}),
        rules: f.rules.map(ruleView),
      };
    }),
    rowRules: model.rowRules.map((r) => ({ name: r.name, fields: [...r.fields], ...(r.path ? { path: r.path } : {}), ...(r.message ? { message: r.message } : {}) })),
  };
}
