// Date-times in the UI's language (issue 20 §8), not the browser's: a German screen reads
// "27.11.2026, 05:32", whatever language the browser itself speaks. `<html lang>` is the UI's
// language (set by the I18nProvider).
const formats = new Map<string, Intl.DateTimeFormat>();

/** An `Intl.DateTimeFormat` for the UI's current language, made once per language. */
export function uiDateTimeFormat(): Intl.DateTimeFormat {
  const lang = document.documentElement.lang || navigator.language;
  let format = formats.get(lang);
  if (!format) {
    format = new Intl.DateTimeFormat(lang, { dateStyle: 'medium', timeStyle: 'short' });
    formats.set(lang, format);
  }
  return format;
}
