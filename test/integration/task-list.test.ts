/**
 * The widget registry's second widget, end to end: the model adds and completes tasks (tools that run
 * inside the workflow), its Live Screen shows them under `## Tasks`, they survive a worker SIGKILL and
 * continue-as-new, and they are rebuilt from history alone. A host write to the notebook is recorded in
 * history and reaches the next model call's Live Screen.
 */
import { Worker } from '@temporalio/worker';
import { type HistoryEntry, TaskListWidget, rebuildWidgets } from '../../agent/index';
import { guardedForWorkers } from '../../common/codec/undecodable-guard';
import { livecontextDataConverter } from '../../common/codec/data-converter';
import { maybeRecordHistory } from '../support/record-history';
import { useChildWorkerFile } from '../support/child-worker';
import { uniqueId, workflowBundle } from '../support/temporal';

const file = useChildWorkerFile('tasks');

const answerOf = async (agentId: string, text: string) => {
  const outcome = await file.t.agents.ask(agentId, text);
  if (outcome.status !== 'answered') throw new Error(`turn "${text}" ended ${outcome.status}`);
  return outcome.answer.contents.join('');
};

test('tasks added and completed by the model: in the Live Screen, through SIGKILL and continue-as-new, rebuilt from history; a host notebook write', async () => {
  const agentId = uniqueId('tasks-agent');
  let worker = await file.restart();
  // A small history budget: the agent continues as new every few turns.
  await file.t.agents.start(agentId, { model: 'scripted:tasks', historyBudgetBytes: 3_000 });

  expect(await answerOf(agentId, 'plan')).toBe('tasks: 0 of 2 done. | - [ ] 1. write the code | - [ ] 2. test it');
  // todo_add ran in the workflow: only model calls were scheduled as activities (in every run so far).
  const activities: string[] = [];
  for await (const wf of file.t.client.workflow.list({ query: `WorkflowId = '${agentId}'` })) {
    const events = (await file.t.client.workflow.getHandle(agentId, wf.runId).fetchHistory()).events ?? [];
    activities.push(...events.flatMap((e) => e.activityTaskScheduledEventAttributes?.activityType?.name ?? []));
  }
  expect(activities).toEqual(['callModel', 'callModel']);

  await worker.kill('SIGKILL');
  worker = await file.restart();
  expect(await answerOf(agentId, 'finish 1')).toBe('tasks: 1 of 2 done. | - [x] 1. write the code | - [ ] 2. test it');

  // A host write: in history as a widget_write entry, and in the next model call's Live Screen.
  const written = await file.t.agents.updateNotebook(agentId, { set: 'deadline friday', by: 'planner-service' });
  expect(written.notebook).toBe('deadline friday');
  const refused = await file.t.agents.updateNotebook(agentId, { set: 'x'.repeat(70_000) }).then(
    () => undefined,
    (e: { cause?: Error }) => e,
  );
  expect(refused?.cause?.message).toMatch(/at most 65536/); // refused by the validator: nothing recorded
  expect(await answerOf(agentId, 'show')).toBe('tasks: 1 of 2 done. | - [x] 1. write the code | - [ ] 2. test it / notebook: deadline friday');

  for (let i = 0; i < 3; i++) await answerOf(agentId, `filler ${i}`);
  expect(await answerOf(agentId, 'finish 2')).toBe('tasks: 2 of 2 done. | - [x] 1. write the code | - [x] 2. test it');

  const runs: string[] = [];
  for await (const wf of file.t.client.workflow.list({ query: `WorkflowId = '${agentId}'` })) runs.push(wf.runId);
  expect(runs.length).toBeGreaterThan(1); // it continued as new, carrying the tasks

  const state = await file.t.agents.state(agentId);
  expect(state.tasks).toEqual([
    { id: 1, title: 'write the code', status: 'done' },
    { id: 2, title: 'test it', status: 'done' },
  ]);
  expect(state.notebook).toBe('deadline friday');
  const history: HistoryEntry[] = await file.t.agents.history(agentId);
  expect(history.find((e) => e.kind === 'widget_write')).toMatchObject({ widget: 'memory_notebook', write: { set: 'deadline friday' }, by: 'planner-service' });
  // From history alone, with no snapshot: the same widgets.
  const rebuilt = rebuildWidgets(history);
  expect((rebuilt.find((w) => w.name === 'task_list') as TaskListWidget).tasks).toEqual(state.tasks);
  expect(rebuilt.find((w) => w.name === 'memory_notebook')?.toJSON()).toEqual({ content: 'deadline friday' });
  const snapshot = await file.t.agents.snapshot(agentId);
  expect(snapshot.widgets.task_list).toEqual({ tasks: state.tasks, nextId: 3 });

  for (const runId of runs) {
    const h = await file.t.client.workflow.getHandle(agentId, runId).fetchHistory();
    await Worker.runReplayHistory({ workflowBundle: workflowBundle(), dataConverter: guardedForWorkers(livecontextDataConverter()) }, h, agentId);
  }
  await maybeRecordHistory(file.t.client.workflow.getHandle(agentId, runs[runs.length - 1]), 'task-list_v1.json');
}, 180_000);
