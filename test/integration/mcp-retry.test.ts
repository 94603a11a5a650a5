/**
 * MCP tools retry under the `mcpServers` configuration, against the reference "everything" server from
 * npm. Its Streamable HTTP server restarted on the same port no longer knows the worker's session: the
 * first call of a read-only tool fails (the connection is lost), and by default is retried on a new
 * session, with that error kept. A per-tool `retry` that lists `timeout` runs a slow tool again after
 * each timeout until its attempts are used up: one Failed result listing each attempt.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ScriptedModelProvider } from '../../activities/index';
import type { ToolCallResult } from '../../agent/index';
import { callsScript, runCalls } from '../fixtures/calls-script';
import { type HttpEverything, everythingStdio, startEverythingHttp } from '../support/mcp-servers';
import { uniqueId, withWorker } from '../support/temporal';
import { useTestConnection } from '../support/test-connection';

const { t, taskQueue } = useTestConnection('mcp-retry');
const models = [new ScriptedModelProvider({ calls: callsScript })];
const workspaceRoot = mkdtempSync(path.join(tmpdir(), 'lc-ws-'));

const run = (agentId: string, calls: Array<{ name: string; args: unknown }>): Promise<ToolCallResult[]> => runCalls(t.agents, agentId, calls);

type Attempts = Array<{ attempt: number; error: string; kind: string; at: string }>;

test('a read-only tool whose server restarted: the lost connection is retried on a new session', async () => {
  let http: HttpEverything = await startEverythingHttp();
  try {
    const port = Number(new URL(http.url).port);
    await withWorker({ taskQueue, workspaceRoot, models, mcpServers: { every: { url: http.url, retry: { initialIntervalMs: 200 } } } }, async () => {
      const agentId = uniqueId('mcp-retry-restart');
      await t.agents.start(agentId, { model: 'scripted:calls' });
      const [before] = await run(agentId, [{ name: 'every__echo', args: { message: 'one' } }]);
      expect(before).toMatchObject({ status: 'Success', result: 'Echo: one' });
      await http.stop();
      http = await startEverythingHttp('streamableHttp', port);
      const [after] = await run(agentId, [{ name: 'every__echo', args: { message: 'two' } }]);
      expect(after).toMatchObject({ status: 'Success', result: 'Echo: two', metadata: { attempts: 2, mcp_server: 'every' } });
      const [lost] = after.metadata?.attempt_errors as Attempts;
      expect(lost).toMatchObject({ attempt: 1, kind: 'mcp_connection_lost' });
      expect(lost.error).toMatch(/MCP server "every"/);
    });
  } finally {
    await http.stop();
  }
});

test('a per-tool retry that lists timeouts: every attempt times out, one Failed result lists them all', async () => {
  const retry = { maxAttempts: 2, initialIntervalMs: 100, retryOn: ['timeout' as const] };
  const every = { ...everythingStdio(uniqueId('marker')), timeout: 1000, tools: { 'trigger-long-running-operation': { retry } } };
  await withWorker({ taskQueue, workspaceRoot, models, mcpServers: { every } }, async () => {
    const agentId = uniqueId('mcp-retry-timeout');
    await t.agents.start(agentId, { model: 'scripted:calls' });
    const [slow, echo] = await run(agentId, [
      { name: 'every__trigger-long-running-operation', args: { duration: 30, steps: 30 } },
      { name: 'every__echo', args: { wrong: 1 } }, // an isError result: the server's answer, not retried
    ]);
    expect(slow.status).toBe('Failed');
    expect(slow.metadata).toMatchObject({ attempts: 2 });
    expect((slow.metadata?.attempt_errors as Attempts).map((e) => [e.attempt, e.kind])).toEqual([
      [1, 'timeout'],
      [2, 'timeout'],
    ]);
    expect(slow.result).toMatch(
      /^every__trigger-long-running-operation timed out after 1 s[^]*the policy allows 2 attempts[^]*attempt 1 \(timeout, [^]*attempt 2 \(timeout, /,
    );
    expect(echo.status).toBe('Failed');
    expect(echo.metadata?.attempts).toBeUndefined();
  });
});
