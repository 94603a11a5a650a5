/**
 * One durable wait answered exactly once through any door (agent/waits.ts), and tool rules
 * (agent/tool-rules.ts), on the real dev server through the gateway: the same pending approval answered
 * at once through REST, the MCP `approve_tool_call` tool and the library client (as the CLI uses it) —
 * one decision in history, two refusals naming it; an `ask_user` question answered once; a rule set
 * that allows reads, asks for writes and denies `run_command` with `rm`, set at run time and checked
 * through a turn.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { z } from 'zod';
import { ScriptedModelProvider, defineTool } from '../../activities/index';
import type { HistoryEntry, ToolResultsEntry } from '../../agent/index';
import { batchScript } from '../fixtures/scripts';
import { deployTool } from '../fixtures/test-tools';
import { startTestGateway, type TestGateway } from '../support/gateway';
import { callTool, connectMcp } from '../support/mcp-host';
import { maybeRecordHistory } from '../support/record-history';
import { connectTest, type TestContext, uniqueId, waitingForApproval, withWorker } from '../support/temporal';

let t: TestContext;
let gateway: TestGateway;
let mcp: Client;
let stopWorker: () => void;
let worker: Promise<void>;
const taskQueue = uniqueId('gw-one-wait');
const workspaceRoot = mkdtempSync(path.join(tmpdir(), 'lc-ws-'));
/** What the fake tools were asked to do, in order (none of them does anything). */
const ran: string[] = [];
const fake = (name: string, args: z.ZodObject) =>
  defineTool({ name, description: `${name} (a fake)`, parameters: args, execute: async (a) => (ran.push(`${name} ${JSON.stringify(a)}`), 'ok') });

beforeAll(async () => {
  t = await connectTest(taskQueue);
  const models = [
    new ScriptedModelProvider({
      deploy: batchScript([{ name: 'deploy', args: { service: 'api', env: 'prod' } }]),
      ask: (req) => (req.step === 0 ? { toolCalls: [{ name: 'ask_user', args: { question: 'Which service?' } }] } : { text: 'thanks' }),
      chores: batchScript([
        { name: 'read_note', args: { name: 'todo' } },
        { name: 'run_command', args: { command: 'rm -rf /tmp/x' } },
        { name: 'write_note', args: { name: 'todo', text: 'done' } },
        { name: 'run_command', args: { command: 'ls' } },
      ]),
    }),
  ];
  const tools = [deployTool, fake('read_note', z.object({ name: z.string() })), fake('write_note', z.object({ name: z.string(), text: z.string() }))];
  tools.push(fake('run_command', z.object({ command: z.string() })));
  worker = withWorker({ taskQueue, workspaceRoot, tools, models }, () => new Promise<void>((resolve) => (stopWorker = resolve)));
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

const toolResults = (entries: HistoryEntry[]) => entries.filter((e): e is ToolResultsEntry => e.kind === 'tool_results');

test('the same approval answered at once through REST, MCP and the client: one decision, two refusals naming it', async () => {
  const agentId = uniqueId('one-wait');
  await t.agents.start(agentId, { model: 'scripted:deploy' });
  const { inputSeq } = await t.agents.send(agentId, 'deploy api to prod');
  const waiting = await waitingForApproval(t.agents, agentId);
  const [wait] = waiting.waits!;
  expect(wait).toMatchObject({ kind: 'approval', toolCallId: 'call_0_0', toolName: 'deploy', reason: 'deploys to prod need approval' });

  interface Door {
    door: string;
    ok: boolean;
    text?: string;
  }
  const doors: Door[] = await Promise.all([
    gateway
      .request('POST', `/agents/${agentId}/tool-calls/call_0_0/approve`, { by: 'ana' })
      .then((r) =>
        r.status === 200 ? { door: 'rest', ok: true } : { door: 'rest', ok: false, text: `${r.status} ${r.body.error.code}: ${r.body.error.message}` },
      ),
    callTool(mcp, 'approve_tool_call', { agent_id: agentId, tool_call_id: 'call_0_0', approve: false, reason: 'not today', by: 'claude' }).then((r) =>
      r.isError ? { door: 'mcp', ok: false, text: r.text } : { door: 'mcp', ok: true },
    ),
    t.agents.answerWait(agentId, wait.waitId, { approved: true }, { door: 'cli', by: 'bob' }).then(
      () => ({ door: 'cli', ok: true }),
      (err: Error) => ({ door: 'cli', ok: false, text: `${(err.cause as Error | undefined)?.message ?? err.message}` }),
    ),
  ]);
  const winners = doors.filter((d) => d.ok);
  expect(winners).toHaveLength(1);
  const winner = winners[0].door;
  const who = ({ rest: 'rest / ana', mcp: 'mcp / claude', cli: 'cli / bob' } as Record<string, string>)[winner];
  const refusals = doors.filter((d) => !d.ok);
  expect(refusals).toHaveLength(2);
  for (const r of refusals) expect(r.text).toMatch(new RegExp(`already answered by ${who} at \\d{4}-\\d\\d-\\d\\dT`));
  if (refusals.some((r) => r.door === 'rest')) expect(refusals.find((r) => r.door === 'rest')!.text).toMatch(/^409 ALREADY_ANSWERED: /);

  const outcome = await t.agents.waitForAnswer(agentId, inputSeq);
  expect(outcome.status).toBe('answered');
  const [results] = toolResults(await t.agents.history(agentId));
  const decision = results.results[0].metadata?.decision as Record<string, unknown>;
  expect(decision).toMatchObject({ approved: winner !== 'mcp', door: winner, by: who.split(' / ')[1] });
  expect(results.results[0].status).toBe(winner === 'mcp' ? 'Skipped' : 'Success');

  // Exactly one decision reached the workflow: the refused ones were refused before its history.
  const history = await t.agents.handle(agentId).fetchHistory();
  const accepted = (history.events ?? []).filter((e) => e.workflowExecutionUpdateAcceptedEventAttributes);
  const names = accepted.map((e) => e.workflowExecutionUpdateAcceptedEventAttributes!.acceptedRequest!.input!.name);
  expect(names.filter((n) => n === 'decideToolCall' || n === 'answerWait')).toHaveLength(1);

  // Later still, through the wait's route: the same refusal.
  const late = await gateway.request('POST', `/agents/${agentId}/waits/${encodeURIComponent(wait.waitId)}`, { answer: { approved: false } });
  expect(late.status).toBe(409);
  expect(late.body.error.message).toMatch(new RegExp(`^Wait ${wait.waitId} was already answered by ${who} at `));
  await maybeRecordHistory(t.agents.handle(agentId), 'one-wait-approval_v1.json');
});

test('an ask_user question is a wait: the reply through it is the next input, a second reply is refused, not queued', async () => {
  const agentId = uniqueId('one-wait-ask');
  await t.agents.start(agentId, { model: 'scripted:ask' });
  const { inputSeq } = await t.agents.send(agentId, 'deploy something');
  expect(await t.agents.waitForAnswer(agentId, inputSeq)).toMatchObject({ status: 'asked', question: 'Which service?' });
  const [wait] = (await t.agents.state(agentId)).waits!;
  expect(wait).toMatchObject({ kind: 'question', question: 'Which service?' });

  const first = await gateway.request('POST', `/agents/${agentId}/waits/${encodeURIComponent(wait.waitId)}`, {
    answer: { text: 'api' },
    by: 'ana',
    door: 'page',
  });
  expect(first.status).toBe(200);
  expect(first.body).toMatchObject({ waitId: wait.waitId, kind: 'question', inputSeq: 2 });
  const second = await t.agents.answerWait(agentId, wait.waitId, { text: 'web' }, { by: 'bob' }).catch((err: Error) => (err.cause as Error).message);
  expect(second).toMatch(new RegExp(`^Wait ${wait.waitId} was already answered by page / ana at \\S+ \\(input #2\\)`));
  expect(await t.agents.waitForAnswer(agentId, 2)).toMatchObject({ status: 'answered' });
  const state = await t.agents.state(agentId);
  expect(state.nextInputSeq).toBe(3); // the refused reply was not queued
  const inputs = (await t.agents.history(agentId)).filter((e) => e.kind === 'model_input');
  expect(inputs.map((e) => [e.inputSeq, e.kind === 'model_input' ? e.answers : undefined])).toEqual([
    [1, undefined],
    [2, { waitId: wait.waitId, door: 'page', by: 'ana' }],
  ]);
  await maybeRecordHistory(t.agents.handle(agentId), 'one-wait-question_v1.json');
});

test('tool rules set at run time allow reads, ask for writes and deny run_command with rm, through a turn', async () => {
  const agentId = uniqueId('one-wait-rules');
  await t.agents.start(agentId, { model: 'scripted:chores' });
  const set = await gateway.request(
    'PUT',
    `/agents/${agentId}/tool-rules`,
    {
      rules: [
        { tool: 'read_*', action: 'allow' },
        { tool: 'run_command', args: { command: { word: 'rm' } }, action: 'deny', reason: 'no deletions' },
        { tool: 'write_*', action: 'ask' },
      ],
      by: 'ops',
    },
    {},
  );
  expect(set.status).toBe(200);
  expect((await gateway.request('GET', `/agents/${agentId}/tool-rules`)).body.rules.map((r: { action: string }) => r.action)).toEqual(['allow', 'deny', 'ask']);
  const bad = await gateway.request('PUT', `/agents/${agentId}/tool-rules`, { rules: [{ tool: 'x', action: 'maybe' }] });
  expect(bad.status).toBe(400);

  const { inputSeq } = await t.agents.send(agentId, 'do the chores');
  const waiting = await waitingForApproval(t.agents, agentId);
  expect(waiting.waits).toEqual([
    expect.objectContaining({ kind: 'approval', toolName: 'write_note', reason: "the agent's rule 3 (ask write_*) asks a person first" }),
  ]);
  await t.agents.answerWait(agentId, waiting.waits![0].waitId, { approved: true, remember: true }, { door: 'cli', by: 'ana' });
  expect(await t.agents.waitForAnswer(agentId, inputSeq)).toMatchObject({ status: 'answered' });

  const entries = await t.agents.history(agentId);
  const [results] = toolResults(entries);
  expect(results.results.map((r) => [r.toolName, r.status])).toEqual([
    ['read_note', 'Success'],
    ['run_command', 'Skipped'],
    ['write_note', 'Success'],
    ['run_command', 'Success'],
  ]);
  expect(results.results[1].result).toMatch(/^The agent's rule 2 \(deny run_command command~rm \(no deletions\)\) denies this call/);
  expect(ran.filter((r) => /note|command/.test(r))).toEqual([
    'read_note {"name":"todo"}',
    'write_note {"name":"todo","text":"done"}',
    'run_command {"command":"ls"}',
  ]);
  const rules = entries.filter((e) => e.kind === 'tool_rules');
  expect(rules).toEqual([
    expect.objectContaining({ change: 'set', by: 'ops', rules: expect.arrayContaining([expect.objectContaining({ tool: 'read_*' })]) }),
    expect.objectContaining({ change: 'remember', by: 'ana', rules: [expect.objectContaining({ tool: 'write_note', action: 'allow' }), ...set.body.rules] }),
  ]);
  expect((await t.agents.state(agentId)).config.toolRules).toHaveLength(4);
  await maybeRecordHistory(t.agents.handle(agentId), 'tool-rules_v1.json');
});
