// Locale switch: six languages (issue 20 §8) for antd's own strings (antd/locale), the date
// pickers (dayjs), Fw's strings and the built-in model titles. English is in the main bundle (it
// is every catalog's fallback); each other language is one chunk, loaded when chosen.
import { createContext, useCallback, useContext, useEffect, useMemo, useState, type ReactNode } from 'react';
import dayjs from 'dayjs';
import enUS from 'antd/locale/en_US';
import type { Locale as AntdLocale } from 'antd/es/locale';
import { en, type MessageKey } from './en';
import { BootSpinner } from '../boot';
import { modelsEn } from './models/en';
import type { ModelMessages } from './models/en';
import { LOCALE_STORAGE_KEY, initialLocale, loadPack, loadedPack, type LocaleId, type LocalePack } from './locales';

export { LOCALES, matchLocale, type LocaleId } from './locales';
export { localizeBuild, localizeMenus, pickTitle } from './localize';

const ENGLISH: LocalePack = { id: 'en', messages: en, models: modelsEn, antd: enUS, dayjs: 'en' };

/** Fills `{name}` placeholders. */
function format(text: string, params?: Record<string, string | number>): string {
  if (!params) return text;
  return text.replace(/\{(\w+)\}/g, (whole, name: string) => (name in params ? String(params[name]) : whole));
}

interface I18n {
  /** The language on screen (the chosen one once its pack has loaded). */
  locale: LocaleId;
  antdLocale: AntdLocale;
  setLocale(locale: LocaleId): void;
  t(key: MessageKey, params?: Record<string, string | number>): string;
  /** The built-in model titles in this language (see localize.ts). */
  models: ModelMessages;
  /** The built-in model titles in English: what the server calls them. */
  englishModels: ModelMessages;
}

const I18nContext = createContext<I18n | undefined>(undefined);

/** Provides the current locale and `t`. Renders nothing until the first language's pack is there. */
export function I18nProvider({ children }: { children: ReactNode }) {
  const [wanted, setWanted] = useState<LocaleId>(initialLocale);
  const [pack, setPack] = useState<LocalePack | undefined>(() => (wanted === 'en' ? ENGLISH : loadedPack(wanted)));
  useEffect(() => {
    let current = true;
    loadPack(wanted, ENGLISH)
      .then((next) => current && setPack(next))
      // A pack that cannot load (offline, a stale deploy): English rather than a blank page.
      .catch(() => current && setPack((shown) => shown ?? ENGLISH));
    return () => {
      current = false;
    };
  }, [wanted]);
  const setLocale = useCallback((next: LocaleId) => {
    try {
      window.localStorage.setItem(LOCALE_STORAGE_KEY, next);
    } catch {
      // Not remembered, still switched.
    }
    setWanted(next);
  }, []);
  const value = useMemo<I18n | undefined>(() => {
    if (!pack) return undefined;
    dayjs.locale(pack.dayjs);
    document.documentElement.lang = pack.id;
    return {
      locale: pack.id,
      antdLocale: pack.antd,
      setLocale,
      t: (key, params) => format(pack.messages[key] || en[key], params),
      models: pack.models,
      englishModels: modelsEn,
    };
  }, [pack, setLocale]);
  // Until the language's pack has come, the page keeps showing that it is loading (the pack's own
  // words are not here yet: the label is English).
  if (!value) return <BootSpinner label={en['app.loading']} />;
  return <I18nContext.Provider value={value}>{children}</I18nContext.Provider>;
}

/** The current locale and the translator. */
export function useI18n(): I18n {
  const value = useContext(I18nContext);
  if (!value) throw new Error('useI18n outside I18nProvider');
  return value;
}

export type { MessageKey };
