// The six languages of the UI (issue 20 §8), each named in itself, and how the first one is
// chosen: the remembered choice, else the browser's languages, else English.

export { LOCALES, type LocaleId, type LocalePack } from './locale-ids';
import { LOCALES, type LocaleId, type LocalePack } from './locale-ids';

/** Where the choice is remembered (this browser). */
export const LOCALE_STORAGE_KEY = 'fw-locale';

/** True for one of the UI's locale ids. */
export function isLocaleId(value: unknown): value is LocaleId {
  return LOCALES.some((l) => l.id === value);
}

/**
 * The UI locale for a browser's language tags (`navigator.languages`), best first: an exact
 * match, then the primary language (`zh-TW` → 简体中文 is closer than English, `de-AT` → Deutsch).
 * @example matchLocale(['fr-CA', 'en']) // 'fr'
 */
export function matchLocale(tags: readonly string[]): LocaleId {
  for (const tag of tags) {
    const exact = LOCALES.find((l) => l.id.toLowerCase() === tag.toLowerCase());
    if (exact) return exact.id;
    const primary = tag.toLowerCase().split('-')[0];
    const loose = LOCALES.find((l) => l.id.toLowerCase().split('-')[0] === primary);
    if (loose) return loose.id;
  }
  return 'en';
}

/** The remembered locale, else the browser's. */
export function initialLocale(): LocaleId {
  let stored: string | null = null;
  try {
    stored = window.localStorage.getItem(LOCALE_STORAGE_KEY);
  } catch {
    // Storage refused (privacy mode): the browser's language decides.
  }
  if (isLocaleId(stored)) return stored;
  return matchLocale(navigator.languages?.length ? navigator.languages : [navigator.language]);
}

// One chunk per language, loaded when chosen: no language but English is in the main bundle.
const PACKS: Record<Exclude<LocaleId, 'en'>, () => Promise<{ pack: LocalePack }>> = {
  'zh-CN': () => import('./packs/zh-CN'),
  ja: () => import('./packs/ja'),
  de: () => import('./packs/de'),
  fr: () => import('./packs/fr'),
  es: () => import('./packs/es'),
};

const loaded = new Map<LocaleId, LocalePack>();

/** A language's pack once loaded (synchronously), else undefined. */
export function loadedPack(id: LocaleId): LocalePack | undefined {
  return loaded.get(id);
}

/** Loads a language's pack (English is always there). */
export async function loadPack(id: LocaleId, english: LocalePack): Promise<LocalePack> {
  if (id === 'en') return english;
  const cached = loaded.get(id);
  if (cached) return cached;
  const { pack } = await PACKS[id]();
  loaded.set(id, pack);
  return pack;
}
