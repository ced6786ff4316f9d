import { FwDefinitionError } from './errors.js';
import { describe, isPlainObject } from './definition-checks.js';

/**
 * The languages the admin UI speaks (issue 20 §8). A translated title names its texts by these
 * ids; the UI shows the one of the user's language, else English, else the first given.
 */
export const FW_LOCALES = Object.freeze(['en', 'zh-CN', 'ja', 'de', 'fr', 'es'] as const);

/** One of {@link FW_LOCALES}. */
export type FwLocale = (typeof FW_LOCALES)[number];

/** A title per language, e.g. `{ en: 'Books', 'zh-CN': '图书' }`. At least one. */
export type LocalizedTitles = Readonly<Partial<Record<FwLocale, string>>>;

/** A display text: one string for every language, or one per language. */
export type LocalizedText = string | LocalizedTitles;

/** A checked display text: the plain text every server message uses, and the translations if any. */
export interface CheckedText {
  /** The English text when given, else the first one; what logs, exports and error messages show. */
  readonly text: string;
  /** The translations as declared (frozen), when the text was given per language. */
  readonly translations?: LocalizedTitles;
}

/**
 * Checks a title that may be given per language.
 *
 * @throws {FwDefinitionError} for a value that is neither a non-empty string nor an object of
 * non-empty strings keyed by {@link FW_LOCALES}, and for an empty object.
 */
export function checkLocalizedText(key: string, value: unknown, fallback: string): CheckedText {
  if (value === undefined) return { text: fallback };
  if (typeof value === 'string') {
    if (value.length === 0) throw new FwDefinitionError(key, 'must be a non-empty string or { en, zh-CN, … }, got ""');
    return { text: value };
  }
  if (!isPlainObject(value)) throw new FwDefinitionError(key, `must be a non-empty string or { en, zh-CN, … }, got ${describe(value)}`);
  const entries = Object.entries(value);
  if (entries.length === 0) throw new FwDefinitionError(key, `names no language (known: ${FW_LOCALES.join(', ')})`);
  for (const [locale, text] of entries) {
    if (!(FW_LOCALES as readonly string[]).includes(locale)) throw new FwDefinitionError(`${key}.${locale}`, `unknown language (known: ${FW_LOCALES.join(', ')})`);
    if (typeof text !== 'string' || text.length === 0) throw new FwDefinitionError(`${key}.${locale}`, `must be a non-empty string, got ${describe(text)}`);
  }
  const translations = Object.freeze(Object.fromEntries(entries) as Record<FwLocale, string>);
  return { text: translations.en ?? (entries[0]![1] as string), translations };
}

/**
 * The text for `locale`: its own, else English, else the first given; `fallback` without
 * translations.
 * @example localizedText({ en: 'Books', 'zh-CN': '图书' }, 'de', 'Books') // 'Books'
 */
export function localizedText(translations: LocalizedTitles | undefined, locale: string, fallback: string): string {
  if (!translations) return fallback;
  const own = translations[locale as FwLocale];
  if (own) return own;
  return translations.en ?? Object.values(translations)[0] ?? fallback;
}
