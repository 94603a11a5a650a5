/**
 * A livecontext worker process of the rolling-deploy test, running the workflow code of one release.
 * Env: LIVECONTEXT_TEST_ADDRESS, TASK_QUEUE, WORKSPACE_ROOT, BUNDLE (that release's workflow bundle),
 * RELEASE (v1, v2: in the worker's identity, so a history tells which release ran each task), and, for
 * Worker Deployment versioning, LIVECONTEXT_DEPLOYMENT_NAME and LIVECONTEXT_BUILD_ID, read by
 * createLivecontextWorker as a user's `livecontext worker` reads them (AUTO_UPGRADE by default).
 */
import { ScriptedModelProvider } from '../../../activities/index';
import { installLogging } from '../../../common/logging';
import { echoScript, loopScript } from '../../fixtures/scripts';
import { recordTool } from '../../fixtures/test-tools';
import { runWorkerProcess } from '../../fixtures/worker-process';

installLogging();
runWorkerProcess({
  bundle: process.env.BUNDLE!,
  tools: [recordTool],
  models: [new ScriptedModelProvider({ loop: loopScript, echo: echoScript })],
  workerOptions: { identity: `${process.env.RELEASE!}-${process.pid}` },
});
