/**
 * A tool's retry count survives its worker: SIGKILLed while the call waits to retry, the next worker
 * goes on from the attempts kept in the activity's heartbeat details, so the Success result says
 * `attempts: 3` and keeps the error of the attempt the dead worker ran, not only its own.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { ToolResultsEntry } from '../../agent/index';
import { safeFolderName } from '../../activities/execute-tool';
import { ledgerIn } from '../../activities/tools/tool-retry';
import { callsInput } from '../fixtures/calls-script';
import { type ChildWorker, startChildWorker } from '../support/child-worker';
import { connectTest, eventually, type TestContext, uniqueId } from '../support/temporal';

const taskQueue = uniqueId('tool-retry-crash');
const workspaceRoot = mkdtempSync(path.join(tmpdir(), 'lc-ws-'));
let t: TestContext;
let worker: ChildWorker | undefined;

beforeAll(async () => {
  t = await connectTest(taskQueue);
});
afterAll(async () => {
  await worker?.kill('SIGKILL');
  await t?.close();
});

test('SIGKILL mid-retry: the next worker continues the count and keeps the earlier error', async () => {
  worker = await startChildWorker({ fixture: 'retry-worker.ts', taskQueue, workspaceRoot });
  const first = worker.proc.pid!;
  const agentId = uniqueId('retry-crash');
  await t.agents.start(agentId, { model: 'scripted:calls' });
  const { inputSeq } = await t.agents.send(agentId, callsInput([{ name: 'flaky_across', args: {} }]));
  // The first attempt's error has reached the server (heartbeat details): the call now waits to retry.
  await eventually(async () => (await t.agents.toolProgress(agentId)).some((p) => ledgerIn(p.details)?.errors.length === 1), 60_000, 'the first failure');
  await worker.kill('SIGKILL');
  worker = await startChildWorker({ fixture: 'retry-worker.ts', taskQueue, workspaceRoot });
  const second = worker.proc.pid!;

  await expect(t.agents.waitForAnswer(agentId, inputSeq)).resolves.toMatchObject({ status: 'answered' });
  const entry = (await t.agents.history(agentId)).find((e) => e.kind === 'tool_results') as ToolResultsEntry;
  const [result] = entry.results;
  expect(result).toMatchObject({ status: 'Success', result: 'answered on run 3', metadata: { attempts: 3 } });
  const errors = result.metadata?.attempt_errors as Array<{ attempt: number; error: string; kind: string }>;
  expect(errors.map((e) => [e.attempt, e.kind, e.error])).toEqual([
    [1, 'retryable', `unavailable on run 1 (pid ${first})`],
    [2, 'retryable', `unavailable on run 2 (pid ${second})`],
  ]);
  const runs = readFileSync(path.join(workspaceRoot, safeFolderName(agentId), 'runs.txt'), 'utf8')
    .trim()
    .split('\n');
  expect(runs).toEqual([String(first), String(second), String(second)]); // the body ran three times in all
});
