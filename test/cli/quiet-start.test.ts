/**
 * Issue 13, items 5 and 6, as a user meets them: a worker prints a line for each start-up step and then
 * warnings only — no webpack module listing, no SDK JSON with task tokens, even when an activity fails —
 * and what `livecontext dev --namespace NAME` does on a server already running (creating the namespace
 * with the search attributes, then a worker there) lets an exported agent be imported, listed and
 * answered in that namespace.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { SEARCH_ATTRIBUTES } from '../../workflows/messages';
import { startDevServer } from '../../worker/dev-server';
import { cli } from '../support/cli';
import { connectTest, eventually, type TestContext, testAddress, uniqueId } from '../support/temporal';

const BIN = path.resolve(__dirname, '../../bin/livecontext.js');
/** What webpack's stats and Temporal's bundler print at INFO: none of it may reach the console. */
const BUNDLER_NOISE = /webpack|modules by path|orphan modules|asset workflow-bundle|cacheable modules|\.\/node_modules\//;

const namespace = uniqueId('lc-moved');
const taskQueue = uniqueId('quiet');
let worker: ChildProcess | undefined;
let t: TestContext | undefined;

afterAll(async () => {
  worker?.kill('SIGTERM');
  await t?.close();
});

/** A `livecontext worker` in `ns`, as `dev --namespace` starts one after creating it. */
function startWorker(ns: string) {
  const output = { stdout: '', stderr: '' };
  worker = spawn(process.execPath, [BIN, 'worker'], {
    cwd: mkdtempSync(path.join(tmpdir(), 'lc-quiet-')),
    env: {
      ...process.env,
      TEMPORAL_ADDRESS: testAddress(),
      TEMPORAL_NAMESPACE: ns,
      LIVECONTEXT_TASK_QUEUE: taskQueue,
      OPENAI_API_KEY: '',
      ANTHROPIC_API_KEY: '',
      LIVECONTEXT_LOG_LEVEL: '',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  worker.stdout!.on('data', (d) => (output.stdout += d));
  worker.stderr!.on('data', (d) => (output.stderr += d));
  return output;
}

test('dev --namespace on a running server: the namespace is created with the search attributes, once', async () => {
  const port = Number(testAddress().split(':').pop());
  const logged: string[] = [];
  const server = await startDevServer({ port, namespaces: [namespace], log: (m) => logged.push(m) });
  expect(server.started).toBe(false); // the running server is reused, as `livecontext dev` does
  expect(logged).toContain(`created namespace ${namespace}`);

  t = await connectTest(taskQueue, namespace);
  const { customAttributes } = await t.connection.operatorService.listSearchAttributes({ namespace });
  for (const { name } of SEARCH_ATTRIBUTES) expect(Object.keys(customAttributes ?? {})).toContain(name);

  // Created again (a second `dev --namespace` with the same name): left as it is.
  await expect(startDevServer({ port, namespaces: [namespace] })).resolves.toMatchObject({ started: false });
}, 120_000);

test('a worker says each start-up step, then stays quiet: no bundler listing, no task tokens when an activity fails', async () => {
  const out = startWorker(namespace);
  await eventually(() => out.stdout.includes('Worker running'), 90_000, 'the worker to start');
  expect(out.stderr).toMatch(/connecting to Temporal at .*…/);
  expect(out.stderr).toMatch(/bundling agent workflow code…/);

  // A model call that fails on the worker (no OpenAI key there): the SDK logs the failed activity.
  const env = { TEMPORAL_NAMESPACE: namespace, LIVECONTEXT_TASK_QUEUE: taskQueue };
  const failing = uniqueId('no-key');
  expect((await cli(['start', failing, '--model', 'openai:gpt-4.1-mini'], { env })).code).toBe(0);
  expect((await cli(['send', failing, 'hello', '--wait'], { env })).code).toBe(1);

  // The move docs/cli.md shows: export, import under another id, then it is listed (the search attributes) and answers.
  const first = uniqueId('exported');
  const copy = `${first}-copy`;
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'lc-snap-')), 'agent.json');
  expect((await cli(['start', first, '--model', 'demo:offline', '--tools', 'write_file'], { env })).code).toBe(0);
  expect((await cli(['send', first, 'keep this', '--wait'], { env })).code).toBe(0);
  expect((await cli(['export', first, '--out', file], { env })).code).toBe(0);
  expect((await cli(['import', file, '--id', copy], { env })).code).toBe(0);
  const list = await cli(['list'], { env });
  expect(list.stdout).toMatch(new RegExp(`^${copy}\\s+waiting for input\\s+demo:offline`, 'm'));
  const answer = await cli(['send', copy, 'keep that too', '--wait'], { env });
  expect(answer).toMatchObject({ code: 0, stdout: expect.stringContaining('Saved notes/note-2.md') });

  const printed = out.stdout + out.stderr;
  expect(printed).toMatch(/\[WARN\] Activity failed .*MissingApiKey/); // the failure is said, in one line
  expect(printed).not.toMatch(BUNDLER_NOISE);
  expect(printed).not.toMatch(/taskToken|sdkComponent/);
  expect(printed).not.toMatch(/\[INFO\]/); // the SDK's INFO lines (every worker state change) stay off the console
}, 240_000);
