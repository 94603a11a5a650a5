/**
 * `modelCalls: 'local'` and a crash: a worker process SIGKILLed while a local model call runs loses the
 * workflow task that holds the call; the next worker takes the task again and runs the call again from
 * the start. The turn is answered once, completed tools are not run again, and no model call was ever
 * scheduled as an activity. The history then replays.
 */
import { mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Worker } from '@temporalio/worker';
import { type ChildWorker, startChildWorker } from '../support/child-worker';
import { connectTest, eventually, type TestContext, uniqueId, workflowBundle } from '../support/temporal';

jest.setTimeout(180_000);

let t: TestContext;
const taskQueue = uniqueId('local-crash');
let worker: ChildWorker | undefined;
beforeAll(async () => (t = await connectTest(taskQueue)));
afterAll(async () => {
  await worker?.kill();
  await t?.close();
});

const modelStarts = (dir: string) => readdirSync(dir).filter((f) => f.startsWith('started-model-1-'));

test('SIGKILL mid local model call: the next worker runs the call again and the turn is answered once', async () => {
  const workspaceRoot = mkdtempSync(path.join(tmpdir(), 'lc-ws-'));
  const controlDir = mkdtempSync(path.join(tmpdir(), 'lc-ctl-'));
  writeFileSync(path.join(controlDir, 'release-b'), ''); // the script's slow tool need not wait here
  const agentId = uniqueId('local-crash-agent');
  const env = { taskQueue, workspaceRoot, controlDir };

  worker = await startChildWorker(env);
  await t.agents.start(agentId, { model: 'scripted:crash', modelCalls: 'local' });
  const { inputSeq } = await t.agents.send(agentId, 'go');
  // The model call after the tool results waits for `release-model-1`: kill the worker while it does.
  await eventually(() => modelStarts(controlDir).includes(`started-model-1-${worker!.proc.pid}`), 90_000, 'the local model call to start');
  const killed = worker.proc.pid;
  await worker.kill('SIGKILL');
  writeFileSync(path.join(controlDir, 'release-model-1'), '');

  worker = await startChildWorker(env);
  await expect(t.agents.waitForAnswer(agentId, inputSeq)).resolves.toMatchObject({ status: 'answered', answer: { contents: ['turn 1 done'] } });
  // The call ran on the killed worker and again on the new one.
  expect(modelStarts(controlDir).sort()).toEqual([`started-model-1-${killed}`, `started-model-1-${worker.proc.pid}`].sort());

  const history = await t.agents.history(agentId);
  expect(history.map((e) => e.kind)).toEqual(['model_input', 'model_output', 'tool_results', 'model_output']);
  expect(history.flatMap((e) => (e.kind === 'tool_results' ? e.results.map((r) => r.status) : []))).toEqual(['Success', 'Success', 'Success']);

  const recorded = await t.agents.handle(agentId).fetchHistory();
  const scheduled = (recorded.events ?? []).flatMap((e) =>
    e.activityTaskScheduledEventAttributes ? [e.activityTaskScheduledEventAttributes.activityType?.name] : [],
  );
  expect(scheduled).toEqual(['executeTool', 'executeTool', 'executeTool']);
  await Worker.runReplayHistory({ workflowBundle: workflowBundle() }, recorded, agentId);
});
