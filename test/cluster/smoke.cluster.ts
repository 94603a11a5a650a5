/**
 * The integration scenarios, once each, on the production-like stack: Temporal on PostgreSQL with its
 * four services as separate processes, two livecontext worker processes on one task queue and two gateway
 * processes (`livecontext serve`). Each scenario starts an agent through one gateway and talks to it
 * through the other: tool loop, approval, streaming, continue-as-new, export/import.
 */
import type { HistoryEntry } from '../../agent/index';
import type { ChildWorker } from '../support/child-worker';
import { type FakeOpenAIServer, startFakeOpenAIServer } from '../support/fake-openai-server';
import { collectSse, type SseFrame } from '../support/sse-reader';
import { connectTest, eventually, type TestContext, uniqueId } from '../support/temporal';
import { type GatewayProcess, startGatewayProcess, startWorkerProcesses } from './cluster-processes';

const taskQueue = uniqueId('cluster-smoke');
let t: TestContext;
let fake: FakeOpenAIServer;
let workers: ChildWorker[] = [];
let a: GatewayProcess;
let b: GatewayProcess;

beforeAll(async () => {
  t = await connectTest(taskQueue);
  fake = await startFakeOpenAIServer();
  // Unscripted requests: an echo of the newest user text, about 3 KB of it for a "long" one.
  fake.respond = (req) => {
    const messages = req.body.messages as Array<{ role: string; content: string | null }>;
    const last = [...messages].reverse().find((m) => m.role === 'user');
    const text = String(last?.content ?? '').split('\n')[0];
    return { kind: 'stream', text: `echo ${text}${text.startsWith('long') ? ` ${'lorem ipsum '.repeat(250)}` : ''}` };
  };
  ({ workers } = await startWorkerProcesses(2, taskQueue, { OPENAI_API_KEY: fake.apiKey, OPENAI_BASE_URL: `${fake.url}/v1` }));
  [a, b] = await Promise.all([startGatewayProcess(taskQueue), startGatewayProcess(taskQueue)]);
});

afterAll(async () => {
  await Promise.all([a?.stop(), b?.stop(), ...workers.map((w) => w.kill('SIGTERM'))]);
  await fake?.close();
  await t?.close();
});

async function history(g: GatewayProcess, id: string): Promise<HistoryEntry[]> {
  const res = await g.request('GET', `/agents/${id}/history`);
  expect(res.status).toBe(200);
  return res.body.entries ?? res.body;
}

test('tool loop: started on one gateway, asked on the other, the tools run on the workers', async () => {
  const id = uniqueId('loop');
  expect(await a.request('POST', '/agents', { agentId: id, model: 'scripted:loop', tools: ['record'] })).toMatchObject({ status: 201 });
  const asked = await b.request('POST', `/agents/${id}/input?wait=1`, { text: 'go' });
  expect(asked).toMatchObject({ status: 200, body: { outcome: { status: 'answered', answer: { contents: ['all done'] } } } });
  const entries = await history(a, id);
  const results = entries.filter((e) => e.kind === 'tool_results');
  expect(results).toHaveLength(1);
  expect(JSON.stringify(results[0])).toContain('one');
  expect(JSON.stringify(results[0])).toContain('two');
});

test('approval: each call waits for a person; approved on one gateway, denied on the other', async () => {
  const id = uniqueId('approve');
  expect(await a.request('POST', '/agents', { agentId: id, model: 'scripted:loop', tools: ['record'], approval: { record: 'always' } })).toMatchObject({
    status: 201,
  });
  const sent = await a.request('POST', `/agents/${id}/input`, { text: 'go' });
  expect(sent.status).toBe(202);
  const first = await eventually(async () => (await b.request('GET', `/agents/${id}`)).body.awaitingApproval?.[0], 60_000, 'the first approval request');
  expect(await b.request('POST', `/agents/${id}/tool-calls/${first.toolCallId}/approve`, { by: 'alice' })).toMatchObject({ status: 200 });
  const second = await eventually(
    async () => {
      const waiting = (await a.request('GET', `/agents/${id}`)).body.awaitingApproval?.[0];
      return waiting && waiting.toolCallId !== first.toolCallId ? waiting : undefined;
    },
    60_000,
    'the second approval request',
  );
  expect(await a.request('POST', `/agents/${id}/tool-calls/${second.toolCallId}/deny`, { by: 'bob', reason: 'not today' })).toMatchObject({ status: 200 });
  expect(await b.request('GET', `/agents/${id}/answers/${sent.body.inputSeq}`)).toMatchObject({
    status: 200,
    body: { status: 'answered', answer: { contents: ['all done'] } },
  });
  const results = JSON.stringify((await history(b, id)).filter((e) => e.kind === 'tool_results'));
  expect(results).toContain('not today');
});

test('streaming: a reader on one gateway sees the answer grow while the other takes the input', async () => {
  const id = uniqueId('stream');
  const text = Array.from({ length: 20 }, (_, i) => `word${i}`).join(' ');
  expect(await a.request('POST', '/agents', { agentId: id, model: 'openai:gpt-4.1-mini' })).toMatchObject({ status: 201 });
  let seen: SseFrame[] = [];
  const live = collectSse(`${b.url}/agents/${id}/events`, {}, (f, all) => ((seen = all), f.event.type === 'RUN_FINISHED'));
  await eventually(() => seen.length > 0, 30_000, 'the event stream to open');
  fake.enqueue({ kind: 'stream', text, chunkDelayMs: 60 });
  expect(await a.request('POST', `/agents/${id}/input`, { text: 'talk' })).toMatchObject({ status: 202 });
  const { frames, error } = await live;
  expect(error).toBeUndefined();
  const events = frames.map((f) => f.event);
  const answerId = events.find((e) => e.type === 'TEXT_MESSAGE_START' && e.role === 'assistant')?.messageId;
  const deltas = events.filter((e) => e.type === 'TEXT_MESSAGE_CONTENT' && e.messageId === answerId);
  expect(deltas.length).toBeGreaterThanOrEqual(4); // it streamed in pieces, not as one message
  expect(deltas.map((d) => d.delta).join('')).toBe(text);
});

test('continue-as-new: inputs through both gateways are answered once, in order, across runs', async () => {
  const id = uniqueId('can');
  expect(await a.request('POST', '/agents', { agentId: id, model: 'openai:gpt-4.1-mini', historyBudgetBytes: 40_000 })).toMatchObject({ status: 201 });
  const inputs = Array.from({ length: 16 }, (_, i) => `long-${i}`);
  let lastSeq = 0;
  for (const [i, text] of inputs.entries()) {
    const res = await (i % 2 ? b : a).request('POST', `/agents/${id}/input`, { text });
    expect(res.status).toBe(202);
    lastSeq = res.body.inputSeq;
  }
  expect(await a.request('GET', `/agents/${id}/answers/${lastSeq}`)).toMatchObject({ status: 200, body: { status: 'answered' } });
  const runs: string[] = [];
  for await (const wf of t.client.workflow.list({ query: `WorkflowId = '${id}'` })) runs.push(wf.runId);
  expect(runs.length).toBeGreaterThanOrEqual(2);
  const entries = await history(b, id);
  expect(entries.map((e) => e.seq)).toEqual(entries.map((_, i) => i + 1));
  const answered = entries.flatMap((e) => (e.kind === 'model_output' ? [e.contents[0].split(' ')[1]] : []));
  expect(answered).toEqual(inputs);
});

test('export on one gateway, import on the other: the agent goes on with its history', async () => {
  const id = uniqueId('export');
  expect(await a.request('POST', '/agents', { agentId: id, model: 'scripted:echo' })).toMatchObject({ status: 201 });
  expect(await a.request('POST', `/agents/${id}/input?wait=1`, { text: 'first' })).toMatchObject({ status: 200, body: { outcome: { status: 'answered' } } });
  const exported = await a.request('GET', `/agents/${id}/export`);
  expect(exported.status).toBe(200);
  const copy = uniqueId('imported');
  const { sourceAgentId, ...snapshot } = exported.body;
  expect(sourceAgentId).toBe(id);
  expect(await b.request('POST', '/agents/import', { snapshot, agentId: copy })).toMatchObject({ status: 201 });
  expect(await b.request('POST', `/agents/${copy}/input?wait=1`, { text: 'second' })).toMatchObject({
    status: 200,
    body: { outcome: { status: 'answered', answer: { contents: ['echo: second'] } } },
  });
  const texts = (await history(a, copy)).flatMap((e) => (e.kind === 'model_output' ? e.contents : []));
  expect(texts).toEqual(['echo: first', 'echo: second']);
});
