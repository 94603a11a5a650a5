/**
 * Lossless automatic continue-as-new: with a small history budget the agent moves to new runs at safe
 * points while inputs keep arriving; the agent after each boundary is the agent before it (snapshots
 * compared byte for byte), and every input is answered once, in order, across the runs.
 */
import { decodeFromPayloadsAtIndex } from '@temporalio/common/lib/internal-non-workflow';
import { ScriptedModelProvider } from '../../activities/index';
import type { AgentSnapshot } from '../../agent/index';
import type { AgentWorkflowInput } from '../../workflows/messages';
import { snapshotQuery } from '../../workflows/messages';
import { maybeRecordHistory } from '../support/record-history';
import { eventually, uniqueId, withWorker } from '../support/temporal';
import { useTestConnection } from '../support/test-connection';

const { t, taskQueue } = useTestConnection('can');

test('continue-as-new is automatic, lossless and invisible to senders', async () => {
  // Each answer is ~3 KB, so a 40 KB budget is passed every few turns.
  const scripted = new ScriptedModelProvider({
    chatty: (req) => {
      const last = req.messages[req.messages.length - 1];
      const inner = last.kind === 'live_screen' ? last.inner : last;
      if (inner.kind === 'model_input' && inner.sections[0].content === 'remember') {
        return { toolCalls: [{ name: 'memory_notebook_replace', args: { old_text: '', new_text: 'kept across runs' } }] };
      }
      const text = inner.kind === 'model_input' ? inner.sections[0].content : 'noted';
      return { text: `${text}: ${'lorem ipsum '.repeat(250)}` };
    },
  });
  const agentId = uniqueId('long');
  await withWorker({ taskQueue, models: [scripted] }, async () => {
    await t.agents.start(agentId, { model: 'scripted:chatty', historyBudgetBytes: 40_000, systemInstruction: 'Be long.' });
    const firstRunId = (await t.agents.handle(agentId).describe()).runId;
    await t.agents.ask(agentId, 'remember');
    const inputs = Array.from({ length: 30 }, (_, i) => `msg-${i}`);
    for (const text of inputs) await t.agents.signal(agentId, text); // queued faster than answered
    const last = await t.agents.waitForAnswer(agentId, inputs.length + 1);
    expect(last).toMatchObject({ status: 'answered' });

    // Several runs happened.
    const runs: string[] = [];
    for await (const wf of t.client.workflow.list({ query: `WorkflowId = '${agentId}'` })) runs.push(wf.runId);
    expect(runs.length).toBeGreaterThanOrEqual(3);
    const current = (await t.agents.handle(agentId).describe()).runId;
    expect(current).not.toBe(firstRunId);

    // Every input answered exactly once, in order; every entry present, numbered without gaps.
    const history = await t.agents.history(agentId);
    expect(history.map((e) => e.seq)).toEqual(history.map((_, i) => i + 1));
    const answered = history
      .filter((e) => e.kind === 'model_output' && e.toolCalls.length === 0)
      .map((e) => (e.kind === 'model_output' ? e.contents[0].split(':')[0] : ''));
    expect(answered).toEqual(['noted', ...inputs]);
    expect((await t.agents.state(agentId)).notebook).toBe('kept across runs');

    // Byte for byte: the final state of each closed run equals the start input of its successor.
    const converter = t.client.workflow.options.loadedDataConverter;
    const ordered = [...runs].reverse(); // list returns newest first
    let checkedRuns = 0;
    for (let i = 0; i + 1 < ordered.length; i++) {
      const before = await t.client.workflow.getHandle(agentId, ordered[i]).query(snapshotQuery);
      const events = (await t.client.workflow.getHandle(agentId, ordered[i + 1]).fetchHistory()).events!;
      const startPayloads = events[0].workflowExecutionStartedEventAttributes!.input!.payloads!;
      const carried = await decodeFromPayloadsAtIndex<AgentWorkflowInput>(converter, 0, startPayloads);
      expect('snapshot' in carried).toBe(true);
      expect(JSON.stringify((carried as { snapshot: AgentSnapshot }).snapshot)).toBe(JSON.stringify(before));
      checkedRuns += (carried as { checked?: boolean }).checked === true ? 1 : 0;
    }
    // Carried as checked by the run that continued (handlers changed nothing in between): not checked again.
    expect(checkedRuns).toBeGreaterThan(0);
    await maybeRecordHistory(t.client.workflow.getHandle(agentId, ordered[1]), 'continue-as-new-checked_v1.json');
    await eventually(async () => (await t.agents.state(agentId)).blockedOn === 'input', 10_000, 'rest');
  });
});
