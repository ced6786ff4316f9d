// Titles the server sends, shown in the user's language (issue 20 §8). Built-in models (Fw*) are
// described in English by the server; their titles come from the model catalogs (models/<id>.ts).
// Host models may declare titles per language (`title: { en: 'Books', 'zh-CN': '图书' }`); the
// build schema carries them as `titles` / `labels`, and the user's language is picked here.
import type { BuildView, FieldView, MenuEntry } from '../types';
import type { ModelMessageKey, ModelMessages } from './models/en';

/** Titles per language as the build schema sends them. */
export type Titles = Readonly<Record<string, string>>;

/** The title for `locale`: its own, else English, else the first given, else `fallback`. */
export function pickTitle(titles: Titles | undefined, locale: string, fallback: string): string {
  if (!titles) return fallback;
  return titles[locale] || titles.en || Object.values(titles).find(Boolean) || fallback;
}

function catalogText(models: ModelMessages, key: string): string | undefined {
  return (models as Record<string, string>)[key as ModelMessageKey];
}

function builtinField(models: ModelMessages, model: string, field: FieldView): FieldView {
  const title = catalogText(models, `field.${model}.${field.name}`);
  return {
    ...field,
    ...(title ? { title, views: { ...field.views, title } } : {}),
    ...(field.choices ? { choices: field.choices.map((c) => ({ ...c, label: catalogText(models, `choice.${model}.${field.name}.${String(c.value)}`) ?? c.label })) } : {}),
  };
}

function hostField(locale: string, field: FieldView): FieldView {
  return {
    ...field,
    title: pickTitle(field.titles, locale, field.title),
    views: { ...field.views, title: pickTitle(field.views.titles, locale, field.views.title) },
    ...(field.choices ? { choices: field.choices.map((c) => ({ ...c, label: pickTitle(c.labels, locale, c.label) })) } : {}),
  };
}

/**
 * A host model's singular title in `locale`: its own translation; else the plain one, unless the
 * model's title is translated into `locale` and the singular is not (no English "Book" beside "图书").
 */
function withSingular(model: BuildView['model'], locale: string): { singularTitle?: string } {
  const own = model.singularTitles?.[locale];
  if (own) return { singularTitle: own };
  if (locale !== 'en' && model.titles?.[locale]) return {};
  const plain = model.singularTitles?.en || model.singularTitle;
  return plain ? { singularTitle: plain } : {};
}

/**
 * A build answer with every title, column title and choice label in the user's language: from
 * the model catalog for a built-in model, from the declared translations for a host model.
 */
export function localizeBuild(build: BuildView, locale: string, models: ModelMessages): BuildView {
  const { model } = build;
  const builtinTitle = catalogText(models, `title.${model.name}`);
  if (builtinTitle !== undefined) {
    const { singularTitle: _english, ...rest } = model;
    const singular = catalogText(models, `singular.${model.name}`);
    return {
      ...build,
      model: { ...rest, ...(singular ? { singularTitle: singular } : {}), title: builtinTitle, fields: model.fields.map((f) => builtinField(models, model.name, f)) },
    };
  }
  const { singularTitle: _plain, ...rest } = model;
  return {
    ...build,
    model: { ...rest, ...withSingular(model, locale), title: pickTitle(model.titles, locale, model.title), fields: model.fields.map((f) => hostField(locale, f)) },
  };
}

/**
 * Menus with the names Fw gave them, in the user's language: a host model's menu from the
 * model's titles (the server sends them while the menu bears the model's title), a built-in
 * model's menu named after its English title, and a function menu (`<Model>@ADD` …) with its
 * English name. A name an administrator changed is theirs and stays as written.
 */
export function localizeMenus(menus: MenuEntry[], locale: string, english: ModelMessages, models: ModelMessages): MenuEntry[] {
  return menus.map((m) => {
    if (m.titles) return { ...m, name: pickTitle(m.titles, locale, m.name) };
    let key: string | undefined;
    if ((m.type === 'table' || m.type === 'tree') && m.value) key = `title.${m.value}`;
    else if (m.type === 'function' && m.code?.includes('@')) key = `function.${m.code.slice(m.code.lastIndexOf('@') + 1)}`;
    if (key === undefined || catalogText(english, key) !== m.name) return m;
    return { ...m, name: catalogText(models, key) ?? m.name };
  });
}
