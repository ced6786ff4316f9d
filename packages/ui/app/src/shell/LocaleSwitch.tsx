import { Select } from 'antd';
import { GlobalOutlined } from '@ant-design/icons';
import { LOCALES, useI18n, type LocaleId } from '../i18n';

/** The six languages, each named in itself (and marked so for screen readers). */
export function LocaleSwitch() {
  const { locale, setLocale, t } = useI18n();
  return (
    <Select<LocaleId>
      size="small"
      variant="borderless"
      value={locale}
      onChange={setLocale}
      aria-label={t('app.language')}
      prefix={<GlobalOutlined />}
      options={LOCALES.map((l) => ({ value: l.id, label: <span lang={l.id}>{l.label}</span> }))}
      popupMatchSelectWidth={false}
      className="fw-locale-switch"
    />
  );
}
