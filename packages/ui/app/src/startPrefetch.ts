// Imported first by main.tsx: ES modules run their imports before their own body, so the call has
// to sit in a module of its own to run before antd and the rest of the bundle are evaluated.
import { prefetchFirstScreen } from './prefetch';

prefetchFirstScreen();
