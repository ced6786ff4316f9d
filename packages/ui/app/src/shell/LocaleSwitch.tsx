import { Select } from 'antd';
import { GlobalOutlined } from '@ant-design/icons';
import { LOCALES, useI18n, type LocaleId } from '../i18n';

/** English / 简体中文. */
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
      options={LOCALES.map((l) => ({ value: l.id, label: l.label }))}
      popupMatchSelectWidth={false}
      className="fw-locale-switch"
    />
  );
}
