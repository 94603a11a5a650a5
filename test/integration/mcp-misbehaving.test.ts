/**
 * MCP servers that misbehave, against a worker on the real dev server (test/fixtures/odd-mcp-server.ts,
 * on @modelcontextprotocol/sdk; the reference servers never do these things):
 * - a server whose tools/list never stops paging: the worker starts anyway and answers turns; the log
 *   names the server and why its tools are not offered;
 * - tools/list_changed from a server that pages its list: every page of the new list is offered;
 * - what a server answered (a malformed image, the JSON-RPC error -32000, 50 MB) is said as it was, and
 *   the server is not restarted; a server that stops answering is;
 * - a secret the server echoes inside structuredContent (escaped in JSON) or split between text blocks
 *   reaches nothing the agent keeps;
 * - a tool whose input schema is nested 2,000 levels deep is not offered, and exports stay small.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ScriptedModelProvider } from '../../activities/index';
import { McpPool, parseMcpConfig } from '../../activities/mcp/index';
import type { ToolCallResult, ToolResultsEntry } from '../../agent/index';
import { callsInput, callsScript, runCalls } from '../fixtures/calls-script';
import { oddServer, pidOf } from '../support/mcp-servers';
import { type ChildWorker, startChildWorker } from '../support/child-worker';
import { rawText } from '../support/raw-text';
import { connectTest, eventually, type TestContext, uniqueId, withWorker } from '../support/temporal';
import { useTestConnection } from '../support/test-connection';

const { t, taskQueue } = useTestConnection('mcp-odd');

const models = [new ScriptedModelProvider({ calls: callsScript })];
const workspaceRoot = mkdtempSync(path.join(tmpdir(), 'lc-ws-'));

const run = (agentId: string, calls: Array<{ name: string; args: unknown }>): Promise<ToolCallResult[]> => runCalls(t.agents, agentId, calls);

describe('a worker process with a server that never stops paging', () => {
  const queue = uniqueId('mcp-endless');
  let worker: ChildWorker;
  let q: TestContext;

  beforeAll(async () => {
    q = await connectTest(queue);
    const config = { mcpServers: { endless: oddServer('endless'), odd: oddServer('paged') } };
    worker = await startChildWorker({ fixture: 'mcp-worker.ts', taskQueue: queue, workspaceRoot, extraEnv: { MCP_CONFIG: JSON.stringify(config) } });
  });

  afterAll(async () => {
    await worker?.kill('SIGTERM');
    await q?.close();
  });

  test('the worker starts anyway, names the server it skipped and why, and answers turns', async () => {
    expect(worker.output()).toMatch(
      /MCP server "endless" skipped: its tool list does not end: tools\/list still gave a nextCursor after 100 pages \(100 tools so far\); its tools are not offered/,
    );
    const { agents } = q;
    const agentId = uniqueId('mcp-endless');
    await agents.start(agentId, { model: 'scripted:calls' });
    await expect(
      agents.ask(
        agentId,
        callsInput([
          { name: 'odd__echo', args: { text: 'still here' } },
          { name: 'endless__page_0', args: {} },
        ]),
      ),
    ).resolves.toMatchObject({ status: 'answered' });
    const [echo, endless] = ((await agents.history(agentId)).find((e) => e.kind === 'tool_results') as ToolResultsEntry).results;
    expect(echo).toMatchObject({ status: 'Success', result: 'still here' });
    expect(endless.status).toBe('Failed');
    expect(endless.result).toMatch(/^Unknown tool "endless__page_0"/);
  });

  test('after tools/list_changed, every page of the new list is offered', async () => {
    const { agents } = q;
    const agentId = uniqueId('mcp-list-changed');
    await agents.start(agentId, { model: 'scripted:calls' });
    // `grow` adds five tools at the end of a list served two a page, and says so with tools/list_changed.
    await expect(agents.ask(agentId, callsInput([{ name: 'odd__grow', args: {} }]))).resolves.toMatchObject({ status: 'answered' });
    await eventually(() => worker.output().includes('MCP server "odd" changed its tools: now 13'), 30_000, 'the refreshed list');
    await expect(
      agents.ask(
        agentId,
        callsInput([
          { name: 'odd__late_1', args: {} },
          { name: 'odd__late_5', args: {} },
          { name: 'odd__echo', args: { text: 'first page' } },
        ]),
      ),
    ).resolves.toMatchObject({ status: 'answered' });
    const results = ((await agents.history(agentId)).filter((e) => e.kind === 'tool_results').pop() as ToolResultsEntry).results;
    expect(results.map((r) => [r.status, r.result])).toEqual([
      ['Success', 'late 1'],
      ['Success', 'late 5'],
      ['Success', 'first page'],
    ]);
  });
});

test('listing tools also stops at a cursor given twice and at too many tools, naming the server', async () => {
  const pool = new McpPool(parseMcpConfig({ circle: oddServer('circle'), many: oddServer('paged') }), undefined, { listLimits: { maxTools: 5 } });
  try {
    await pool.discover();
    const [circle, many] = pool.status();
    expect(circle).toMatchObject({
      name: 'circle',
      connected: false,
      error: 'its tool list goes round in a circle: tools/list gave the same nextCursor twice (3 pages, 3 tools so far); its tools are not offered',
    });
    expect(many).toMatchObject({ name: 'many', connected: false, error: 'it offers more than 5 tools (3 pages); its tools are not offered' });
  } finally {
    await pool.close();
  }
});

test('what a server answered is said as it was, and the server is not restarted; one that stops answering is', async () => {
  const marker = uniqueId('marker');
  await withWorker({ taskQueue, workspaceRoot, models, mcpServers: { odd: { ...oddServer('paged', marker), timeout: 8000 } } }, async () => {
    const agentId = uniqueId('mcp-answers');
    await t.agents.start(agentId, { model: 'scripted:calls' });
    const pid = pidOf(marker);
    expect(pid).toBeGreaterThan(0);
    const [image, error, huge, echo] = await run(agentId, [
      { name: 'odd__bad_base64', args: {} },
      { name: 'odd__server_error', args: {} },
      { name: 'odd__huge', args: { mb: 50 } },
      { name: 'odd__echo', args: { text: 'same server' } },
    ]);
    // The server answered: the text stands, and the malformed block says what is wrong with it.
    expect(image).toMatchObject({
      status: 'Success',
      result: 'the chart:\n[image content the server sent is malformed (content[1]: data: Invalid Base64 string); left out]',
    });
    expect(error).toMatchObject({
      status: 'Failed',
      result: 'odd__server_error failed: the MCP server "odd" answered with an error (JSON-RPC -32000): the database is locked by another process',
    });
    expect(huge.status).toBe('Failed');
    expect(huge.result).toMatch(
      /^odd__huge failed: the MCP server "odd" answered with 50\.0 MB — more than the 10\.0 MB one result may have here — so the result was dropped; the server keeps running/,
    );
    expect(huge.result.length).toBeLessThan(500);
    expect(echo).toMatchObject({ status: 'Success', result: 'same server' });
    for (const r of [image, error, huge]) expect(r.result).not.toMatch(/reach|crash|reconnect/i);
    expect(pidOf(marker)).toBe(pid);

    // A server that stops answering (not even a ping): the call times out, and the next call gets a new server.
    const [hang] = await run(agentId, [{ name: 'odd__hang', args: {} }]);
    expect(hang).toMatchObject({ status: 'Failed', result: expect.stringMatching(/^odd__hang timed out after 8 s/) });
    await eventually(() => pidOf(marker) !== pid, 30_000, 'the hung server to be closed');
    const [back] = await run(agentId, [{ name: 'odd__echo', args: { text: 'a new server' } }]);
    expect(back).toMatchObject({ status: 'Success', result: 'a new server' });
    expect(pidOf(marker)).not.toBe(pid);
  });
});

test('secrets escaped inside structuredContent or split between text blocks reach nothing the agent keeps', async () => {
  // A service-account key file on one line, as it is put in an environment variable (quotes, and "\n"
  // inside its private key), and a GitHub fine-grained token.
  const privateKeyBody = 'MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7VJTUt9Us8cKj';
  const serviceAccount = JSON.stringify({
    type: 'service_account',
    project_id: 'acme-prod',
    private_key_id: 'a1b2c3d4e5f60718293a4b5c6d7e8f9012345678',
    private_key: `-----BEGIN PRIVATE KEY-----\n${privateKeyBody}\nMkeWdGOG2k7Mg3TzK1VQwC7KqrVGWfAe8sNhVhM3\n-----END PRIVATE KEY-----\n`,
    client_email: 'agent@acme-prod.iam.gserviceaccount.com',
  });
  const token = 'github_pat_11AAQ7ZVY0xK3mN8pQ2rS5_tUvWxYz0123456789AbCdEfGhIjKlMnOpQrStUvWxYz0123456789AbCd';
  const env = { SA_FOR_ODD: serviceAccount, TOKEN_FOR_ODD: token };
  const mcpServers = parseMcpConfig({ odd: oddServer('paged', 'secrets', { SERVICE_ACCOUNT_JSON: '${SA_FOR_ODD}', API_TOKEN: '${TOKEN_FOR_ODD}' }) }, env);
  await withWorker({ taskQueue, workspaceRoot, models, mcpServers }, async () => {
    const agentId = uniqueId('mcp-leaks');
    await t.agents.start(agentId, { model: 'scripted:calls' });
    const [structured, split] = await run(agentId, [
      { name: 'odd__leak_structured', args: {} },
      { name: 'odd__leak_split', args: {} },
    ]);
    expect(structured).toMatchObject({ status: 'Success', result: '{"config":{"credentials":"[redacted $SA_FOR_ODD]"}}' });
    expect(split).toMatchObject({ status: 'Success', result: 'token part one: [redacted $TOKEN_FOR_ODD]\n (end)' });
    const kept = [
      JSON.stringify(await t.agents.history(agentId)),
      JSON.stringify(await t.agents.snapshot(agentId)),
      rawText(await t.agents.handle(agentId).fetchHistory()),
    ];
    expect(kept[2]).toContain('[redacted $TOKEN_FOR_ODD]'); // the search does read payload text
    for (const text of kept) {
      for (const leak of [privateKeyBody, 'acme-prod.iam', token.slice(0, 30), token.slice(-30)]) expect(text).not.toContain(leak);
    }
  });
});

test('a tool whose input schema is nested 2,000 levels deep is not offered; the export stays small', async () => {
  await withWorker({ taskQueue, workspaceRoot, models, mcpServers: { odd: oddServer('paged', 'deep') } }, async () => {
    const agentId = uniqueId('mcp-deep');
    await t.agents.start(agentId, { model: 'scripted:calls' });
    const [echo, deep] = await run(agentId, [
      { name: 'odd__echo', args: { text: 'hi' } },
      { name: 'odd__deep', args: {} },
    ]);
    expect(echo).toMatchObject({ status: 'Success', result: 'hi' });
    expect(deep.status).toBe('Failed');
    expect(deep.result).toMatch(/^Unknown tool "odd__deep"/);
    const state = await t.agents.state(agentId);
    expect(state.mcpTools).toEqual(expect.arrayContaining(['odd__echo', 'odd__huge']));
    expect(state.mcpTools).not.toContain('odd__deep');
    // What `livecontext export` writes: the snapshot, pretty-printed.
    expect(JSON.stringify(await t.agents.snapshot(agentId), null, 2).length).toBeLessThan(200_000);
  });
});
