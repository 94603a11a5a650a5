/**
 * `livecontext chat` on a real terminal shows an MCP tool's progress while it runs: server-everything's
 * long-running tool sends progress notifications, the worker turns them into heartbeat details, and the
 * chat prints a line per report before the tool's result.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ScriptedModelProvider } from '../../activities/index';
import { callsInput, callsScript } from '../fixtures/calls-script';
import { everythingStdio } from '../support/mcp-servers';
import { eventually, testAddress, uniqueId, withWorker } from '../support/temporal';
import { useTestConnection } from '../support/test-connection';

const { t, taskQueue } = useTestConnection('mcp-chat');

test('progress lines appear before the result', async () => {
  const id = uniqueId('mcp-tty');
  const models = [new ScriptedModelProvider({ calls: callsScript })];
  const workspaceRoot = mkdtempSync(path.join(tmpdir(), 'lc-ws-'));
  await withWorker({ taskQueue, workspaceRoot, models, mcpServers: { every: everythingStdio(uniqueId('marker')) } }, async () => {
    await t.agents.start(id, { model: 'scripted:calls' });
    const bin = path.resolve(__dirname, '../../bin/livecontext.js');
    const child = spawn('script', ['-qfec', `${process.execPath} ${bin} chat ${id}`, '/dev/null'], {
      env: { ...process.env, TEMPORAL_ADDRESS: testAddress(), LIVECONTEXT_TASK_QUEUE: taskQueue, TERM: 'dumb' },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    try {
      await eventually(() => out.includes('Attached to agent'), 30_000, 'the chat to attach');
      child.stdin.write(`${callsInput([{ name: 'every__trigger-long-running-operation', args: { duration: 4, steps: 4 } }])}\r`);
      await eventually(() => out.includes('every__trigger-long-running-operation: 2/4'), 30_000, 'a progress line');
      expect(out).not.toContain('Long running operation completed'); // still running
      await eventually(() => out.includes('Long running operation completed'), 30_000, 'the result');
      expect(out.indexOf('every__trigger-long-running-operation: 2/4')).toBeLessThan(out.indexOf('Long running operation completed'));
      child.stdin.write('/quit\r');
      expect(await exited).toBe(0);
    } finally {
      child.kill();
    }
  });
});
