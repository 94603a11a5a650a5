/**
 * The MCP elicitation door to an agent's waits: send_message to an agent that reaches an approval (or
 * ends its turn with an ask_user question) asks an MCP client that declared form elicitation, and its
 * answer answers the wait (door `mcp`); the first answer through any door wins; a client without the
 * capability gets the reply it always got.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { type ElicitRequest, ElicitRequestSchema, type ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import { ScriptedModelProvider } from '../../activities/index';
import type { ToolResultsEntry } from '../../agent/index';
import { batchScript } from '../fixtures/scripts';
import { deployTool } from '../fixtures/test-tools';
import { startTestGateway, type TestGateway } from '../support/gateway';
import { callTool, connectMcp } from '../support/mcp-host';
import { connectTest, type TestContext, uniqueId, withWorker } from '../support/temporal';

let t: TestContext;
let gateway: TestGateway;
let host: Client;
let plainHost: Client;
let stopWorker: () => void;
let worker: Promise<void>;
const taskQueue = uniqueId('gw-mcp-elicit');
const workspaceRoot = mkdtempSync(path.join(tmpdir(), 'lc-ws-'));
/** What the host's user answers to each elicitation, set by each test; every elicitation is kept. */
let onElicit: (request: ElicitRequest['params']) => Promise<ElicitResult>;
const elicited: Array<ElicitRequest['params']> = [];

beforeAll(async () => {
  t = await connectTest(taskQueue);
  const models = [
    new ScriptedModelProvider({
      deploy: batchScript([{ name: 'deploy', args: { service: 'api', env: 'prod' } }]),
      ask: (req) => (req.step === 0 ? { toolCalls: [{ name: 'ask_user', args: { question: 'Which service?' } }] } : { text: 'thanks' }),
    }),
  ];
  worker = withWorker({ taskQueue, workspaceRoot, tools: [deployTool], models }, () => new Promise<void>((resolve) => (stopWorker = resolve)));
  gateway = await startTestGateway(t.agents);
  host = new Client({ name: 'elicit-host', version: '1.0.0' }, { capabilities: { elicitation: { form: {} } } });
  host.setRequestHandler(ElicitRequestSchema, async (request) => {
    elicited.push(request.params);
    return onElicit(request.params);
  });
  await host.connect(new StreamableHTTPClientTransport(new URL(`${gateway.url}/mcp`)));
  plainHost = await connectMcp(gateway.url);
});
afterAll(async () => {
  await host?.close();
  await plainHost?.close();
  await gateway?.close();
  stopWorker?.();
  await worker;
  await t?.close();
});

const decisions = async (agentId: string) =>
  (await t.agents.history(agentId))
    .filter((e): e is ToolResultsEntry => e.kind === 'tool_results')
    .flatMap((e) => e.results.map((r) => ({ status: r.status, decision: r.metadata?.decision as Record<string, unknown> | undefined })))
    .filter((r) => r.decision);
const deploysLog = (agentId: string) =>
  readFileSync(path.join(workspaceRoot, agentId, 'deploys.log'), 'utf8')
    .split('\n')
    .filter(Boolean);

test('an approval is asked through elicitation: accepted, the tool runs and send_message returns the answer', async () => {
  const agentId = uniqueId('elicit-approve');
  await t.agents.start(agentId, { model: 'scripted:deploy' });
  elicited.length = 0;
  onElicit = async () => ({ action: 'accept', content: { approved: true } });
  const sent = await callTool(host, 'send_message', { agent_id: agentId, text: 'deploy api to prod' });

  expect(elicited).toHaveLength(1);
  expect(elicited[0]).toMatchObject({ mode: 'form', requestedSchema: { required: ['approved'] } });
  expect(elicited[0].message).toContain('tool call call_0_0: deploy {"service":"api","env":"prod"} (deploys to prod need approval)');
  expect(sent).toMatchObject({ isError: false, structured: { input_seq: 1, status: 'answered' } });
  expect(sent.text).toContain('Approved tool call call_0_0 (approval-');
  expect(sent.text).toMatch(/saw \d+ messages$/);
  expect(deploysLog(agentId)).toEqual(['api@prod']);
  const [only, ...more] = await decisions(agentId);
  expect(more).toHaveLength(0);
  expect(only).toMatchObject({ status: 'Success', decision: { approved: true, door: 'mcp', by: 'elicit-host' } });
});

test('another door answers first: the elicitation answer is refused, named in the reply, and the turn is followed to its answer', async () => {
  const agentId = uniqueId('elicit-race');
  await t.agents.start(agentId, { model: 'scripted:deploy' });
  elicited.length = 0;
  onElicit = async () => {
    const [wait] = (await t.agents.state(agentId)).waits ?? [];
    const r = await gateway.request('POST', `/agents/${agentId}/waits/${encodeURIComponent(wait.waitId)}`, { answer: { approved: true }, by: 'ana' });
    expect(r.status).toBe(200);
    return { action: 'accept', content: { approved: false, reason: 'too late' } };
  };
  const sent = await callTool(host, 'send_message', { agent_id: agentId, text: 'deploy api to prod' });

  expect(elicited).toHaveLength(1);
  expect(sent.text).toMatch(/Your elicitation answer was not used: Wait approval-\S+ was already answered by rest \/ ana at \S+/);
  expect(sent).toMatchObject({ isError: false, structured: { input_seq: 1, status: 'answered' } });
  const all = await decisions(agentId);
  expect(all).toEqual([{ status: 'Success', decision: expect.objectContaining({ approved: true, door: 'rest', by: 'ana' }) }]);
  expect(deploysLog(agentId)).toEqual(['api@prod']);
});

test('declining an approval denies it; an ask_user question is asked too, and the reply is followed to its answer', async () => {
  const denied = uniqueId('elicit-decline');
  await t.agents.start(denied, { model: 'scripted:deploy' });
  onElicit = async () => ({ action: 'decline' });
  const sent = await callTool(host, 'send_message', { agent_id: denied, text: 'deploy api to prod' });
  expect(sent.text).toContain('Denied tool call call_0_0');
  expect(sent.structured).toMatchObject({ status: 'answered' });
  expect(await decisions(denied)).toEqual([{ status: 'Skipped', decision: expect.objectContaining({ approved: false, door: 'mcp' }) }]);

  const asker = uniqueId('elicit-ask');
  await t.agents.start(asker, { model: 'scripted:ask' });
  elicited.length = 0;
  onElicit = async () => ({ action: 'accept', content: { text: 'the api' } });
  const answered = await callTool(host, 'send_message', { agent_id: asker, text: 'deploy something' });
  expect(elicited[0]).toMatchObject({ message: `Agent "${asker}" asks: Which service?`, requestedSchema: { required: ['text'] } });
  expect(answered).toMatchObject({ isError: false, structured: { status: 'answered', answer: 'thanks', input_seq: 2, sent_input_seq: 1 } });
  expect(answered.text).toContain('the answer is input #2');
});

test('cancel leaves the wait open, and a client without elicitation gets the reply that names approve_tool_call', async () => {
  const agentId = uniqueId('elicit-cancel');
  await t.agents.start(agentId, { model: 'scripted:deploy' });
  onElicit = async () => ({ action: 'cancel' });
  const cancelled = await callTool(host, 'send_message', { agent_id: agentId, text: 'deploy api to prod' });
  expect(cancelled.structured).toMatchObject({ input_seq: 1, status: 'waiting_approval' });
  expect(cancelled.text).toContain('approve_tool_call');

  const plain = uniqueId('elicit-plain');
  await t.agents.start(plain, { model: 'scripted:deploy' });
  elicited.length = 0;
  const sent = await callTool(plainHost, 'send_message', { agent_id: plain, text: 'deploy api to prod' });
  expect(elicited).toHaveLength(0);
  expect(sent.structured).toMatchObject({ input_seq: 1, status: 'waiting_approval' });
  expect(sent.text).toContain(`approve or deny it with approve_tool_call {agent_id: "${plain}", tool_call_id: "call_0_0"}`);
});
