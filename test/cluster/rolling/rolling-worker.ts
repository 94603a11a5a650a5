/**
 * A livecontext worker process of the rolling-deploy test, running the workflow code of one release.
 * Env: LIVECONTEXT_TEST_ADDRESS, TASK_QUEUE, WORKSPACE_ROOT, BUNDLE (that release's workflow bundle),
 * RELEASE (v1, v2: in the worker's identity, so a history tells which release ran each task), and, for
 * Worker Deployment versioning, LIVECONTEXT_DEPLOYMENT_NAME and LIVECONTEXT_BUILD_ID, read by
 * createLivecontextWorker as a user's `livecontext worker` reads them (AUTO_UPGRADE by default).
 */
import { NativeConnection } from '@temporalio/worker';
import { ScriptedModelProvider } from '../../../activities/index';
import { installLogging } from '../../../common/logging';
import { createLivecontextWorker } from '../../../worker/create-worker';
import { echoScript, loopScript } from '../../fixtures/scripts';
import { recordTool } from '../../fixtures/test-tools';

async function main() {
  installLogging();
  const release = process.env.RELEASE!;
  const connection = await NativeConnection.connect({ address: process.env.LIVECONTEXT_TEST_ADDRESS! });
  const worker = await createLivecontextWorker({
    connection,
    taskQueue: process.env.TASK_QUEUE!,
    workspaceRoot: process.env.WORKSPACE_ROOT!,
    workflowBundle: { codePath: process.env.BUNDLE! },
    tools: [recordTool],
    models: [new ScriptedModelProvider({ loop: loopScript, echo: echoScript })],
    workerOptions: {
      identity: `${release}-${process.pid}`,
    },
  });
  process.on('SIGTERM', () => worker.shutdown());
  console.log('WORKER READY');
  await worker.run();
  await connection.close();
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
