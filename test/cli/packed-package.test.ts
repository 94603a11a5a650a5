/**
 * The package as a user (and the Docker image) gets it: `npm pack`, the tarball installed with
 * production dependencies only in an empty folder — no TypeScript, no tsx — then `livecontext --help`
 * and `livecontext worker`, which must run an agent's turn on the test server.
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
beforeAll(async () => (t = await connectTest(taskQueue)));
afterAll(async () => {
  worker?.kill('SIGTERM');
  await t?.close();
});

test('the packed tarball, installed without dev dependencies, runs --help and a worker', async () => {
  const packDir = mkdtempSync(path.join(tmpdir(), 'lc-pack-'));
  execFileSync('npm', ['pack', '--silent', '--pack-destination', packDir], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
  const tarball = path.join(packDir, readdirSync(packDir).find((f) => f.endsWith('.tgz'))!);

  const app = mkdtempSync(path.join(tmpdir(), 'lc-app-'));
  writeFileSync(path.join(app, 'package.json'), JSON.stringify({ name: 'lc-user-app', version: '1.0.0', private: true }));
  execFileSync('npm', ['install', '--omit=dev', '--no-audit', '--no-fund', '--prefer-offline', tarball], { cwd: app, stdio: ['ignore', 'ignore', 'inherit'] });
  const installed = path.join(app, 'node_modules', 'livecontext');
  expect(readdirSync(path.join(app, 'node_modules'))).not.toContain('typescript');
  expect(readdirSync(path.join(app, 'node_modules'))).not.toContain('tsx');
  expect(readdirSync(installed)).not.toContain('index.ts'); // compiled code only

  const bin = path.join(app, 'node_modules', '.bin', 'livecontext');
  const help = spawnSync(bin, ['--help'], { cwd: app, encoding: 'utf8' });
  expect(help.status).toBe(0);
  expect(help.stdout).toMatch(/^livecontext — durable LLM agents on Temporal/);

  worker = spawn(bin, ['worker'], { cwd: app, env: { ...process.env, TEMPORAL_ADDRESS: testAddress(), LIVECONTEXT_TASK_QUEUE: taskQueue }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  worker.stdout!.on('data', (d) => (out += d));
  worker.stderr!.on('data', (d) => (out += d));
  await eventually(() => out.includes('Worker running') || worker!.exitCode !== null, 120_000, 'the installed worker to start');
  expect(out).toContain('Worker running');

  // The library entry works from the installed package too.
  const entry = spawnSync(process.execPath, ['-e', "const lc = require('livecontext'); console.log(typeof lc.AgentClient, typeof lc.defineTool)"], { cwd: app, encoding: 'utf8' });
  expect(entry.stdout.trim()).toBe('function function');

  const agentId = uniqueId('packed-agent');
  await t.agents.start(agentId, { model: 'demo:offline' });
  await expect(t.agents.ask(agentId, 'from the packed worker')).resolves.toMatchObject({ status: 'answered' });
}, 300_000);
