/**
 * The worker's API key stays out of tool results: run_command runs with a scrubbed environment, and
 * known secret values are redacted from any tool's output (a user tool that returns the key, or a
 * command reading the worker's own /proc environ). Checked in raw and decoded history, state and snapshot.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { ToolResultsEntry } from '../../agent/index';
import { callsInput } from '../fixtures/calls-script';
import { type ChildWorker, startChildWorker } from '../support/child-worker';
import { keptTexts } from '../support/raw-text';
import { connectTest, type TestContext, uniqueId } from '../support/temporal';

const secret = 'sk-canary-TOOLS-0123456789abcdef';
const taskQueue = uniqueId('tool-secrets');
let t: TestContext;
let worker: ChildWorker;

beforeAll(async () => {
  t = await connectTest(taskQueue);
  // A separate process, so the key is in the worker's real environment (and its /proc environ).
  worker = await startChildWorker({
    fixture: 'secrets-worker.ts',
    taskQueue,
    workspaceRoot: mkdtempSync(path.join(tmpdir(), 'lc-ws-')),
    extraEnv: { OPENAI_API_KEY: secret },
  });
});
afterAll(async () => {
  await worker?.kill('SIGTERM');
  await t?.close();
});

test('neither run_command nor a user tool puts the worker key into history or snapshots', async () => {
  const agentId = uniqueId('leaky');
  await t.agents.start(agentId, { model: 'scripted:calls' });
  const calls = [
    { name: 'run_command', args: { command: 'printenv OPENAI_API_KEY' } },
    { name: 'run_command', args: { command: 'env' } },
    { name: 'run_command', args: { command: "tr '\\0' '\\n' < /proc/$PPID/environ | grep OPENAI" } },
    { name: 'leak', args: {} },
  ];
  await expect(t.agents.ask(agentId, callsInput(calls))).resolves.toMatchObject({ status: 'answered' });

  const entries = await t.agents.history(agentId);
  const results = (entries.find((e) => e.kind === 'tool_results') as ToolResultsEntry).results;
  expect(results.map((r) => r.status)).toEqual(['Failed', 'Success', 'Success', 'Success']);
  expect(results[0].result).toMatch(/\[exit code 1\]/); // the command does not have it at all
  expect(results[1].result).toMatch(/HOME=.*lc-ws-/);
  expect(results[1].result).not.toMatch(/OPENAI|LIVECONTEXT_TEST/);
  expect(results[2].result).toContain('OPENAI_API_KEY=[redacted $OPENAI_API_KEY]'); // the worker's own environ: redacted
  expect(results[3]).toMatchObject({ result: 'the key is [redacted $OPENAI_API_KEY]', metadata: { key: '[redacted $OPENAI_API_KEY]' } });

  const everything = await keptTexts(t.agents, agentId);
  for (const text of everything) expect(text).not.toContain(secret);
  expect(everything[1]).toContain('the key is [redacted $OPENAI_API_KEY]'); // the search does read payload text
});
