/**
 * Two projects, by what the tests need. `unit`: pure code and local files only, no Temporal server,
 * seconds (`npm run test:unit`). `integration`: everything that runs on the one dev server and workflow
 * bundle its global setup starts for the run (integration, CLI, replay, chaos, the boundary fuzz),
 * plus the provider wire fakes. `npm test` runs both.
 */
/**
 * jose (required by @a2a-js/sdk's CommonJS build) ships only ES modules: Node loads it with require(esm),
 * jest does not, so it is compiled to CommonJS here.
 */
const ts = {
  '^.+\\.ts$': ['ts-jest', { diagnostics: false }],
  '/node_modules/jose/.+\\.js$': ['ts-jest', { diagnostics: false, tsconfig: { allowJs: true, module: 'commonjs' } }],
};
const transformIgnorePatterns = ['/node_modules/(?!jose/)'];
/** Pure tests outside test/unit, run with the unit project. */
const unitElsewhere = ['<rootDir>/test/fuzz/agent-core.test.ts'];

module.exports = {
  testTimeout: 120_000,
  maxWorkers: 2,
  projects: [
    {
      displayName: 'unit',
      testEnvironment: 'node',
      transform: ts,
      transformIgnorePatterns,
      roots: ['<rootDir>/test'],
      testMatch: ['<rootDir>/test/unit/**/*.test.ts', ...unitElsewhere],
      // No server here: a test that reaches for one fails at once, saying so.
      setupFiles: ['<rootDir>/test/support/unit-setup.ts'],
    },
    {
      displayName: 'integration',
      testEnvironment: 'node',
      transform: ts,
      transformIgnorePatterns,
      roots: ['<rootDir>/test'],
      testMatch: ['**/*.test.ts'],
      testPathIgnorePatterns: ['/node_modules/', '<rootDir>/test/unit/', ...unitElsewhere],
      setupFiles: ['<rootDir>/test/support/quiet-runtime.ts'],
      globalSetup: '<rootDir>/test/support/global-setup.ts',
      globalTeardown: '<rootDir>/test/support/global-teardown.ts',
    },
  ],
};
