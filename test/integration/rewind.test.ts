/**
 * Rewind in place (issue 30), on a real dev server, with a worker process and the OpenAI wire fake: an
 * agent answers, writes its notebook in a tool loop and changes its instruction; `livecontext rewind
 * --to` takes it back to the first answer. The worker is SIGKILLed, a new input arrives with no worker,
 * and a new worker answers it: the request (as the wire fake got it) leaves out everything rewound — the
 * turn, the notebook write, the later instruction — while `history --all` still shows it, marked. Refusals
 * (a point in a tool loop, beyond the end, before the start) change nothing and name the nearest points;
 * REST says 409. The agent then continues as new, and its requests still leave the rewound turn out.
 * Export → import round-trips: the copy's next request is the source's. A fork copies only what is in force. The run with the rewind replays;
 * with LIVECONTEXT_RECORD_HISTORIES=1 it is recorded as rewind_v1.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Worker } from '@temporalio/worker';
import { type AgentSnapshot, readSnapshot } from '../../agent/index';
import { type ChildWorker, startChildWorker } from '../support/child-worker';
import { cli } from '../support/cli';
import { type FakeOpenAIServer, type RecordedOpenAIRequest, startFakeOpenAIServer } from '../support/fake-openai-server';
import { startTestGateway } from '../support/gateway';
import { maybeRecordHistory } from '../support/record-history';
import { connectTest, type TestContext, uniqueId, workflowBundle } from '../support/temporal';

let t: TestContext;
let fake: FakeOpenAIServer;
let worker: ChildWorker | undefined;
const taskQueue = uniqueId('rewind');
beforeAll(async () => {
  t = await connectTest(taskQueue);
  fake = await startFakeOpenAIServer();
});
afterAll(async () => {
  await worker?.kill();
  await fake?.close();
  await t?.close();
});

const NOTE = 'NOTE-7Q2';
const PAD = ' lorem ipsum'.repeat(150); // answers of ~2 KB, so a small history budget is passed in a few turns
const messagesOf = (r: RecordedOpenAIRequest) => JSON.stringify(r.body.messages);
/** The newest user text of a request (its Live Screen aside). */
/** The run of `agentId` whose history took the update `name`. */
async function runWithUpdate(agentId: string, name: string): Promise<string> {
  for await (const run of t.client.workflow.list({ query: `WorkflowId = '${agentId}'` })) {
    const events = (await t.client.workflow.getHandle(agentId, run.runId).fetchHistory()).events ?? [];
    if (events.some((e) => e.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest?.input?.name === name)) return run.runId;
  }
  throw new Error(`no run of ${agentId} took a ${name} update`);
}

function lastUserText(r: RecordedOpenAIRequest): string {
  const messages = r.body.messages as Array<{ role: string; content: unknown }>;
  const last = [...messages].reverse().find((m) => m.role === 'user' || m.role === 'tool');
  if (last?.role === 'tool') return '(tool)';
  return typeof last?.content === 'string' ? last.content : JSON.stringify(last?.content);
}

test('rewind, SIGKILL, a new input: the request leaves out what was rewound, history --all keeps it; continue-as-new and export → import keep it so', async () => {
  const env = {
    taskQueue,
    workspaceRoot: mkdtempSync(path.join(tmpdir(), 'lc-ws-')),
    fixture: 'provider-worker.ts',
    extraEnv: { OPENAI_API_KEY: fake.apiKey, OPENAI_BASE_URL: `${fake.url}/v1` },
  };
  fake.respond = (r) => {
    const text = lastUserText(r);
    if (text === '(tool)') return { kind: 'stream', text: 'B1: noted.' };
    if (text.includes('bravo: write a note'))
      return { kind: 'stream', toolCalls: [{ name: 'memory_notebook_replace', arguments: JSON.stringify({ old_text: '', new_text: NOTE }) }] };
    const word = /\b(alpha|charlie|delta|turn-\d+)\b/.exec(text)?.[1] ?? 'other';
    return { kind: 'stream', text: `answer to ${word}.${PAD}` };
  };
  worker = await startChildWorker(env);
  const agentId = uniqueId('rewind');
  const cliEnv = { env: { LIVECONTEXT_TASK_QUEUE: taskQueue } };
  await t.agents.start(agentId, { model: 'openai:gpt-4.1-mini', systemInstruction: 'sys-one', historyBudgetBytes: 30_000 });

  // 1 instruction, 2 alpha, 3 its answer | 4 bravo, 5 notebook call, 6 result, 7 answer | 8 new instruction
  expect(await t.agents.ask(agentId, 'alpha')).toMatchObject({ status: 'answered' });
  expect(await t.agents.ask(agentId, 'bravo: write a note')).toMatchObject({ status: 'answered', answer: { contents: ['B1: noted.'] } });
  await t.agents.configure(agentId, { systemInstruction: 'sys-two' });
  expect((await t.agents.state(agentId)).notebook).toContain(NOTE);
  const before = await t.agents.history(agentId);
  expect(before.map((e) => e.kind)).toEqual([
    'system_instruction',
    'model_input',
    'model_output',
    'model_input',
    'model_output',
    'tool_results',
    'model_output',
    'system_instruction',
  ]);

  // Refusals change nothing and say why, naming the nearest valid points.
  const refusal = (message: RegExp) => ({ cause: { type: 'BAD_REWIND_POINT', message: expect.stringMatching(message) } });
  await expect(t.agents.rewind(agentId, 5)).rejects.toMatchObject(refusal(/#5 is a model output with tool calls.*Nearest valid points: #4, #7/));
  await expect(t.agents.rewind(agentId, 9)).rejects.toMatchObject(refusal(/#9 is beyond the last entry \(#8\)/));
  await expect(t.agents.rewind(agentId, 0)).rejects.toMatchObject(refusal(/before the start/));
  const gateway = await startTestGateway(t.agents);
  try {
    const refused = await gateway.request('POST', `/agents/${agentId}/rewind`, { toSeq: 6 });
    expect(refused).toMatchObject({ status: 409, body: { error: { code: 'BAD_REWIND_POINT' } } });
  } finally {
    await gateway.close();
  }
  expect((await t.agents.state(agentId)).lastSeq).toBe(8);

  // The rewind, from the CLI: back to alpha's answer.
  const rewound = await cli(['rewind', agentId, '--to', '3', '--reason', 'bravo went wrong'], cliEnv);
  expect(rewound.code).toBe(0);
  expect(rewound.stdout).toMatch(/Rewound agent ".*" to #3 \(rewind entry #9; 5 entries no longer in force/);
  const state = await t.agents.state(agentId);
  expect(state).toMatchObject({ runState: 'WaitingInput', systemInstruction: 'sys-one', lastSeq: 9 });
  expect(state.notebook).not.toContain(NOTE);

  // The worker dies; input arrives with none; a new worker answers it.
  await worker.kill('SIGKILL');
  await t.agents.signal(agentId, 'charlie'); // by signal: no worker is there to accept an update
  worker = await startChildWorker(env);
  expect(await t.agents.waitForAnswer(agentId, 3)).toMatchObject({ status: 'answered', answer: { contents: [expect.stringMatching(/^answer to charlie/)] } });
  const charlie = fake.requests.filter((r) => r.body?.messages && lastUserText(r).includes('charlie')).at(-1)!;
  expect(charlie.body.messages[0]).toMatchObject({ role: 'system', content: expect.stringContaining('sys-one') });
  expect(messagesOf(charlie)).toMatch(/alpha[\s\S]*answer to alpha[\s\S]*charlie/);
  for (const gone of ['bravo', 'B1: noted', NOTE, 'sys-two', 'memory_notebook_replace"']) expect(messagesOf(charlie)).not.toContain(gone);

  // A fork of the rewound agent copies only what is in force; a rewound entry is no point to fork at.
  const forkId = uniqueId('rewind-fork');
  await t.agents.fork(agentId, { at: 11, as: forkId });
  expect((await t.agents.history(forkId)).map((e) => e.seq)).toEqual([1, 2, 3, 9, 10, 11]);
  expect((await t.agents.state(forkId)).notebook).not.toContain(NOTE);
  await t.agents.stop(forkId);
  await expect(t.agents.fork(agentId, { at: 7, as: uniqueId('rewind-fork') })).rejects.toThrow(/#7 \(model_output\) was rewound by the rewind #9/);

  // History keeps every entry: plain history shows what is in force and the rewind; --all marks the rest.
  const plain = await cli(['history', agentId], cliEnv);
  expect(plain.stdout).toMatch(/#9 ⟲ rewound to #3 by .*: bravo went wrong/);
  expect(plain.stdout).not.toContain('bravo: write a note');
  const all = await cli(['history', agentId, '--all'], cliEnv);
  expect(all.stdout).toContain('#4 (rewound) you: bravo: write a note');
  expect(all.stdout).toContain('#8 (rewound) system: sys-two');
  expect(all.stdout).toMatch(/#10 you: charlie/);
  expect((await t.agents.history(agentId)).slice(0, 8)).toEqual(before);

  // Continue-as-new: more turns until the run moves on; the requests still leave the rewound turn out.
  const rewindRunId = await runWithUpdate(agentId, 'rewind');
  for (let k = 1; k <= 20 && (await t.agents.handle(agentId).describe()).runId === rewindRunId; k++) {
    expect(await t.agents.ask(agentId, `turn-${k}`)).toMatchObject({ status: 'answered' });
  }
  expect((await t.agents.handle(agentId).describe()).runId).not.toBe(rewindRunId);
  const requestsBefore = fake.requests.length;
  expect(await t.agents.ask(agentId, 'delta')).toMatchObject({ status: 'answered' });
  const afterCan = fake.requests.at(-1)!;
  expect(fake.requests.length).toBe(requestsBefore + 1);
  expect(messagesOf(afterCan)).toMatch(/alpha[\s\S]*charlie[\s\S]*delta/);
  for (const gone of ['bravo', NOTE, 'sys-two']) expect(messagesOf(afterCan)).not.toContain(gone);
  expect((await t.agents.state(agentId)).notebook).not.toContain(NOTE);

  // Export → import: the copy's next request is the one the source sends for the same input.
  const exported = await t.agents.export(agentId);
  let text = '';
  for await (const piece of exported.text) text += piece;
  const snapshot: AgentSnapshot = readSnapshot(JSON.parse(text));
  expect(snapshot.entries.some((e) => e.kind === 'rewind' && e.toSeq === 3)).toBe(true);
  const copyId = uniqueId('rewind-copy');
  await t.agents.restore(copyId, snapshot);
  expect(await t.agents.ask(copyId, 'echo')).toMatchObject({ status: 'answered' });
  const fromCopy = fake.requests.at(-1)!;
  expect(await t.agents.ask(agentId, 'echo')).toMatchObject({ status: 'answered' });
  const fromSource = fake.requests.at(-1)!;
  expect(messagesOf(fromCopy)).toBe(messagesOf(fromSource));
  expect(JSON.stringify(fromCopy.body.tools)).toBe(JSON.stringify(fromSource.body.tools));
  expect(messagesOf(fromCopy)).not.toContain('bravo');
  await t.agents.stop(copyId);

  // The run that rewound replays, and is recorded for the replay suite.
  const handle = t.client.workflow.getHandle(agentId, rewindRunId);
  await Worker.runReplayHistory({ workflowBundle: workflowBundle() }, await handle.fetchHistory(), agentId);
  await maybeRecordHistory(handle, 'rewind_v1.json');
}, 400_000);
