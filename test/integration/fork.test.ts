/**
 * Fork (issue 30), end to end on the dev server with a worker process and the OpenAI wire fake: a fork at
 * a turn boundary in the middle of a tool loop's history sends its next model call exactly what the source
 * sent from the same point (request bodies compared), the source is untouched (history and state), the
 * lineage is recorded and listed; a fork at an input runs that turn again, through a worker SIGKILL and
 * continue-as-new; bad input is refused and creates nothing. Compare runs one turn on two models (the
 * OpenAI and Anthropic wire fakes) side by side.
 */
import { WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError } from '@temporalio/client';
import { type HistoryEntry, InputRejectedError } from '../../agent/index';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type ChildWorker, startChildWorker } from '../support/child-worker';
import { type FakeAnthropicServer, startFakeAnthropicServer } from '../support/fake-anthropic-server';
import { type FakeOpenAIResponse, type FakeOpenAIServer, type RecordedOpenAIRequest, startFakeOpenAIServer } from '../support/fake-openai-server';
import { maybeRecordHistory } from '../support/record-history';
import { connectTest, eventually, type TestContext, uniqueId } from '../support/temporal';

const taskQueue = uniqueId('fork');
const workspaceRoot = mkdtempSync(path.join(tmpdir(), 'lc-ws-'));
let worker: ChildWorker | undefined;
const file = {
  t: undefined as unknown as TestContext,
  /** SIGKILLs the worker running, if any, and starts another (the provider worker, on the wire fakes). */
  async restart() {
    await worker?.kill('SIGKILL');
    worker = await startChildWorker({ taskQueue, workspaceRoot, fixture: 'provider-worker.ts', extraEnv: workerEnv() });
  },
};
let openai: FakeOpenAIServer;
let anthropic: FakeAnthropicServer;
let hangNext = false;

/** A turn whose text says "look it up" calls `lookup` once, then answers; other turns answer at once. */
function script(r: RecordedOpenAIRequest): FakeOpenAIResponse {
  if (hangNext) {
    hangNext = false;
    return { kind: 'hang' };
  }
  const messages = r.body.messages as Array<{ role: string; content: unknown }>;
  const last = messages[messages.length - 1];
  if (last.role === 'tool') return { kind: 'stream', text: `looked up for turn ${messages.filter((m) => m.role === 'user').length}` };
  const text = JSON.stringify(last.content);
  if (text.includes('look it up')) return { kind: 'stream', toolCalls: [{ name: 'lookup', arguments: '{}' }] };
  return { kind: 'stream', text: `answer to ${text.slice(0, 40)}` };
}

/** A request's body but for `user`, the hash of the agent's id that OpenAI requests carry (the fork is another agent). */
function sentFor(index: number) {
  const { user, ...body } = openai.requests[index].body as Record<string, unknown>;
  expect(user).toMatch(/^lc_/);
  return body;
}

beforeAll(async () => {
  file.t = await connectTest(taskQueue);
  openai = await startFakeOpenAIServer();
  anthropic = await startFakeAnthropicServer();
  openai.respond = script;
  anthropic.respond = () => ({ kind: 'stream', text: 'the anthropic answer' });
  await file.restart();
});
afterAll(async () => {
  await worker?.kill();
  await file.t?.close();
  await openai?.close();
  await anthropic?.close();
});

const workerEnv = () => ({
  OPENAI_API_KEY: openai.apiKey,
  OPENAI_BASE_URL: `${openai.url}/v1`,
  ANTHROPIC_API_KEY: anthropic.apiKey,
  ANTHROPIC_BASE_URL: anthropic.url,
});

/** A source agent with two tool-loop turns and a plain one; returns where turn 2's first request is in the fake's log. */
async function sourceAgent() {
  const { t } = file;
  const agentId = uniqueId('source');
  await t.agents.start(agentId, { model: 'openai:gpt-4.1-mini', tools: ['lookup'], systemInstruction: 'You are a test agent.' });
  await t.agents.updateNotebook(agentId, { set: 'kept at the fork point' });
  expect(await t.agents.ask(agentId, 'first: look it up')).toMatchObject({ status: 'answered' });
  const turn2Request = openai.requests.length;
  expect(await t.agents.ask(agentId, 'second: look it up')).toMatchObject({ status: 'answered' });
  await t.agents.updateNotebook(agentId, { set: 'written after the fork point' });
  expect(await t.agents.ask(agentId, 'third')).toMatchObject({ status: 'answered' });
  const history = await t.agents.history(agentId);
  const turnEnds = history.filter((e) => e.kind === 'model_output' && e.toolCalls.length === 0);
  const inputs = history.filter((e) => e.kind === 'model_input');
  return { agentId, history, turn2Request, turn1End: turnEnds[0].seq, turn2Input: inputs[1] };
}

test('a fork at a turn boundary mid tool loop sends what the source sent from there; the source is untouched', async () => {
  const { t } = file;
  const source = await sourceAgent();
  const sourceRun = (await t.agents.handle(source.agentId).describe()).runId;
  const before = { history: source.history, state: await t.agents.state(source.agentId), snapshot: await t.agents.snapshot(source.agentId) };
  // The turn_end point is in the middle of the tool loops' history: tool calls and results on both sides.
  expect(source.history.filter((e) => e.seq < source.turn1End && e.kind === 'tool_results')).toHaveLength(1);
  expect(source.history.filter((e) => e.seq > source.turn1End && e.kind === 'tool_results')).toHaveLength(1);

  const forkId = `${source.agentId}-fork`;
  const result = await t.agents.fork(source.agentId, { at: source.turn1End, as: forkId });
  expect(result).toMatchObject({ agentId: forkId, point: 'turn_end', forkedFrom: { agentId: source.agentId, runId: sourceRun, seq: source.turn1End } });

  // The fork: the source's entries up to the point, same seqs; widgets as they were there; its lineage.
  expect(await t.agents.history(forkId)).toEqual(source.history.filter((e) => e.seq <= source.turn1End));
  const forkState = await t.agents.state(forkId);
  expect(forkState.notebook).toBe('kept at the fork point');
  expect(forkState.config.forkedFrom).toEqual({ agentId: source.agentId, runId: sourceRun, seq: source.turn1End });
  expect(forkState.blockedOn).toBe('input');

  // Its next model call is sent exactly what the source's was sent after the same point with the same input.
  const sent = openai.requests.length;
  expect(await t.agents.ask(forkId, 'second: look it up')).toMatchObject({ status: 'answered' });
  expect(sentFor(sent)).toEqual(sentFor(source.turn2Request));

  // The source is untouched: the same history, state and snapshot as before the fork.
  expect(await t.agents.history(source.agentId)).toEqual(before.history);
  expect(await t.agents.state(source.agentId)).toEqual(before.state);
  expect(await t.agents.snapshot(source.agentId)).toEqual(before.snapshot);

  // The source lists its forks (visibility; eventually consistent).
  const forks = await eventually(
    async () => {
      const list = await t.agents.forks(source.agentId);
      return list.length ? list : undefined;
    },
    30_000,
    'the fork to be listed',
  );
  expect(forks).toEqual([expect.objectContaining({ agentId: forkId, forkedFrom: { agentId: source.agentId, runId: sourceRun, seq: source.turn1End } })]);
  await maybeRecordHistory(t.agents.handle(forkId), 'fork_v1.json');

  // Bad input: a clear error, and nothing is created.
  const toolResults = source.history.find((e) => e.kind === 'tool_results')!;
  await expect(t.agents.fork(source.agentId, { at: toolResults.seq, as: `${forkId}-x` })).rejects.toThrow(
    expect.objectContaining({
      code: 'BAD_FORK_POINT',
      message: expect.stringMatching(/is a tool_results entry: a valid point is .* Nearest valid points: #\d+, #\d+\./),
    }),
  );
  await expect(t.agents.fork(source.agentId, { at: 9999, as: `${forkId}-x` })).rejects.toThrow(InputRejectedError);
  await expect(t.agents.fork(source.agentId, { at: source.turn1End, as: forkId })).rejects.toThrow(WorkflowExecutionAlreadyStartedError);
  await expect(t.agents.fork(`${source.agentId}-nobody`, { at: 1, as: `${forkId}-x` })).rejects.toThrow(WorkflowNotFoundError);
  await expect(t.agents.fork(source.agentId, { at: source.turn1End, as: `${forkId}-x`, model: 'no-provider' })).rejects.toThrow(
    expect.objectContaining({ code: 'BAD_CONFIG' }),
  );
  await expect(t.agents.handle(`${forkId}-x`).describe()).rejects.toThrow(WorkflowNotFoundError);
  expect(await t.agents.history(source.agentId)).toEqual(before.history);
});

test('a fork at an input runs that turn again, through a worker SIGKILL and continue-as-new', async () => {
  const { t } = file;
  const source = await sourceAgent();
  const forkId = `${source.agentId}-again`;
  const sent = openai.requests.length;
  hangNext = true; // the fork's first model call never ends: its worker is killed while it waits
  const result = await t.agents.fork(source.agentId, { at: source.turn2Input.seq, as: forkId });
  expect(result.point).toBe('model_input');
  await eventually(() => openai.requests.length > sent, 60_000, "the fork's model call");
  await file.restart();

  const inputSeq = source.turn2Input.kind === 'model_input' ? source.turn2Input.inputSeq! : 0;
  expect(await t.agents.waitForAnswer(forkId, inputSeq)).toMatchObject({ status: 'answered' });
  // Both attempts (the killed one and its retry) were sent exactly what the source sent for that input.
  expect(sentFor(sent)).toEqual(sentFor(source.turn2Request));
  expect(sentFor(sent + 1)).toEqual(sentFor(source.turn2Request));
  const history = await t.agents.history(forkId);
  expect(history.filter((e) => e.seq <= source.turn2Input.seq)).toEqual(source.history.filter((e) => e.seq <= source.turn2Input.seq));
  expect(history.filter((e) => e.seq > source.turn2Input.seq).map((e) => e.kind)).toEqual(['model_output', 'tool_results', 'model_output']);

  // Continue-as-new after every step: the fork moves on through new runs and keeps its lineage.
  const firstRun = (await t.agents.handle(forkId).describe()).runId;
  await t.agents.configure(forkId, { historyBudgetBytes: 1 });
  expect(await t.agents.ask(forkId, 'fourth: look it up')).toMatchObject({ status: 'answered' });
  expect((await t.agents.handle(forkId).describe()).runId).not.toBe(firstRun);
  expect((await t.agents.state(forkId)).config.forkedFrom).toMatchObject({ agentId: source.agentId, seq: source.turn2Input.seq });
  const after = await t.agents.history(forkId);
  expect(after.map((e) => e.seq)).toEqual(after.map((_, i) => i + 1));
  await eventually(
    async () => (await t.agents.forks(source.agentId)).some((f) => f.agentId === forkId && f.status === 'RUNNING'),
    30_000,
    'the fork listed after continue-as-new',
  );
  const history2: HistoryEntry[] = await t.agents.history(source.agentId);
  expect(history2).toEqual(source.history);
});

test('compare runs the turn of an input on two models (OpenAI and Anthropic wire fakes), side by side', async () => {
  const { t } = file;
  const source = await sourceAgent();
  const results = await t.agents.compare(source.agentId, { at: source.turn2Input.seq, models: ['openai:gpt-4.1-mini', 'anthropic:claude-sonnet-4-6'] });
  expect(results.map((r) => [r.model, r.status])).toEqual([
    ['openai:gpt-4.1-mini', 'answered'],
    ['anthropic:claude-sonnet-4-6', 'answered'],
  ]);
  expect(results[0].text).toMatch(/^looked up for turn 2/);
  expect(results[1].text).toBe('the anthropic answer');
  for (const r of results) {
    expect(r.usage.inputTokens).toBeGreaterThan(0);
    expect(r.usage.outputTokens).toBeGreaterThan(0);
    expect(r.durationMs).not.toBeNull();
  }
  expect(results[0].usage.modelCalls).toBe(2); // the tool loop: a call, the tool, the answer
  // The Anthropic fork was sent the source's conversation up to the input, in Anthropic's form.
  const lastAnthropic = anthropic.requests[anthropic.requests.length - 1].body;
  expect(JSON.stringify(lastAnthropic.messages)).toContain('first: look it up');
  expect(lastAnthropic.model).toBe('claude-sonnet-4-6');
  // The forks remain as agents, listed by the source.
  for (const r of results) expect((await t.agents.state(r.agentId)).config).toMatchObject({ model: r.model, forkedFrom: { seq: source.turn2Input.seq } });
  // An input is needed: a turn's end is refused before any fork starts.
  await expect(
    t.agents.compare(source.agentId, { at: source.turn1End, models: ['openai:gpt-4.1-mini'], forkId: (m) => `${source.agentId}-${m.length}` }),
  ).rejects.toThrow(expect.objectContaining({ code: 'BAD_FORK_POINT' }));
  await expect(t.agents.handle(`${source.agentId}-19`).describe()).rejects.toThrow(WorkflowNotFoundError);

  // A fork with its own instruction: the turn runs again with it, on the same conversation.
  const sent = openai.requests.length;
  await t.agents.fork(source.agentId, { at: source.turn2Input.seq, as: `${source.agentId}-fr`, systemInstruction: 'Answer in French.' });
  const inputSeq = source.turn2Input.kind === 'model_input' ? source.turn2Input.inputSeq! : 0;
  expect(await t.agents.waitForAnswer(`${source.agentId}-fr`, inputSeq)).toMatchObject({ status: 'answered' });
  const [system, ...conversation] = sentFor(sent).messages as unknown[];
  const [sourceSystem, ...sourceConversation] = sentFor(source.turn2Request).messages as unknown[];
  expect(JSON.stringify(system)).toContain('Answer in French.');
  expect(JSON.stringify(sourceSystem)).toContain('You are a test agent.');
  expect(conversation).toEqual(sourceConversation);
  await maybeRecordHistory(t.agents.handle(`${source.agentId}-fr`), 'fork-at-input_v1.json');
});
