/**
 * Through real agent turns: a dangling symlink or a hard link cannot take a file tool outside the
 * workspace (each attempt is a Failed result and the agent goes on), list_files lists dangling links,
 * and agents whose ids look alike (or are very long) each get a folder of their own.
 */
import { existsSync, linkSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ScriptedModelProvider } from '../../activities/index';
import type { ScriptedToolCall } from '../../activities/models/scripted-model';
import type { ToolResultsEntry } from '../../agent/index';
import { safeFolderName } from '../../activities/execute-tool';
import { WORKFLOW_TYPE } from '../../workflows/messages';
import { callsInput, callsScript } from '../fixtures/calls-script';
import { uniqueId, withWorker } from '../support/temporal';
import { useTestConnection } from '../support/test-connection';

const { t, taskQueue } = useTestConnection('escape');
const workspaceRoot = mkdtempSync(path.join(tmpdir(), 'lc-ws-'));
const models = [new ScriptedModelProvider({ calls: callsScript })];

async function turn(agentId: string, calls: ScriptedToolCall[]) {
  await expect(t.agents.ask(agentId, callsInput(calls))).resolves.toMatchObject({ status: 'answered' });
  const entries = await t.agents.history(agentId);
  return (entries.filter((e) => e.kind === 'tool_results').pop() as ToolResultsEntry).results;
}

test('escape attempts through links are Failed results; the agent carries on', async () => {
  const agentId = uniqueId('escaper');
  const workspace = path.join(workspaceRoot, safeFolderName(agentId));
  const outside = mkdtempSync(path.join(tmpdir(), 'lc-outside-'));
  writeFileSync(path.join(outside, 'secret.txt'), 'top secret');
  mkdirSync(workspace, { recursive: true });
  symlinkSync(path.join(outside, 'planted.txt'), path.join(workspace, 'trap'));
  linkSync(path.join(outside, 'secret.txt'), path.join(workspace, 'hard.txt'));

  await withWorker({ taskQueue, workspaceRoot, models }, async () => {
    await t.agents.start(agentId, { model: 'scripted:calls' });
    const results = await turn(agentId, [
      { name: 'write_file', args: { path: 'trap', content: 'planted' } },
      { name: 'read_file', args: { path: 'hard.txt' } },
      { name: 'write_file', args: { path: 'hard.txt', content: 'overwritten' } },
      { name: 'list_files', args: {} },
      { name: 'write_file', args: { path: 'ok.txt', content: 'fine' } },
    ]);
    expect(results.map((r) => r.status)).toEqual(['Failed', 'Failed', 'Failed', 'Success', 'Success']);
    expect(results[0].result).toMatch(/dangling symlink/);
    expect(results[1].result).toMatch(/hard links; files with more than one link are refused/);
    expect(results[3].result).toBe('hard.txt\ntrap -> (dangling link)');
    expect(results.map((r) => r.result).join()).not.toContain('top secret');

    const next = await turn(agentId, [{ name: 'read_file', args: { path: 'ok.txt' } }]); // it goes on
    expect(next).toMatchObject([{ status: 'Success', result: 'fine' }]);
    expect((await t.agents.handle(agentId).describe()).status.name).toBe('RUNNING');
  });
  expect(existsSync(path.join(outside, 'planted.txt'))).toBe(false);
  expect(readFileSync(path.join(outside, 'secret.txt'), 'utf8')).toBe('top secret');
});

test('look-alike and very long agent ids each get a workspace of their own', async () => {
  const base = uniqueId('coll');
  const ids = [`${base}/a`, `${base} a`, `${base}_a`, `${base}/é`, `${base}/è`, `${base}-${'x'.repeat(300)}`];
  await withWorker({ taskQueue, workspaceRoot, models }, async () => {
    for (const id of ids) {
      // Started as agents made before ids were checked at the door were (spaces, slashes and 300 characters
      // are refused there now): they live on, and keep their own workspaces.
      await t.client.workflow.start(WORKFLOW_TYPE, { workflowId: id, taskQueue, args: [{ config: { model: 'scripted:calls' } }] });
      const [read, write] = await turn(id, [
        { name: 'read_file', args: { path: 'owner.txt' } },
        { name: 'write_file', args: { path: 'owner.txt', content: id } },
      ]);
      expect(read.status).toBe('Failed'); // nobody else's file is there
      expect(write.status).toBe('Success');
    }
    for (const id of ids) expect(await turn(id, [{ name: 'read_file', args: { path: 'owner.txt' } }])).toMatchObject([{ status: 'Success', result: id }]);
  });
});
