/**
 * The cluster project's setup: the cluster itself is already up (scripts/test-cluster.mjs started it and
 * named its state file); here the tests' helpers get its frontend's address, and the workflows are
 * bundled once for the child workers (as test/support/global-setup.ts does for the dev server).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { bundleWorkflowCode } from '@temporalio/worker';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { readState } = require('../../scripts/cluster/cluster.cjs');

export default async function globalSetup(): Promise<void> {
  const state = readState();
  process.env.LIVECONTEXT_TEST_ADDRESS = state.address;
  const dir = path.resolve(__dirname, '../../.livecontext/test-cluster');
  mkdirSync(dir, { recursive: true });
  const bundle = await bundleWorkflowCode({
    workflowsPath: require.resolve('../../workflows/index'),
    logger: { info() {}, warn() {}, error: console.error, debug() {}, trace() {}, log() {} } as never,
  });
  const codePath = path.join(dir, 'workflow-bundle.js');
  writeFileSync(codePath, bundle.code);
  process.env.LIVECONTEXT_TEST_BUNDLE = codePath;
}
