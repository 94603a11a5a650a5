/**
 * A new agent whose first input reaches a worker that did not run its start (the worker that did was
 * stopped, or the agent left its cache). Its first workflow task wrote nothing, so the SDK treats it as a
 * heartbeat and runs the start and the input in one activation on that worker, while a replay of the run
 * runs them in two (sdk-core's sequencing of an update after an empty task). The agent must do the same
 * either way, or every later replay of the run fails with a nondeterminism error (the chaos suite found
 * it: a tool turn was listed `Working` in the replay and not when it ran). An agent started by the release
 * before (change level 3) is taken over so by this code: its replays take level 3's changes, and the merged
 * activation those of this worker's level. The same goes for an input that follows a turn's answer written
 * by a task with nothing else in it. The recorded histories replay.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { temporal } from '@temporalio/proto';
import { Worker } from '@temporalio/worker';
import { livecontextBuildId } from '../../worker/build-id';
import { RUN_STATE_ATTRIBUTE } from '../../workflows/messages';
import { bundleOfCommit, hasCommit } from '../support/older-code';
import { maybeRecordHistory } from '../support/record-history';
import { eventually, uniqueId, withWorker, workflowBundle } from '../support/temporal';
import { useTestConnection } from '../support/test-connection';

jest.setTimeout(120_000);

const { t, taskQueue } = useTestConnection('cold-takeover');

/** The last commit of change level 3 (workflows/changes-mark.ts). */
const LEVEL_3 = '419d09f';

test("an agent's first input on a worker that did not run its start: the run replays, and its tool turn is listed Working", async () => {
  await coldTakeover({ recordAs: 'cold-takeover_v1.json' });
});

(hasCommit(LEVEL_3, 'cold-takeover') ? test : test.skip)(
  'an agent started by a level-3 worker, its first input on a worker of this code: the run replays',
  async () => {
    const bundle = await bundleOfCommit(LEVEL_3);
    expect(livecontextBuildId({ code: bundle.code })).toMatch(/^livecontext-changes-v3@/);
    await coldTakeover({ startedBy: { code: bundle.code }, recordAs: 'cold-takeover-level3_v1.json' });
  },
);

async function coldTakeover(o: { startedBy?: { code: string }; recordAs: string }): Promise<void> {
  const workspaceRoot = mkdtempSync(path.join(tmpdir(), 'lc-ws-'));
  const agentId = uniqueId('cold');
  const handle = await withWorker({ taskQueue, workspaceRoot, ...(o.startedBy ? { workflowBundle: o.startedBy } : {}) }, async () => {
    const started = await t.agents.start(agentId, { model: 'demo:offline', tools: ['sleep'] });
    await eventually(
      async () => ((await started.fetchHistory()).events ?? []).some((e) => e.workflowTaskCompletedEventAttributes),
      30_000,
      'the first workflow task completed',
    );
    return started;
  });
  const first = (await handle.fetchHistory()).events ?? [];
  expect(first.filter((e) => e.markerRecordedEventAttributes || e.upsertWorkflowSearchAttributesEventAttributes)).toEqual([]); // an empty task

  await withWorker({ taskQueue, workspaceRoot }, async () => {
    // The demo model's "wait 1" sleeps 1 s in a tool: a turn past its first model call.
    const turn = t.agents.ask(agentId, 'wait 1');
    await eventually(async () => (await handle.describe()).typedSearchAttributes.get(RUN_STATE_ATTRIBUTE) === 'Working', 30_000, 'listed Working');
    await expect(turn).resolves.toMatchObject({ status: 'answered', inputSeq: 1 });
    await expect(t.agents.ask(agentId, 'hello')).resolves.toMatchObject({ status: 'answered', inputSeq: 2 });
    // A plain turn by signal, which nobody waits on: the task that takes its answer writes nothing either.
    await t.agents.signal(agentId, 'hello again');
    await eventually(async () => (await t.agents.finishedTurn(agentId, 3))?.status === 'answered', 30_000, 'the signalled turn answered');
  });
  const kinds = ((await handle.fetchHistory()).events ?? []).slice(-4).map((e) => temporal.api.enums.v1.EventType[e.eventType ?? 0]);
  expect(kinds).toEqual([
    'EVENT_TYPE_ACTIVITY_TASK_COMPLETED',
    'EVENT_TYPE_WORKFLOW_TASK_SCHEDULED',
    'EVENT_TYPE_WORKFLOW_TASK_STARTED',
    'EVENT_TYPE_WORKFLOW_TASK_COMPLETED',
  ]);

  // The next input, on another worker: it runs the answer's task and the input's update as one activation.
  await withWorker({ taskQueue, workspaceRoot }, async () => {
    const turn = t.agents.ask(agentId, 'wait 1');
    await eventually(async () => (await handle.describe()).typedSearchAttributes.get(RUN_STATE_ATTRIBUTE) === 'Working', 30_000, 'listed Working again');
    await expect(turn).resolves.toMatchObject({ status: 'answered', inputSeq: 4 });
    await t.agents.stop(agentId);
    await handle.result();
  });
  const history = await handle.fetchHistory();
  await Worker.runReplayHistory({ workflowBundle: workflowBundle() }, history, agentId);
  await maybeRecordHistory(handle, o.recordAs);
}
