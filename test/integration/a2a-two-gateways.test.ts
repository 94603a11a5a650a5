/**
 * The must-show, end to end as a user runs it: two `livecontext serve` gateways, each with its own token.
 * A caller drives agent A through gateway A with @a2a-js/sdk's client (SendStreamingMessage); A's worker
 * (a process of its own, `a2aAgents` naming agent B's card at gateway B, B's token read from its
 * environment by `tokenEnv`) delegates to agent B over A2A; A's worker is SIGKILLed while B's task runs and
 * a new one started. The caller's task at gateway A ends `completed` with B's answer as its artifact; B took
 * the message once; neither token is in what A or B keep (their raw Temporal histories included).
 */
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type StreamResponse, TaskState } from '@a2a-js/sdk';
import { z } from 'zod';
import { defineTool } from '../../activities/index';
import type { ToolResultsEntry } from '../../agent/index';
import { callsInput } from '../fixtures/calls-script';
import { waitForFile } from '../fixtures/test-tools';
import { a2aClient, eventShape, partsText, taskOf, userMessage } from '../support/a2a-client';
import { type ChildGateway, startChildGateway } from '../support/child-gateway';
import { type ChildWorker, startChildWorker } from '../support/child-worker';
import { useProviderServers } from '../support/provider-servers';
import { keptTexts } from '../support/raw-text';
import { type TestContext, connectTest, eventually, uniqueId, withWorker } from '../support/temporal';

const { t, p, taskQueue } = useProviderServers('a2a-gw-b');
const queueA = uniqueId('a2a-gw-a');
const TOKEN_A = `gw-a-token-${uniqueId('secret')}`;
const TOKEN_B = `gw-b-token-${uniqueId('secret')}`;
const controlDir = mkdtempSync(path.join(tmpdir(), 'lc-a2a-2gw-'));
let tA: TestContext;
let workerA: ChildWorker | undefined;
const gateways: ChildGateway[] = [];

/** B's `lookup`: says it started, then waits for the test's `go` file. */
const lookupTool = defineTool({
  name: 'lookup',
  description: 'Look a topic up.',
  parameters: z.object({ topic: z.string() }),
  async execute({ topic }, ctx) {
    writeFileSync(path.join(controlDir, 'started'), '');
    await waitForFile(path.join(controlDir, 'go'), ctx.signal);
    return `the answer on ${topic} is 42`;
  },
});

/** A's worker: agent B at gateway B is its tool `agent_b`, B's token only in its environment. */
function startWorkerA(agentBUrl: string): Promise<ChildWorker> {
  const config = { a2aAgents: { agent_b: { url: agentBUrl, tokenEnv: 'AGENT_B_TOKEN' } } };
  return startChildWorker({
    fixture: 'a2a-worker.ts',
    taskQueue: queueA,
    workspaceRoot: mkdtempSync(path.join(tmpdir(), 'lc-a2a-2gw-a-')),
    extraEnv: { A2A_CONFIG: JSON.stringify(config), AGENT_B_TOKEN: TOKEN_B },
  });
}

/** A stream's events, into `into`, until it ends; an error ending it is returned (and the test shows it). */
async function collect(stream: AsyncGenerator<StreamResponse>, into: StreamResponse[]): Promise<unknown> {
  try {
    for await (const e of stream) into.push(e);
  } catch (err) {
    return err;
  }
  return undefined;
}

const isTextChunk = (e: StreamResponse) => e.payload?.$case === 'artifactUpdate' && e.payload.value.artifact!.artifactId.startsWith('text-');

beforeAll(async () => (tA = await connectTest(queueA)));
afterAll(async () => {
  await workerA?.kill('SIGKILL');
  for (const g of gateways) await g.kill();
  await tA?.close();
});

test('a caller drives agent A over A2A at gateway A; A delegates to agent B at gateway B; A’s worker is SIGKILLed while B works; the caller’s task ends completed with B’s answer', async () => {
  const agentA = uniqueId('a');
  const agentB = uniqueId('b');
  p.openai.enqueue(
    { kind: 'stream', text: '', toolCalls: [{ id: 'call_lookup', name: 'lookup', arguments: '{"topic":"life"}' }] },
    { kind: 'stream', text: 'B says: the answer is 42.' },
  );
  await withWorker({ taskQueue, models: p.models(), tools: [lookupTool], workspaceRoot: controlDir }, async () => {
    // Two gateways, each a `livecontext serve` process with its own token: B's for B's agents, A's for A's.
    const gatewayB = await startChildGateway(taskQueue, 0, TOKEN_B);
    gateways.push(gatewayB);
    const gatewayA = await startChildGateway(queueA, 0, TOKEN_A);
    gateways.push(gatewayA);
    await t.agents.start(agentB, { model: 'openai:gpt-4.1-mini', tools: ['lookup'] });
    const agentBUrl = `${gatewayB.url}/a2a/agents/${agentB}/`;
    workerA = await startWorkerA(agentBUrl);
    await tA.agents.start(agentA, { model: 'scripted:relay' });

    // The caller's message to A (at gateway A, with A's token) makes A call `agent_b`.
    const caller = await a2aClient(gatewayA.url, agentA, TOKEN_A);
    const events: StreamResponse[] = [];
    const message = userMessage(uniqueId('msg'), callsInput([{ name: 'agent_b', args: { message: 'What is the answer on life?' } }]));
    const streaming = collect(caller.sendMessageStream(message), events);
    await eventually(() => events.length > 0, 60_000, 'the caller’s stream to begin');
    const taskId = taskOf(events[0])!.id;
    expect(taskId).toBe(`turn-1@${agentA}`);

    // B works on A's message (its tool waits for the test); A's call holds B's task id in its heartbeat details.
    await eventually(() => existsSync(path.join(controlDir, 'started')), 60_000, 'B’s tool to start');
    const taskB = await eventually(
      async () => (await tA.agents.toolProgress(agentA)).map((x) => (x.details as { a2a_task_id?: string } | undefined)?.a2a_task_id).find(Boolean),
      60_000,
      'B’s task id in A’s heartbeat details',
    );
    expect(taskB).toBe(`turn-1@${agentB}`);
    await workerA.kill('SIGKILL');
    // Gateway A sees A without a worker (REST says so) while the caller's stream is open; then a new one.
    await eventually(
      async () => (await fetch(`${gatewayA.url}/agents/${agentA}`, { headers: { authorization: `Bearer ${TOKEN_A}` } })).status === 503,
      60_000,
      'gateway A to find no worker for A',
    );
    workerA = await startWorkerA(agentBUrl);
    writeFileSync(path.join(controlDir, 'go'), '');

    // The caller's stream goes on across the SIGKILL: gateway A reads the task from agent A, and waits for
    // A's next worker while there is none. It ends where the task does: B's answer, completed.
    await expect(streaming).resolves.toBeUndefined();
    const shapes = events.filter((e) => !isTextChunk(e)).map(eventShape);
    expect(shapes.slice(-2)).toEqual(['artifact:B says: the answer is 42.', `status:${TaskState.TASK_STATE_COMPLETED}`]);

    const task = await caller.getTask({ id: taskId, tenant: '' });
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(task.artifacts.map(partsText)).toEqual(['B says: the answer is 42.']);

    // A's call followed B's same task after the SIGKILL (reconciled), and B took the message once.
    const results = ((await tA.agents.history(agentA)).find((e) => e.kind === 'tool_results') as ToolResultsEntry).results;
    expect(results).toEqual([
      expect.objectContaining({
        toolName: 'agent_b',
        status: 'Success',
        result: 'B says: the answer is 42.',
        metadata: expect.objectContaining({ reconciled: true, a2a_task_id: taskB, a2a_state: 'completed' }),
      }),
    ]);
    const inputsB = (await t.agents.history(agentB)).filter((e) => e.kind === 'model_input');
    expect(inputsB).toHaveLength(1);
    expect(JSON.stringify(inputsB[0])).toContain('What is the answer on life?');
    expect((await t.agents.state(agentB)).nextInputSeq).toBe(2);
    expect(p.openai.requests).toHaveLength(2);

    // Neither gateway's token is in what A or B keep: raw Temporal histories (payloads decoded), entries, state, snapshot.
    for (const text of [...(await keptTexts(tA.agents, agentA)), ...(await keptTexts(t.agents, agentB))]) {
      expect(text).not.toContain(TOKEN_A);
      expect(text).not.toContain(TOKEN_B);
    }
  });
}, 300_000);
