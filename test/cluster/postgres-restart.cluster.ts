/**
 * PostgreSQL goes down mid-turn (an immediate stop: every connection cut, crash recovery at the next start)
 * while a tool runs on one of two worker processes; once the database is back the turn completes, the
 * agent scheduled each tool call once and has one result for each, and it takes the next input.
 * Temporal runs activities at least once: a tool body may run again when the outage cost the server its
 * record of the start or of the result (tools get an idempotency key for that). The test counts those
 * runs apart and prints them; what must not happen is the agent scheduling a call again.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { ChildWorker } from '../support/child-worker';
import { connectTest, eventually, type TestContext, uniqueId } from '../support/temporal';
import { crashPostgres, startWorkerProcesses } from './cluster-processes';

const taskQueue = uniqueId('cluster-pg');
let t: TestContext;
let workers: ChildWorker[] = [];
let controlDir: string;
let workspaceRoot: string;

beforeAll(async () => {
  t = await connectTest(taskQueue);
  const started = await startWorkerProcesses(2, taskQueue);
  workers = started.workers;
  ({ controlDir, workspaceRoot } = started.env);
});
afterAll(async () => {
  await Promise.all(workers.map((w) => w.kill('SIGTERM')));
  await t?.close();
});

const started = (marker: string) => () => (existsSync(controlDir) ? readdirSync(controlDir).some((f) => f.startsWith(marker)) : false);

test('a turn in flight when PostgreSQL restarts completes once it is back; no tool runs twice', async () => {
  const id = uniqueId('pg');
  await t.agents.start(id, { model: 'scripted:crash', tools: ['record', 'slow'] });
  const { inputSeq } = await t.agents.send(id, 'go'); // record a, slow b, record c, then a model call that waits
  await eventually(started('started-b-'), 60_000, 'the slow tool to start');

  const { before, after } = await crashPostgres(3000);
  expect(after).not.toBe(before);
  await writeFile(path.join(controlDir, 'release-b'), '');
  await eventually(started('started-model-1-'), 120_000, 'the model call after the tools (the database back)');
  await writeFile(path.join(controlDir, 'release-model-1'), '');
  expect(await t.agents.waitForAnswer(id, inputSeq)).toMatchObject({ status: 'answered', answer: { contents: ['turn 1 done'] } });

  const log = readFileSync(path.join(workspaceRoot, id, 'executions.log'), 'utf8')
    .trim()
    .split('\n');
  const starts = log.filter((l) => l.startsWith('start ')).map((l) => l.split(' ')); // start <label> <key> <attempt>
  const scheduled = ((await t.client.workflow.getHandle(id).fetchHistory()).events ?? []).filter(
    (e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'executeTool',
  );
  const results = (await t.agents.history(id)).flatMap((e) => (e.kind === 'tool_results' ? e.results.map((r) => r.toolCallId) : []));
  const figures = {
    toolCallsScheduled: scheduled.length,
    toolResults: results.length,
    distinctResults: new Set(results).size,
    toolBodyRuns: starts.length,
    runs: starts.map((w) => `${w[1]}#${w[3]}`).join(' '),
  };
  console.log(`postgres restart: ${JSON.stringify(figures)}`);
  expect(figures).toMatchObject({ toolCallsScheduled: 3, toolResults: 3, distinctResults: 3 });
  // Every label ran and finished, in order; a label run again kept its call's idempotency key.
  expect([...new Set(log.filter((l) => l.startsWith('done ')).map((l) => l.split(' ')[1]))]).toEqual(['a', 'b', 'c']);
  for (const label of ['a', 'b', 'c']) expect(new Set(starts.filter((w) => w[1] === label).map((w) => w[2])).size).toBe(1);
  expect(await t.agents.ask(id, 'after')).toMatchObject({ status: 'answered', answer: { contents: ['echo: after'] } });
});
