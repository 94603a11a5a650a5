/**
 * Ageless agents, end to end on the dev server: an agent whose history outgrows its working set seals
 * its oldest whole turns into archive segments and keeps only the working set (and the archive's index)
 * in its workflow — yet loses nothing: its model calls still see the instruction and the notebook set
 * long ago, `history` pages every entry in order, export writes every entry, import seals them again
 * before the copy starts, and continue-as-new carries only the working set.
 */
import { decodeFromPayloadsAtIndex } from '@temporalio/common/lib/internal-non-workflow';
import { ScriptedModelProvider, type ScriptedRequest } from '../../activities/index';
import { type AgentSnapshot, type HistoryEntry, unwrap } from '../../agent/index';
import type { AgentWorkflowInput } from '../../workflows/messages';
import { maybeRecordHistory } from '../support/record-history';
import { eventually, uniqueId, withWorker } from '../support/temporal';
import { useTestConnection } from '../support/test-connection';

const { t, taskQueue } = useTestConnection('archive');

/** Answers are ~4 KB, so a 16 KiB working set is passed every few turns. */
function longModel() {
  return new ScriptedModelProvider({
    long: (req: ScriptedRequest) => {
      const last = unwrap(req.messages[req.messages.length - 1]);
      if (last.kind === 'model_input' && last.sections[0].content === 'remember') {
        return { toolCalls: [{ name: 'memory_notebook_replace', args: { old_text: '', new_text: 'the key is under the mat' } }] };
      }
      const text = last.kind === 'model_input' ? last.sections[0].content : 'noted';
      return { text: `${text}: ${'lorem ipsum '.repeat(340)}` };
    },
  });
}

const answers = (entries: readonly HistoryEntry[]) =>
  entries.filter((e) => e.kind === 'model_output' && e.toolCalls.length === 0).map((e) => (e.kind === 'model_output' ? e.contents[0].split(':')[0] : ''));

async function collect(text: AsyncGenerator<string>): Promise<string> {
  let out = '';
  for await (const piece of text) out += piece;
  return out;
}

test('an agent past its working set archives its oldest turns and loses nothing', async () => {
  const model = longModel();
  const agentId = uniqueId('ageless');
  await withWorker({ taskQueue, models: [model] }, async () => {
    await t.agents.start(agentId, { model: 'scripted:long', workingSetBytes: 16 * 1024, systemInstruction: 'Be long.' });
    await t.agents.ask(agentId, 'remember');
    const inputs = Array.from({ length: 24 }, (_, i) => `msg-${i}`);
    for (const text of inputs) expect(await t.agents.ask(agentId, text)).toMatchObject({ status: 'answered' });
    await eventually(async () => (await t.agents.state(agentId)).blockedOn === 'input', 10_000, 'rest');

    // The workflow holds a bounded working set; the rest is in segments.
    const snapshot = await t.agents.snapshot(agentId);
    const state = await t.agents.state(agentId);
    expect(snapshot.version).toBe(2);
    expect(snapshot.archive!.segments.length).toBeGreaterThan(1);
    expect(snapshot.archive!.throughSeq).toBe(snapshot.entries[0].seq - 1);
    expect(JSON.stringify(snapshot.entries).length).toBeLessThan(3 * 16 * 1024 + 8 * 1024);
    expect(state.entryCount).toBe(state.lastSeq);
    expect(state.usage.modelCalls).toBe(inputs.length + 2); // the archive's calls are counted too
    expect(state.systemInstruction).toBe('Be long.'); // set in an archived entry

    // Model calls still see what archived entries set: the instruction and the notebook.
    const lastRequest = model.requests[model.requests.length - 1];
    expect(lastRequest.systemPrompt).toContain('Be long.');
    expect(JSON.stringify(lastRequest.messages)).toContain('the key is under the mat');

    // History pages every entry, in order, archived ones included.
    const history = await t.agents.history(agentId);
    expect(history.map((e) => e.seq)).toEqual(history.map((_, i) => i + 1));
    expect(answers(history)).toEqual(['noted', ...inputs]);
    const page = await t.agents.entries(agentId, { afterSeq: 3, limit: 5 });
    expect(page.entries.map((e) => e.seq)).toEqual([4, 5, 6, 7, 8]);
    expect(page.nextAfterSeq).toBe(8);

    // Export writes every entry (a version-1 snapshot); import seals them again and the copy goes on.
    const exported = await t.agents.export(agentId);
    const file = JSON.parse(await collect(exported.text)) as AgentSnapshot;
    expect(file.version).toBe(1);
    expect(file.archive).toBeUndefined();
    expect(file.entries).toEqual(history);
    expect(exported.entries).toBe(history.length);
    const copyId = uniqueId('ageless-copy');
    await t.agents.restore(copyId, file);
    const copy = await t.agents.snapshot(copyId);
    expect(copy.version).toBe(2);
    expect(copy.archive!.throughSeq).toBeGreaterThan(0);
    expect(await t.agents.history(copyId)).toEqual(history);
    expect(await t.agents.ask(copyId, 'again')).toMatchObject({ status: 'answered' });
    expect((await t.agents.state(copyId)).notebook).toBe('the key is under the mat');
    await t.agents.stop(copyId);

    // Continue-as-new carries only the working set (and the index).
    await t.agents.configure(agentId, { historyBudgetBytes: 20_000 });
    const runBefore = (await t.agents.handle(agentId).describe()).runId;
    for (const text of ['after-1', 'after-2', 'after-3']) await t.agents.ask(agentId, text);
    await eventually(async () => (await t.agents.handle(agentId).describe()).runId !== runBefore, 20_000, 'a new run');
    const events = (await t.agents.handle(agentId).fetchHistory()).events!;
    const carried = await decodeFromPayloadsAtIndex<AgentWorkflowInput>(
      t.client.workflow.options.loadedDataConverter,
      0,
      events[0].workflowExecutionStartedEventAttributes!.input!.payloads!,
    );
    const carriedSnapshot = (carried as { snapshot: AgentSnapshot }).snapshot;
    expect(carriedSnapshot.archive).toBeDefined();
    expect(JSON.stringify(carriedSnapshot).length).toBeLessThan(80 * 1024);
    const after = await t.agents.history(agentId);
    expect(answers(after)).toEqual(['noted', ...inputs, 'after-1', 'after-2', 'after-3']);
    await maybeRecordHistory(t.client.workflow.getHandle(agentId, runBefore), 'archive-seal_v1.json');
    await t.agents.stop(agentId);
  });
});

test('with the default working set, what the workflow holds (what continue-as-new carries) stays under the offload threshold', async () => {
  const model = longModel();
  const agentId = uniqueId('default-set');
  await withWorker({ taskQueue, models: [model] }, async () => {
    await t.agents.start(agentId, { model: 'scripted:long' });
    // ~4 KB a turn: past twice the 64 KiB default after ~32 turns.
    const inputs = Array.from({ length: 40 }, (_, i) => `turn-${i}`);
    for (const text of inputs) expect(await t.agents.ask(agentId, text)).toMatchObject({ status: 'answered' });
    await eventually(async () => (await t.agents.snapshot(agentId)).archive !== undefined, 20_000, 'a seal');
    const snapshot = await t.agents.snapshot(agentId);
    expect(snapshot.archive!.entries).toBeGreaterThan(30);
    expect(JSON.stringify(snapshot).length).toBeLessThan(128 * 1024);
    expect(answers(await t.agents.history(agentId))).toEqual(inputs);
    await maybeRecordHistory(t.agents.handle(agentId), 'archive-default-seal_v1.json');
    await t.agents.stop(agentId);
  });
});

test('an agent that holds its whole history (as agents before the archive do) moves its old turns to the archive when it next rests', async () => {
  const model = longModel();
  const agentId = uniqueId('migrating');
  await withWorker({ taskQueue, models: [model] }, async () => {
    // A grown agent, started from its whole history as agents before the archive carried it.
    const young = uniqueId('young');
    await t.agents.start(young, { model: 'scripted:long', systemInstruction: 'Be long.' });
    for (const text of ['one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten']) await t.agents.ask(young, text);
    const whole = await t.agents.snapshot(young);
    expect(whole.archive).toBeUndefined();
    await t.agents.stop(young);
    await t.client.workflow.start('agentWorkflow', {
      taskQueue,
      workflowId: agentId,
      args: [{ snapshot: { ...whole, config: { ...whole.config, workingSetBytes: 16 * 1024 } }, imported: true }],
    });
    expect(await t.agents.ask(agentId, 'eleven')).toMatchObject({ status: 'answered' });
    await eventually(async () => (await t.agents.snapshot(agentId)).archive !== undefined, 20_000, 'the archive');
    const moved = await t.agents.snapshot(agentId);
    expect(moved.archive!.entries).toBeGreaterThan(10);
    expect(answers(await t.agents.history(agentId))).toEqual(['one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten', 'eleven']);
    await maybeRecordHistory(t.agents.handle(agentId), 'archive-migration_v1.json');
    await t.agents.stop(agentId);
  });
});
