/**
 * A worker SIGKILLed in the middle of an MCP tool call: the turn finishes once a worker runs again, the
 * interrupted call is Temporal's next attempt of the same activity (recorded as `attempts: 2`), and the
 * call that had completed before the kill is not run again — on a real dev server, with the reference
 * server-everything over stdio (its long-running tool, a fresh server process in the new worker).
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { ToolResultsEntry } from '../../agent/index';
import { callsInput } from '../fixtures/calls-script';
import { everythingStdio } from '../support/mcp-servers';
import { type ChildWorker, startChildWorker } from '../support/child-worker';
import { connectTest, eventually, type TestContext, uniqueId } from '../support/temporal';

const taskQueue = uniqueId('mcp-crash');
const workspaceRoot = mkdtempSync(path.join(tmpdir(), 'lc-ws-'));
let t: TestContext;
let worker: ChildWorker | undefined;

function startWorker(): Promise<ChildWorker> {
  const config = { mcpServers: { every: everythingStdio(uniqueId('marker')) } };
  return startChildWorker({ fixture: 'mcp-worker.ts', taskQueue, workspaceRoot, extraEnv: { MCP_CONFIG: JSON.stringify(config) } });
}

beforeAll(async () => (t = await connectTest(taskQueue)));
afterAll(async () => {
  await worker?.kill('SIGKILL');
  await t?.close();
});

test('SIGKILL of the worker mid MCP call: the turn finishes after a restart; the completed call is not run again', async () => {
  worker = await startWorker();
  const agentId = uniqueId('mcp-crash');
  await t.agents.start(agentId, { model: 'scripted:calls' });
  // One model output, two calls run one after the other: an echo, then a long operation.
  const { inputSeq } = await t.agents.send(
    agentId,
    callsInput([
      { name: 'every__echo', args: { message: 'before the crash' } },
      { name: 'every__trigger-long-running-operation', args: { duration: 6, steps: 6 } },
    ]),
  );
  await eventually(async () => (await t.agents.toolProgress(agentId)).length > 0, 60_000, 'the long call to be running');
  await worker.kill('SIGKILL');
  worker = await startWorker();

  await expect(t.agents.waitForAnswer(agentId, inputSeq)).resolves.toMatchObject({ status: 'answered', answer: { contents: ['done'] } });
  const results = ((await t.agents.history(agentId)).find((e) => e.kind === 'tool_results') as ToolResultsEntry).results;
  expect(results[0]).toMatchObject({ toolName: 'every__echo', status: 'Success', result: 'Echo: before the crash' });
  expect(results[0].metadata?.attempts).toBeUndefined(); // one attempt
  expect(results[1]).toMatchObject({ toolName: 'every__trigger-long-running-operation', status: 'Success', metadata: { attempts: 2 } });

  // Temporal's record: the echo's activity started once; the long call's twice (the second on the new worker).
  const events = (await t.agents.handle(agentId).fetchHistory()).events ?? [];
  const scheduled = new Set<string>();
  for (const e of events) if (e.activityTaskScheduledEventAttributes?.activityType?.name === 'executeTool') scheduled.add(String(e.eventId));
  expect(scheduled.size).toBe(2); // no call was scheduled again
  const starts = events
    .filter((e) => e.activityTaskStartedEventAttributes)
    .map((e) => ({ of: String(e.activityTaskStartedEventAttributes!.scheduledEventId), attempt: e.activityTaskStartedEventAttributes!.attempt }));
  const echoId = [...scheduled.keys()][0];
  expect(starts.filter((s) => s.of === echoId)).toEqual([{ of: echoId, attempt: 1 }]);
}, 180_000);
