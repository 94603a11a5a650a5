/**
 * Rewind to an archived entry (issue 30): an agent with a small working set, whose older turns are sealed
 * into its archive, is rewound to an answer inside a sealed segment. An activity reads that segment for
 * the state the agent goes on from (the instruction and notebook as they were there). The worker is
 * SIGKILLed, a new input arrives with none, a new worker answers: the request the wire fake got leaves
 * out everything after the point — archived turns, the notebook write, the later instruction and the
 * working set's turns — while `history --all` still shows them, marked. So do they after continue-as-new,
 * in an exported → imported copy, and in a fork of the rewound agent. The run replays; with
 * LIVECONTEXT_RECORD_HISTORIES=1 it is recorded as rewind_archived_v1.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Worker } from '@temporalio/worker';
import { readSnapshot } from '../../agent/index';
import { type ChildWorker, startChildWorker } from '../support/child-worker';
import { cli } from '../support/cli';
import { type FakeOpenAIServer, type RecordedOpenAIRequest, startFakeOpenAIServer } from '../support/fake-openai-server';
import { maybeRecordHistory } from '../support/record-history';
import { connectTest, type TestContext, uniqueId, workflowBundle } from '../support/temporal';

let t: TestContext;
let fake: FakeOpenAIServer;
let worker: ChildWorker | undefined;
const taskQueue = uniqueId('rewind-archive');
beforeAll(async () => {
  t = await connectTest(taskQueue);
  fake = await startFakeOpenAIServer();
});
afterAll(async () => {
  await worker?.kill();
  await fake?.close();
  await t?.close();
});

const NOTE = 'NOTE-9K4';
const PAD = ' lorem ipsum'.repeat(340); // answers of ~4 KB: a 16 KiB working set is passed every few turns
const messagesOf = (r: RecordedOpenAIRequest) => JSON.stringify(r.body.messages);

function lastUserText(r: RecordedOpenAIRequest): string {
  const messages = r.body.messages as Array<{ role: string; content: unknown }>;
  const last = [...messages].reverse().find((m) => m.role === 'user' || m.role === 'tool');
  if (last?.role === 'tool') return '(tool)';
  return typeof last?.content === 'string' ? last.content : JSON.stringify(last?.content);
}

async function runWithUpdate(agentId: string, name: string): Promise<string> {
  for await (const run of t.client.workflow.list({ query: `WorkflowId = '${agentId}'` })) {
    const events = (await t.client.workflow.getHandle(agentId, run.runId).fetchHistory()).events ?? [];
    if (events.some((e) => e.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest?.input?.name === name)) return run.runId;
  }
  throw new Error(`no run of ${agentId} took a ${name} update`);
}

test('rewind into a sealed segment, SIGKILL, a new input: the request leaves out what was rewound, archived or not; history --all keeps it', async () => {
  const env = {
    taskQueue,
    workspaceRoot: mkdtempSync(path.join(tmpdir(), 'lc-ws-')),
    fixture: 'provider-worker.ts',
    extraEnv: { OPENAI_API_KEY: fake.apiKey, OPENAI_BASE_URL: `${fake.url}/v1` },
  };
  fake.respond = (r) => {
    const text = lastUserText(r);
    if (text === '(tool)') return { kind: 'stream', text: 'C1: noted.' };
    if (text.includes('charlie: write a note'))
      return { kind: 'stream', toolCalls: [{ name: 'memory_notebook_replace', arguments: JSON.stringify({ old_text: '', new_text: NOTE }) }] };
    const word = /\b(alpha|bravo|delta|turn-\d+)\b/.exec(text)?.[1] ?? 'other';
    return { kind: 'stream', text: `answer to ${word}.${PAD}` };
  };
  worker = await startChildWorker(env);
  const agentId = uniqueId('rewind-archive');
  const cliEnv = { env: { LIVECONTEXT_TASK_QUEUE: taskQueue } };
  await t.agents.start(agentId, { model: 'openai:gpt-4.1-mini', systemInstruction: 'sys-one', workingSetBytes: 16 * 1024, historyBudgetBytes: 60_000 });

  // 1 instruction, 2 alpha, 3 answer, 4 bravo, 5 answer (the point) | 6 charlie, 7 notebook call, 8 result, 9 answer | 10 sys-two | turns…
  expect(await t.agents.ask(agentId, 'alpha')).toMatchObject({ status: 'answered' });
  expect(await t.agents.ask(agentId, 'bravo')).toMatchObject({ status: 'answered' });
  expect(await t.agents.ask(agentId, 'charlie: write a note')).toMatchObject({ status: 'answered', answer: { contents: ['C1: noted.'] } });
  await t.agents.configure(agentId, { systemInstruction: 'sys-two' });
  let inputs = 3;
  for (let k = 1; k <= 12; k++) {
    expect(await t.agents.ask(agentId, `turn-${k}`)).toMatchObject({ status: 'answered' });
    inputs++;
  }
  const before = await t.agents.snapshot(agentId);
  const refs = await t.agents.archive.allSegments(before.archive!);
  expect(refs.length).toBeGreaterThanOrEqual(2);
  expect(refs[0].toSeq).toBeGreaterThanOrEqual(10); // the point and what follows it are sealed
  const history = await t.agents.history(agentId);
  expect(history.slice(0, 10).map((e) => e.kind)).toEqual([
    'system_instruction',
    'model_input',
    'model_output',
    'model_input',
    'model_output',
    'model_input',
    'model_output',
    'tool_results',
    'model_output',
    'system_instruction',
  ]);
  const lastSeq = history.at(-1)!.seq;

  // An archived entry that is no valid point is refused, saying why (read from its segment); nothing changes.
  await expect(t.agents.rewind(agentId, 7)).rejects.toMatchObject({
    cause: { type: 'BAD_REWIND_POINT', message: expect.stringMatching(/#7 is a model output with tool calls.*#6, #9/) },
  });
  expect((await t.agents.state(agentId)).lastSeq).toBe(lastSeq);

  // The rewind, from the CLI: back to bravo's answer, sealed in the archive.
  const rewound = await cli(['rewind', agentId, '--to', '5', '--reason', 'charlie went wrong'], cliEnv);
  expect(rewound.code).toBe(0);
  expect(rewound.stdout).toMatch(new RegExp(`Rewound agent ".*" to #5 \\(rewind entry #${lastSeq + 1}; ${lastSeq - 5} entries no longer in force`));
  const state = await t.agents.state(agentId);
  expect(state).toMatchObject({ runState: 'WaitingInput', systemInstruction: 'sys-one', lastSeq: lastSeq + 1 });
  expect(state.notebook).not.toContain(NOTE);

  // The worker dies; input arrives with none; a new worker answers it.
  await worker.kill('SIGKILL');
  await t.agents.signal(agentId, 'delta');
  worker = await startChildWorker(env);
  expect(await t.agents.waitForAnswer(agentId, inputs + 1)).toMatchObject({
    status: 'answered',
    answer: { contents: [expect.stringMatching(/^answer to delta/)] },
  });
  const delta = fake.requests.filter((r) => r.body?.messages && lastUserText(r).includes('delta')).at(-1)!;
  expect(delta.body.messages[0]).toMatchObject({ role: 'system', content: expect.stringContaining('sys-one') });
  expect(messagesOf(delta)).toMatch(/alpha[\s\S]*answer to alpha[\s\S]*bravo[\s\S]*answer to bravo[\s\S]*delta/);
  for (const gone of ['charlie', 'C1: noted', NOTE, 'sys-two', 'memory_notebook_replace"', 'turn-1', 'turn-12']) expect(messagesOf(delta)).not.toContain(gone);

  // History keeps every entry: plain history leaves out what was rewound, --all shows it marked.
  const plain = await cli(['history', agentId], cliEnv);
  expect(plain.stdout).toMatch(new RegExp(`#${lastSeq + 1} ⟲ rewound to #5 by .*: charlie went wrong`));
  expect(plain.stdout).toContain('you: bravo');
  expect(plain.stdout).not.toContain('charlie: write a note');
  expect(plain.stdout).not.toContain('turn-12');
  const all = await cli(['history', agentId, '--all'], cliEnv);
  expect(all.stdout).toContain('#6 (rewound) you: charlie: write a note');
  expect(all.stdout).toContain('#10 (rewound) system: sys-two');
  expect(all.stdout).toMatch(new RegExp(`#${lastSeq} \\(rewound\\) `));
  expect(all.stdout).toContain('you: delta');
  expect((await t.agents.history(agentId)).slice(0, lastSeq)).toEqual(history);

  // A fork of the rewound agent goes on from what is in force; an archived entry the rewind took out is no point to fork at.
  const forkId = uniqueId('rewind-archive-fork');
  await t.agents.fork(agentId, { at: lastSeq + 3, as: forkId });
  expect(await t.agents.ask(forkId, 'golf')).toMatchObject({ status: 'answered' });
  const fromFork = fake.requests.at(-1)!;
  expect(messagesOf(fromFork)).toMatch(/answer to bravo[\s\S]*delta[\s\S]*golf/);
  for (const gone of ['charlie', NOTE, 'sys-two', 'turn-12']) expect(messagesOf(fromFork)).not.toContain(gone);
  await t.agents.stop(forkId);
  await expect(t.agents.fork(agentId, { at: 9, as: uniqueId('rewind-archive-fork') })).rejects.toThrow(/#9 was rewound/);

  // Continue-as-new: more turns until the run moves on; the requests still leave out what was rewound.
  const rewindRunId = await runWithUpdate(agentId, 'rewind');
  for (let k = 20; k < 40 && (await t.agents.handle(agentId).describe()).runId === rewindRunId; k++) {
    expect(await t.agents.ask(agentId, `turn-${k}`)).toMatchObject({ status: 'answered' });
  }
  expect((await t.agents.handle(agentId).describe()).runId).not.toBe(rewindRunId);
  expect(await t.agents.ask(agentId, 'foxtrot')).toMatchObject({ status: 'answered' });
  const afterCan = fake.requests.at(-1)!;
  expect(messagesOf(afterCan)).toMatch(/answer to bravo[\s\S]*delta[\s\S]*turn-20[\s\S]*foxtrot/);
  for (const gone of ['charlie', NOTE, 'sys-two', 'turn-12']) expect(messagesOf(afterCan)).not.toContain(gone);
  expect((await t.agents.state(agentId)).notebook).not.toContain(NOTE);

  // Export → import: the copy's next request is the one the source sends for the same input.
  const exported = await t.agents.export(agentId);
  let text = '';
  for await (const piece of exported.text) text += piece;
  const copyId = uniqueId('rewind-archive-copy');
  await t.agents.restore(copyId, readSnapshot(JSON.parse(text)));
  expect(await t.agents.ask(copyId, 'echo')).toMatchObject({ status: 'answered' });
  const fromCopy = fake.requests.at(-1)!;
  expect(await t.agents.ask(agentId, 'echo')).toMatchObject({ status: 'answered' });
  const fromSource = fake.requests.at(-1)!;
  expect(messagesOf(fromCopy)).toBe(messagesOf(fromSource));
  expect(messagesOf(fromCopy)).not.toContain('charlie');
  await t.agents.stop(copyId);

  // The run that rewound replays, and is recorded for the replay suite.
  const handle = t.client.workflow.getHandle(agentId, rewindRunId);
  await Worker.runReplayHistory({ workflowBundle: workflowBundle() }, await handle.fetchHistory(), agentId);
  await maybeRecordHistory(handle, 'rewind_archived_v1.json');
}, 400_000);
