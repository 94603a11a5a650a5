/**
 * One livecontext agent delegates to another over A2A, two gateways' worth: agent B is served by a
 * gateway (its own worker, the fake OpenAI server as its model, a tool that runs until the test lets it
 * finish); agent A's worker is a process of its own whose `a2aAgents` names B's card, with B's gateway
 * token read from an environment variable. A's model calls the `agent_b` tool; A's worker is SIGKILLed
 * while B's task runs; the next worker follows the same remote task (its id was in the call's heartbeat
 * details) and A's turn ends with B's answer — B got the message once. Then a remote `input-required`:
 * B's tool waits for approval, A's call returns what B asks with its task id, and A's next call, on the
 * same task, approves it. An interrupt of A cancels B's task; a resent message (same id) is B's same task.
 */
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { defineTool } from '../../activities/index';
import { A2aAgentConnection } from '../../activities/a2a/a2a-connection';
import { a2aTool } from '../../activities/a2a/a2a-tool';
import type { ToolContext } from '../../activities/tools/define-tool';
import type { ToolResultsEntry } from '../../agent/index';
import { type RunningGateway, serveGateway } from '../../gateway/serve-gateway';
import { tokensFromEnv } from '../../gateway/tokens';
import { callsInput } from '../fixtures/calls-script';
import { waitForFile } from '../fixtures/test-tools';
import { type ChildWorker, startChildWorker } from '../support/child-worker';
import { useProviderServers } from '../support/provider-servers';
import { type TestContext, connectTest, eventually, uniqueId, withWorker } from '../support/temporal';

const { t, p, taskQueue } = useProviderServers('a2a-b');
const queueA = uniqueId('a2a-a');
const TOKEN = `b-token-${uniqueId('secret')}`;
const model = 'openai:gpt-4.1-mini';
const controlDir = mkdtempSync(path.join(tmpdir(), 'lc-a2a-b-'));
let tA: TestContext;
let workerA: ChildWorker | undefined;

/** B's `lookup`: records each run, then waits for the test's `go-<topic>` file. */
const lookupTool = defineTool({
  name: 'lookup',
  description: 'Look a topic up.',
  parameters: z.object({ topic: z.string() }),
  async execute({ topic }, ctx) {
    writeFileSync(path.join(controlDir, `started-${topic}`), '');
    await waitForFile(path.join(controlDir, `go-${topic}`), ctx.signal);
    return `the answer on ${topic} is 42`;
  },
});
/** B's `publish`: needs a person's approval. */
const publishTool = defineTool({
  name: 'publish',
  description: 'Publish a note.',
  parameters: z.object({ note: z.string() }),
  needsApproval: () => 'publishing needs approval',
  execute: ({ note }) => `published ${note}`,
});

function startWorkerA(cardUrl: string): Promise<ChildWorker> {
  const config = { a2aAgents: { agent_b: { url: cardUrl, tokenEnv: 'AGENT_B_TOKEN' } } };
  return startChildWorker({
    fixture: 'a2a-worker.ts',
    taskQueue: queueA,
    workspaceRoot: mkdtempSync(path.join(tmpdir(), 'lc-a2a-a-')),
    extraEnv: { A2A_CONFIG: JSON.stringify(config), AGENT_B_TOKEN: TOKEN },
  });
}

/** B's inputs, from its history. */
const inputsOf = async (agentId: string) => (await t.agents.history(agentId)).filter((e) => e.kind === 'model_input');

beforeAll(async () => (tA = await connectTest(queueA)));
afterAll(async () => {
  await workerA?.kill('SIGKILL');
  await tA?.close();
});

async function withAgentB(fn: (gateway: RunningGateway) => Promise<void>): Promise<void> {
  await withWorker({ taskQueue, models: p.models(), tools: [lookupTool, publishTool], workspaceRoot: controlDir }, async () => {
    const gateway = await serveGateway({
      agents: t.agents,
      tokens: tokensFromEnv({ LIVECONTEXT_GATEWAY_TOKEN: TOKEN }),
      port: 0,
      host: '127.0.0.1',
      log: () => {},
    });
    try {
      await fn(gateway);
    } finally {
      await gateway.close();
    }
  });
}

test('agent A delegates to agent B over A2A; A’s worker is SIGKILLed while B works; the next worker follows the same task; B got one message', async () => {
  const agentB = uniqueId('b');
  const agentA = uniqueId('a');
  p.openai.enqueue(
    { kind: 'stream', text: '', toolCalls: [{ id: 'call_lookup', name: 'lookup', arguments: '{"topic":"life"}' }] },
    { kind: 'stream', text: 'B says: the answer is 42.' },
  );
  await withAgentB(async (gateway) => {
    await t.agents.start(agentB, { model, tools: ['lookup', 'publish'] });
    workerA = await startWorkerA(`${gateway.url}/a2a/agents/${agentB}/`);
    await tA.agents.start(agentA, { model: 'scripted:relay' });
    const { inputSeq } = await tA.agents.send(agentA, callsInput([{ name: 'agent_b', args: { message: 'What is the answer on life?' } }]));

    // B works on the message (its tool waits for the test); A's call holds B's task id in its heartbeat details.
    await eventually(() => existsSync(path.join(controlDir, 'started-life')), 60_000, 'B’s tool to start');
    const taskId = await eventually(
      async () => (await tA.agents.toolProgress(agentA)).map((x) => (x.details as { a2a_task_id?: string } | undefined)?.a2a_task_id).find(Boolean),
      60_000,
      'B’s task id in A’s heartbeat details',
    );
    expect(taskId).toBe(`turn-1@${agentB}`);
    await workerA.kill('SIGKILL');
    workerA = await startWorkerA(`${gateway.url}/a2a/agents/${agentB}/`);
    writeFileSync(path.join(controlDir, 'go-life'), '');

    await expect(tA.agents.waitForAnswer(agentA, inputSeq)).resolves.toMatchObject({ status: 'answered', answer: { contents: ['B says: the answer is 42.'] } });
    const historyA = await tA.agents.history(agentA);
    const results = (historyA.find((e) => e.kind === 'tool_results') as ToolResultsEntry).results;
    expect(results).toEqual([
      expect.objectContaining({
        toolName: 'agent_b',
        status: 'Success',
        result: 'B says: the answer is 42.',
        metadata: expect.objectContaining({ reconciled: true, a2a_task_id: taskId, a2a_state: 'completed' }),
      }),
    ]);
    // B got the message once (one input, one turn), whose id is A's call's idempotency key.
    expect(await inputsOf(agentB)).toHaveLength(1);
    expect((await t.agents.state(agentB)).nextInputSeq).toBe(2);
    expect(p.openai.requests).toHaveLength(2);
    // The token stays in A's worker: not in A's history.
    expect(JSON.stringify(historyA)).not.toContain(TOKEN);
  });
}, 300_000);

test('a remote input-required is A’s tool result (what B asks, its task id); A’s next call on that task approves, and B finishes', async () => {
  const agentB = uniqueId('b-ask');
  const agentA = uniqueId('a-ask');
  p.openai.enqueue(
    { kind: 'stream', text: '', toolCalls: [{ id: 'call_publish', name: 'publish', arguments: '{"note":"hello"}' }] },
    { kind: 'stream', text: 'Published the note.' },
  );
  await withAgentB(async (gateway) => {
    await t.agents.start(agentB, { model, tools: ['lookup', 'publish'] });
    workerA ??= await startWorkerA(`${gateway.url}/a2a/agents/${agentB}/`);
    await workerA.kill('SIGKILL');
    workerA = await startWorkerA(`${gateway.url}/a2a/agents/${agentB}/`); // this test's gateway
    await tA.agents.start(agentA, { model: 'scripted:calls' });
    const ask = async (args: Record<string, string>) => {
      const outcome = await tA.agents.ask(agentA, callsInput([{ name: 'agent_b', args }]));
      expect(outcome.status).toBe('answered');
      const entries = (await tA.agents.history(agentA)).filter((e) => e.kind === 'tool_results') as ToolResultsEntry[];
      return entries[entries.length - 1].results[0];
    };
    const first = await ask({ message: 'Publish the note "hello".' });
    expect(first).toMatchObject({ status: 'Success', metadata: { a2a_state: 'input-required', a2a_task_id: `turn-1@${agentB}`, a2a_context_id: agentB } });
    expect(first.result).toMatch(/needs input/);
    expect(first.result).toMatch(/publish/);
    const second = await ask({ message: 'approve', taskId: `turn-1@${agentB}`, contextId: agentB });
    expect(second).toMatchObject({ status: 'Success', result: 'Published the note.', metadata: { a2a_state: 'completed' } });
    expect(await inputsOf(agentB)).toHaveLength(1); // the approval answered B's wait; it was no new input
    // A2A tools are in the agent's recorded tool catalog, as MCP tools are.
    expect((await tA.agents.state(agentA)).mcpTools).toContain('agent_b');
  });
}, 300_000);

test('interrupting agent A while B works cancels B’s task (A2A CancelTask): B’s turn is interrupted', async () => {
  const agentB = uniqueId('b-stop');
  const agentA = uniqueId('a-stop');
  p.openai.enqueue({ kind: 'stream', text: '', toolCalls: [{ id: 'call_lookup2', name: 'lookup', arguments: '{"topic":"stop"}' }] });
  await withAgentB(async (gateway) => {
    await t.agents.start(agentB, { model, tools: ['lookup', 'publish'] });
    await workerA?.kill('SIGKILL');
    workerA = await startWorkerA(`${gateway.url}/a2a/agents/${agentB}/`);
    await tA.agents.start(agentA, { model: 'scripted:relay' });
    await tA.agents.send(agentA, callsInput([{ name: 'agent_b', args: { message: 'Look up stop.' } }]));
    await eventually(() => existsSync(path.join(controlDir, 'started-stop')), 60_000, 'B’s tool to start');
    await eventually(
      async () => (await tA.agents.toolProgress(agentA)).some((x) => (x.details as { a2a_task_id?: string } | undefined)?.a2a_task_id),
      60_000,
      'B’s task id in A’s heartbeat details',
    );
    await tA.agents.interrupt(agentA, 'test');
    await expect(t.agents.waitForAnswer(agentB, 1)).resolves.toMatchObject({ status: 'interrupted' });
  });
}, 300_000);

test('an attempt whose worker died before the task id was known sends the same message again: the same message id, the same task at B', async () => {
  const agentB = uniqueId('b-again');
  p.openai.enqueue({ kind: 'stream', text: 'B answered once.' });
  await withAgentB(async (gateway) => {
    await t.agents.start(agentB, { model, tools: ['lookup', 'publish'] });
    const connection = new A2aAgentConnection({
      name: 'agent_b',
      cardUrl: `${gateway.url}/a2a/agents/${agentB}/.well-known/agent-card.json`,
      token: TOKEN,
      secrets: [{ name: 'AGENT_B_TOKEN', value: TOKEN }],
    });
    const tool = a2aTool(connection);
    const beats: unknown[] = [];
    const ctx = (): ToolContext => ({
      agentId: 'agent-a',
      toolCallId: 'call_1',
      idempotencyKey: `agent-a/${uniqueId('call')}`,
      workspaceRoot: controlDir,
      signal: new AbortController().signal,
      heartbeat: (d) => beats.push(d),
    });
    const first = ctx();
    const once = await tool.execute({ message: 'Say something.' }, first);
    // The retried attempt found no task id in its details: reconcile says "not done", and the body sends again.
    await expect(tool.reconcile!({ message: 'Say something.' }, { ...first, previousDetails: { tool_call_id: 'call_1' } })).resolves.toEqual({ notDone: true });
    const again = await tool.execute({ message: 'Say something.' }, { ...first, previousDetails: { tool_call_id: 'call_1' } });
    expect(again).toEqual(once);
    expect(once).toMatchObject({ text: 'B answered once.', metadata: { a2a_task_id: `turn-1@${agentB}`, a2a_state: 'completed' } });
    expect(await inputsOf(agentB)).toHaveLength(1);
    expect((await t.agents.state(agentB)).nextInputSeq).toBe(2);
    expect(beats).toContainEqual(expect.objectContaining({ a2a_task_id: `turn-1@${agentB}` }));
    // A new call (another key) is a new message: B's next turn.
    p.openai.enqueue({ kind: 'stream', text: 'B answered twice.' });
    await expect(tool.execute({ message: 'Say more.' }, ctx())).resolves.toMatchObject({
      text: 'B answered twice.',
      metadata: { a2a_task_id: `turn-2@${agentB}` },
    });
  });
}, 300_000);
