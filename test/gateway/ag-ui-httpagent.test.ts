/**
 * AG-UI through a real client: @ag-ui/client's HttpAgent, as a client from before AG-UI 1.0 (without
 * interrupts), runs a turn against POST /ag-ui — streamed text,
 * two tool calls, one of which waits for a person, approved through the REST route while the run's stream
 * shows it waiting — and ends with the answer in its messages. A repeated POST of the same run follows
 * the first turn instead of starting another.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type BaseEvent, HttpAgent } from '@ag-ui/client';
import { deployTool } from '../fixtures/test-tools';
import { startTestGateway, type TestGateway } from '../support/gateway';
import { useProviderServers } from '../support/provider-servers';
import { uniqueId, withWorker } from '../support/temporal';
import { TEXT_MESSAGE, TOOL_CALL } from '../fixtures/ag-ui-events';

const { t, p, taskQueue } = useProviderServers('ag-ui', { each: true });
let gateway: TestGateway;
beforeAll(async () => {
  gateway = await startTestGateway(t.agents);
});
afterAll(async () => gateway?.close());

/** fetch as a client from before AG-UI 1.0 posts: the same body without the protocol version it speaks. */
const beforeInterrupts: typeof fetch = (url, init) =>
  fetch(url, { ...init, body: JSON.stringify({ ...JSON.parse(String(init?.body)), protocolVersion: undefined }) });

const words = (n: number, w: string) => Array.from({ length: n }, (_, i) => `${w}${i}`).join(' ');

/** Event types in order, each run of TEXT_MESSAGE_CONTENT of one message as one, state events left out. */
function shape(events: BaseEvent[]): string[] {
  const out: string[] = [];
  for (const e of events) {
    if (e.type === 'STATE_SNAPSHOT' || e.type === 'STATE_DELTA') continue;
    if (e.type === 'TEXT_MESSAGE_CONTENT' && out.at(-1) === 'TEXT_MESSAGE_CONTENT') continue;
    out.push(e.type);
  }
  return out;
}

test('HttpAgent runs a turn with two tool calls and an approval', async () => {
  const intro = `Deploying api. ${words(12, 'plan')}`;
  const answer = `Both deployments are done. ${words(12, 'done')}`;
  p.openai.enqueue(
    {
      kind: 'stream',
      text: intro,
      chunkDelayMs: 60,
      toolCalls: [
        { id: 'call_staging', name: 'deploy', arguments: '{"service":"api","env":"staging"}' },
        { id: 'call_prod', name: 'deploy', arguments: '{"service":"api","env":"prod"}' },
      ],
    },
    { kind: 'stream', text: answer, chunkDelayMs: 60 },
  );
  const agentId = uniqueId('agui');
  await withWorker({ taskQueue, models: p.models(), tools: [deployTool], workspaceRoot: mkdtempSync(path.join(tmpdir(), 'lc-agui-')) }, async () => {
    await t.agents.start(agentId, { model: 'openai:gpt-4.1-mini' });
    // A client from before AG-UI 1.0 (no protocolVersion in its input): its run stays open while a person
    // approves elsewhere. (A 1.0 client's run ends with an interrupt there: ag-ui-interrupts.test.ts.)
    const agent = new HttpAgent({ url: `${gateway.url}/ag-ui`, threadId: agentId, fetch: beforeInterrupts });
    agent.addMessage({ id: 'user-1', role: 'user', content: 'deploy api to staging and prod' });

    const events: BaseEvent[] = [];
    /** Where in `events` the state first showed the prod deploy waiting. */
    let approvalShownAt = -1;
    let approved: Promise<Response> | undefined;
    const { result, newMessages } = await agent.runAgent(
      { runId: uniqueId('run') },
      {
        onEvent: ({ event }) => void events.push(event),
        onStateChanged: ({ state }) => {
          const waiting = (state?.awaitingApproval ?? []) as Array<{ toolCallId: string; toolName: string; arguments: string; reason: string }>;
          const prod = waiting.find((a) => a.toolCallId === 'call_prod');
          if (!prod || approved) return;
          expect(prod).toMatchObject({ toolName: 'deploy', arguments: '{"service":"api","env":"prod"}', reason: 'deploys to prod need approval' });
          approvalShownAt = events.length - 1;
          // A person presses "approve": the gateway's REST route, while the run's stream stays open.
          approved = fetch(`${gateway.url}/agents/${agentId}/tool-calls/call_prod/approve`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: '{"by":"tester"}',
          });
        },
      },
    );
    expect((await approved)?.status).toBe(200);

    expect(shape(events)).toEqual([
      'RUN_STARTED',
      ...TEXT_MESSAGE,
      ...TOOL_CALL,
      ...TOOL_CALL,
      'TOOL_CALL_RESULT',
      'TOOL_CALL_RESULT',
      ...TEXT_MESSAGE,
      'RUN_FINISHED',
    ]);
    expect(events[0]).toMatchObject({ type: 'RUN_STARTED', threadId: agentId });
    expect(events[1]).toMatchObject({ type: 'STATE_SNAPSHOT' });
    // The text streamed: several deltas for each message, before the turn ended.
    expect(events.filter((e) => e.type === 'TEXT_MESSAGE_CONTENT').length).toBeGreaterThan(2);
    // The waiting call showed in the state between the calls and their results.
    const lastCallEnd = events.map((e) => String(e.type)).lastIndexOf('TOOL_CALL_END');
    const firstResult = events.findIndex((e) => e.type === 'TOOL_CALL_RESULT');
    expect(approvalShownAt).toBeGreaterThan(lastCallEnd);
    expect(approvalShownAt).toBeLessThan(firstResult);
    expect(events.filter((e) => e.type === 'TOOL_CALL_RESULT').map((e) => [e.toolCallId, e.content])).toEqual([
      ['call_staging', 'deployed api to staging'],
      ['call_prod', 'deployed api to prod'],
    ]);
    expect(result).toMatchObject({ inputSeq: 1 });

    // HttpAgent's messages: the assistant's text and calls, both results, and the answer last.
    const last = agent.messages.at(-1)!;
    expect(last).toMatchObject({ role: 'assistant', content: answer });
    expect(newMessages.map((m) => m.role)).toEqual(['assistant', 'tool', 'tool', 'assistant']);
    expect(newMessages[0]).toMatchObject({
      content: intro,
      toolCalls: [expect.objectContaining({ id: 'call_staging' }), expect.objectContaining({ id: 'call_prod' })],
    });
    expect(agent.messages.filter((m) => m.role === 'user')).toHaveLength(1); // its own message is not echoed back

    // The same run posted again (a client that lost the stream) follows the same turn: no second input.
    const again = new HttpAgent({
      url: `${gateway.url}/agents/${agentId}/ag-ui`,
      threadId: agentId,
      initialMessages: [{ id: 'user-1', role: 'user', content: 'deploy api to staging and prod' }],
    });
    const replay = await again.runAgent({ runId: String(events[0].runId) });
    expect(replay.result).toMatchObject({ inputSeq: 1 });
    expect(again.messages.at(-1)).toMatchObject({ role: 'assistant', content: answer });
    expect((await t.agents.state(agentId)).nextInputSeq).toBe(2);
    expect(p.openai.requests).toHaveLength(2);
  });
});

test('unknown agent: 404 before any stream; a body that is not a RunAgentInput: 400', async () => {
  const run = {
    threadId: uniqueId('nobody'),
    runId: 'r1',
    messages: [{ id: 'm', role: 'user', content: 'hi' }],
    tools: [],
    context: [],
    state: {},
    forwardedProps: {},
  };
  expect(await gateway.request('POST', '/ag-ui', run)).toMatchObject({ status: 404, body: { error: { code: 'AGENT_NOT_FOUND' } } });
  expect(await gateway.request('POST', '/ag-ui', { threadId: 'x' })).toMatchObject({ status: 400, body: { error: { code: 'BAD_REQUEST' } } });
  expect(await gateway.request('POST', '/agents/x/ag-ui', { ...run, messages: [] })).toMatchObject({
    status: 400,
    body: { error: { code: 'NO_USER_MESSAGE' } },
  });
  expect(await gateway.request('GET', `/agents/${run.threadId}/events`)).toMatchObject({ status: 404 });
  expect(await gateway.request('GET', `/agents/x/events`, undefined, { headers: { 'last-event-id': 'nonsense' } })).toMatchObject({
    status: 400,
    body: { error: { code: 'BAD_LAST_EVENT_ID' } },
  });
});
