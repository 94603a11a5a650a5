/**
 * /mcp behind bearer tokens (none or a wrong one: refused; a read-only one may list and look but not
 * send or approve), and a send_message whose turn outlasts the wait cap: it returns the input_seq (with
 * progress on the way), and get_state gives the answer later.
 */
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { ScriptedModelProvider } from '../../activities/index';
import { createGatewayApp } from '../../gateway/gateway-app';
import { mountMcpRoutes } from '../../gateway/routes/mcp-routes';
import { echoScript } from '../fixtures/scripts';
import { pauseTool } from '../fixtures/test-tools';
import { startTestGateway, type TestGateway } from '../support/gateway';
import { answeredState, callTool, connectMcp } from '../support/mcp-host';
import { connectTest, eventually, type TestContext, uniqueId, withWorker } from '../support/temporal';

let t: TestContext;
let guarded: TestGateway;
let stopWorker: () => void;
let worker: Promise<void>;
const taskQueue = uniqueId('gw-mcp-access');

beforeAll(async () => {
  t = await connectTest(taskQueue);
  const models = [
    new ScriptedModelProvider({
      echo: echoScript,
      // Two pauses of 1.5 s one after the other: a turn of over 3 s.
      slow: (req) =>
        req.step === 0
          ? {
              toolCalls: [
                { name: 'pause', args: { label: 'a' } },
                { name: 'pause', args: { label: 'b' } },
              ],
            }
          : { text: 'slow answer' },
    }),
  ];
  worker = withWorker({ taskQueue, tools: [pauseTool], models }, () => new Promise<void>((resolve) => (stopWorker = resolve)));
  guarded = await startTestGateway(t.agents, { fullToken: 'mcp-full-secret', readToken: 'mcp-read-secret' });
});
afterAll(async () => {
  await guarded?.close();
  stopWorker?.();
  await worker;
  await t?.close();
});

test('a bearer token is needed when configured; a wrong one is refused', async () => {
  await expect(connectMcp(guarded.url)).rejects.toThrow(/401|Unauthorized/i);
  await expect(connectMcp(guarded.url, 'not-the-token')).rejects.toThrow(/401|Unauthorized/i);
});

test('a read-only token lists and reads, but send_message and approve_tool_call are refused', async () => {
  const agentId = uniqueId('mcp-guarded');
  await t.agents.start(agentId, { model: 'scripted:echo' });
  const reader = await connectMcp(guarded.url, 'mcp-read-secret');
  const full = await connectMcp(guarded.url, 'mcp-full-secret');
  try {
    await eventually(async () => (await callTool(reader, 'list_agents', {})).text.includes(agentId), 30_000, 'the agent in list_agents');
    expect(await callTool(reader, 'get_state', { agent_id: agentId })).toMatchObject({ isError: false, structured: { agent_id: agentId } });

    const refused = await callTool(reader, 'send_message', { agent_id: agentId, text: 'let me in' });
    expect(refused).toMatchObject({ isError: true, text: expect.stringMatching(/read-only/) });
    expect(await callTool(reader, 'approve_tool_call', { agent_id: agentId, tool_call_id: 'call_0_0' })).toMatchObject({
      isError: true,
      text: expect.stringMatching(/read-only/),
    });
    // Nothing reached the agent.
    expect((await t.agents.state(agentId)).nextInputSeq).toBe(1);

    expect(await callTool(full, 'send_message', { agent_id: agentId, text: 'full access' })).toMatchObject({ isError: false, text: 'echo: full access' });
  } finally {
    await reader.close();
    await full.close();
  }
});

test('a turn longer than the wait cap: send_message returns the input_seq with progress, get_state the answer later', async () => {
  // A gateway app of its own, with a 1 s cap instead of 45 s.
  const app = createGatewayApp({ agents: t.agents, tokens: [], log: () => {} });
  mountMcpRoutes(app, { agents: t.agents, mcpWaitCapMs: 1_000, mcpPollMs: 100, log: () => {} });
  const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
    const s = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(s));
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const mcp = await connectMcp(url);
  try {
    const agentId = uniqueId('mcp-slow');
    await t.agents.start(agentId, { model: 'scripted:slow' });
    const progress: unknown[] = [];
    const result = await mcp.callTool({ name: 'send_message', arguments: { agent_id: agentId, text: 'take your time' } }, undefined, {
      onprogress: (p) => progress.push(p),
    });
    const text = (result.content as Array<{ text: string }>)[0].text;
    expect(text).toMatch(/^Input #1 was accepted; agent "mcp-slow-[0-9a-f]+" is still working on it/);
    expect(text).toContain(`get_state with {agent_id: "${agentId}", input_seq: 1}`);
    expect(result.structuredContent).toMatchObject({ input_seq: 1, status: 'working' });
    expect(progress.length).toBeGreaterThan(0);

    const answered = await answeredState(mcp, agentId, 1, 'the slow turn to finish');
    expect(answered.text).toContain('answer to input #1:\nslow answer');
    expect((await callTool(mcp, 'get_state', { agent_id: agentId, input_seq: 7 })).text).toContain('input #7: the agent has not received it');
  } finally {
    await mcp.close();
    (server as unknown as { closeAllConnections?: () => void }).closeAllConnections?.();
    await new Promise((r) => server.close(r));
  }
});
