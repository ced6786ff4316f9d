import type { LocalizedTitles, ModelRegistry } from '@fw/core';

/**
 * A model menu still named after its model's plain title gets the model's titles per language,
 * for the UI to show the user's (issue 20 §8); a name an administrator changed stays theirs.
 * @example modelMenuTitles(registry, { name: 'Books', type: 'table', value: 'Book' }) // { titles: { en: 'Books', 'zh-CN': '图书' } }
 */
export function modelMenuTitles(registry: ModelRegistry | undefined, m: { name: string; type: string; value?: string | null }): { titles?: LocalizedTitles } {
  if ((m.type !== 'table' && m.type !== 'tree') || !m.value) return {};
  const model = registry?.get(m.value);
  return model?.titles && m.name === model.title ? { titles: model.titles } : {};
}
