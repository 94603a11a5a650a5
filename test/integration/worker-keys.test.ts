/**
 * Issue 26 item 4: a second worker with another environment joins the task queue. It says so when it
 * starts (the other workers polling the queue, by identity), and a model call it cannot make for want of
 * an API key is handed back, so that a worker that has the key makes it, before the agent would block.
 * Alone on its queue, a worker without the key blocks the agent at once, as before.
 * Two real workers on one dev server: `livecontext worker` (the CLI, without OPENAI_API_KEY) and a worker
 * whose OpenAI provider has a key (the OpenAI wire fake).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { NativeConnection } from '@temporalio/worker';
import { openaiProvider } from '../../activities';
import { createLivecontextWorker } from '../../worker/create-worker';
import { useProviderServers } from '../support/provider-servers';
import { connectTest, eventually, testAddress, uniqueId, withWorker, workflowBundle } from '../support/temporal';

const { t, p, taskQueue } = useProviderServers('worker-keys');
const OPENAI = 'openai:gpt-4.1-mini';
const BIN = path.resolve(__dirname, '../../bin/livecontext.js');
const workspaceRoot = mkdtempSync(path.join(tmpdir(), 'lc-keys-'));

/** `livecontext worker` on `queue` without an OpenAI key, as a second `npm start` in another shell would be. */
async function keylessCliWorker(queue: string): Promise<{ proc: ChildProcess; output: () => string; stop: () => Promise<void> }> {
  const proc = spawn(process.execPath, [BIN, 'worker', '--workspace', workspaceRoot], {
    env: { ...process.env, TEMPORAL_ADDRESS: testAddress(), LIVECONTEXT_TASK_QUEUE: queue, OPENAI_API_KEY: '', OPENAI_BASE_URL: '', ANTHROPIC_API_KEY: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  proc.stdout!.on('data', (d) => (out += d));
  proc.stderr!.on('data', (d) => (out += d));
  const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
  await eventually(() => out.includes('Worker running on') || (proc.exitCode !== null && 'exited'), 150_000, 'the CLI worker to start').then((v) => {
    if (v === 'exited') throw new Error(`The CLI worker exited:\n${out}`);
  });
  return {
    proc,
    output: () => out,
    stop: async () => {
      if (proc.exitCode === null) proc.kill('SIGTERM');
      await exited;
    },
  };
}

/** For each callModel activity of the agent: the attempt that Temporal's history shows starting, and the worker that took it. */
async function modelAttempts(agentId: string): Promise<Array<{ attempt: number; identity: string }>> {
  const raw = await t.agents.handle(agentId).fetchHistory();
  const scheduled = new Map<string, string>();
  const attempts: Array<{ attempt: number; identity: string }> = [];
  for (const e of raw.events ?? []) {
    const s = e.activityTaskScheduledEventAttributes;
    if (s) scheduled.set(String(e.eventId), s.activityType?.name ?? '');
    const started = e.activityTaskStartedEventAttributes;
    if (started && scheduled.get(String(started.scheduledEventId)) === 'callModel') attempts.push({ attempt: started.attempt ?? 0, identity: started.identity ?? '' });
  }
  return attempts;
}

test('a worker without the key says which workers share its queue; its model call is made by the worker that has the key', async () => {
  const withKey = { taskQueue, workspaceRoot, models: p.models(), workflowBundle: workflowBundle(), workerOptions: { identity: 'with-key' } };
  const connection = await NativeConnection.connect({ address: testAddress() });
  const first = await createLivecontextWorker({ ...withKey, connection });
  let keyless: Awaited<ReturnType<typeof keylessCliWorker>> | undefined;
  try {
    // The worker with the key polls; then a second worker without one joins and says so.
    await first.runUntil(async () => {
      await eventually(async () => (await t.agents.workerStatus()).polling, 30_000, 'the worker with the key to poll');
      keyless = await keylessCliWorker(taskQueue);
    });
    expect(keyless!.output()).toMatch(new RegExp(`livecontext: 1 other worker polls ${taskQueue}: with-key \\(polled \\d+ s ago\\)\\. They take this queue's model calls and tool runs too`));

    // The worker with the key is away a moment (Temporal still lists it): the keyless one takes the call and hands it back.
    const agentId = uniqueId('keys');
    await t.agents.start(agentId, { model: OPENAI });
    p.openai.enqueue({ kind: 'stream', text: 'Made by the worker with the key.' });
    const { inputSeq } = await t.agents.send(agentId, 'Hello?');
    await eventually(async () => {
      const pending = (await t.agents.handle(agentId).describe()).raw.pendingActivities ?? [];
      return pending.some((a) => a.activityType?.name === 'callModel' && (a.attempt ?? 0) >= 2 && /OPENAI_API_KEY is not set/.test(a.lastFailure?.message ?? ''));
    }, 30_000, 'the keyless worker to hand the call back');

    // It comes back (one process holds one worker per queue at a time: a new one, as after a restart).
    const second = await createLivecontextWorker({ ...withKey, connection });
    await second.runUntil(async () => {
      expect(await t.agents.waitForAnswer(agentId, inputSeq)).toMatchObject({ status: 'answered', answer: { contents: ['Made by the worker with the key.'] } });
    });
    const [last] = await modelAttempts(agentId);
    expect(last).toMatchObject({ identity: 'with-key', attempt: expect.any(Number) });
    expect(last.attempt).toBeGreaterThanOrEqual(2);
    expect(p.openai.requests).toHaveLength(1);
    expect((await t.agents.state(agentId)).lastError ?? undefined).toBeUndefined();
  } finally {
    await keyless?.stop();
    await connection.close();
  }
}, 180_000);

test('alone on its queue, a worker without the key blocks the agent at once, saying what is missing', async () => {
  const queue = uniqueId('keyless-alone');
  const ctx = await connectTest(queue);
  try {
    await withWorker({ taskQueue: queue, workspaceRoot, models: [openaiProvider({ apiKey: '', baseURL: '' })], workerOptions: { identity: 'alone' } }, async () => {
      const agentId = uniqueId('alone');
      await ctx.agents.start(agentId, { model: OPENAI });
      const outcome = await ctx.agents.ask(agentId, 'Hello?');
      expect(outcome).toMatchObject({ status: 'error', error: { code: 'ModelError.MissingApiKey', message: expect.stringContaining('OPENAI_API_KEY is not set in this worker\'s environment') } });
      const raw = await ctx.agents.handle(agentId).fetchHistory();
      const attempts = (raw.events ?? []).flatMap((e) => (e.activityTaskStartedEventAttributes ? [e.activityTaskStartedEventAttributes.attempt] : []));
      expect(attempts).toEqual([1]); // not handed around: no other worker polls this queue
    });
  } finally {
    await ctx.close();
  }
}, 120_000);
