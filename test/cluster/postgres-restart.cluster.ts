/**
 * PostgreSQL goes down mid-turn (an immediate stop: every connection cut, crash recovery at the next start)
 * while a tool runs on one of two worker processes; once the database is back the turn completes, each
 * tool ran once, and the agent takes the next input.
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

  const log = readFileSync(path.join(workspaceRoot, id, 'executions.log'), 'utf8').trim().split('\n');
  expect(log.filter((l) => l.startsWith('done ')).map((l) => l.split(' ')[1])).toEqual(['a', 'b', 'c']);
  expect(log.filter((l) => l.startsWith('start ')).map((l) => l.split(' ')[1])).toEqual(['a', 'b', 'c']);
  expect(await t.agents.ask(id, 'after')).toMatchObject({ status: 'answered', answer: { contents: ['echo: after'] } });
});
