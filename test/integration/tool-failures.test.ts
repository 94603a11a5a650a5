/**
 * Every way a tool call can go wrong yields the right result status for the model, never a failed
 * workflow: unknown tool, arguments that do not parse, that do not validate, a thrown error, a per-tool
 * timeout, oversized output. Obvious damage is repaired first ("宽进严出"). Path escapes are refused.
 */
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ScriptedModelProvider } from '../../activities/index';
import type { ToolResultsEntry } from '../../agent/index';
import { TOOL_OUTPUT_MAX_CHARS } from '../../activities/execute-tool';
import { batchScript } from '../fixtures/scripts';
import { failingTools } from '../fixtures/test-tools';
import { uniqueId, withWorker } from '../support/temporal';
import { useTestConnection } from '../support/test-connection';

const { t, taskQueue } = useTestConnection('tool-failures');

async function runBatch(calls: Array<{ name: string; args: unknown }>, setup?: (workspace: string) => void) {
  const agentId = uniqueId('tools');
  const workspaceRoot = mkdtempSync(path.join(tmpdir(), 'lc-ws-'));
  setup?.(path.join(workspaceRoot, agentId));
  const scripted = new ScriptedModelProvider({ batch: batchScript(calls) });
  return withWorker({ taskQueue, workspaceRoot, tools: failingTools, models: [scripted] }, async () => {
    await t.agents.start(agentId, { model: 'scripted:batch' });
    const outcome = await t.agents.ask(agentId, 'go');
    expect(outcome).toMatchObject({ status: 'answered' }); // the agent carried on after every failure
    expect((await t.agents.handle(agentId).describe()).status.name).toBe('RUNNING');
    const results = (await t.agents.history(agentId)).find((e) => e.kind === 'tool_results') as ToolResultsEntry;
    return results.results;
  });
}

test('each failure kind becomes a result the model can act on; the agent lives on', async () => {
  const results = await runBatch([
    { name: 'no_such_tool', args: {} },
    { name: 'typed', args: '{"count": 1, "flag": tru' },
    { name: 'typed', args: { count: 'many', flag: true, name: 'x' } },
    { name: 'boom', args: {} },
    { name: 'slowpoke', args: {} },
    { name: 'big', args: {} },
    { name: 'typed', args: '```json\n{"count": "3", "flag": "false", "name": "fenced"}\n```' },
  ]);
  expect(results.map((r) => r.status)).toEqual(['Failed', 'Failed', 'Failed', 'Failed', 'Failed', 'Success', 'Success']);
  expect(results[0].result).toMatch(/Unknown tool "no_such_tool". Available tools: .*typed/);
  expect(results[1].result).toMatch(/not valid JSON.*Send one JSON object/);
  expect(results[2].result).toMatch(/Invalid arguments for typed: count: .*expected number.*Fix them/);
  expect(results[3].result).toBe('boom failed: kaput');
  expect(results[4].result).toMatch(/slowpoke timed out after 1 s/);
  expect(results[5].result.length).toBeLessThan(TOOL_OUTPUT_MAX_CHARS + 100);
  expect(results[5].result).toMatch(/\[output truncated: 200000 characters in all, 65536 shown\]$/);
  expect(results[6].result).toBe('count=3 (number) flag=false (boolean) name=fenced');
  expect(results[6].metadata?.arguments_repaired).toMatch(/code fence.*count "3" as a number.*flag "false" as a boolean/);
});

test('file tools refuse .., absolute paths and symlinks that leave the workspace', async () => {
  const outside = mkdtempSync(path.join(tmpdir(), 'lc-outside-'));
  writeFileSync(path.join(outside, 'secret.txt'), 'top secret');
  const results = await runBatch(
    [
      { name: 'write_file', args: { path: '../escape.txt', content: 'x' } },
      { name: 'read_file', args: { path: '/etc/hostname' } },
      { name: 'read_file', args: { path: 'link/secret.txt' } },
      { name: 'write_file', args: { path: 'link/new.txt', content: 'x' } },
      { name: 'write_file', args: { path: 'inside/ok.txt', content: 'fine' } },
      { name: 'edit_file', args: { path: 'inside/ok.txt', old_text: 'fine', new_text: 'edited' } },
      { name: 'read_file', args: { path: 'inside/ok.txt' } },
    ],
    (workspace) => {
      mkdirSync(workspace, { recursive: true });
      symlinkSync(outside, path.join(workspace, 'link'));
    },
  );
  expect(results.map((r) => r.status)).toEqual(['Failed', 'Failed', 'Failed', 'Failed', 'Success', 'Success', 'Success']);
  expect(results[0].result).toMatch(/leaves the workspace/);
  expect(results[1].result).toMatch(/is absolute/);
  expect(results[2].result).toMatch(/through a symlink/);
  expect(results[3].result).toMatch(/through a symlink/);
  expect(results.map((r) => r.result).join()).not.toContain('top secret');
  expect(results[6].result).toBe('edited');
});
