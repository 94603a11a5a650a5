/**
 * AgentClient's worker check: with no worker polling the agent's task queue, queries, updates and waits
 * fail at once with NoWorkerError (nothing is sent); a query to a worker that stopped a moment ago (Temporal
 * still lists it) fails with NoWorkerError once no worker takes the probe's task (worker-gone.test.ts: SIGKILL),
 * unless a worker starts within the probe's longer look (a rolling restart); `workerCheck: false` keeps
 * Temporal's waiting; workerInfo says which model providers a worker can call.
 */
import { NativeConnection } from '@temporalio/worker';
import { ScriptedModelProvider } from '../../activities/index';
import { AgentClient } from '../../client/agent-client';
import { NoWorkerError } from '../../client/worker-status';
import { createLivecontextWorker } from '../../worker/create-worker';
import { echoScript } from '../fixtures/scripts';
import { testAddress, uniqueId, withWorker, workflowBundle } from '../support/temporal';
import { useTestConnection } from '../support/test-connection';

const { t, taskQueue } = useTestConnection('worker-check');
const models = () => [new ScriptedModelProvider({ echo: echoScript })];

/** The call fails with NoWorkerError (Temporal alone would wait 30 s for a query, forever for an update). */
async function failsFast(call: () => Promise<unknown>) {
  const err = await call().then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(NoWorkerError);
  return err as NoWorkerError;
}

test('no worker has polled the queue: every call that needs one fails at once, and nothing is sent', async () => {
  const queue = uniqueId('never-polled');
  const agents = new AgentClient(t.client, queue);
  const id = uniqueId('lonely');
  await agents.start(id, { model: 'scripted:echo' }); // starting needs no worker
  expect(await agents.workerStatus(queue)).toMatchObject({
    taskQueue: queue,
    namespace: 'default',
    polling: false,
    workflowPollers: 0,
    activityPollers: 0,
    lastPolledMsAgo: null,
  });

  const err = await failsFast(() => agents.send(id, 'hello'));
  expect(err.message).toBe(`No worker is polling the task queue ${queue} in namespace default: start one with \`livecontext worker\` (or \`npm start\`).`);
  await failsFast(() => agents.state(id));
  await failsFast(() => agents.history(id));
  await failsFast(() => agents.waitForAnswer(id, 1));
  await failsFast(() => agents.configure(id, { systemInstruction: 'x' }));
  await failsFast(() => agents.workerInfo(queue));
  // A client whose default queue is another one still checks the queue the agent runs on.
  await failsFast(() => t.agents.state(id));

  await withWorker({ taskQueue: queue, models: models() }, async () => {
    expect((await agents.state(id)).nextInputSeq).toBe(1); // no input was taken
    expect((await agents.workerStatus(queue)).polling).toBe(true);
  });
});

test('a worker that stopped a moment ago is still listed as polling, but takes no task: the query fails with no worker', async () => {
  const id = uniqueId('just-gone');
  await withWorker({ taskQueue, models: models() }, async () => {
    await t.agents.start(id, { model: 'scripted:echo' });
    await t.agents.ask(id, 'hi');
  });
  const agents = new AgentClient(t.client, taskQueue); // nothing remembered about earlier checks
  expect((await agents.workerStatus()).polling).toBe(true); // Temporal lists its pollers for a minute more
  const err = await agents.state(id).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(NoWorkerError);
  expect((err as Error).message).toContain('and no worker took a task from its task queue');
}, 200_000);

test('a worker replaced a few seconds after the last one stopped (a rolling restart): a query asked meanwhile is answered, not failed', async () => {
  const id = uniqueId('replaced');
  const connection = await NativeConnection.connect({ address: testAddress() });
  try {
    const next = await createLivecontextWorker({ workflowBundle: workflowBundle(), taskQueue, models: models(), connection });
    await withWorker({ taskQueue, models: models() }, async () => {
      await t.agents.start(id, { model: 'scripted:echo' });
      await t.agents.ask(id, 'hi');
    });
    const agents = new AgentClient(t.client, taskQueue);
    const state = agents.state(id);
    // Past the moment an idle agent's killed worker is called gone (about 2 s), within the longer look a
    // worker that worked on the agent a moment before gets (client/worker-probe.ts).
    await new Promise((r) => setTimeout(r, 2_500));
    await next.runUntil(async () => expect((await state).nextInputSeq).toBe(2));
  } finally {
    await connection.close();
  }
}, 200_000);

test('workerCheck: false keeps Temporal’s behaviour: an update waits until a worker comes', async () => {
  const queue = uniqueId('patient');
  const agents = new AgentClient(t.client, queue, { workerCheck: false });
  const id = uniqueId('patient');
  await agents.start(id, { model: 'scripted:echo' });
  const answer = agents.ask(id, 'hello');
  await new Promise((r) => setTimeout(r, 3_000));
  await withWorker({ taskQueue: queue, models: models() }, async () => {
    await expect(answer).resolves.toMatchObject({ status: 'answered', answer: { contents: ['echo: hello'] } });
  });
});

test('workerInfo: the providers a worker has and whether each can be called, never a key', async () => {
  await withWorker({ taskQueue, models: models() }, async () => {
    const info = await t.agents.workerInfo();
    expect(info.providers.map((p) => p.id)).toEqual(['demo', 'openai', 'anthropic', 'azure', 'scripted']);
    expect(info.providers.find((p) => p.id === 'scripted')).toEqual({ id: 'scripted', ready: true });
    for (const p of info.providers) if (!p.ready) expect(p.problem).toMatch(/^[A-Z_]+_API_KEY is not set in this worker's environment/);
    // Asked again at once (the same workflow id): a new run answers.
    expect((await t.agents.workerInfo()).providers).toHaveLength(5);
  });
});
