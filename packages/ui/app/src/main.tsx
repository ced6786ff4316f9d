import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { App as AntdApp, ConfigProvider } from 'antd';
// antd's styles as a stylesheet (zeroRuntime): no <style> injected at run time, so the app
// works under a `style-src 'self'` policy.
import 'antd/dist/antd.css';
import './app.css';
import { ApiError } from './api';
import { config } from './config';
import { I18nProvider, useI18n } from './i18n';
import { App } from './App';

const queryClient = new QueryClient({
  defaultOptions: {
    queries: {
      // A refused request (4xx) is an answer, not a hiccup: asking again changes nothing.
      retry: (count, error) => !(error instanceof ApiError && error.status >= 400 && error.status < 500) && count < 2,
      refetchOnWindowFocus: false,
    },
  },
});

function Themed() {
  const { antdLocale } = useI18n();
  return (
    <ConfigProvider locale={antdLocale} theme={{ zeroRuntime: true }}>
      <AntdApp>
        <App />
      </AntdApp>
    </ConfigProvider>
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
