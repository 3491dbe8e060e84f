import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'coverage/**', '.data/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports', disallowTypeAnnotations: false }],
    },
  },
  {
    // Plain Node scripts.
    files: ['scripts/**/*.mjs'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly' } },
  },
  {
    // The dashboard page's script runs in the browser, beside Chart.js's global.
    files: ['server/pages/dashboard.client.js'],
    languageOptions: {
      sourceType: 'script',
      globals: { window: 'readonly', document: 'readonly', localStorage: 'readonly', fetch: 'readonly', Chart: 'readonly', Blob: 'readonly', URL: 'readonly' },
    },
  },
  {
    // Tests read HTTP bodies as loosely-typed JSON and assert on their shape.
    files: ['test/**/*.ts', 'bench/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    files: ['**/*.resolver.ts', '**/*.type.ts', '**/*.input.ts', '**/graphql/**/*.ts'],
    // type-graphql reads classes referenced in decorators at runtime: a type-only import would erase them.
    rules: { '@typescript-eslint/consistent-type-imports': 'off' },
  },
);
