/**
 * Linear history: every input enters Temporal history once, and each turn adds about the same. The model
 * call carries references, not the transcript. A short answer (at most 4 KiB as JSON) comes back in the
 * turn's update result too — a second copy of a few hundred bytes instead of a query per turn — and a
 * longer one by reference: `ask`/`waitForAnswer` name its entry and the client reads it. The recorded
 * history replays.
 */
import type { temporal } from '@temporalio/proto';
import { ScriptedModelProvider } from '../../activities/index';
import { EntryCache } from '../../activities/entry-cache';
import { echoStep } from '../fixtures/scripts';
import { recordTool } from '../fixtures/test-tools';
import { askUpdate, waitForAnswerUpdate } from '../../workflows/messages';
import { maybeRecordHistory } from '../support/record-history';
import { uniqueId, withWorker } from '../support/temporal';
import { useTestConnection } from '../support/test-connection';

const { t, taskQueue } = useTestConnection('linear');

/** How often `marker` occurs in the payloads of the agent's history events. */
function occurrences(events: temporal.api.history.v1.IHistoryEvent[], marker: string): number {
  let count = 0;
  const walk = (value: unknown): void => {
    if (value instanceof Uint8Array) {
      count += Buffer.from(value).toString('utf8').split(marker).length - 1;
    } else if (value && typeof value === 'object') {
      for (const v of Object.values(value)) walk(v);
    }
  };
  walk(events);
  return count;
}

test('each input is in history once; a short answer comes back with the update, a long one by reference', async () => {
  const scripted = new ScriptedModelProvider({ echo: echoStep });
  const agentId = uniqueId('linear');
  await withWorker({ taskQueue, models: [scripted] }, async () => {
    await t.agents.start(agentId, { model: 'scripted:echo' });
    const markers = ['alpha-7f3e', 'bravo-19c2', 'charlie-a0d4'];
    for (const m of markers) {
      const outcome = await t.agents.ask(agentId, m);
      expect(outcome).toMatchObject({ status: 'answered', answer: { kind: 'model_output', contents: [`echo: ${m}`] } });
    }
    const handle = t.agents.handle(agentId);
    const events = (await handle.fetchHistory()).events ?? [];
    for (const m of markers) {
      // The input (update argument); the answer as the activity's result and in the update's result.
      expect(occurrences(events, `echo: ${m}`)).toBe(2);
      expect(occurrences(events, m)).toBe(3);
    }
    // The receipt itself carries a short answer, so the client has no entry to read (no query per turn).
    const receipt1 = await handle.executeUpdate(askUpdate, { args: [{ input: { text: 'delta-2c4d' } }] });
    expect(receipt1).toMatchObject({ status: 'answered', answer: { contents: ['echo: delta-2c4d'] } });
    expect(receipt1).not.toHaveProperty('answerSeq');

    // A long answer is named, not copied: once in history, and the client still gets all of it.
    const long = `echo-long-9d1e ${'x'.repeat(5000)}`;
    const answered = await t.agents.ask(agentId, long);
    expect(answered).toMatchObject({ status: 'answered', answer: { contents: [`echo: ${long}`] } });
    const withLong = (await handle.fetchHistory()).events ?? [];
    expect(occurrences(withLong, `echo: ${long}`)).toBe(1);
    expect(occurrences(withLong, long)).toBe(2); // the input and the answer

    // A caller that wants even a long answer inline gets it, and pays one more copy.
    const inline = await handle.executeUpdate(waitForAnswerUpdate, { args: [{ inputSeq: answered.inputSeq, withAnswer: true }] });
    expect(inline).toMatchObject({ status: 'answered', answer: { contents: [`echo: ${long}`] } });

    // A plain Temporal client reads a receipt, then the entry it names.
    const receipt = await handle.executeUpdate(waitForAnswerUpdate, { args: [{ inputSeq: answered.inputSeq }] });
    expect(receipt).toMatchObject({ status: 'answered', inputSeq: answered.inputSeq, answerSeq: 10, inputEntrySeq: 9 });
    expect(receipt).not.toHaveProperty('answer');
    await maybeRecordHistory(handle, 'small-answers-inline_v1.json');
  });
});

test("a worker's entry cache survives continue-as-new and is dropped after a reset", async () => {
  const scripted = new ScriptedModelProvider({ echo: echoStep });
  const agentId = uniqueId('cache');
  await withWorker({ taskQueue, models: [scripted] }, async () => {
    // A tiny budget: every turn or two moves the agent to a new run with every entry carried.
    await t.agents.start(agentId, { model: 'scripted:echo', historyBudgetBytes: 6_000 });
    const handle = t.agents.handle(agentId);
    const runs = new Set<string>();
    const cache = new EntryCache();
    for (let i = 0; i < 8; i++) {
      await t.agents.ask(agentId, `turn-${i}-${'x'.repeat(500)}`);
      const { runId } = await handle.describe();
      runs.add(runId);
      const { lastSeq } = await t.agents.state(agentId);
      const entries = await cache.range(t.client, agentId, runId, 0, lastSeq);
      expect(entries).toEqual(await t.agents.history(agentId));
    }
    expect(runs.size).toBeGreaterThanOrEqual(3);
    const { lastSeq } = await t.agents.state(agentId);
    // Each entry crossed the wire once, plus one check entry per new run — not the whole transcript each run.
    expect(cache.fetchedEntries).toBe(lastSeq + runs.size - 1);

    // A reset starts a new history under the same agent id: the cache must not serve the old one.
    await t.agents.reset(agentId);
    await t.agents.ask(agentId, 'after-reset');
    const { runId } = await handle.describe();
    const after = await cache.range(t.client, agentId, runId, 0, (await t.agents.state(agentId)).lastSeq);
    expect(after).toEqual(await t.agents.history(agentId));
    expect(JSON.stringify(after)).toContain('after-reset');
    expect(JSON.stringify(after)).not.toContain('turn-0-');
  });
});

test("a tool call's arguments reach the tool without being copied twice more", async () => {
  const marker = 'golf-3b7e';
  const scripted = new ScriptedModelProvider({
    tool: (req) => (req.step === 0 ? { toolCalls: [{ name: 'record', args: { label: marker } }] } : { text: 'done' }),
  });
  const agentId = uniqueId('args');
  await withWorker({ taskQueue, models: [scripted], tools: [recordTool] }, async () => {
    await t.agents.start(agentId, { model: 'scripted:tool' });
    expect(await t.agents.ask(agentId, 'record it')).toMatchObject({ status: 'answered' });
    const events = (await t.agents.handle(agentId).fetchHistory()).events ?? [];
    // The model output holds the raw and the parsed arguments, the tool's input the raw text only, and
    // the result ("recorded <label>") names it once more.
    expect(occurrences(events, `recorded ${marker}`)).toBe(1);
    expect(occurrences(events, marker)).toBe(4);
  });
});
