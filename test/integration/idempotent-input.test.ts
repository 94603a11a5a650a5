/**
 * Input from services, exactly once: the same delivery (one idempotency key) sent five times at once,
 * again after the worker is SIGKILLed, after continue-as-new, and as a signal — one input, one turn, one
 * inputSeq. On a real dev server; the recorded history replays.
 */
import { maybeRecordHistory } from '../support/record-history';
import { replayEveryRun } from '../support/replay-runs';
import { useChildWorkerFile } from '../support/child-worker';
import { cli } from '../support/cli';
import { eventually, uniqueId } from '../support/temporal';

const file = useChildWorkerFile('idempotent');
const { taskQueue } = file;

test('one delivery, many sends: one input, across a worker SIGKILL, continue-as-new and a signal', async () => {
  let worker = await file.restart();
  const agentId = uniqueId('webhooks');
  // A small history budget: the agent continues as new every turn or two.
  await file.t.agents.start(agentId, { model: 'scripted:echo', historyBudgetBytes: 3_000 });
  const delivery = { text: 'order 42 paid', sender: 'billing', idempotencyKey: 'evt_42' };

  const first = await Promise.all(Array.from({ length: 5 }, () => file.t.agents.send(agentId, delivery)));
  expect(new Set(first.map((r) => r.inputSeq))).toEqual(new Set([1]));
  expect(first.filter((r) => !r.duplicate)).toHaveLength(1); // taken once; the other four were told so
  await expect(file.t.agents.waitForAnswer(agentId, 1)).resolves.toMatchObject({ status: 'answered', answer: { contents: ['echo: order 42 paid'] } });

  await worker.kill('SIGKILL');
  worker = await file.restart();
  await expect(file.t.agents.send(agentId, delivery)).resolves.toEqual({ inputSeq: 1, duplicate: true });

  for (let i = 0; i < 4; i++) await file.t.agents.ask(agentId, `other input ${i}`);
  const runs: string[] = [];
  for await (const wf of file.t.client.workflow.list({ query: `WorkflowId = '${agentId}'` })) runs.push(wf.runId);
  expect(runs.length).toBeGreaterThan(1); // the keys were carried to the new run
  await expect(file.t.agents.send(agentId, delivery)).resolves.toEqual({ inputSeq: 1, duplicate: true });
  await file.t.agents.signal(agentId, delivery); // fire-and-forget: also taken at most once
  const r = await cli(['send', agentId, '--idempotency-key', 'evt_42', 'order 42 paid', '--json'], { env: { LIVECONTEXT_TASK_QUEUE: taskQueue } });
  expect(r).toMatchObject({ code: 0, stderr: expect.stringContaining('was taken before, as input #1') });
  expect(JSON.parse(r.stdout)).toEqual({ inputSeq: 1, duplicate: true });
  const fresh = await file.t.agents.send(agentId, { ...delivery, idempotencyKey: 'evt_43' });
  expect(fresh).toEqual({ inputSeq: 6 });
  await file.t.agents.waitForAnswer(agentId, 6);

  const history = await file.t.agents.history(agentId);
  expect(
    history.filter((e) => e.kind === 'model_input' && e.sections[0].content === 'order 42 paid').map((e) => e.kind === 'model_input' && e.inputSeq),
  ).toEqual([1, 6]);
  await eventually(async () => (await file.t.agents.state(agentId)).nextInputSeq === 7, 10_000, 'the signal to be handled (and dropped)');

  const replayed = await replayEveryRun(file.t.client, agentId);
  await maybeRecordHistory(file.t.client.workflow.getHandle(agentId, replayed[replayed.length - 1]), 'idempotent-input_v1.json');
}, 180_000);
