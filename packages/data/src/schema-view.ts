import type { FieldRule, ModelDefinition } from '@fw/core';
import { cellEditRefusal } from '@fw/row-patch';

/** A field as the `build` route describes it to a UI (functions and secrets left out). */
export interface FieldView {
  name: string;
  title: string;
  type: string;
  views: { title: string; show: boolean; sortable: boolean };
  notNull: boolean;
  readonly: boolean;
  cellEdit: boolean;
  integer: boolean;
  primaryKey: boolean;
  choices?: Array<{ value: string | number | boolean; label: string }>;
  reference?: { model: string; labelField?: string };
  collection?: { model: string };
  defaultValue?: unknown;
  placeholder?: string;
  rules: Array<Record<string, unknown>>;
}

/** A model as the `build` route describes it. */
export interface ModelView {
  name: string;
  title: string;
  primaryKey: string;
  tree: boolean;
  fields: FieldView[];
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

/** The JSON description of a model for a UI. */
export function modelView(model: ModelDefinition): ModelView {
  return {
    name: model.name,
    title: model.title,
    primaryKey: model.primaryKey,
    tree: model.treeParentField !== undefined,
    fields: model.fieldNames.map((name) => {
      const f = model.fields[name]!;
      return {
        name,
        title: f.edit.title,
        type: f.edit.type,
        views: { ...f.views },
        notNull: f.edit.notNull,
        readonly: f.edit.readonly,
        // The same answer the update-cell route gives: a UI offers a cell editor only where it works.
        cellEdit: cellEditRefusal(model, name) === undefined,
        integer: f.edit.integer,
        primaryKey: f.primaryKey,
        ...(f.edit.choices ? { choices: f.edit.choices.map((c) => ({ value: c.value, label: c.label ?? String(c.value) })) } : {}),
        ...(f.edit.reference ? { reference: { ...f.edit.reference } } : {}),
        ...(f.edit.collection ? { collection: { model: f.edit.collection.model } } : {}),
        ...(f.edit.defaultValue !== undefined ? { defaultValue: f.edit.defaultValue } : {}),
        ...(f.edit.placeholder !== undefined ? { placeholder: f.edit.placeholder } : {}),
        rules: f.rules.map(ruleView),
      };
    }),
    rowRules: model.rowRules.map((r) => ({ name: r.name, fields: [...r.fields], ...(r.path ? { path: r.path } : {}), ...(r.message ? { message: r.message } : {}) })),
  };
}
