/**
 * A tool call's idempotency key (`workflowId/toolCallId`) reaches what the call acts on: an MCP server
 * finds it in the `tools/call` request's `_meta` (under MCP_IDEMPOTENCY_META_KEY), a command run by
 * `run_command` in LIVECONTEXT_IDEMPOTENCY_KEY. Each call has its own key.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ScriptedModelProvider } from '../../activities/index';
import { MCP_IDEMPOTENCY_META_KEY } from '../../activities/mcp/idempotency-meta';
import type { ToolCallResult } from '../../agent/index';
import { callsScript, runCalls } from '../fixtures/calls-script';
import { metaServer } from '../support/mcp-servers';
import { uniqueId, withWorker } from '../support/temporal';
import { useTestConnection } from '../support/test-connection';

const { t, taskQueue } = useTestConnection('effect-keys');
const models = [new ScriptedModelProvider({ calls: callsScript })];
const workspaceRoot = mkdtempSync(path.join(tmpdir(), 'lc-ws-'));

const run = (agentId: string, calls: Array<{ name: string; args: unknown }>): Promise<ToolCallResult[]> => runCalls(t.agents, agentId, calls);

test("an MCP server finds each call's idempotency key in the tools/call _meta", async () => {
  expect(MCP_IDEMPOTENCY_META_KEY).toBe('dev.livecontext/idempotency-key'); // documented in docs/tools-and-mcp.md
  await withWorker({ taskQueue, workspaceRoot, models, mcpServers: { meta: metaServer() } }, async () => {
    const agentId = uniqueId('mcp-meta');
    await t.agents.start(agentId, { model: 'scripted:calls' });
    const results = await run(agentId, [
      { name: 'meta__show_meta', args: { note: 'one' } },
      { name: 'meta__show_meta', args: { note: 'two' } },
    ]);
    expect(results.map((r) => r.status)).toEqual(['Success', 'Success']);
    const [first, second] = results.map((r) => JSON.parse(r.result) as Record<string, unknown>);
    expect(first[MCP_IDEMPOTENCY_META_KEY]).toBe(`${agentId}/${results[0].toolCallId}`);
    expect(second[MCP_IDEMPOTENCY_META_KEY]).toBe(`${agentId}/${results[1].toolCallId}`);
    expect(results[0].toolCallId).not.toBe(results[1].toolCallId);
  });
});

test("run_command's command sees the call's key in LIVECONTEXT_IDEMPOTENCY_KEY", async () => {
  await withWorker({ taskQueue, workspaceRoot, models, runCommand: true }, async () => {
    const agentId = uniqueId('cmd-key');
    await t.agents.start(agentId, { model: 'scripted:calls' });
    const [shown] = await run(agentId, [{ name: 'run_command', args: { command: 'echo "key=$LIVECONTEXT_IDEMPOTENCY_KEY"' } }]);
    expect(shown.status).toBe('Success');
    expect(shown.result).toContain(`key=${agentId}/${shown.toolCallId}\n`);
  });
});
