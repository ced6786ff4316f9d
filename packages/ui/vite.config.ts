import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { defineConfig } from 'vite';

// antd's prebuilt stylesheet (antd/dist/antd.css) scopes its design tokens (CSS variables) under
// one class, `.css-var-<key>`. The app gives its theme that same key, so the stylesheet alone
// styles everything and nothing has to be injected at run time (see app/src/main.tsx).
const antdCss = readFileSync(createRequire(import.meta.url).resolve('antd/dist/antd.css'), 'utf8');
// Nested providers of antd's own demo render get keys too: take the key that scopes the most blocks.
const keyCounts = new Map<string, number>();
for (const m of antdCss.matchAll(/\.(css-var-[\w-]+)[.{]/g)) keyCounts.set(m[1]!, (keyCounts.get(m[1]!) ?? 0) + 1);
const cssVarKey = [...keyCounts].sort((a, b) => b[1] - a[1])[0]?.[0];
if (!cssVarKey || !antdCss.includes(`.${cssVarKey}{--ant-blue:`)) throw new Error('antd/dist/antd.css: no .css-var-<key> token block found (antd changed its stylesheet?)');

// The admin app: packages/ui/app → packages/ui/dist, served by fwUi. `base: './'` keeps every
// asset URL relative, so the same build works at `/` and under a sub-path such as `/admin/`
// (fwUi injects `<base href>` into index.html, which deep links resolve against).
export default defineConfig({
  root: 'app',
  base: './',
  // The workspace packages export their TypeScript sources under the `fw-source` condition.
  resolve: { conditions: ['fw-source', 'browser', 'module', 'import', 'default'] },
  oxc: { jsx: { runtime: 'automatic' } },
  define: { __ANTD_CSS_VAR_KEY__: JSON.stringify(cssVarKey) },
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
