// Lint guards the workflow sandbox: workflow code and the pure agent core may not import Node builtins,
// vendor SDKs or Node-side Temporal packages. Shipped code uses Temporal's public exports only (its lib/
// modules are internal and change between releases). Floating promises are errors everywhere.
import tseslint from 'typescript-eslint';
import { builtinModules } from 'node:module';

const nodeBuiltins = [...builtinModules, ...builtinModules.map((m) => `node:${m}`)];
const temporalInternals = {
  group: ['@temporalio/*/lib', '@temporalio/*/lib/*'],
  message: "Temporal's lib/ modules are internal: use the package's public exports.",
};

export default tseslint.config(
  { ignores: ['node_modules/**', 'dist/**', '.livecontext/**', 'coverage/**', '**/*.js', '**/*.cjs', '**/*.mjs'] },
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-non-null-assertion': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    files: ['index.ts', 'activities/**/*.ts', 'worker/**/*.ts', 'client/**/*.ts', 'cli/**/*.ts', 'common/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [temporalInternals] }] },
  },
  {
    files: ['workflows/**/*.ts', 'agent/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [
            ...nodeBuiltins.map((name) => ({ name, message: 'Workflow code runs in a deterministic sandbox: no Node APIs.' })),
            { name: 'openai', message: 'Vendor SDKs belong in activities/.' },
            { name: '@anthropic-ai/sdk', message: 'Vendor SDKs belong in activities/.' },
            { name: '@temporalio/activity', message: 'Activities are imported as types only.' },
            { name: '@temporalio/worker', message: 'Not available in the workflow sandbox.' },
            { name: '@temporalio/client', message: 'Not available in the workflow sandbox.' },
          ],
          patterns: [{ group: ['../activities', '../activities/*'], allowTypeImports: true, message: 'Import activities as types only.' }, temporalInternals],
        },
      ],
      'no-restricted-globals': [
        'error',
        { name: 'process', message: 'No environment access in workflow code.' },
        { name: 'setTimeout', message: 'Use sleep() from @temporalio/workflow.' },
        { name: 'setInterval', message: 'Not deterministic.' },
      ],
      'no-restricted-properties': ['error', { object: 'Math', property: 'random', message: 'Not deterministic here.' }],
    },
  },
);
