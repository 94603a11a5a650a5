/**
 * Issue 26 item 4: a second worker with another environment joins the task queue. It says so when it
 * starts (the other workers polling the queue, by identity), and a model call it cannot make for want of
 * an API key goes to the provider's task queue, which only workers with the key poll (workflows/model-routing.ts).
 * Alone on its queue, a worker without the key blocks the agent at once, as before.
 * Two real workers on one dev server: `livecontext worker` (the CLI, without OPENAI_API_KEY) and a worker
 * whose OpenAI provider has a key (the OpenAI wire fake).
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { defineTool, openaiProvider, ScriptedModelProvider } from '../../activities/index';
import { z } from 'zod';
import { batchScript } from '../fixtures/scripts';
import { useProviderServers } from '../support/provider-servers';
import { connectTest, eventually, testAddress, uniqueId, withWorker, workflowBundle } from '../support/temporal';
import { maybeRecordHistory } from '../support/record-history';
import { spawnUntilReady } from '../support/child-worker';

const { t, p, taskQueue } = useProviderServers('worker-keys');
const OPENAI = 'openai:gpt-4.1-mini';
const BIN = path.resolve(__dirname, '../../bin/livecontext.js');
const workspaceRoot = mkdtempSync(path.join(tmpdir(), 'lc-keys-'));

/** `livecontext worker` on `queue` without an OpenAI key, as a second `npm start` in another shell would be. */
type KeylessWorker = { proc: ChildProcess; output: () => string; stop: () => Promise<void> };

async function keylessCliWorker(queue: string): Promise<KeylessWorker> {
  const worker = await spawnUntilReady(
    [BIN, 'worker', '--workspace', workspaceRoot],
    { TEMPORAL_ADDRESS: testAddress(), LIVECONTEXT_TASK_QUEUE: queue, OPENAI_API_KEY: '', OPENAI_BASE_URL: '', ANTHROPIC_API_KEY: '' },
    { ready: 'Worker running on', what: 'the CLI worker', timeoutMs: 150_000 },
  );
  return { proc: worker.proc, output: worker.output, stop: () => worker.kill('SIGTERM') };
}

/** `body` on a task queue of its own, with a connection and the keyless CLI workers it starts there, all ended afterwards. */
async function onOwnQueue(
  prefix: string,
  body: (queue: string, ctx: Awaited<ReturnType<typeof connectTest>>, startKeyless: () => Promise<KeylessWorker>) => Promise<void>,
): Promise<void> {
  const queue = uniqueId(prefix);
  const ctx = await connectTest(queue);
  const started: KeylessWorker[] = [];
  try {
    await body(queue, ctx, async () => {
      const worker = await keylessCliWorker(queue);
      started.push(worker);
      return worker;
    });
  } finally {
    for (const worker of started) await worker.stop();
    await ctx.close();
  }
}

/** For each callModel activity of the agent: the queue it was scheduled on, the attempt Temporal shows starting, the worker that took it, how it ended. */
async function modelAttempts(
  agentId: string,
  on: { agents: typeof t.agents } = t,
): Promise<Array<{ queue: string; attempt: number; identity: string; ended?: 'completed' | 'failed' }>> {
  const raw = await on.agents.handle(agentId).fetchHistory();
  const scheduled = new Map<string, { name: string; queue: string }>();
  const byScheduled = new Map<string, { queue: string; attempt: number; identity: string; ended?: 'completed' | 'failed' }>();
  for (const e of raw.events ?? []) {
    const s = e.activityTaskScheduledEventAttributes;
    if (s) scheduled.set(String(e.eventId), { name: s.activityType?.name ?? '', queue: s.taskQueue?.name ?? '' });
    const started = e.activityTaskStartedEventAttributes;
    const call = started && scheduled.get(String(started.scheduledEventId));
    if (started && call?.name === 'callModel')
      byScheduled.set(String(started.scheduledEventId), { queue: call.queue, attempt: started.attempt ?? 0, identity: started.identity ?? '' });
    const done = e.activityTaskCompletedEventAttributes ?? e.activityTaskFailedEventAttributes;
    const attempt = done && byScheduled.get(String(done.scheduledEventId));
    if (attempt) attempt.ended = e.activityTaskCompletedEventAttributes ? 'completed' : 'failed';
  }
  return [...byScheduled.values()];
}

test('a worker without the key says which workers share its queue; its model calls are made by the worker that has the key', async () => {
  const withKey = { taskQueue, workspaceRoot, models: p.models(), workflowBundle: workflowBundle(), workerOptions: { identity: 'with-key' } };
  let keyless: Awaited<ReturnType<typeof keylessCliWorker>> | undefined;
  try {
    await withWorker(withKey, async () => {
      // The worker with the key polls; then a second worker without one joins and says so.
      await eventually(async () => (await t.agents.workerStatus()).polling, 30_000, 'the worker with the key to poll');
      keyless = await keylessCliWorker(taskQueue);
      expect(keyless.output()).toMatch(
        new RegExp(`livecontext: 1 other worker polls ${taskQueue}: with-key \\(polled \\d+ s ago\\)\\. They take this queue's model calls and tool runs too`),
      );

      // Both poll: whichever takes a model call, the one with the key makes it. A call the keyless worker
      // takes goes to the OpenAI provider's queue, which only the worker with the key polls.
      const agentId = uniqueId('keys');
      await t.agents.start(agentId, { model: OPENAI });
      const turns = 6;
      for (let turn = 1; turn <= turns; turn++) {
        p.openai.enqueue({ kind: 'stream', text: `Answer ${turn}, made by the worker with the key.` });
        const outcome = await t.agents.ask(agentId, `Question ${turn}?`);
        expect(outcome).toMatchObject({ status: 'answered', answer: { contents: [`Answer ${turn}, made by the worker with the key.`] } });
      }
      const attempts = await modelAttempts(agentId);
      const made = attempts.filter((a) => a.ended === 'completed');
      expect(made).toHaveLength(turns);
      expect(made.every((a) => a.identity === 'with-key')).toBe(true);
      // Every attempt the keyless worker took failed at once, and the call went to the provider's queue.
      for (const a of attempts.filter((a) => a.identity !== 'with-key')) expect(a).toMatchObject({ queue: taskQueue, attempt: 1, ended: 'failed' });
      expect(attempts.filter((a) => a.queue === `${taskQueue}@openai`)).toHaveLength(attempts.length - turns);
      expect(p.openai.requests).toHaveLength(turns);
    });
  } finally {
    await keyless?.stop();
  }
}, 240_000);

/** A worker with the key whose one activity slot on the agents' queue another agent's tool call holds. */
function busyWorkerWithKey(queue: string) {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let holding = false;
  const holdTool = defineTool({
    name: 'hold',
    description: 'Holds the worker until the test lets it go.',
    parameters: z.object({}),
    execute: async () => {
      holding = true;
      await released;
      return { text: 'let go' };
    },
  });
  const holder = new ScriptedModelProvider({ holder: batchScript([{ name: 'hold', args: {} }]) });
  return {
    options: {
      taskQueue: queue,
      workspaceRoot,
      tools: [holdTool],
      models: [...p.models(), holder],
      workerOptions: { identity: 'with-key', maxConcurrentActivityTaskExecutions: 1 },
    },
    holding: () => holding,
    release: () => release(),
    /** Starts an agent whose tool call takes the worker's one slot, and waits until it does. */
    async hold(ctx: Awaited<ReturnType<typeof connectTest>>) {
      await eventually(async () => (await ctx.agents.workerStatus()).polling, 30_000, 'the worker with the key to poll');
      const holderId = uniqueId('holder');
      await ctx.agents.start(holderId, { model: 'scripted:holder', tools: ['hold'] });
      await ctx.agents.send(holderId, 'Hold the worker.');
      await eventually(() => holding, 30_000, 'the hold tool to run on the worker with the key');
    },
  };
}

test("a model call the keyless worker takes is made by the worker with the key, through the provider's queue, even while that worker is busy", async () => {
  // The worker with the key runs one activity at a time on the agents' queue, and another agent's tool
  // call holds that slot: only the keyless worker can take the model call there. It fails it at once,
  // naming the provider's queue, and the agent schedules the call there, where the worker with the key
  // (its provider worker has slots of its own) makes it, the hold still on.
  await onOwnQueue('keys-handover', async (queue, ctx, startKeyless) => {
    const busy = busyWorkerWithKey(queue);
    await withWorker(busy.options, async () => {
      try {
        await busy.hold(ctx);
        const keyless = await startKeyless();
        const agentId = uniqueId('handover');
        await ctx.agents.start(agentId, { model: OPENAI });
        p.openai.enqueue({ kind: 'stream', text: 'Answered by the worker with the key.' });
        const requestsBefore = p.openai.requests.length;
        const outcome = await ctx.agents.ask(agentId, 'Who answers?');
        expect(outcome).toMatchObject({ status: 'answered', answer: { contents: ['Answered by the worker with the key.'] } });
        expect(busy.holding()).toBe(true); // made while the worker's slot on the agents' queue was held
        const attempts = await modelAttempts(agentId, ctx);
        expect(attempts).toEqual([
          { queue, attempt: 1, identity: expect.stringContaining(`${keyless.proc.pid}@`), ended: 'failed' },
          { queue: `${queue}@openai`, attempt: 1, identity: 'with-key', ended: 'completed' },
        ]);
        expect(p.openai.requests.length).toBe(requestsBefore + 1); // the keyless worker never reached the provider
        await maybeRecordHistory(ctx.agents.handle(agentId), 'model-routing_v1.json');
      } finally {
        busy.release(); // a worker shuts down only once its activities end
      }
    });
  });
}, 240_000);

test('when the worker with the key has just left, a routed call waits a bounded time, then the agent blocks saying so', async () => {
  // Temporal lists a poller for a while after it stops: the keyless worker sees the provider's queue
  // polled, the call goes there, no worker takes it, and after the routed call's start timeout the agent
  // blocks on the first error. `retry` once a worker with the key is back makes the call.
  await onOwnQueue('keys-gone', async (queue, ctx, startKeyless) => {
    let keyless: KeylessWorker | undefined;
    // The keyless worker is up before the worker with the key leaves (a CLI start can take minutes on a
    // loaded machine, longer than Temporal lists a stopped poller), and no agent exists until it has left.
    await withWorker({ taskQueue: queue, workspaceRoot, models: p.models(), workerOptions: { identity: 'with-key' } }, async () => {
      await eventually(async () => (await ctx.agents.workerStatus()).polling, 30_000, 'the worker with the key to poll');
      keyless = await startKeyless();
    });
    const agentId = uniqueId('gone');
    await ctx.agents.start(agentId, { model: OPENAI });
    const outcome = await ctx.agents.ask(agentId, 'Anyone with a key?');
    expect(outcome).toMatchObject({
      status: 'error',
      error: {
        code: 'ModelError.MissingApiKey',
        message: expect.stringMatching(
          new RegExp(`OPENAI_API_KEY is not set in this worker's environment.*No worker polling ${queue}@openai took the call within 30 seconds`, 's'),
        ),
      },
    });
    expect((await modelAttempts(agentId, ctx)).map((a) => a.queue)).toEqual([queue]); // the routed call never started

    await keyless!.stop();
    await withWorker({ taskQueue: queue, workspaceRoot, models: p.models(), workerOptions: { identity: 'with-key' } }, async () => {
      p.openai.enqueue({ kind: 'stream', text: 'Back with the key.' });
      await ctx.agents.retry(agentId);
      expect(await ctx.agents.waitForAnswer(agentId, outcome.inputSeq)).toMatchObject({ status: 'answered', answer: { contents: ['Back with the key.'] } });
      await maybeRecordHistory(ctx.agents.handle(agentId), 'model-routing-not-taken_v1.json');
    });
  });
}, 240_000);

test('alone on its queue, a worker without the key blocks the agent at once, saying what is missing', async () => {
  await onOwnQueue('keyless-alone', async (queue, ctx) => {
    await withWorker(
      { taskQueue: queue, workspaceRoot, models: [openaiProvider({ apiKey: '', baseURL: '' })], workerOptions: { identity: 'alone' } },
      async () => {
        const agentId = uniqueId('alone');
        await ctx.agents.start(agentId, { model: OPENAI });
        const outcome = await ctx.agents.ask(agentId, 'Hello?');
        expect(outcome).toMatchObject({
          status: 'error',
          error: { code: 'ModelError.MissingApiKey', message: expect.stringContaining("OPENAI_API_KEY is not set in this worker's environment") },
        });
        const raw = await ctx.agents.handle(agentId).fetchHistory();
        const attempts = (raw.events ?? []).flatMap((e) => (e.activityTaskStartedEventAttributes ? [e.activityTaskStartedEventAttributes.attempt] : []));
        expect(attempts).toEqual([1]); // not handed around: no other worker polls this queue
      },
    );
  });
}, 120_000);
