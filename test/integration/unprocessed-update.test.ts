/**
 * Temporal rejects an update as `UnprocessedUpdate` ("Workflow Update is rejected because it wasn't
 * processed by worker") when a worker completes the workflow task that delivered it without accepting
 * or rejecting it. Such an update was never accepted, so `ask` must send it again, under a fresh update
 * id (the server remembers the rejected one). Here a hand-rolled worker that knows no updates — it polls
 * the agent's task queue over gRPC and completes the task with no commands and no messages, as a worker
 * that does not support updates would — takes the task that carries an `ask`; then a real worker comes.
 * The ask is answered, and its input is in the agent's history once.
 */
import { temporal } from '@temporalio/proto';
import { ScriptedModelProvider } from '../../activities/index';
import { AgentClient } from '../../client/agent-client';
import { echoScript } from '../fixtures/scripts';
import { uniqueId, withWorker } from '../support/temporal';
import { useTestConnection } from '../support/test-connection';

const { t, taskQueue } = useTestConnection('unprocessed');

const models = [new ScriptedModelProvider({ echo: echoScript })];

test('an ask the server rejects as unprocessed is sent again with a fresh id, answered, and taken once', async () => {
  const id = uniqueId('unprocessed-agent');
  // No worker polls between the two real ones: the client must not refuse for that.
  const agents = new AgentClient(t.client, taskQueue, { workerCheck: false });
  await withWorker({ taskQueue, models }, async () => {
    await agents.start(id, { model: 'scripted:echo' });
    expect(await agents.ask(id, 'first')).toMatchObject({ status: 'answered' });
  });

  const asked = agents.ask(id, 'second');
  // The workflow task that carries the update, taken by a worker that ignores it.
  const { workflowService } = t.client;
  let rejectedUpdates = 0;
  for (let polls = 0; rejectedUpdates === 0 && polls < 20; polls++) {
    // A long poll needs a deadline (the server answers empty a little before it).
    const task = await t.client.connection.withDeadline(Date.now() + 10_000, () =>
      workflowService.pollWorkflowTaskQueue({
        namespace: 'default',
        taskQueue: { name: taskQueue, kind: temporal.api.enums.v1.TaskQueueKind.TASK_QUEUE_KIND_NORMAL },
        identity: 'a worker that knows no updates',
      }),
    );
    if (!task.taskToken?.length) continue; // the long poll ended empty
    // An update's request message (the server names it `<update id>/request`).
    const updates = (task.messages ?? []).filter((m) => m.id?.endsWith('/request')).length;
    await workflowService.respondWorkflowTaskCompleted({
      namespace: 'default',
      taskToken: task.taskToken,
      commands: [],
      messages: [],
      identity: 'a worker that knows no updates',
    });
    rejectedUpdates += updates;
  }
  expect(rejectedUpdates).toBe(1);

  await withWorker({ taskQueue, models }, async () => {
    const outcome = await asked;
    expect(outcome).toMatchObject({ status: 'answered' });
    if (outcome.status === 'answered') expect(outcome.answer.contents.join('')).toBe('echo: second');
    const inputs = (await agents.history(id)).filter((e) => e.kind === 'model_input');
    expect(inputs.map((e) => (e.kind === 'model_input' ? e.sections[0].content : ''))).toEqual(['first', 'second']);
  });
}, 90_000);
