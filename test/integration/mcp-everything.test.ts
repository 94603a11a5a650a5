/**
 * The reference "everything" MCP server (npm) over stdio and over Streamable HTTP drives agent turns: a
 * plain tool, a tool with structured content, an error result, and a long-running tool whose progress
 * notifications are visible as the running tool's heartbeat details while it runs. A stdio server
 * SIGKILLed mid-call gives a clean Failed result and is restarted by the next call; an HTTP server that
 * went away gives a Failed result saying so, at once. A task-only tool is called as an MCP task and
 * followed to its result. The agent lives through all of it.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ScriptedModelProvider } from '../../activities/index';
import type { ToolCallResult, ToolResultsEntry } from '../../agent/index';
import { callsInput, callsScript } from '../fixtures/calls-script';
import { type HttpEverything, everythingStdio, pidOf, startEverythingHttp } from '../support/mcp-servers';
import { eventually, uniqueId, withWorker } from '../support/temporal';
import { useTestConnection } from '../support/test-connection';

const { t, taskQueue } = useTestConnection('mcp-everything');

const models = [new ScriptedModelProvider({ calls: callsScript })];
const workspaceRoot = mkdtempSync(path.join(tmpdir(), 'lc-ws-'));

async function lastResults(agentId: string): Promise<ToolCallResult[]> {
  const entries = (await t.agents.history(agentId)).filter((e) => e.kind === 'tool_results') as ToolResultsEntry[];
  return entries[entries.length - 1].results;
}

async function run(agentId: string, calls: Array<{ name: string; args: unknown }>): Promise<ToolCallResult[]> {
  await expect(t.agents.ask(agentId, callsInput(calls))).resolves.toMatchObject({ status: 'answered' });
  return lastResults(agentId);
}

describe.each(['stdio', 'streamable-http'] as const)('server-everything over %s', (kind) => {
  let http: HttpEverything | undefined;
  beforeAll(async () => {
    if (kind === 'streamable-http') http = await startEverythingHttp();
  });
  afterAll(async () => http?.stop());
  const server = () => (kind === 'stdio' ? everythingStdio(uniqueId('marker')) : { url: http!.url });

  test('a plain tool, structured content, an error result', async () => {
    await withWorker({ taskQueue, workspaceRoot, models, mcpServers: { every: server() } }, async () => {
      const agentId = uniqueId('mcp-every');
      await t.agents.start(agentId, { model: 'scripted:calls' });
      const [echo, weather, error] = await run(agentId, [
        { name: 'every__echo', args: { message: 'hi there' } },
        { name: 'every__get-structured-content', args: { location: 'Chicago' } },
        { name: 'every__echo', args: { wrong: 1 } },
      ]);
      expect(echo).toMatchObject({ status: 'Success', result: 'Echo: hi there' });
      expect(weather.status).toBe('Success');
      expect(JSON.parse(weather.result)).toEqual({ temperature: 36, conditions: 'Light rain / drizzle', humidity: 82 });
      // isError: true from the server, with its text, as a result the model can act on.
      expect(error.status).toBe('Failed');
      expect(error.result).toMatch(/^every__echo failed: .*Input validation error.*message/);
    });
  });

  test('a task-only tool (simulate-research-query) is called as an MCP task and followed to its report', async () => {
    await withWorker({ taskQueue, workspaceRoot, models, mcpServers: { every: server() } }, async () => {
      const agentId = uniqueId('mcp-every-task');
      await t.agents.start(agentId, { model: 'scripted:calls' });
      const [research] = await run(agentId, [{ name: 'every__simulate-research-query', args: { topic: 'durable agents' } }]);
      expect(research).toMatchObject({ status: 'Success', result: expect.stringContaining('# Research Report: durable agents') });
    });
  });

  test('a long-running tool: its progress is visible while it runs', async () => {
    await withWorker({ taskQueue, workspaceRoot, models, mcpServers: { every: server() } }, async () => {
      const agentId = uniqueId('mcp-every-long');
      await t.agents.start(agentId, { model: 'scripted:calls' });
      const { inputSeq } = await t.agents.send(agentId, callsInput([{ name: 'every__trigger-long-running-operation', args: { duration: 4, steps: 4 } }]));
      const seen = await eventually(
        async () => {
          const running = await t.agents.toolProgress(agentId);
          const details = running[0]?.details as { progress?: number } | undefined;
          return details?.progress !== undefined && details.progress >= 1 ? details : undefined;
        },
        30_000,
        'progress of the long-running tool',
      );
      expect(seen).toMatchObject({ tool: 'every__trigger-long-running-operation', tool_call_id: 'call_0_0', total: 4 });
      await expect(t.agents.waitForAnswer(agentId, inputSeq)).resolves.toMatchObject({ status: 'answered' });
      expect((await lastResults(agentId))[0]).toMatchObject({ status: 'Success', result: 'Long running operation completed. Duration: 4 seconds, Steps: 4.' });
      expect(await t.agents.toolProgress(agentId)).toEqual([]);
    });
  });
});

test('SIGKILL of the stdio server mid-call: a clean Failed result, and the next call restarts it', async () => {
  const marker = uniqueId('marker');
  // The long tool is read-only, so a lost connection would be retried by default (mcp-retry.ts): not here.
  const noRetry = { tools: { 'trigger-long-running-operation': { retry: { maxAttempts: 1 } } } };
  await withWorker({ taskQueue, workspaceRoot, models, mcpServers: { every: { ...everythingStdio(marker), ...noRetry } } }, async () => {
    const agentId = uniqueId('mcp-every-kill');
    await t.agents.start(agentId, { model: 'scripted:calls' });
    const { inputSeq } = await t.agents.send(agentId, callsInput([{ name: 'every__trigger-long-running-operation', args: { duration: 60, steps: 60 } }]));
    await eventually(async () => (await t.agents.toolProgress(agentId)).length > 0, 30_000, 'the long call to be running');
    const first = pidOf(marker)!;
    expect(first).toBeGreaterThan(0);
    process.kill(first, 'SIGKILL');
    await expect(t.agents.waitForAnswer(agentId, inputSeq)).resolves.toMatchObject({ status: 'answered' });
    const [killed] = await lastResults(agentId);
    expect(killed.status).toBe('Failed');
    expect(killed.result).toMatch(/connection to the MCP server "every" closed during the call.*the next call reconnects/);

    const [echo] = await run(agentId, [{ name: 'every__echo', args: { message: 'back' } }]);
    expect(echo).toMatchObject({ status: 'Success', result: 'Echo: back' });
    expect(pidOf(marker)).not.toBe(first);
    expect((await t.agents.handle(agentId).describe()).status.name).toBe('RUNNING');
  });
});

test("the server's `timeout` cuts a call short (cancelling the request); the connection serves the next call", async () => {
  const marker = uniqueId('marker');
  await withWorker({ taskQueue, workspaceRoot, models, mcpServers: { every: { ...everythingStdio(marker), timeout: 1500 } } }, async () => {
    const agentId = uniqueId('mcp-every-timeout');
    await t.agents.start(agentId, { model: 'scripted:calls' });
    const [slow] = await run(agentId, [{ name: 'every__trigger-long-running-operation', args: { duration: 30, steps: 30 } }]);
    expect(slow).toMatchObject({ status: 'Failed', result: expect.stringMatching(/^every__trigger-long-running-operation timed out after 2 s/) });
    const pid = pidOf(marker);
    const [echo] = await run(agentId, [{ name: 'every__echo', args: { message: 'still here' } }]);
    expect(echo).toMatchObject({ status: 'Success', result: 'Echo: still here' });
    expect(pidOf(marker)).toBe(pid); // the same server process: a cancelled call does not cost the connection
  });
});

test('a url server that speaks only legacy SSE: Streamable HTTP is tried first, then SSE', async () => {
  const sse = await startEverythingHttp('sse');
  try {
    await withWorker({ taskQueue, workspaceRoot, models, mcpServers: { old: { url: sse.url } } }, async () => {
      const agentId = uniqueId('mcp-sse');
      await t.agents.start(agentId, { model: 'scripted:calls' });
      const [echo, weather] = await run(agentId, [
        { name: 'old__echo', args: { message: 'over SSE' } },
        { name: 'old__get-structured-content', args: { location: 'New York' } },
      ]);
      expect(echo).toMatchObject({ status: 'Success', result: 'Echo: over SSE' });
      expect(JSON.parse(weather.result)).toMatchObject({ temperature: 33 });
    });
  } finally {
    await sse.stop();
  }
});

test('an HTTP server that went away: a Failed result that says so, quickly', async () => {
  const http = await startEverythingHttp();
  try {
    await withWorker({ taskQueue, workspaceRoot, models, mcpServers: { every: { url: http.url } } }, async () => {
      const agentId = uniqueId('mcp-every-gone');
      await t.agents.start(agentId, { model: 'scripted:calls' });
      await http.stop();
      const [gone, again] = await run(agentId, [
        { name: 'every__echo', args: { message: 'anyone?' } },
        { name: 'every__echo', args: { message: 'still?' } },
      ]);
      expect(gone.status).toBe('Failed');
      expect(gone.result).toMatch(/Cannot reach the MCP server "every" \(http:\/\/127\.0\.0\.1:\d+\/mcp\)/);
      expect(again.status).toBe('Failed');
      expect(again.result).toMatch(/Cannot reach the MCP server "every"/);
    });
  } finally {
    await http.stop();
  }
});
