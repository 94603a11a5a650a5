/**
 * The package as a user (and the Docker image) gets it: `npm pack`, the tarball installed with
 * production dependencies only in an empty folder — no TypeScript, no tsx — then `livecontext --help`
 * and `livecontext worker`, which must run an agent's turn on the test server; and each entry point
 * (`livecontext`, `livecontext/worker`, `livecontext/workflow`) required as a user's program would.
 */
import { type ChildProcess, execFileSync, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { connectTest, eventually, type TestContext, testAddress, uniqueId } from '../support/temporal';

const root = path.resolve(__dirname, '../..');
const taskQueue = uniqueId('packed');
let t: TestContext;
let worker: ChildProcess | undefined;
/** The user's app folder, with the packed tarball installed. */
let app: string;

beforeAll(async () => {
  t = await connectTest(taskQueue);
  const packDir = mkdtempSync(path.join(tmpdir(), 'lc-pack-'));
  execFileSync('npm', ['pack', '--silent', '--pack-destination', packDir], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
  const tarball = path.join(
    packDir,
    readdirSync(packDir).find((f) => f.endsWith('.tgz'))!,
  );
  app = mkdtempSync(path.join(tmpdir(), 'lc-app-'));
  writeFileSync(path.join(app, 'package.json'), JSON.stringify({ name: 'lc-user-app', version: '1.0.0', private: true }));
  execFileSync('npm', ['install', '--omit=dev', '--no-audit', '--no-fund', '--prefer-offline', tarball], { cwd: app, stdio: ['ignore', 'ignore', 'inherit'] });
}, 300_000);
afterAll(async () => {
  worker?.kill('SIGTERM');
  await t?.close();
});

/** Runs `code` with node in the user's app (a fresh process, so its module cache shows what was loaded) and parses what it prints. */
function inApp(code: string): unknown {
  const run = spawnSync(process.execPath, ['-e', code], { cwd: app, encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`node -e failed (${run.status}): ${run.stderr}`);
  return JSON.parse(run.stdout);
}

/** Prints the exported names of `entry`, and the packages and livecontext files loading it pulled in. */
const loadReport = (entry: string) => `
  const lc = require('${entry}');
  const files = Object.keys(require.cache);
  const packages = new Set(files.map((f) => f.match(/node_modules\\/((?:@[^/]+\\/)?[^/]+)\\//)?.[1]).filter(Boolean));
  const own = files.map((f) => f.match(/node_modules\\/livecontext\\/dist\\/(.*)$/)?.[1]).filter(Boolean);
  console.log(JSON.stringify({ names: Object.keys(lc), packages: [...packages], own }));`;
type LoadReport = { names: string[]; packages: string[]; own: string[] };

test('the packed tarball, installed without dev dependencies, runs --help, a worker and the gateway with its page', async () => {
  const installed = path.join(app, 'node_modules', 'livecontext');
  expect(readdirSync(path.join(app, 'node_modules'))).not.toContain('typescript');
  expect(readdirSync(path.join(app, 'node_modules'))).not.toContain('tsx');
  expect(readdirSync(installed)).not.toContain('index.ts'); // compiled code only

  const bin = path.join(app, 'node_modules', '.bin', 'livecontext');
  const help = spawnSync(bin, ['--help'], { cwd: app, encoding: 'utf8' });
  expect(help.status).toBe(0);
  expect(help.stdout).toMatch(/^livecontext — durable LLM agents on Temporal/);

  worker = spawn(bin, ['worker'], {
    cwd: app,
    env: { ...process.env, TEMPORAL_ADDRESS: testAddress(), LIVECONTEXT_TASK_QUEUE: taskQueue },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  worker.stdout!.on('data', (d) => (out += d));
  worker.stderr!.on('data', (d) => (out += d));
  await eventually(() => out.includes('Worker running') || worker!.exitCode !== null, 120_000, 'the installed worker to start');
  expect(out).toContain('Worker running');

  const agentId = uniqueId('packed-agent');
  await t.agents.start(agentId, { model: 'demo:offline' });
  await expect(t.agents.ask(agentId, 'from the packed worker')).resolves.toMatchObject({ status: 'answered' });

  // The gateway as the Docker image's `serve` runs it: the page's files ship in the package.
  const gateway = spawn(bin, ['serve', '--port', '0'], {
    cwd: app,
    env: { ...process.env, TEMPORAL_ADDRESS: testAddress(), LIVECONTEXT_TASK_QUEUE: taskQueue },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  try {
    let said = '';
    gateway.stdout!.on('data', (d) => (said += d));
    gateway.stderr!.on('data', (d) => (said += d));
    const url = await eventually(
      () => /Gateway on (http:\/\/127\.0\.0\.1:\d+)/.exec(said)?.[1] ?? (gateway.exitCode !== null ? `exited: ${said}` : undefined),
      60_000,
      'the installed gateway to start',
    );
    expect(url).toMatch(/^http:/);
    const page = await fetch(`${url}/`);
    expect(await page.text()).toMatch(/<title>livecontext<\/title>/);
    expect((await fetch(`${url}/assets/app.js`)).status).toBe(200);
    await expect((await fetch(`${url}/agents/${agentId}`)).json()).resolves.toMatchObject({ config: { model: 'demo:offline' } });
  } finally {
    gateway.kill('SIGTERM');
  }
}, 300_000);

test("'livecontext' is the client: AgentClient, errors and message names, without worker or model SDK code", () => {
  const { names, packages, own } = inApp(loadReport('livecontext')) as LoadReport;
  expect(names).toEqual(
    expect.arrayContaining([
      'AgentClient',
      'connectAgents',
      'outcomeText',
      'defineTool',
      'LivecontextError',
      'InputRejectedError',
      'NoWorkerError',
      'errorCode',
      'WORKFLOW_TYPE',
      'TASK_QUEUE',
      'sendInputUpdate',
      'stateQuery',
    ]),
  );
  // Listed by name: internals and worker parts are not public here.
  for (const hidden of ['utf8Length', 'unwrap', 'DeltaSequencer', 'MessageAssembler', 'createLivecontextWorker', 'openaiProvider', 'agentWorkflow'])
    expect(names).not.toContain(hidden);
  for (const heavy of ['openai', '@anthropic-ai/sdk', '@temporalio/worker', 'js-tiktoken']) expect(packages).not.toContain(heavy);
  expect(own.filter((f) => f.startsWith('activities/models/'))).toEqual([]);
});

test("'livecontext/worker' has the worker, tools, providers and codecs", () => {
  const { names } = inApp(loadReport('livecontext/worker')) as LoadReport;
  expect(names).toEqual(
    expect.arrayContaining([
      'createLivecontextWorker',
      'startWorker',
      'defineTool',
      'ToolRegistry',
      'workspaceTools',
      'ModelRouter',
      'openaiProvider',
      'anthropicProvider',
      'ScriptedModelProvider',
      'livecontextDataConverter',
      'OffloadCodec',
      'EncryptionCodec',
      'WORKFLOWS_PATH',
    ]),
  );
  expect(names).not.toContain('utf8Length');
});

test("'livecontext/workflow' is pure: nothing Node-only or vendor, and Temporal bundles it into workflow code", async () => {
  const { names, packages, own } = inApp(loadReport('livecontext/workflow')) as LoadReport;
  expect(names).toEqual(
    expect.arrayContaining(['agentWorkflow', 'workerInfoWorkflow', 'Agent', 'inputSignal', 'WORKFLOW_TYPE', 'readSnapshot', 'InputRejectedError', 'errorCode']),
  );
  expect(names).not.toContain('AgentClient');
  const allowed = [
    'livecontext',
    'zod',
    '@temporalio/workflow',
    '@temporalio/common',
    '@temporalio/proto',
    '@temporalio/nexus',
    'nexus-rpc',
    'long',
    'protobufjs',
    'ms',
  ];
  expect(packages.filter((p) => !allowed.includes(p) && !p.startsWith('@protobufjs/'))).toEqual([]);
  expect(own.filter((f) => /^(activities|worker|client)\//.test(f))).toEqual([]);

  // A user's own workflow bundle hosting the agent workflow: Temporal's bundler refuses Node builtins,
  // @temporalio/client, worker and activity anywhere in the graph.
  writeFileSync(
    path.join(app, 'workflows.js'),
    "const { agentWorkflow, workerInfoWorkflow } = require('livecontext/workflow');\nmodule.exports = { agentWorkflow, workerInfoWorkflow };\n",
  );
  const bundled = inApp(`
    const { bundleWorkflowCode } = require('@temporalio/worker');
    const logger = { info() {}, warn() {}, debug() {}, trace() {}, log() {}, error: (m) => console.error(m) };
    bundleWorkflowCode({ workflowsPath: require.resolve('./workflows.js'), logger })
      .then(({ code }) => console.log(JSON.stringify({ bytes: code.length, hasAgent: code.includes('agentWorkflow') })))
      .catch((err) => { console.error(err); process.exit(1); });`) as { bytes: number; hasAgent: boolean };
  expect(bundled.hasAgent).toBe(true);
}, 120_000);
