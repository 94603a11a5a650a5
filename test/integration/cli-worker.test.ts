/**
 * `livecontext worker` connects through Temporal's environment configuration (TEMPORAL_ADDRESS,
 * TEMPORAL_NAMESPACE) and loads user tools with --tools.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { SECOND_NAMESPACE } from '../support/global-setup';
import { connectTest, eventually, type TestContext, testAddress, uniqueId } from '../support/temporal';

const root = path.resolve(__dirname, '../..');
let t: TestContext;
let proc: ChildProcess | undefined;
beforeAll(async () => (t = await connectTest('livecontext-agents', SECOND_NAMESPACE)));
afterAll(async () => {
  proc?.kill('SIGTERM');
  await t?.close();
});

test('a worker configured by TEMPORAL_ADDRESS/TEMPORAL_NAMESPACE runs agents with tools from --tools', async () => {
  const cwd = mkdtempSync(path.join(tmpdir(), 'lc-worker-'));
  proc = spawn(process.execPath, [path.join(root, 'bin/livecontext.js'), 'worker', '--tools', path.join(root, 'test/fixtures/user-tools.ts')], {
    cwd,
    env: { ...process.env, TEMPORAL_ADDRESS: testAddress(), TEMPORAL_NAMESPACE: SECOND_NAMESPACE },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  proc.stdout!.on('data', (d) => (out += d));
  proc.stderr!.on('data', (d) => (out += d));
  await eventually(() => out.includes('Worker running'), 60_000, 'the worker to start');
  expect(out).toContain(`namespace ${SECOND_NAMESPACE}`);

  const agentId = uniqueId('cli-worker');
  await t.agents.start(agentId, { model: 'demo:offline', tools: ['write_file', 'list_files', 'shout'] });
  const outcome = await t.agents.ask(agentId, 'hello from another namespace');
  expect(outcome).toMatchObject({ status: 'answered' });
  const status = await t.agents.state(agentId);
  expect(status.config.tools).toEqual(['write_file', 'list_files', 'shout']);
});
