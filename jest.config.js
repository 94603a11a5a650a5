/** One dev server and one workflow bundle per test run (global setup); tests share them. */
module.exports = {
  testEnvironment: 'node',
  preset: 'ts-jest',
  transform: { '^.+\\.ts$': ['ts-jest', { diagnostics: false }] },
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  setupFiles: ['<rootDir>/test/support/quiet-runtime.ts'],
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  globalTeardown: '<rootDir>/test/support/global-teardown.ts',
  testTimeout: 120_000,
  maxWorkers: 2,
};
