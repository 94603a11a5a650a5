/**
 * Schedules feed agents on Temporal Schedules: a schedule that may start its agent fires (by Temporal's
 * trigger) and the agent answers; a time that comes while the worker is SIGKILLed is delivered once
 * the worker is back; one scheduled time delivered twice is one input; a short interval fires on its own
 * and stops once the schedule is deleted. The CLI lists, pauses and deletes. On a real dev server.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { workerTakesTasks } from '../../client/worker-probe';
import { SCHEDULED_INPUT_WORKFLOW_TYPE } from '../../workflows/messages';
import { type ChildWorker, startChildWorker } from '../support/child-worker';
import { cli } from '../support/cli';
import { maybeRecordHistory } from '../support/record-history';
import { connectTest, eventually, type TestContext, uniqueId } from '../support/temporal';

let t: TestContext;
let worker: ChildWorker | undefined;
const taskQueue = uniqueId('schedules');
const env = { LIVECONTEXT_TASK_QUEUE: taskQueue };
beforeAll(async () => (t = await connectTest(taskQueue)));
afterAll(async () => {
  await worker?.kill();
  await t?.close();
});

const inputs = async (agentId: string) => (await t.agents.history(agentId)).filter((e) => e.kind === 'model_input');
const answers = async (agentId: string) =>
  (await t.agents.history(agentId)).filter((e) => e.kind === 'model_output').map((e) => e.kind === 'model_output' && e.contents.join(''));

test('a schedule starts its agent and feeds it, across a worker SIGKILL, once per scheduled time; deleting it stops it', async () => {
  const workerEnv = { taskQueue, workspaceRoot: mkdtempSync(path.join(tmpdir(), 'lc-ws-')), controlDir: mkdtempSync(path.join(tmpdir(), 'lc-ctl-')) };
  worker = await startChildWorker(workerEnv);
  const agentId = uniqueId('inbox-checker');
  const added = await cli(['schedule', 'add', agentId, '--every', '1h', '--text', 'Check the inbox', '--start-model', 'scripted:echo'], { env });
  expect(added).toMatchObject({ code: 0, stdout: expect.stringMatching(/^Schedule "(.+)" sends "Check the inbox" to agent ".+" \(every 1h\); next: \d{4}-/) });
  const scheduleId = /^Schedule "(.+?)"/.exec(added.stdout)![1];

  await t.agents.schedules.trigger(scheduleId); // the agent does not exist yet: the schedule starts it
  await eventually(async () => (await answers(agentId).catch(() => [])).length === 1, 60_000, 'the first scheduled input answered');
  expect((await inputs(agentId))[0]).toMatchObject({ sender: 'schedule', sections: [{ content: 'Check the inbox' }] });

  await worker.kill('SIGKILL');
  // A scheduled time is named to the second: two triggers within one second are one time (one input).
  await new Promise((r) => setTimeout(r, 1_100));
  await t.agents.schedules.trigger(scheduleId); // comes while no worker runs
  await new Promise((r) => setTimeout(r, 1_000));
  worker = await startChildWorker(workerEnv);
  // As a person waits for the worker to be up: a query in the moment it takes its first tasks (the time
  // that came while it was down) can be told that no worker took the probe's task (CI, 2026-12-06).
  expect(await workerTakesTasks(t.client, taskQueue, 30_000)).toBe(true);
  await eventually(async () => (await answers(agentId)).length === 2, 90_000, 'the input of the time the worker was down answered');
  expect(await answers(agentId)).toEqual(['echo: Check the inbox', 'echo: Check the inbox']);

  // The same scheduled time delivered again (its workflow id is the key): still one input.
  const runs: string[] = [];
  for await (const wf of t.client.workflow.list({ query: `WorkflowType = '${SCHEDULED_INPUT_WORKFLOW_TYPE}' AND WorkflowId STARTS_WITH '${scheduleId}'` }))
    runs.push(wf.workflowId);
  expect(runs.length).toBe(2);
  const [again] = runs;
  await maybeRecordHistory(t.client.workflow.getHandle(again), 'scheduled-input_v1.json');
  const description = await t.agents.schedules.describe(scheduleId);
  const redelivered = await t.client.workflow.start(SCHEDULED_INPUT_WORKFLOW_TYPE, {
    workflowId: again,
    taskQueue,
    args: [{ agentId, text: 'Check the inbox' }],
  });
  await redelivered.result();
  await new Promise((r) => setTimeout(r, 1_000));
  expect((await inputs(agentId)).length).toBe(2);
  expect((await t.agents.state(agentId)).nextInputSeq).toBe(3);
  expect(description).toMatchObject({ agentId, text: 'Check the inbox', when: 'every 1h', paused: false });

  const listed = await cli(['schedule', 'list', agentId], { env });
  expect(listed.stdout).toMatch(new RegExp(`${scheduleId}\\s+${agentId}\\s+every 1h\\s+active`));
  expect(await cli(['schedule', 'pause', scheduleId], { env })).toMatchObject({ code: 0 });
  expect((await t.agents.schedules.describe(scheduleId)).paused).toBe(true);
  expect(await cli(['schedule', 'delete', scheduleId], { env })).toMatchObject({ code: 0, stdout: `Deleted schedule "${scheduleId}".\n` });
  expect(await cli(['schedule', 'delete', scheduleId], { env })).toMatchObject({ code: 1, stderr: expect.stringMatching(/No such schedule/) });
});

test('a short interval fires on its own; a deleted schedule fires no more; a schedule for an agent that does not run is refused, and a failed delivery is said', async () => {
  worker ??= await startChildWorker({
    taskQueue,
    workspaceRoot: mkdtempSync(path.join(tmpdir(), 'lc-ws-')),
    controlDir: mkdtempSync(path.join(tmpdir(), 'lc-ctl-')),
  });
  const agentId = uniqueId('ticker');
  await t.agents.start(agentId, { model: 'scripted:echo' });
  const s = await t.agents.schedules.add(agentId, { every: '2s', text: 'tick' });
  await eventually(async () => (await answers(agentId)).length >= 2, 60_000, 'two ticks answered');
  await t.agents.schedules.delete(s.scheduleId);
  await new Promise((r) => setTimeout(r, 1_500)); // a tick already started may still land
  const settled = (await inputs(agentId)).length;
  await new Promise((r) => setTimeout(r, 5_000));
  expect((await inputs(agentId)).length).toBe(settled);

  // An agent that does not run: refused, since every delivery would fail (unless the schedule may start it).
  const nobody = uniqueId('nobody');
  await expect(t.agents.schedules.add(nobody, { every: '1h', text: 'hello?' })).rejects.toThrow(
    `No agent "${nobody}" in this namespace, so every delivery of this schedule would fail.`,
  );
  const refused = await cli(['schedule', 'add', nobody, '--every', '1h', '--text', 'hello?'], { env });
  expect(refused).toMatchObject({
    code: 1,
    stdout: '',
    stderr: expect.stringMatching(/every delivery of this schedule would fail\. Start it first, or let the schedule start it \(--start-model provider:model/),
  });
  expect(await t.agents.schedules.list(nobody)).toEqual([]);

  // An agent that stops after its schedule was added: the failed delivery is said by list and describe.
  const stopping = uniqueId('stops');
  await t.agents.start(stopping, { model: 'scripted:echo' });
  const orphan = await t.agents.schedules.add(stopping, { every: '1h', text: 'still there?' });
  expect(orphan.lastDelivery).toBeNull();
  await t.agents.stop(stopping);
  await t.agents.schedules.trigger(orphan.scheduleId);
  const failed = await eventually(
    async () => {
      const d = (await t.agents.schedules.describe(orphan.scheduleId)).lastDelivery;
      return d?.status === 'failed' ? d : undefined;
    },
    60_000,
    'the delivery to a stopped agent to fail',
  );
  expect(failed).toMatchObject({
    status: 'failed',
    error: expect.stringContaining(`No running agent "${stopping}"`),
    workflowId: expect.stringContaining(orphan.scheduleId),
  });
  const list = await cli(['schedule', 'list', stopping], { env });
  expect(list.stdout).toMatch(new RegExp(`${orphan.scheduleId}\\s+${stopping}\\s+every 1h\\s+active\\s+\\S+ \\S+\\s+FAILED \\d{4}-`));
  expect(list.stdout).toContain(`1 schedule failed to deliver last time: livecontext schedule describe ${orphan.scheduleId}`);
  const described = await cli(['schedule', 'describe', orphan.scheduleId], { env });
  expect(described.stdout).toMatch(new RegExp(`Last delivery: FAILED \\d{4}-\\d\\d-\\d\\d \\S+: No running agent "${stopping}"`));
  await t.agents.schedules.delete(orphan.scheduleId);
  await expect(t.agents.schedules.add('x', { every: 'soon', text: 'a' })).rejects.toThrow(/not an interval/);
  await expect(t.agents.schedules.add('x', { text: 'a' })).rejects.toThrow(/exactly one/);
});
