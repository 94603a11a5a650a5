/**
 * Workflow-side stack traces: off in the bundle the worker builds (Temporal records one for every promise
 * workflow code creates, a sixth of a turn's workflow-thread time), so the Temporal UI's `__stack_trace`
 * query answers without frames; `workflowStackTraces: true` (LIVECONTEXT_WORKFLOW_STACK_TRACES=1) brings
 * them back. Either way the agent answers the same.
 */
import { ScriptedModelProvider } from '../../activities/index';
import { AgentClient } from '../../client/agent-client';
import { echoScript } from '../fixtures/scripts';
import { connectTest, type TestContext, uniqueId, withWorker } from '../support/temporal';

let t: TestContext;
beforeAll(async () => (t = await connectTest(uniqueId('stack-traces'))));
afterAll(async () => t?.close());
const models = () => [new ScriptedModelProvider({ echo: echoScript })];

/** An agent's `__stack_trace` after one turn, on a worker made with `options`. */
async function stackTraceOf(options: { workflowStackTraces?: boolean; workflowBundle?: undefined }): Promise<string> {
  const taskQueue = uniqueId('stack-traces');
  const agents = new AgentClient(t.client, taskQueue);
  const id = uniqueId('agent');
  return withWorker({ taskQueue, models: models(), ...options }, async () => {
    await agents.start(id, { model: 'scripted:echo' });
    expect(await agents.ask(id, 'hello')).toMatchObject({ status: 'answered' });
    return t.client.workflow.getHandle(id).query<string>('__stack_trace');
  });
}

test('by default the worker records no stack traces in workflow code: __stack_trace answers, without frames', async () => {
  const trace = await stackTraceOf({});
  expect(trace).not.toMatch(/agent-workflow|at /);
});

test('workflowStackTraces: true keeps them: __stack_trace shows where the agent waits', async () => {
  const trace = await stackTraceOf({ workflowStackTraces: true, workflowBundle: undefined });
  expect(trace).toMatch(/agent-workflow/);
}, 90_000);
