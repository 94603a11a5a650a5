/**
 * `livecontext chat` on a real terminal shows an MCP tool's progress while it runs: server-everything's
 * long-running tool sends progress notifications, the worker turns them into heartbeat details, and the
 * chat prints a line per report before the tool's result.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ScriptedModelProvider } from '../../activities/index';
import { callsInput, callsScript } from '../fixtures/calls-script';
import { everythingStdio } from '../support/mcp-servers';
import { eventually, uniqueId, withWorker } from '../support/temporal';
import { startPtyChat } from './pty-chat';
import { useTestConnection } from '../support/test-connection';

const { t, taskQueue } = useTestConnection('mcp-chat');

test('progress lines appear before the result', async () => {
  const id = uniqueId('mcp-tty');
  const models = [new ScriptedModelProvider({ calls: callsScript })];
  const workspaceRoot = mkdtempSync(path.join(tmpdir(), 'lc-ws-'));
  await withWorker({ taskQueue, workspaceRoot, models, mcpServers: { every: everythingStdio(uniqueId('marker')) } }, async () => {
    await t.agents.start(id, { model: 'scripted:calls' });
    const chat = startPtyChat(['chat', id], { LIVECONTEXT_TASK_QUEUE: taskQueue });
    try {
      await eventually(() => chat.raw().includes('Attached to agent'), 30_000, 'the chat to attach');
      chat.type(`${callsInput([{ name: 'every__trigger-long-running-operation', args: { duration: 4, steps: 4 } }])}\r`);
      await eventually(() => chat.raw().includes('every__trigger-long-running-operation: 2/4'), 30_000, 'a progress line');
      expect(chat.raw()).not.toContain('Long running operation completed'); // still running
      await eventually(() => chat.raw().includes('Long running operation completed'), 30_000, 'the result');
      expect(chat.raw().indexOf('every__trigger-long-running-operation: 2/4')).toBeLessThan(chat.raw().indexOf('Long running operation completed'));
      chat.type('/quit\r');
      expect(await chat.exited).toBe(0);
    } finally {
      chat.kill();
    }
  });
});
