/**
 * An MCP server's question to the user during a call (elicitation) is one of the agent's waits: the
 * reference "everything" server (npm) asks during `trigger-elicitation-request`; the agent's state lists
 * the question with its schema; an answer that does not fit the schema is refused and changes nothing;
 * the answer through REST reaches the server as its ElicitResult and the tool result shows it; a second
 * answer is refused, naming the first. A decline through the client reaches the server as a decline.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ScriptedModelProvider } from '../../activities/index';
import type { AgentStatus, OpenWait, ToolCallResult, ToolResultsEntry } from '../../agent/index';
import { callsInput, callsScript } from '../fixtures/calls-script';
import { startTestGateway, type TestGateway } from '../support/gateway';
import { everythingStdio } from '../support/mcp-servers';
import { maybeRecordHistory } from '../support/record-history';
import { eventually, uniqueId, withWorker } from '../support/temporal';
import { useTestConnection } from '../support/test-connection';

const { t, taskQueue } = useTestConnection('mcp-elicitation');
const models = [new ScriptedModelProvider({ calls: callsScript })];
const workspaceRoot = mkdtempSync(path.join(tmpdir(), 'lc-ws-'));
const ELICIT = [{ name: 'every__trigger-elicitation-request', args: {} }];

let gateway: TestGateway;
beforeAll(async () => {
  gateway = await startTestGateway(t.agents);
});
afterAll(async () => gateway?.close());

async function lastResults(agentId: string): Promise<ToolCallResult[]> {
  const entries = (await t.agents.history(agentId)).filter((e) => e.kind === 'tool_results') as ToolResultsEntry[];
  return entries[entries.length - 1].results;
}

/** The agent's open question from its MCP server, once its state lists it. */
async function openQuestion(agentId: string): Promise<{ wait: OpenWait; state: AgentStatus }> {
  return eventually(
    async () => {
      const state = await t.agents.state(agentId);
      const wait = state.waits?.find((w) => w.kind === 'elicitation');
      return wait ? { wait, state } : undefined;
    },
    30_000,
    'the elicitation wait',
  );
}

test("the server's question is a wait: answered through REST, the server gets the content, a second answer is refused", async () => {
  await withWorker({ taskQueue, workspaceRoot, models, mcpServers: { every: everythingStdio(uniqueId('marker')) } }, async () => {
    const agentId = uniqueId('mcp-elicit');
    await t.agents.start(agentId, { model: 'scripted:calls' });
    const { inputSeq } = await t.agents.send(agentId, callsInput(ELICIT));
    const { wait, state } = await openQuestion(agentId);
    expect(wait).toMatchObject({
      kind: 'elicitation',
      toolCallId: 'call_0_0',
      toolName: 'every__trigger-elicitation-request',
      question: 'Please provide inputs for the following fields:',
      server: 'every',
    });
    expect(wait.waitId).toMatch(/^elicit-\d+-call_0_0-1$/);
    expect(wait.requestedSchema).toMatchObject({ type: 'object', required: ['name'] });
    expect(state.runState).toBe('WaitingToolResults');

    // Content that does not fit the schema: refused, saying why, and the question stays open.
    const bad = await gateway.request('POST', `/agents/${agentId}/waits/${encodeURIComponent(wait.waitId)}`, {
      answer: { action: 'accept', content: { integer: 500, email: 'nope' } },
    });
    expect(bad.status).toBe(409); // as every answer the agent refuses (gateway/http-errors.ts)
    expect(bad.body.error.code).toBe('BAD_ANSWER');
    expect(bad.body.error.message).toMatch(/: name is required; integer must be at most 100; email must be an email address\.$/);
    expect((await t.agents.state(agentId)).waits).toEqual([wait]);

    const first = await gateway.request('POST', `/agents/${agentId}/waits/${encodeURIComponent(wait.waitId)}`, {
      answer: { action: 'accept', content: { name: 'Ana Lima', check: true, integer: 7 } },
      by: 'ana',
    });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ waitId: wait.waitId, kind: 'elicitation' });
    const second = await t.agents
      .answerWait(agentId, wait.waitId, { action: 'decline' }, { door: 'cli', by: 'bob' })
      .catch((err: Error) => (err.cause as Error | undefined)?.message ?? err.message);
    expect(second).toMatch(new RegExp(`^Wait ${wait.waitId} was already answered by rest / ana at \\S+ \\(accept\\)`));

    await expect(t.agents.waitForAnswer(agentId, inputSeq)).resolves.toMatchObject({ status: 'answered' });
    const [result] = await lastResults(agentId);
    expect(result.status).toBe('Success');
    expect(result.result).toContain('User provided the requested information');
    expect(result.result).toContain('- Name: Ana Lima');
    expect(result.result).toContain('- Favorite Integer: 7');
    expect(result.metadata?.elicitations).toEqual([{ action: 'accept', door: 'rest', by: 'ana', at: expect.any(String) }]);
    expect((await t.agents.state(agentId)).waits).toBeUndefined();
    await maybeRecordHistory(t.agents.handle(agentId), 'mcp-elicitation_v1.json');
  });
});

test('a decline through the client reaches the server as a decline; nothing is accepted for the person', async () => {
  await withWorker({ taskQueue, workspaceRoot, models, mcpServers: { every: everythingStdio(uniqueId('marker')) } }, async () => {
    const agentId = uniqueId('mcp-elicit-decline');
    await t.agents.start(agentId, { model: 'scripted:calls' });
    const { inputSeq } = await t.agents.send(agentId, callsInput(ELICIT));
    const { wait } = await openQuestion(agentId);
    // Content with a decline is not an answer: refused.
    await expect(t.agents.answerWait(agentId, wait.waitId, { action: 'decline', content: { name: 'x' } })).rejects.toThrow();
    await t.agents.answerWait(agentId, wait.waitId, { action: 'decline' }, { door: 'cli', by: 'bob' });
    await expect(t.agents.waitForAnswer(agentId, inputSeq)).resolves.toMatchObject({ status: 'answered' });
    const [result] = await lastResults(agentId);
    expect(result.result).toContain('User declined to provide the requested information');
    expect(result.metadata?.elicitations).toEqual([{ action: 'decline', door: 'cli', by: 'bob', at: expect.any(String) }]);
  });
});
