/**
 * /mcp with the MCP SDK's own client over Streamable HTTP, as an MCP host would use it: the tools it
 * lists, list_agents, send_message answered by the agent, an approval flow (send → the wait ends on the
 * approval → get_state shows the call → approve_tool_call → the answer), and errors as tool errors.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ScriptedModelProvider } from '../../activities/index';
import type { ToolResultsEntry } from '../../agent/index';
import { AgentClient } from '../../client/agent-client';
import { batchScript, echoScript } from '../fixtures/scripts';
import { deployTool } from '../fixtures/test-tools';
import { startTestGateway, type TestGateway } from '../support/gateway';
import { answeredState, callTool, connectMcp } from '../support/mcp-host';
import { connectTest, eventually, type TestContext, uniqueId, withWorker } from '../support/temporal';

let t: TestContext;
let gateway: TestGateway;
let mcp: Client;
let stopWorker: () => void;
let worker: Promise<void>;
const taskQueue = uniqueId('gw-mcp');
const workspaceRoot = mkdtempSync(path.join(tmpdir(), 'lc-ws-'));

beforeAll(async () => {
  t = await connectTest(taskQueue);
  const models = [
    new ScriptedModelProvider({
      echo: echoScript,
      deploys: batchScript([
        { name: 'deploy', args: { service: 'api', env: 'prod' } },
        { name: 'deploy', args: { service: 'web', env: 'prod' } },
      ]),
    }),
  ];
  worker = withWorker({ taskQueue, workspaceRoot, tools: [deployTool], models }, () => new Promise<void>((resolve) => (stopWorker = resolve)));
  gateway = await startTestGateway(t.agents);
  mcp = await connectMcp(gateway.url);
});
afterAll(async () => {
  await mcp?.close();
  await gateway?.close();
  stopWorker?.();
  await worker;
  await t?.close();
});

test('lists its five tools, with input schemas a model can follow', async () => {
  const { tools } = await mcp.listTools();
  expect(tools.map((tool) => tool.name).sort()).toEqual(['approve_tool_call', 'get_state', 'list_agents', 'resolve_tool_call', 'send_message']);
  const send = tools.find((tool) => tool.name === 'send_message')!;
  expect(send.inputSchema).toMatchObject({ type: 'object', required: expect.arrayContaining(['agent_id', 'text']) });
  expect(Object.keys(send.inputSchema.properties ?? {}).sort()).toEqual(['agent_id', 'idempotency_key', 'text', 'wait']);
  expect(send.description).toMatch(/get_state/);
  expect(tools.find((tool) => tool.name === 'list_agents')!.annotations).toMatchObject({ readOnlyHint: true });
  expect(mcp.getInstructions()).toMatch(/approve_tool_call/);
});

test('list_agents shows a started agent with its run state and model', async () => {
  const agentId = uniqueId('mcp-listed');
  await t.agents.start(agentId, { model: 'scripted:echo' });
  const listed = await eventually(
    async () => {
      const r = await callTool(mcp, 'list_agents', {});
      return r.text.includes(agentId) ? r : undefined;
    },
    30_000,
    'the agent in list_agents',
  );
  expect(listed.isError).toBe(false);
  expect(listed.text).toMatch(new RegExp(`${agentId}: (working|waiting for input|running), model scripted:echo`));
  expect(listed.structured?.agents).toEqual(expect.arrayContaining([expect.objectContaining({ agent_id: agentId, model: 'scripted:echo' })]));
});

test('send_message waits for the answer; a repeat with the same idempotency key is not taken again', async () => {
  const agentId = uniqueId('mcp-echo');
  await t.agents.start(agentId, { model: 'scripted:echo' });
  const answered = await callTool(mcp, 'send_message', { agent_id: agentId, text: 'hello over MCP', idempotency_key: 'delivery-1' });
  expect(answered).toMatchObject({
    isError: false,
    text: 'echo: hello over MCP',
    structured: { agent_id: agentId, input_seq: 1, status: 'answered', answer: 'echo: hello over MCP' },
  });

  const repeat = await callTool(mcp, 'send_message', { agent_id: agentId, text: 'hello over MCP', idempotency_key: 'delivery-1', wait: false });
  expect(repeat.structured).toMatchObject({ input_seq: 1, duplicate: true, status: 'accepted' });
  const second = await callTool(mcp, 'send_message', { agent_id: agentId, text: 'second', wait: false });
  expect(second.structured).toMatchObject({ input_seq: 2, status: 'accepted' });
  // The answer read later, as the reply says: get_state with the input_seq.
  const later = await answeredState(mcp, agentId, 2, 'the answer to input 2');
  expect(later.text).toContain('answer to input #2:\necho: second');
  const inputs = (await t.agents.history(agentId)).filter((e) => e.kind === 'model_input');
  expect(inputs.map((e) => e.inputSeq)).toEqual([1, 2]);
});

test('approval: the wait ends on the waiting call, get_state shows it, approve_tool_call / deny let the turn finish', async () => {
  const agentId = uniqueId('mcp-deployer');
  await t.agents.start(agentId, { model: 'scripted:deploys' });
  const sent = await callTool(mcp, 'send_message', { agent_id: agentId, text: 'deploy api and web to prod' });
  expect(sent.isError).toBe(false);
  expect(sent.structured).toMatchObject({
    input_seq: 1,
    status: 'waiting_approval',
    awaiting_approval: [expect.objectContaining({ toolCallId: 'call_0_0', toolName: 'deploy' })],
  });
  expect(sent.text).toContain('tool call call_0_0: deploy {"service":"api","env":"prod"} (deploys to prod need approval)');
  expect(sent.text).toContain(`get_state with {agent_id: "${agentId}", input_seq: 1}`);

  const state = await callTool(mcp, 'get_state', { agent_id: agentId, input_seq: 1 });
  expect(state.text).toContain(`agent ${agentId}: waiting for approval`);
  expect(state.text).toContain('waiting for approval: call_0_0 deploy');
  expect(state.structured).toMatchObject({
    run_state: 'waiting for approval',
    state: { blockedOn: 'approval', awaitingApproval: [expect.objectContaining({ toolCallId: 'call_0_0' })] },
    turn: { status: 'waiting_approval' },
  });

  // A call that is not waiting is refused as a tool error, and nothing changes.
  const wrong = await callTool(mcp, 'approve_tool_call', { agent_id: agentId, tool_call_id: 'call_9_9' });
  expect(wrong).toMatchObject({ isError: true });
  expect(wrong.text).toMatch(/call_9_9/);

  const approved = await callTool(mcp, 'approve_tool_call', { agent_id: agentId, tool_call_id: 'call_0_0', by: 'claude' });
  expect(approved).toMatchObject({ isError: false, structured: { approved: true, tool_call_id: 'call_0_0' } });
  expect(approved.text).toMatch(/^Approved tool call call_0_0\./);
  const second = await eventually(
    async () => {
      const r = await callTool(mcp, 'get_state', { agent_id: agentId });
      return r.text.includes('waiting for approval: call_0_1') ? r : undefined;
    },
    30_000,
    'the second call to wait',
  );
  expect(second.isError).toBe(false);
  const denied = await callTool(mcp, 'approve_tool_call', { agent_id: agentId, tool_call_id: 'call_0_1', approve: false, reason: 'web is frozen' });
  expect(denied.text).toMatch(/^Denied tool call call_0_1\./);

  const answer = await answeredState(mcp, agentId, 1, 'the turn to finish');
  expect(answer.text).toContain('answer to input #1:\nsaw ');
  const results = (await t.agents.history(agentId)).find((e) => e.kind === 'tool_results') as ToolResultsEntry;
  expect(results.results.map((r) => [r.toolCallId, r.status])).toEqual([
    ['call_0_0', 'Success'],
    ['call_0_1', 'Skipped'],
  ]);
  expect(results.results[1].result).toMatch(/denied by mcp: web is frozen/);
  expect(readFileSync(path.join(workspaceRoot, agentId, 'deploys.log'), 'utf8')).toBe('api@prod\n');
});

test('errors are tool errors with the reason: unknown agent, no worker', async () => {
  const unknown = await callTool(mcp, 'send_message', { agent_id: 'no-such-agent-mcp', text: 'hi' });
  expect(unknown).toMatchObject({ isError: true });
  expect(unknown.text).toMatch(/No agent "no-such-agent-mcp"/);
  expect(await callTool(mcp, 'get_state', { agent_id: 'no-such-agent-mcp' })).toMatchObject({ isError: true, text: expect.stringMatching(/No agent/) });

  // An agent whose task queue no worker polls.
  const orphanQueue = uniqueId('gw-mcp-orphan');
  const orphan = uniqueId('mcp-orphan');
  await new AgentClient(t.client, orphanQueue).start(orphan, { model: 'scripted:echo' });
  const noWorker = await callTool(mcp, 'send_message', { agent_id: orphan, text: 'anyone?' });
  expect(noWorker).toMatchObject({ isError: true });
  expect(noWorker.text).toMatch(/No worker runs agent/);
  await t.client.workflow.getHandle(orphan).terminate('test over');

  // Bad arguments are refused before any tool runs.
  expect(await callTool(mcp, 'send_message', { agent_id: 'x' })).toMatchObject({ isError: true, text: expect.stringMatching(/text/) });
});

test('GET and DELETE /mcp are not offered (stateless); a foreign Origin is refused on an open gateway', async () => {
  expect((await fetch(`${gateway.url}/mcp`)).status).toBe(405);
  expect((await fetch(`${gateway.url}/mcp`, { method: 'DELETE' })).status).toBe(405);
  const foreign = await fetch(`${gateway.url}/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', origin: 'http://evil.example' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
  });
  expect(foreign.status).toBe(403);
});
