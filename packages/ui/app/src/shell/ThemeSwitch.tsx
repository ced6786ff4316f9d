import { Select } from 'antd';
import { BulbOutlined } from '@ant-design/icons';
import { useI18n } from '../i18n';
import { setThemeMode, THEME_MODES, useTheme, type ThemeMode } from '../theme';

/** System / light / dark, beside the language switch in the header. */
export function ThemeSwitch() {
  const { t } = useI18n();
  const { mode } = useTheme();
  return (
    <Select<ThemeMode>
      size="small"
      variant="borderless"
      value={mode}
      onChange={setThemeMode}
      aria-label={t('theme.label')}
      prefix={<BulbOutlined />}
      options={THEME_MODES.map((m) => ({ value: m, label: t(`theme.${m}`) }))}
      popupMatchSelectWidth={false}
      className="fw-theme-switch"
    />
  );
}
