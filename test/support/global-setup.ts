/**
 * Starts one real Temporal dev server (the CLI binary found or built by scripts/temporal-cli.cjs,
 * through @temporalio/testing's `existing-path`) and bundles the workflows once for all tests.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { bundleWorkflowCode } from '@temporalio/worker';
import { SHARED_MODULES_PATH } from '../../worker/create-worker';
import { SEARCH_ATTRIBUTES } from '../../workflows/messages';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { ensureTemporalCli } = require('../../scripts/temporal-cli.cjs');

export const SECOND_NAMESPACE = 'livecontext-second';

export default async function globalSetup(): Promise<void> {
  const exe: string | null = ensureTemporalCli();
  const start = () =>
    TestWorkflowEnvironment.createLocal({
      server: {
        ...(exe ? { executable: { type: 'existing-path', path: exe } } : {}),
        extraArgs: ['--namespace', SECOND_NAMESPACE, '--log-level', 'error'],
        searchAttributes: SEARCH_ATTRIBUTES,
      },
    });
  // The SDK gives the dev server 5 s to answer on its port; once in a CI run on an idle machine it did
  // not ("ephemeral server … did not start within 5s"). Another start, on another port, is not a retry
  // of anything under test.
  let env: TestWorkflowEnvironment | undefined;
  for (let attempt = 1; !env; attempt++) {
    try {
      env = await start();
    } catch (err) {
      if (attempt >= 3 || !/did not start within/.test(String((err as Error).message))) throw err;
      console.error(`The Temporal dev server did not start (attempt ${attempt} of 3): ${(err as Error).message.split('\n')[0]}; starting another.`);
    }
  }
  (globalThis as Record<string, unknown>).__LIVECONTEXT_ENV__ = env;
  process.env.LIVECONTEXT_TEST_ADDRESS = env.address;

  const dir = path.resolve(__dirname, '../../.livecontext/test');
  mkdirSync(dir, { recursive: true });
  // As createLivecontextWorker bundles it: the agent core shared by the workflows of a worker thread.
  const bundle = await bundleWorkflowCode({
    workflowsPath: require.resolve('../../workflows/index'),
    preloadModules: [SHARED_MODULES_PATH],
    logger: { info() {}, warn() {}, error: console.error, debug() {}, trace() {}, log() {} } as never,
  });
  const codePath = path.join(dir, 'workflow-bundle.js');
  writeFileSync(codePath, bundle.code);
  process.env.LIVECONTEXT_TEST_BUNDLE = codePath;
}
