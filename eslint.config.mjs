// Lint: typescript-eslint's recommended rules for the TypeScript (lib, sim,
// nodes, bin) and ESLint's for the JavaScript (tests, bench, scripts).
// Formatting is prettier's job (eslint-config-prettier turns style rules off).
import js from '@eslint/js';
import prettier from 'eslint-config-prettier';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', '.demo/', '.ci/cache/', 'test-artifacts/', 'bench/.baselines/'] },
  {
    files: ['**/*.ts'],
    extends: [js.configs.recommended, ...tseslint.configs.recommended],
    rules: {
      // Arguments a callback must accept but does not use are named _like_this.
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    files: ['**/*.js', '**/*.mjs'],
    extends: [js.configs.recommended],
    languageOptions: {
      sourceType: 'commonjs',
      globals: { ...globals.node, ...globals.mocha },
    },
    rules: {
      'no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
    },
  },
  { files: ['**/*.mjs'], languageOptions: { sourceType: 'module' } },
  {
    // The editor dialogs: Node-RED calls a dialog's functions with the node as `this`,
    // and the jQuery handlers inside them have a `this` of their own.
    files: ['nodes/*/editor.ts'],
    rules: { '@typescript-eslint/no-this-alias': 'off' },
  },
  {
    // Functions the editor test runs inside the page (page.evaluate).
    files: ['test/browser/editor.test.js'],
    languageOptions: { globals: { ...globals.browser, RED: 'readonly', $: 'readonly' } },
  },
  prettier,
);
