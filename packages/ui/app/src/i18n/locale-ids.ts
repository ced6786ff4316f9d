// The UI's locale ids and what a language pack holds: types the packs import without reaching
// back into locales.ts, which loads them.
import type { Locale as AntdLocale } from 'antd/es/locale';
import type { Messages } from './en';
import type { ModelMessages } from './models/en';

/** The locales the UI speaks, in the order the switch offers them (the ids of FW_LOCALES in @fw/core). */
export const LOCALES = [
  { id: 'en', label: 'English' },
  { id: 'zh-CN', label: '简体中文' },
  { id: 'ja', label: '日本語' },
  { id: 'de', label: 'Deutsch' },
  { id: 'fr', label: 'Français' },
  { id: 'es', label: 'Español' },
] as const;

/** One of {@link LOCALES}' ids. */
export type LocaleId = (typeof LOCALES)[number]['id'];

/** Everything one language needs: Fw's strings, the built-in model titles, antd's strings, the dayjs locale. */
export interface LocalePack {
  id: LocaleId;
  messages: Messages;
  models: ModelMessages;
  /** antd's own strings (pagination, pickers, empty states). */
  antd: AntdLocale;
  /** dayjs's locale id, registered by the pack's module. */
  dayjs: string;
}
