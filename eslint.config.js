// Lint rules for the whole tree: the recommended JavaScript and TypeScript sets, with the few
// departures this codebase makes on purpose (see CONTRIBUTING.md).
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: ['**/node_modules/**', '**/dist/**', '**/dist-server/**', 'release/**', 'test/.snippets/**', 'coverage/**', 'data/**', '.tmp/**', 'bench/results/**'],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      // Unused arguments keep a documented signature (hooks, handlers); a leading _ says so.
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
    },
  },
  {
    // Scripts the browser runs as they are (the sign-on hand-off page).
    files: ['packages/*/public/**/*.js'],
    languageOptions: { globals: { ...globals.browser }, sourceType: 'script' },
  },
  {
    files: ['**/*.cjs'],
    languageOptions: { globals: { ...globals.node }, sourceType: 'commonjs' },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    files: ['packages/ui/app/**/*.{ts,tsx}'],
    languageOptions: { globals: { ...globals.browser } },
  },
  {
    files: ['**/*.test.ts', 'test/**/*.ts', 'bench/**/*.ts'],
    languageOptions: { globals: { ...globals.mocha } },
    rules: {
      // chai assertions are expressions (`expect(x).to.be.true`).
      '@typescript-eslint/no-unused-expressions': 'off',
    },
  },
);
