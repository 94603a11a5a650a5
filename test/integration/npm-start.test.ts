/**
 * What `npm start` runs (`livecontext up`), as a user would pipe into it: one message per line, each
 * reply printed, exit at end of input, and the agent still alive in Temporal afterwards.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { connectTest, type TestContext, testAddress, uniqueId } from '../support/temporal';

const root = path.resolve(__dirname, '../..');
let t: TestContext;
beforeAll(async () => (t = await connectTest('livecontext-agents')));
afterAll(async () => t?.close());

function up(agentId: string, input: string, cwd: string) {
  return spawnSync(process.execPath, [path.join(root, 'bin/livecontext.js'), 'up', agentId], {
    cwd,
    input,
    env: { ...process.env, TEMPORAL_ADDRESS: testAddress(), LIVECONTEXT_MODEL: '', OPENAI_API_KEY: '', ANTHROPIC_API_KEY: '' },
    encoding: 'utf8',
    timeout: 120_000,
  });
}

test('piped input: one reply per line, exit at EOF, the agent stays alive and carries on next time', async () => {
  const cwd = mkdtempSync(path.join(tmpdir(), 'lc-up-'));
  const agentId = uniqueId('up');
  const first = up(agentId, 'buy milk\ncall Ada\n', cwd);
  expect(first.status).toBe(0);
  const replies = first.stdout.trim().split('\n');
  expect(replies).toHaveLength(2);
  expect(replies[0]).toMatch(/^\[offline demo model.*\] Saved notes\/note-1\.md\. /);
  expect(replies[1]).toMatch(/Saved notes\/note-2\.md\. /);
  expect(first.stderr).toMatch(/write_file/);

  // No worker runs now (queries would wait for one), but the agent is a running workflow.
  expect((await t.agents.handle(agentId).describe()).status.name).toBe('RUNNING');

  const second = up(agentId, 'water plants\n', cwd);
  expect(second.status).toBe(0);
  expect(second.stdout).toMatch(/Saved notes\/note-3\.md\. /);
  expect(readdirSync(path.join(cwd, '.livecontext/workspaces', agentId, 'notes'))).toEqual(['note-1.md', 'note-2.md', 'note-3.md']);
});

test('npm start also serves the web chat and HTTP API, and prints its URL', async () => {
  const { spawn } = await import('node:child_process');
  const cwd = mkdtempSync(path.join(tmpdir(), 'lc-up-'));
  const agentId = uniqueId('up-web');
  const proc = spawn(process.execPath, [path.join(root, 'bin/livecontext.js'), 'up', agentId], {
    cwd,
    env: { ...process.env, TEMPORAL_ADDRESS: testAddress(), LIVECONTEXT_MODEL: '', OPENAI_API_KEY: '', ANTHROPIC_API_KEY: '', LIVECONTEXT_GATEWAY_PORT: '0' },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stderr = '';
  proc.stderr.on('data', (d) => (stderr += d));
  try {
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no URL within 90 s:\n${stderr}`)), 90_000);
      proc.stderr.on('data', () => {
        const m = /Web chat and HTTP API: (http:\/\/127\.0\.0\.1:\d+)/.exec(stderr);
        if (m) {
          clearTimeout(timer);
          resolve(m[1]);
        }
      });
    });
    const page = await fetch(`${url}/`);
    expect(page.status).toBe(200);
    expect(await page.text()).toMatch(/<title>livecontext<\/title>/);
    const state = await fetch(`${url}/agents/${agentId}`);
    expect(state.status).toBe(200);
    expect(await state.json()).toMatchObject({ config: { model: 'demo:offline' } });
  } finally {
    proc.stdin.end();
    await new Promise((r) => proc.once('exit', r));
  }
});
