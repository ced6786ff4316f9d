import { useEffect } from 'react';
import { getToken, rememberReturn } from './auth';
import { navigate, useLocation } from './router';
import { LoginPage } from './LoginPage';
import { Shell } from './shell/Shell';

/** Top-level routing: the sign-in page, else (with a token) the shell. */
export function App() {
  const { pathname } = useLocation();
  const signedIn = getToken() !== undefined;
  const onLogin = pathname === '/login';
  useEffect(() => {
    if (!onLogin && !signedIn) {
      rememberReturn();
      navigate('/login', { replace: true });
    }
  }, [onLogin, signedIn]);
  if (onLogin) return <LoginPage />;
  if (!signedIn) return null;
  return <Shell />;
}
