import { defineConfig } from 'vite';
import { antdStyles } from './build/antd-styles.ts';
import { precompress } from './build/precompress.ts';

// The admin app: packages/ui/app → packages/ui/dist, served by fwUi. `base: './'` keeps every
// asset URL relative, so the same build works at `/` and under a sub-path such as `/admin/`
// (fwUi injects `<base href>` into index.html, which deep links resolve against).
export default defineConfig({
  root: 'app',
  base: './',
  // The workspace packages export their TypeScript sources under the `fw-source` condition.
  resolve: { conditions: ['fw-source', 'browser', 'module', 'import', 'default'] },
  oxc: { jsx: { runtime: 'automatic' } },
  // antd's stylesheet split for the sign-in page and the rest, its dark theme, and the key its
  // design tokens are scoped under (see build/antd-styles.ts); every text file also as .br and .gz.
  plugins: [antdStyles(), precompress()],
  build: {
    outDir: '../dist',
    emptyOutDir: true,
    chunkSizeWarningLimit: 2000,
    reportCompressedSize: false,
    // Which chunks and stylesheets each entry and route loads: read by the bundle-budget test.
    manifest: true,
    rolldownOptions: {
      // antd marks its modules "use client" (for React server components); meaningless in this SPA.
      onwarn(warning, warn) {
        if (warning.code === 'MODULE_LEVEL_DIRECTIVE') return;
        warn(warning);
      },
    },
  },
});
