// First, before the rest of the bundle runs: the first screen's requests (see prefetch.ts).
import './startPrefetch';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { QueryClientProvider } from '@tanstack/react-query';
import { ConfigProvider, theme as antdTheme } from 'antd';
import { StyleProvider } from '@ant-design/cssinjs';
// antd's styles as stylesheets, nothing generated at run time: the app works under
// `Content-Security-Policy: default-src 'self'` (no inline <style>, no inline script). Made at build
// time from antd/dist/antd.css (build/antd-styles.ts): the sign-in page's part here, the rest with
// the shell's chunk (shell/route.tsx), and antd's dark algorithm as CSS variables.
import 'virtual:fw-antd/first.css';
import 'virtual:fw-antd/dark.css';
import './app.css';
import { useTheme } from './theme';
import { reducedMotion } from './motion';
import { config } from './config';
import { queryClient } from './prefetch';
import { I18nProvider, useI18n } from './i18n';
import { App } from './App';

/** The class antd.css scopes its CSS variables under (read from the stylesheet at build time). */
declare const __ANTD_CSS_VAR_KEY__: string;

const detached = document.createElement('div');

// Read once, as the page loads: switching antd's motion off later would remount the whole app
// (its motion provider wraps the tree from then on), losing open forms and the live stream.
// app.css follows a later change of the setting at once.
const still = reducedMotion();

function Themed() {
  const { antdLocale } = useI18n();
  const { dark } = useTheme();
  // zeroRuntime: antd generates no component styles; the same cssVar key as antd.css, so its
  // variables apply. antd still writes its CSS-variable blocks (the same values antd.css holds)
  // as <style> elements: they go into a detached node, where no policy refuses them.
  return (
    <StyleProvider container={detached}>
      <ConfigProvider
        locale={antdLocale}
        theme={{ zeroRuntime: true, cssVar: { key: __ANTD_CSS_VAR_KEY__ }, algorithm: dark ? antdTheme.darkAlgorithm : antdTheme.defaultAlgorithm, token: { motion: !still } }}
        wave={{ disabled: still }}
      >
        <App />
      </ConfigProvider>
    </StyleProvider>
  );
}

document.title = config.title;
createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <QueryClientProvider client={queryClient}>
      <I18nProvider>
        <Themed />
      </I18nProvider>
    </QueryClientProvider>
  </StrictMode>,
);
