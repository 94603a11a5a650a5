/**
 * A server's tool that runs as an MCP task, followed across a worker SIGKILL: the worker calls the tool
 * as a task (the server says it supports tasks), the task id is in the call's heartbeat details, the
 * worker is SIGKILLed while the task runs, and the next worker follows the same task to its result —
 * the server got one call, the agent the right result. The server is the SDK's tasks support in a
 * process of its own (test/fixtures/task-mcp-server.ts), counting its calls.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { ToolResultsEntry } from '../../agent/index';
import { MCP_IDEMPOTENCY_META_KEY } from '../../activities/mcp/idempotency-meta';
import { callsInput } from '../fixtures/calls-script';
import { type ChildWorker, startChildWorker } from '../support/child-worker';
import { connectTest, eventually, type TestContext, uniqueId } from '../support/temporal';

const taskQueue = uniqueId('mcp-task-crash');
const workspaceRoot = mkdtempSync(path.join(tmpdir(), 'lc-ws-'));
let t: TestContext;
let worker: ChildWorker | undefined;
let server: ChildProcess | undefined;
let serverUrl: string;

function startWorker(): Promise<ChildWorker> {
  const config = { mcpServers: { jobs: { url: serverUrl } } };
  return startChildWorker({ fixture: 'mcp-worker.ts', taskQueue, workspaceRoot, extraEnv: { MCP_CONFIG: JSON.stringify(config) } });
}

const callsMade = async () => (await (await fetch(serverUrl.replace(/\/mcp$/, '/calls'))).json()) as Array<{ label: string; meta: Record<string, unknown> }>;

beforeAll(async () => {
  t = await connectTest(taskQueue);
  server = spawn(process.execPath, ['--import', 'tsx', path.join(__dirname, '../fixtures/task-mcp-server.ts')], {
    cwd: path.resolve(__dirname, '../..'),
    env: { ...process.env, PORT: '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  server.stdout!.on('data', (d) => (out += d));
  server.stderr!.on('data', (d) => (out += d));
  serverUrl = await eventually(() => /task server on (\S+)/.exec(out)?.[1] ?? (server!.exitCode !== null && 'exited'), 60_000, 'the task server to listen');
  if (serverUrl === 'exited') throw new Error(`the task server exited:\n${out}`);
});
afterAll(async () => {
  await worker?.kill('SIGKILL');
  server?.kill('SIGKILL');
  await t?.close();
});

test('SIGKILL of the worker while an MCP task runs: the next worker follows the same task; one call, the right result', async () => {
  worker = await startWorker();
  const agentId = uniqueId('mcp-task-crash');
  await t.agents.start(agentId, { model: 'scripted:calls' });
  const { inputSeq } = await t.agents.send(agentId, callsInput([{ name: 'jobs__slow_job', args: { label: 'a', seconds: 12 } }]));
  // The task id is in the heartbeat details (where the next attempt finds it) before the kill.
  const taskId = await eventually(
    async () => (await t.agents.toolProgress(agentId)).map((p) => (p.details as { mcp_task_id?: string } | undefined)?.mcp_task_id).find(Boolean),
    60_000,
    'the task id in the heartbeat details',
  );
  await worker.kill('SIGKILL');
  expect(await callsMade()).toHaveLength(1);
  worker = await startWorker();

  await expect(t.agents.waitForAnswer(agentId, inputSeq)).resolves.toMatchObject({ status: 'answered', answer: { contents: ['done'] } });
  const results = ((await t.agents.history(agentId)).find((e) => e.kind === 'tool_results') as ToolResultsEntry).results;
  expect(results[0]).toMatchObject({ toolName: 'jobs__slow_job', status: 'Success', result: 'job a done', metadata: { reconciled: true } });
  const calls = await callsMade();
  expect(calls).toHaveLength(1); // followed, not called again
  expect(calls[0]).toMatchObject({ label: 'a', meta: { [MCP_IDEMPOTENCY_META_KEY]: `${agentId}/${results[0].toolCallId}` } });
  expect(taskId).toMatch(/\S/);
}, 240_000);

test('without a crash, the task is followed to its result in one attempt', async () => {
  worker ??= await startWorker();
  const agentId = uniqueId('mcp-task');
  await t.agents.start(agentId, { model: 'scripted:calls' });
  const before = (await callsMade()).length;
  await expect(t.agents.ask(agentId, callsInput([{ name: 'jobs__slow_job', args: { label: 'b', seconds: 1 } }]))).resolves.toMatchObject({
    status: 'answered',
  });
  const results = ((await t.agents.history(agentId)).find((e) => e.kind === 'tool_results') as ToolResultsEntry).results;
  expect(results[0]).toMatchObject({ status: 'Success', result: 'job b done' });
  expect(results[0].metadata?.attempts).toBeUndefined();
  expect(await callsMade()).toHaveLength(before + 1);
}, 120_000);
