/**
 * /mcp with the MCP SDK's own client, for an agent that waits on a tool call whose outcome is unknown
 * (issue 29; its worker was killed right after the call charged a card, test/support/unknown-outcome.ts):
 * send_message's wait ends at once saying so, get_state lists the call with its key and the way to
 * resolve it, resolve_tool_call refuses a read-only token and a `done` without text, then resolves
 * (done with a text; in a second agent, retry — the service answers the repeated key without a second
 * charge) and the agent answers; a second resolve is refused.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { startTestGateway, type TestGateway } from '../support/gateway';
import { answeredState, callTool, connectMcp } from '../support/mcp-host';
import { useTestConnection } from '../support/test-connection';
import { useUnknownOutcomes } from '../support/unknown-outcome';

const { t, taskQueue } = useTestConnection('mcp-resolve');
const { service, agentWaitingOnUnknown, chargeResult } = useUnknownOutcomes(t, taskQueue);
const FULL = 'mcp-resolve-full';
const READ = 'mcp-resolve-read';
let gateway: TestGateway;
let mcp: Client;
let reader: Client;

beforeAll(async () => {
  gateway = await startTestGateway(t.agents, { fullToken: FULL, readToken: READ });
  mcp = await connectMcp(gateway.url, FULL);
  reader = await connectMcp(gateway.url, READ);
});
afterAll(async () => {
  await reader?.close();
  await mcp?.close();
  await gateway?.close();
});

test('the call shows with its key and how to resolve it; resolve_tool_call done moves the agent on', async () => {
  const { agentId, inputSeq, key, unknown } = await agentWaitingOnUnknown();

  // A wait for this turn ends at once: the agent needs a person.
  const sent = await callTool(mcp, 'send_message', { agent_id: agentId, text: '[]', wait: true });
  expect(sent.structured).toMatchObject({ status: 'waiting_resolution', run_state: 'waiting for a resolution' });
  expect(sent.text).toContain('is waiting for a resolution');
  expect(sent.text).toContain(`resolve_tool_call {agent_id: "${agentId}", tool_call_id: "${unknown.toolCallId}"`);

  const state = await callTool(mcp, 'get_state', { agent_id: agentId, input_seq: inputSeq });
  expect(state.isError).toBe(false);
  expect(state.text).toContain(`- tool call ${unknown.toolCallId}: charge {"cents":250}, started ${unknown.startedAt}, key ${key}: outcome unknown`);
  expect(state.structured?.turn).toMatchObject({
    status: 'waiting_resolution',
    unknown_outcomes: [expect.objectContaining({ toolCallId: unknown.toolCallId })],
  });

  const readOnly = await callTool(reader, 'resolve_tool_call', { agent_id: agentId, tool_call_id: unknown.toolCallId, outcome: 'done', text: 'x' });
  expect(readOnly).toMatchObject({ isError: true, text: expect.stringContaining('read-only') });
  const noText = await callTool(mcp, 'resolve_tool_call', { agent_id: agentId, tool_call_id: unknown.toolCallId, outcome: 'done' });
  expect(noText).toMatchObject({ isError: true, text: expect.stringContaining('needs a text') });

  const resolved = await callTool(mcp, 'resolve_tool_call', {
    agent_id: agentId,
    tool_call_id: unknown.toolCallId,
    outcome: 'done',
    text: 'the statement shows one charge',
    by: 'ops-bot',
  });
  expect(resolved.isError).toBe(false);
  expect(resolved.text.split('\n')[0]).toBe(`Resolved tool call ${unknown.toolCallId}: done.`);
  expect(resolved.structured).toMatchObject({ outcome: 'done', unknown_outcomes: [] });

  const answered = await answeredState(mcp, agentId, inputSeq, 'the answer after resolve_tool_call');
  expect(answered.structured?.turn).toMatchObject({ status: 'answered', answer: 'done' });
  expect(await chargeResult(agentId)).toMatchObject({
    status: 'Success',
    result: 'the statement shows one charge',
    metadata: { resolved: 'done', resolved_by: 'ops-bot' },
  });

  const again = await callTool(mcp, 'resolve_tool_call', { agent_id: agentId, tool_call_id: unknown.toolCallId, outcome: 'retry' });
  expect(again).toMatchObject({ isError: true, text: expect.stringMatching(/^ALREADY_RESOLVED: .*already resolved/) });
}, 240_000);

test('resolve_tool_call retry runs the call again; the service answers its key without a second charge', async () => {
  const { agentId, inputSeq, key, unknown } = await agentWaitingOnUnknown();
  const resolved = await callTool(mcp, 'resolve_tool_call', { agent_id: agentId, tool_call_id: unknown.toolCallId, outcome: 'retry' });
  expect(resolved.text.split('\n')[0]).toBe(`Resolved tool call ${unknown.toolCallId}: it runs again.`);
  await answeredState(mcp, agentId, inputSeq, 'the answer after the retry');
  expect(await chargeResult(agentId)).toMatchObject({ status: 'Success', result: `charged: ${service.answers.get(key)}`, metadata: { resolved: 'retry' } });
  expect(service.effects.get(key)).toBe(1);
}, 240_000);
