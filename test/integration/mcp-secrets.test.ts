/**
 * A token given to MCP servers through `env` and `headers` (`${VAR}` from the worker's environment, under
 * a name the worker's own redaction would not take for a secret) appears nowhere: not in tool results
 * (server-everything's get-env returns its whole environment), not in raw or decoded history, state or
 * snapshot, and not in the worker's logs at DEBUG — including the start-up failure of a server that
 * prints the token and exits, and of an unreachable URL carrying it.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { ToolResultsEntry } from '../../agent/index';
import { callsInput } from '../fixtures/calls-script';
import { type HttpEverything, everythingStdio, startEverythingHttp } from '../support/mcp-servers';
import { type ChildWorker, startChildWorker } from '../support/child-worker';
import { keptTexts } from '../support/raw-text';
import { connectTest, eventually, type TestContext, uniqueId } from '../support/temporal';

const token = 'canary-MCP-9f8e7d6c5b4a3210';
// A service-account key file on one line, as such keys are put in environment variables: get-env's JSON
// text escapes its quotes and the "\n"s of its private key, so it is found only in its escaped form.
const keyBody = 'MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7VJTUt9Us8cKj';
const serviceAccount = JSON.stringify({ type: 'service_account', private_key: `-----BEGIN PRIVATE KEY-----\n${keyBody}\n-----END PRIVATE KEY-----\n` });
const taskQueue = uniqueId('mcp-secrets');
let t: TestContext;
let http: HttpEverything;
let worker: ChildWorker;

beforeAll(async () => {
  t = await connectTest(taskQueue);
  http = await startEverythingHttp();
  const config = {
    mcpServers: {
      every: everythingStdio(uniqueId('marker'), { SERVICE_CONFIG: '${CANARY_VALUE}', GOOGLE_SA: '${SA_VALUE}' }),
      web: { url: http.url, headers: { Authorization: 'Bearer ${CANARY_VALUE}' } },
      down: { url: 'http://127.0.0.1:1/mcp', headers: { 'X-Api': '${CANARY_VALUE}' } },
      // Not an MCP server: a command that prints what it was given and dies, as a broken server might.
      crashy: {
        command: process.execPath,
        args: ['-e', 'console.error("my token is", process.env.GIVEN); process.exit(3)'],
        env: { GIVEN: '${CANARY_VALUE}' },
      },
    },
  };
  worker = await startChildWorker({
    fixture: 'mcp-worker.ts',
    taskQueue,
    workspaceRoot: mkdtempSync(path.join(tmpdir(), 'lc-ws-')),
    extraEnv: { MCP_CONFIG: JSON.stringify(config), CANARY_VALUE: token, SA_VALUE: serviceAccount },
  });
});

afterAll(async () => {
  await worker?.kill('SIGTERM');
  await http?.stop();
  await t?.close();
});

test('the token reaches the servers but nothing the agent keeps, and no log line', async () => {
  // The failed servers were logged and skipped; the worker started anyway.
  expect(worker.output()).toMatch(/MCP server "down" skipped: Cannot reach the MCP server "down" \(http:\/\/127\.0\.0\.1:1\/mcp\)/);
  expect(worker.output()).toMatch(
    /MCP server "crashy" skipped: Cannot reach .*it closed the connection while starting .*my token is \[redacted \$CANARY_VALUE\]/,
  );

  const agentId = uniqueId('mcp-secrets');
  await t.agents.start(agentId, { model: 'scripted:calls' });
  const calls = [
    { name: 'every__get-env', args: {} },
    { name: 'web__echo', args: { message: 'through the authorized connection' } },
  ];
  await expect(t.agents.ask(agentId, callsInput(calls))).resolves.toMatchObject({ status: 'answered' });
  const entries = await t.agents.history(agentId);
  const [env, echo] = (entries.find((e) => e.kind === 'tool_results') as ToolResultsEntry).results;
  // The server had it (so redaction, not absence, keeps it out).
  expect(env.status).toBe('Success');
  expect(env.result).toContain('"SERVICE_CONFIG": "[redacted $CANARY_VALUE]"');
  expect(env.result).toContain('"GOOGLE_SA": "[redacted $SA_VALUE]"');
  expect(echo).toMatchObject({ status: 'Success', result: 'Echo: through the authorized connection' });

  const everything = [...(await keptTexts(t.agents, agentId)), worker.output()];
  for (const text of everything) expect(text).not.toContain(token);
  for (const text of everything) expect(text).not.toContain(keyBody);
  expect(everything[1]).toContain('[redacted $CANARY_VALUE]'); // the search does read payload text
  expect(worker.output()).toMatch(/\[DEBUG\]|\[INFO\]/); // the logs searched are the detailed ones
});

test("a server's notifications/tools/list_changed makes the worker list its tools again", async () => {
  // server-everything registers its client-dependent tools once initialized and says so with
  // tools/list_changed; the worker answers by listing them again (the list here has the same tools).
  await eventually(() => /MCP server "every" changed its tools: now \d+/.test(worker.output()), 30_000, 'the refresh after tools/list_changed');
});
