/**
 * A compaction survives its worker: the worker process is SIGKILLed while the summary call streams, a
 * new worker process makes the call again, and the agent records one compaction entry and answers.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { HistoryEntry } from '../../agent/index';
import { type ChildWorker, startChildWorker } from '../support/child-worker';
import { SMALL_WINDOW, SUMMARY, isOpenAISummaryCall, openaiScript, turnText } from '../support/compaction-script';
import { type FakeOpenAIServer, startFakeOpenAIServer } from '../support/fake-openai-server';
import { connectTest, eventually, type TestContext, uniqueId } from '../support/temporal';

let t: TestContext;
let fake: FakeOpenAIServer;
let worker: ChildWorker | undefined;
const taskQueue = uniqueId('compact-crash');
beforeAll(async () => {
  t = await connectTest(taskQueue);
  fake = await startFakeOpenAIServer();
});
afterAll(async () => {
  await worker?.kill();
  await fake?.close();
  await t?.close();
});

test('SIGKILL while the summary call streams: a new worker finishes the compaction, recorded once', async () => {
  const env = {
    taskQueue,
    workspaceRoot: mkdtempSync(path.join(tmpdir(), 'lc-ws-')),
    fixture: 'provider-worker.ts',
    extraEnv: { OPENAI_API_KEY: fake.apiKey, OPENAI_BASE_URL: `${fake.url}/v1` },
  };
  // The first summary call never ends: its worker is killed while it waits.
  let hung = false;
  fake.respond = (r) => {
    if (isOpenAISummaryCall(r) && !hung) {
      hung = true;
      return { kind: 'hang' };
    }
    return openaiScript(r);
  };
  worker = await startChildWorker(env);
  const agentId = uniqueId('compact-crash');
  await t.agents.start(agentId, {
    model: 'openai:gpt-4.1-mini',
    tools: ['lookup'],
    contextWindow: 4 * SMALL_WINDOW,
    systemInstruction: 'You are a test agent.',
  });

  let turn: Promise<unknown> | undefined;
  for (let k = 1; k <= 20 && !hung; k++) {
    turn = t.agents.ask(agentId, turnText(k));
    await Promise.race([turn, eventually(() => hung, 120_000, 'the turn or the summary call')]);
  }
  expect(hung).toBe(true);
  await worker.kill('SIGKILL');
  worker = await startChildWorker(env);
  expect(await turn).toMatchObject({ status: 'answered' });

  const history: HistoryEntry[] = await t.agents.history(agentId);
  const compactions = history.filter((e) => e.kind === 'compaction');
  expect(compactions).toHaveLength(1);
  expect(compactions[0]).toMatchObject({ summary: SUMMARY, metadata: { attempts: 2 } });
  expect(fake.requests.filter(isOpenAISummaryCall)).toHaveLength(2);
  // The answer after it came from a request that holds the summary.
  const last = fake.requests[fake.requests.length - 1].body.messages;
  expect(JSON.stringify(last[1])).toContain(SUMMARY);
  expect((await t.agents.state(agentId)).blockedOn).toBe('input');
});
