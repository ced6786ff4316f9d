// Locale switch: English and Simplified Chinese, for antd's own strings (antd/locale), the
// date pickers (dayjs) and Fw's strings (one messages file per locale).
import { createContext, useCallback, useContext, useMemo, useState, type ReactNode } from 'react';
import dayjs from 'dayjs';
import 'dayjs/locale/zh-cn';
import enUS from 'antd/locale/en_US';
import zhCNAntd from 'antd/locale/zh_CN';
import type { Locale as AntdLocale } from 'antd/es/locale';
import { en, type MessageKey, type Messages } from './en';
import { zhCN } from './zh-CN';

/** The locales the UI speaks. */
export const LOCALES = [
  { id: 'en', label: 'English', messages: en as Messages, antd: enUS, dayjs: 'en', html: 'en' },
  { id: 'zh-CN', label: '简体中文', messages: zhCN, antd: zhCNAntd, dayjs: 'zh-cn', html: 'zh-CN' },
] as const;

/** One of {@link LOCALES}' ids. */
export type LocaleId = (typeof LOCALES)[number]['id'];

const STORAGE_KEY = 'fw-locale';

function initialLocale(): LocaleId {
  const stored = window.localStorage.getItem(STORAGE_KEY);
  if (stored === 'en' || stored === 'zh-CN') return stored;
  return navigator.language.toLowerCase().startsWith('zh') ? 'zh-CN' : 'en';
}

/** Fills `{name}` placeholders. */
function format(text: string, params?: Record<string, string | number>): string {
  if (!params) return text;
  return text.replace(/\{(\w+)\}/g, (whole, name: string) => (name in params ? String(params[name]) : whole));
}

interface I18n {
  locale: LocaleId;
  antdLocale: AntdLocale;
  setLocale(locale: LocaleId): void;
  t(key: MessageKey, params?: Record<string, string | number>): string;
}

const I18nContext = createContext<I18n | undefined>(undefined);

/** Provides the current locale and `t`. */
export function I18nProvider({ children }: { children: ReactNode }) {
  const [locale, setLocaleState] = useState<LocaleId>(initialLocale);
  const entry = LOCALES.find((l) => l.id === locale) ?? LOCALES[0];
  dayjs.locale(entry.dayjs);
  document.documentElement.lang = entry.html;
  const setLocale = useCallback((next: LocaleId) => {
    window.localStorage.setItem(STORAGE_KEY, next);
    setLocaleState(next);
  }, []);
  const value = useMemo<I18n>(
    () => ({ locale, antdLocale: entry.antd, setLocale, t: (key, params) => format(entry.messages[key] ?? en[key], params) }),
    [locale, entry, setLocale],
  );
  return <I18nContext.Provider value={value}>{children}</I18nContext.Provider>;
}

/** The current locale and the translator. */
export function useI18n(): I18n {
  const value = useContext(I18nContext);
  if (!value) throw new Error('useI18n outside I18nProvider');
  return value;
}

export type { MessageKey };
