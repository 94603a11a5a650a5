/**
 * `npm run test:cluster` (scripts/test-cluster.mjs): the checks on the production-like Temporal (PostgreSQL,
 * each service its own process) that script brings up and hands over in LIVECONTEXT_CLUSTER_STATE.
 * Files are named `*.cluster.ts` so the integration project (`**\/*.test.ts`, one dev server) never picks them up.
 * One file at a time: they break shared services on purpose.
 */
const path = require('node:path');
/** The main config's transform: what it compiles (TypeScript, and jose's ES modules that @a2a-js/sdk requires) this one must too. */
const { transform, transformIgnorePatterns } = require('../../jest.config.js').projects[0];

module.exports = {
  rootDir: path.resolve(__dirname, '../..'),
  testTimeout: 600_000,
  maxWorkers: 1,
  testSequencer: path.resolve(__dirname, 'sequencer.js'),
  projects: [
    {
      displayName: 'cluster',
      rootDir: path.resolve(__dirname, '../..'),
      testEnvironment: 'node',
      transform,
      transformIgnorePatterns,
      testMatch: ['<rootDir>/test/cluster/**/*.cluster.ts'],
      setupFiles: ['<rootDir>/test/support/quiet-runtime.ts'],
      globalSetup: '<rootDir>/test/cluster/global-setup.ts',
    },
  ],
};
