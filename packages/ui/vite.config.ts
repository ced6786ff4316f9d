import { defineConfig } from 'vite';

// The admin app: packages/ui/app → packages/ui/dist, served by fwUi. `base: './'` keeps every
// asset URL relative, so the same build works at `/` and under a sub-path such as `/admin/`
// (fwUi injects `<base href>` into index.html, which deep links resolve against).
export default defineConfig({
  root: 'app',
  base: './',
  // The workspace packages export their TypeScript sources under the `fw-source` condition.
  resolve: { conditions: ['fw-source', 'browser', 'module', 'import', 'default'] },
  oxc: { jsx: { runtime: 'automatic' } },
  build: {
    outDir: '../dist',
    emptyOutDir: true,
    chunkSizeWarningLimit: 2000,
    reportCompressedSize: false,
    rolldownOptions: {
      // antd marks its modules "use client" (for React server components); meaningless in this SPA.
      onwarn(warning, warn) {
        if (warning.code === 'MODULE_LEVEL_DIRECTIVE') return;
        warn(warning);
      },
    },
  },
});
