/**
 * The offline demo model shows what livecontext is for without an API key: the memory notebook, the task list, a call
 * waiting for approval, a durable timer, two tools at once; it only calls the tools it is offered, and
 * notes written before a reset are never overwritten.
 */
import { existsSync, mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { ToolResultsEntry } from '../../agent/index';
import { safeFolderName } from '../../activities/execute-tool';
import { eventually, uniqueId, withWorker } from '../support/temporal';
import { useTestConnection } from '../support/test-connection';

const { t, taskQueue } = useTestConnection('demo');
const workspaceRoot = mkdtempSync(path.join(tmpdir(), 'lc-demo-ws-'));

const text = (o: { status: string; answer?: { contents: string[] } }) => (o.status === 'answered' ? o.answer!.contents.join('') : o.status);
async function lastResults(agentId: string) {
  return ((await t.agents.history(agentId)).filter((e) => e.kind === 'tool_results').pop() as ToolResultsEntry).results;
}

test('notebook, approval, durable timer, two tools at once; notes survive a reset', async () => {
  const agentId = uniqueId('demo');
  const notes = path.join(workspaceRoot, safeFolderName(agentId), 'notes');
  await withWorker({ taskQueue, workspaceRoot }, async () => {
    await t.agents.start(agentId, { model: 'demo:offline', parallelTools: true });

    expect(text(await t.agents.ask(agentId, 'remember I like green tea'))).toMatch(/Noted in my memory notebook/);
    expect((await t.agents.state(agentId)).notebook).toBe('- I like green tea\n');

    expect(text(await t.agents.ask(agentId, 'buy milk'))).toMatch(/note-2\.md/);

    // The task list: planned, then one done; the tasks are in the state (and the model's Live Screen).
    expect(text(await t.agents.ask(agentId, 'plan buy milk, call mum'))).toMatch(/Added #1, #2\./);
    expect(text(await t.agents.ask(agentId, 'done 1'))).toMatch(/Task #1 is done\./);
    expect((await t.agents.state(agentId)).tasks).toEqual([
      { id: 1, title: 'buy milk', status: 'done' },
      { id: 2, title: 'call mum', status: 'pending' },
    ]);
    expect(readFileSync(path.join(notes, 'note-2.md'), 'utf8')).toBe('buy milk\n');

    // A deletion waits for a person.
    const { inputSeq } = await t.agents.send(agentId, 'delete note 2');
    const waiting = await eventually(async () => (await t.agents.state(agentId)).awaitingApproval[0]);
    expect(waiting).toMatchObject({ toolName: 'delete_file', reason: 'deleting notes/note-2.md cannot be undone' });
    expect(existsSync(path.join(notes, 'note-2.md'))).toBe(true);
    await t.agents.approve(agentId, waiting.toolCallId);
    expect(text(await t.agents.waitForAnswer(agentId, inputSeq))).toMatch(/Deleted/);
    expect(existsSync(path.join(notes, 'note-2.md'))).toBe(false);

    // A durable timer.
    const slept = await t.agents.ask(agentId, 'sleep 1');
    expect(text(slept)).toMatch(/Awake again: Waited 1 s/);

    // Two tools at once: the note is written while the timer runs.
    expect(text(await t.agents.ask(agentId, 'both please'))).toMatch(/Awake again.*note-7\.md/s);
    expect((await lastResults(agentId)).map((r) => `${r.toolName} ${r.status}`)).toEqual(['sleep Success', 'write_file Success']);

    // After a reset the numbering goes on: no earlier note is overwritten.
    await t.agents.reset(agentId);
    expect(text(await t.agents.ask(agentId, 'after the reset'))).toMatch(/note-8\.md/);
    expect(readdirSync(notes).sort()).toEqual(['note-7.md', 'note-8.md']);
    expect(readFileSync(path.join(notes, 'note-7.md'), 'utf8')).toBe('both please\n');
  });
});

test('the demo only calls the tools it is offered (--tools read_file,write_file)', async () => {
  const agentId = uniqueId('demo-tools');
  await withWorker({ taskQueue, workspaceRoot }, async () => {
    await t.agents.start(agentId, { model: 'demo:offline', tools: ['read_file', 'write_file'] });
    expect(text(await t.agents.ask(agentId, 'a note'))).toMatch(/Saved notes\/note-1\.md/);
    expect(await lastResults(agentId)).toMatchObject([{ toolName: 'write_file', status: 'Success' }]);
    expect(text(await t.agents.ask(agentId, 'remember this'))).toMatch(/I would use memory_notebook_replace, but this agent is not offered it/);
    expect(text(await t.agents.ask(agentId, 'sleep 3'))).toMatch(/I would use sleep, but this agent is not offered it/);
    const history = await t.agents.history(agentId);
    expect(history.filter((e) => e.kind === 'tool_results')).toHaveLength(1);
  });
});
