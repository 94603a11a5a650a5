/**
 * Agents as A2A agents, driven by @a2a-js/sdk's own client. The cards (the default agent's, public; each
 * agent's, behind the gateway's token) and a plain turn as a task. Then what a task is made of: a turn
 * whose tool call waits for approval is `input-required`; the approval is the client's reply; the
 * gateway (`livecontext serve`, a process of its own) is SIGKILLed while the approved tool runs, and
 * started again; the client's resubscribe gets the rest from the agent, and the task ends completed with
 * the answer as its artifact — one tool run, two model calls, nothing kept by the gateway.
 */
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { appendFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type StreamResponse, type Task, type TaskArtifactUpdateEvent, TaskState } from '@a2a-js/sdk';
import { z } from 'zod';
import { defineTool } from '../../activities/index';
import { type RunningGateway, serveGateway } from '../../gateway/serve-gateway';
import { tokensFromEnv } from '../../gateway/tokens';
import { a2aClient, eventShape, partsText, taskOf, userMessage } from '../support/a2a-client';
import { startChildGateway } from '../support/child-gateway';
import { useProviderServers } from '../support/provider-servers';
import { eventually, uniqueId, withWorker } from '../support/temporal';
import { slowReportTool, waitForFile } from '../fixtures/test-tools';

const { t, p, taskQueue } = useProviderServers('a2a', { each: true });
const TOKEN = `a2a-${uniqueId('tok')}`;
const model = 'openai:gpt-4.1-mini';

/** `release`: a release that needs a person's approval and then waits until the test lets it finish. */
function releaseTool(controlDir: string) {
  return defineTool({
    name: 'release',
    description: 'Release a service.',
    parameters: z.object({ service: z.string() }),
    needsApproval: () => 'releases need approval',
    async execute({ service }, ctx) {
      await appendFile(path.join(controlDir, 'runs.log'), `${service}\n`);
      writeFileSync(path.join(controlDir, 'started'), '');
      await waitForFile(path.join(controlDir, 'go'), ctx.signal);
      return `released ${service}`;
    },
  });
}

/** A chunk of the model's streamed text (text-chunks.ts), not the answer's artifact. */
const isTextChunk = (e: StreamResponse) => e.payload?.$case === 'artifactUpdate' && e.payload.value.artifact!.artifactId.startsWith('text-');

async function collect(stream: AsyncGenerator<StreamResponse>, into: StreamResponse[] = []): Promise<StreamResponse[]> {
  for await (const e of stream) into.push(e);
  return into;
}

test('cards: the default agent’s is public and names the bearer scheme; each agent’s needs the token; a message is a turn, its answer the artifact', async () => {
  const agentId = uniqueId('a2a-card');
  p.openai.enqueue({ kind: 'stream', text: 'Hello from the agent.' }, { kind: 'stream', text: 'Hello, 0.3 client.' });
  const workspaceRoot = mkdtempSync(path.join(tmpdir(), 'lc-a2a-'));
  await withWorker({ taskQueue, models: p.models(), tools: [releaseTool(workspaceRoot)], workspaceRoot }, async () => {
    await t.agents.start(agentId, { model, tools: ['release'] });
    const gateway: RunningGateway = await serveGateway({
      agents: t.agents,
      tokens: tokensFromEnv({ LIVECONTEXT_GATEWAY_TOKEN: TOKEN }),
      port: 0,
      host: '127.0.0.1',
      log: () => {},
      a2aDefaultAgent: agentId,
    });
    try {
      const get = async (route: string, token?: string) => {
        const res = await fetch(gateway.url + route, { headers: token ? { authorization: `Bearer ${token}` } : {} });
        return { status: res.status, body: (await res.json()) as any }; // eslint-disable-line @typescript-eslint/no-explicit-any -- tests read any JSON
      };
      const open = await get('/.well-known/agent-card.json');
      expect(open.status).toBe(200);
      expect(open.body).toMatchObject({
        name: agentId,
        supportedInterfaces: [
          { url: `${gateway.url}/a2a/agents/${agentId}`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
          { url: `${gateway.url}/a2a/agents/${agentId}`, protocolBinding: 'JSONRPC', protocolVersion: '0.3' },
        ],
        capabilities: { streaming: true },
        securitySchemes: { bearer: { httpAuthSecurityScheme: { scheme: 'Bearer' } } },
        securityRequirements: [{ schemes: { bearer: {} } }],
      });
      expect(open.body.skills.map((s: { id: string }) => s.id)).toEqual(['conversation', 'tool:release']);
      expect((await get(`/a2a/agents/${agentId}/.well-known/agent-card.json`)).status).toBe(401);
      expect(await get(`/a2a/agents/${agentId}/.well-known/agent-card.json`, TOKEN)).toMatchObject({ status: 200, body: { name: agentId } });
      expect((await get(`/a2a/agents/no-such-${agentId}/.well-known/agent-card.json`, TOKEN)).status).toBe(404);
      const unauthenticated = await fetch(`${gateway.url}/a2a/agents/${agentId}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: `turn-1@${agentId}` } }),
      });
      expect(unauthenticated.status).toBe(401);

      const client = await a2aClient(gateway.url, agentId, TOKEN);
      const result = await client.sendMessage(userMessage('hello-1', 'Say hello.'));
      expect('id' in result && result.id).toBe(`turn-1@${agentId}`);
      const task = await client.getTask({ id: `turn-1@${agentId}`, tenant: '' });
      expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
      expect(task.artifacts.map(partsText)).toEqual(['Hello from the agent.']);
      expect(task.history.map(partsText)).toEqual(['Say hello.']);
      // The same message again (a client's retry) is the same task, not a second turn.
      const again = await client.sendMessage(userMessage('hello-1', 'Say hello.'));
      expect('id' in again && again.id).toBe(task.id);
      expect(p.openai.requests).toHaveLength(1);
      await expect(client.getTask({ id: `turn-3@${agentId}`, tenant: '' })).rejects.toThrow(/No task turn-3@/);
      await expect(client.cancelTask({ id: task.id, tenant: '', metadata: undefined })).rejects.toThrow(/is over/);

      // An A2A 0.3 client (no A2A-Version header) uses the 0.3 method names and shapes on the same endpoint.
      const rpc = async (method: string, params: unknown) => {
        const res = await fetch(`${gateway.url}/a2a/agents/${agentId}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
          body: JSON.stringify({ jsonrpc: '2.0', id: 7, method, params }),
        });
        return (await res.json()) as any; // eslint-disable-line @typescript-eslint/no-explicit-any -- tests read any JSON
      };
      const sent = await rpc('message/send', { message: { kind: 'message', messageId: 'v03-1', role: 'user', parts: [{ kind: 'text', text: 'Hi.' }] } });
      expect(sent.result).toMatchObject({ kind: 'task', id: `turn-2@${agentId}`, status: { state: 'completed' } });
      expect(sent.result.artifacts[0].parts).toEqual([{ kind: 'text', text: 'Hello, 0.3 client.' }]);
      expect((await rpc('tasks/get', { id: `turn-2@${agentId}` })).result).toMatchObject({ kind: 'task', status: { state: 'completed' } });
      expect((await rpc('tasks/get', { id: `turn-9@${agentId}` })).error).toMatchObject({ code: -32001 });
    } finally {
      await gateway.close();
    }
  });
});

test('a turn with a tool approval answered over A2A, across a gateway SIGKILLed mid-task: resubscribe gets the rest, the task ends completed with its answer', async () => {
  const agentId = uniqueId('a2a-turn');
  const controlDir = mkdtempSync(path.join(tmpdir(), 'lc-a2a-ctl-'));
  p.openai.enqueue(
    { kind: 'stream', text: 'Releasing api.', toolCalls: [{ id: 'call_release', name: 'release', arguments: '{"service":"api"}' }] },
    { kind: 'stream', text: 'Released api; all green.' },
  );
  await withWorker({ taskQueue, models: p.models(), tools: [releaseTool(controlDir)], workspaceRoot: controlDir }, async () => {
    await t.agents.start(agentId, { model, tools: ['release'] });
    let gateway = await startChildGateway(taskQueue, 0, TOKEN);
    try {
      // The turn runs until its tool call waits for a person: the stream ends there, input-required.
      const client = await a2aClient(gateway.url, agentId, TOKEN);
      const first = await collect(client.sendMessageStream(userMessage('release-1', 'Release api.')));
      const taskId = taskOf(first[0])!.id;
      expect(taskId).toBe(`turn-1@${agentId}`);
      expect(eventShape(first.at(-1)!)).toBe(`status:${TaskState.TASK_STATE_INPUT_REQUIRED}`);
      const waiting = first.at(-1)!.payload!.value as { status?: { message?: { parts: Array<{ content?: { $case: string; value: unknown } }> } } };
      const data = waiting.status!.message!.parts.find((x) => x.content?.$case === 'data')!.content!.value;
      expect(data).toMatchObject({ awaitingApproval: [{ toolName: 'release', arguments: '{"service":"api"}', reason: 'releases need approval' }] });
      const wrong = await client.sendMessage(userMessage('release-2', 'maybe later', taskId)).catch((e: Error) => e);
      expect(String(wrong)).toMatch(/waits for an approval: reply "approve" or "deny <reason>"/);

      // The approval is the reply to the task; the gateway dies while the approved tool runs.
      const during: StreamResponse[] = [];
      const reading = collect(client.sendMessageStream(userMessage('release-3', 'approve', taskId)), during).catch((e: Error) => e);
      await eventually(() => existsSync(path.join(controlDir, 'started')), 60_000, 'the approved tool to start');
      await eventually(() => during.length > 0, 30_000, 'the reply’s stream to begin');
      await gateway.kill();
      expect(String(await reading)).toMatch(/terminated|fetch failed|socket|ECONNRESET/i); // its connection broke (an error from another realm: not instanceof Error)
      expect(taskOf(during[0])).toMatchObject({ id: taskId, status: { state: TaskState.TASK_STATE_WORKING } });

      // A new gateway process; the client resubscribes (the tool still runs), then the tool finishes.
      gateway = await startChildGateway(taskQueue, gateway.port, TOKEN);
      const again = await a2aClient(gateway.url, agentId, TOKEN);
      const rest: StreamResponse[] = [];
      const resumed = collect(again.resubscribeTask({ id: taskId, tenant: '' }), rest);
      await eventually(() => rest.length > 0, 30_000, 'the resubscribed stream to begin');
      writeFileSync(path.join(controlDir, 'go'), '');
      await resumed;
      expect(rest.filter((e) => !isTextChunk(e)).map(eventShape)).toEqual([
        `task:${TaskState.TASK_STATE_WORKING}`,
        'artifact:Released api; all green.',
        `status:${TaskState.TASK_STATE_COMPLETED}`,
      ]);
      expect(taskOf(rest[0])?.id).toBe(taskId);

      const task = await again.getTask({ id: taskId, tenant: '' });
      expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
      expect(task.artifacts.map(partsText)).toEqual(['Released api; all green.']);
      expect(partsText(task.status?.message)).toBe('Released api; all green.');
      expect(task.history.map(partsText)).toEqual(['Release api.']);
      // One tool run, two model calls, one input: the reply answered the wait, nothing ran twice.
      expect(readFileSync(path.join(controlDir, 'runs.log'), 'utf8')).toBe('api\n');
      expect(p.openai.requests).toHaveLength(2);
      expect((await t.agents.state(agentId)).nextInputSeq).toBe(2);
    } finally {
      await gateway.kill();
    }
  });
}, 240_000);

test('an ask_user question is input-required and the reply is the next turn; cancelling a working task interrupts its turn', async () => {
  const agentId = uniqueId('a2a-ask');
  const seen: string[] = [];
  p.openai.enqueue(
    { kind: 'stream', text: '', toolCalls: [{ id: 'call_ask', name: 'ask_user', arguments: '{"question":"Which service?"}' }] },
    { kind: 'stream', text: 'Reporting on web.', toolCalls: [{ id: 'call_report', name: 'slow_report', arguments: '{"topic":"web"}' }] },
  );
  await withWorker(
    { taskQueue, models: p.models(), tools: [slowReportTool(seen)], workspaceRoot: mkdtempSync(path.join(tmpdir(), 'lc-a2a-ask-')) },
    async () => {
      await t.agents.start(agentId, { model, tools: ['slow_report', 'ask_user'] });
      const gateway = await serveGateway({ agents: t.agents, tokens: [], port: 0, host: '127.0.0.1', log: () => {} });
      try {
        const client = await a2aClient(gateway.url, agentId);
        const asked = await client.sendMessage(userMessage('ask-1', 'Release something.'));
        expect(asked).toMatchObject({ id: `turn-1@${agentId}`, status: { state: TaskState.TASK_STATE_INPUT_REQUIRED } });
        expect(partsText((asked as Task).status?.message)).toBe('Which service?');

        // The reply is the agent's next input: its turn is the next task, which runs the tool (no approval asked).
        const replied = client.sendMessageStream(userMessage('ask-2', 'web', `turn-1@${agentId}`));
        const firstEvent = await replied.next();
        expect(firstEvent.done || taskOf(firstEvent.value)?.id).toBe(`turn-2@${agentId}`);
        await replied.return(undefined); // the client leaves the stream; the turn goes on
        // The reply answered the question's wait (door a2a); a second reply to it is refused, not queued.
        const reply = (await t.agents.history(agentId)).find((e) => e.kind === 'model_input' && e.inputSeq === 2);
        expect(reply).toMatchObject({ answers: { door: 'a2a' } });
        await expect(client.sendMessage(userMessage('ask-3', 'db', `turn-1@${agentId}`))).rejects.toThrow(/already answered by a2a/);
        await eventually(() => seen.includes('started web'), 60_000, 'the tool to start');
        expect((await client.getTask({ id: `turn-2@${agentId}`, tenant: '' })).status?.state).toBe(TaskState.TASK_STATE_WORKING);

        // Cancel = interrupt: the tool is cancelled, the task ends canceled, the agent waits for new input.
        const canceled = await client.cancelTask({ id: `turn-2@${agentId}`, tenant: '', metadata: undefined });
        expect(canceled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
        expect(partsText(canceled.status?.message)).toBe('Interrupted by a2a.');
        await eventually(() => seen.includes('cancelled web'), 60_000, 'the tool to see its cancellation');
        expect((await t.agents.state(agentId)).blockedOn).toBe('input');
        expect(p.openai.requests).toHaveLength(2);
      } finally {
        await gateway.close();
      }
    },
  );
});

test('message/stream sends the model’s text as it streams, as appended artifact chunks, then the answer artifact and completed', async () => {
  const agentId = uniqueId('a2a-chunks');
  const answer = 'One two three four five six seven eight nine ten eleven twelve.';
  p.openai.enqueue({ kind: 'stream', text: answer, chunkDelayMs: 250 });
  await withWorker({ taskQueue, models: p.models(), workspaceRoot: mkdtempSync(path.join(tmpdir(), 'lc-a2a-chunks-')) }, async () => {
    await t.agents.start(agentId, { model });
    const gateway = await serveGateway({ agents: t.agents, tokens: [], port: 0, host: '127.0.0.1', log: () => {} });
    try {
      const client = await a2aClient(gateway.url, agentId);
      const events = await collect(client.sendMessageStream(userMessage('chunks-1', 'Count to twelve.')));
      const chunks = events.filter(isTextChunk).map((e) => e.payload!.value as TaskArtifactUpdateEvent);
      const appended = chunks.filter((c) => c.append);
      expect(appended.length).toBeGreaterThanOrEqual(2);
      // One artifact: created by its first chunk, appended to, ended by its last; together the answer's text.
      expect(new Set(chunks.map((c) => c.artifact!.artifactId)).size).toBe(1);
      expect(chunks[0].append).toBe(false);
      expect(chunks.at(-1)!.lastChunk).toBe(true);
      expect(chunks.filter((c) => c.lastChunk)).toHaveLength(1);
      expect(chunks.map((c) => partsText(c.artifact)).join('')).toBe(answer);
      // Then the answer as today: its whole artifact, then completed, the last event.
      const shapes = events.map((e) => (isTextChunk(e) ? 'chunk' : eventShape(e)));
      expect(shapes.slice(-2)).toEqual([`artifact:${answer}`, `status:${TaskState.TASK_STATE_COMPLETED}`]);
      expect(shapes.lastIndexOf('chunk')).toBeLessThan(shapes.indexOf(`artifact:${answer}`));
    } finally {
      await gateway.close();
    }
  });
});
