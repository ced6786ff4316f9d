import { lazy, Suspense, useEffect, useRef } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { rememberReturn, useToken } from './auth';
import { navigate, useLocation } from './router';
import { loadLoginPage, loadShell } from './prefetch';
import { useI18n } from './i18n';
import { BootSpinner } from './boot';

// Each screen's code (and its part of antd's stylesheet) is a chunk of its own: the sign-in page
// loads nothing of the shell or the model page.
const LoginPage = lazy(() => loadLoginPage().then((m) => ({ default: m.LoginPage })));
const Shell = lazy(() => loadShell().then((m) => ({ default: m.Shell })));

/** What the page shows until a screen's code has arrived: the same as index.html's placeholder. */
function Booting() {
  const { t } = useI18n();
  return <BootSpinner label={t('app.loading')} />;
}

/** Top-level routing: the sign-in page, else (with a token) the shell. */
export function App() {
  const { pathname } = useLocation();
  const queryClient = useQueryClient();
  const token = useToken();
  const signedIn = token !== undefined;
  const onLogin = pathname === '/login';
  const shown = useRef(token);
  useEffect(() => {
    const before = shown.current;
    shown.current = token;
    // The token changed under the app (another tab, a frame of /auth.html): everything cached was
    // someone else's answer. Reset it, so the header names the account now signed in at once.
    if (before === undefined || before === token) return;
    if (token === undefined) queryClient.clear();
    else void queryClient.resetQueries();
  }, [token, queryClient]);
  useEffect(() => {
    if (!onLogin && !signedIn) {
      rememberReturn();
      navigate('/login', { replace: true });
    }
  }, [onLogin, signedIn]);
  if (onLogin)
    return (
      <Suspense fallback={<Booting />}>
        <LoginPage />
      </Suspense>
    );
  if (!signedIn) return null;
  return (
    <Suspense fallback={<Booting />}>
      <Shell />
    </Suspense>
  );
}
