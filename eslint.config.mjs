// Lint guards the workflow sandbox: workflow code and the pure agent core may not import Node builtins,
// vendor SDKs or Node-side Temporal packages. Shipped code uses Temporal's public exports only (its lib/
// modules are internal and change between releases). Floating promises are errors everywhere. And the
// top-level folders form layers that import only downwards (LAYERS below).
import tseslint from 'typescript-eslint';
import boundaries from 'eslint-plugin-boundaries';
import { builtinModules } from 'node:module';

const nodeBuiltins = [...builtinModules, ...builtinModules.map((m) => `node:${m}`)];
const temporalInternals = {
  group: ['@temporalio/*/lib', '@temporalio/*/lib/*'],
  message: "Temporal's lib/ modules are internal: use the package's public exports.",
};

/**
 * The layers, lowest first: a folder imports only from itself and from the layers before it. Folders
 * sharing a layer do not import each other. `common/` (codecs, telemetry, the connection) sits above
 * `workflows/`: it reads the task queue name from workflows/messages.ts and is Node code the workflow
 * sandbox must never reach; `activities/` build on it, it never on them. `cli/` sits above `gateway/`
 * because `livecontext serve` starts the gateway; the gateway serves agents through `client/` only.
 * The top-level index.ts (the package entry) may import every shipped layer; test/ and scripts/ anything.
 */
const LAYERS = [['agent'], ['workflows'], ['common'], ['activities'], ['worker', 'client'], ['gateway'], ['cli'], ['bench']];
const layerOrder = LAYERS.map((names) => names.join(' | ')).join(' ← ');
const layerPolicies = LAYERS.flatMap((names, level) => {
  const below = LAYERS.slice(0, level).flat();
  return names.map((name) => ({
    from: { element: { type: name } },
    disallow: { to: { element: { types: LAYERS.flat().filter((other) => other !== name && !below.includes(other)) } } },
    message:
      `Layer order ${layerOrder}: ${name}/ may import only from ` +
      (below.length ? `itself and ${below.join(', ')}` : 'itself') +
      ', not from {{to.element.type}}/. Move the shared piece down to the lowest layer that needs it.',
  }));
});
/** The one exception: workflows proxy activities through their types (`proxyActivities<typeof activities>`), erased at compile time. */
const workflowActivityTypes = {
  from: { element: { type: 'workflows' } },
  allow: { to: { element: { type: 'activities' } }, dependency: { kind: 'type' } },
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
    files: ['activities/**/*.ts', 'worker/**/*.ts', 'client/**/*.ts', 'cli/**/*.ts', 'common/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [temporalInternals] }] },
  },
  {
    // The package entry is in no layer (the layer rule skips it); it may export every shipped layer.
    files: ['index.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [temporalInternals, { group: ['./bench', './bench/*'], message: 'index.ts is the package entry: bench/ is not shipped.' }] },
      ],
    },
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
  {
    files: ['**/*.ts'],
    plugins: { boundaries },
    settings: {
      'boundaries/elements': LAYERS.flat().map((name) => ({ type: name, pattern: name, partialMatch: false })),
      'boundaries/dependency-nodes': ['import', 'export', 'dynamic-import'],
      'import/resolver': { node: { extensions: ['.ts'] } },
    },
    rules: {
      'boundaries/dependencies': [
        'error',
        {
          default: 'allow',
          policies: [...layerPolicies, workflowActivityTypes],
        },
      ],
    },
  },
);
