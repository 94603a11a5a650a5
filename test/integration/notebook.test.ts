/**
 * The memory notebook end to end: the model asks to remember something, memory_notebook_replace runs
 * inside the workflow, the next model call sees the notebook in its LiveScreen, and the notebook
 * survives a worker SIGKILL (rebuilt by replay) and can be rebuilt from history alone.
 */
import { Worker } from '@temporalio/worker';
import { rebuildNotebook } from '../../agent/index';
import { maybeRecordHistory } from '../support/record-history';
import { useChildWorkerFile } from '../support/child-worker';
import { uniqueId, workflowBundle } from '../support/temporal';

const file = useChildWorkerFile('notebook');

test('remember, see it in the LiveScreen, survive SIGKILL, rebuild from history', async () => {
  const agentId = uniqueId('notebook-agent');
  let worker = await file.restart();
  await file.t.agents.start(agentId, { model: 'scripted:notebook' });

  const first = await file.t.agents.ask(agentId, 'remember that I like tea');
  expect(first).toMatchObject({ status: 'answered', answer: { contents: ['noted. notebook: - likes tea'] } });
  const afterFirst = await file.t.agents.history(agentId);
  const results = afterFirst.find((e) => e.kind === 'tool_results');
  expect(results).toMatchObject({
    results: [
      {
        toolName: 'memory_notebook_replace',
        status: 'Success',
        metadata: { operation: 'append', length_before: 0, length_after: 11, length_delta: 11, anchor_hit: null },
      },
    ],
  });
  // The notebook tool ran in the workflow: no activity was scheduled for it.
  const events = (await file.t.agents.handle(agentId).fetchHistory()).events ?? [];
  const activityTypes = events.flatMap((e) => e.activityTaskScheduledEventAttributes?.activityType?.name ?? []);
  expect(activityTypes).toEqual(['callModel', 'callModel']);

  await worker.kill('SIGKILL');
  worker = await file.restart({ LIVECONTEXT_DEBUG: 'Widgets' });

  const second = await file.t.agents.ask(agentId, 'actually, green tea');
  expect(second).toMatchObject({ status: 'answered', answer: { contents: ['notebook: - likes green tea'] } });
  const history = await file.t.agents.history(agentId);
  const secondCall = history.filter((e) => e.kind === 'model_output')[2];
  expect(secondCall).toMatchObject({ contents: ['before edit: - likes tea'] });
  const secondResults = history.filter((e) => e.kind === 'tool_results')[1];
  expect(secondResults).toMatchObject({
    results: [
      { status: 'Success', metadata: { operation: 'replace', anchor_hit: true, length_delta: 6 } },
      { status: 'Failed', result: expect.stringMatching(/old_text not found/), metadata: { length_before: 17, length_after: 17 } },
    ],
  });

  // LIVECONTEXT_DEBUG=Widgets shows the widget category only, through the workflow's replay-safe logger.
  expect(worker.output()).toMatch(/\[Widgets\] memory_notebook\.memory_notebook_replace -> Success/);
  expect(worker.output()).not.toMatch(/\[StateMachine\]/);

  const state = await file.t.agents.state(agentId);
  expect(state.notebook).toBe('- likes green tea');
  expect(rebuildNotebook(history)).toBe(state.notebook);
  const snapshot = await file.t.agents.snapshot(agentId);
  expect(snapshot.widgets.memory_notebook.content).toBe('- likes green tea');

  await Worker.runReplayHistory({ workflowBundle: workflowBundle() }, await file.t.agents.handle(agentId).fetchHistory(), agentId);
  await maybeRecordHistory(file.t.agents.handle(agentId), 'notebook_v1.json');
});
