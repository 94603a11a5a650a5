/**
 * Timers are carried across continue-as-new: while the agent sleeps, input keeps arriving and passes its
 * history budget; the run gives way at once (the timer is cancelled, not waited out), the next run starts
 * from the same agent — its timer included — and wakes at the original time, not a full sleep later.
 */
import { decodeFromPayloadsAtIndex } from '@temporalio/common/lib/internal-non-workflow';
import type { temporal } from '@temporalio/proto';
import { ScriptedModelProvider } from '../../activities/index';
import type { AgentSnapshot, ToolResultsEntry } from '../../agent/index';
import type { AgentWorkflowInput } from '../../workflows/messages';
import { snapshotQuery } from '../../workflows/messages';
import { echoStep } from '../fixtures/scripts';
import { maybeRecordHistory } from '../support/record-history';
import { eventually, uniqueId, withWorker } from '../support/temporal';
import { useTestConnection } from '../support/test-connection';

const { t, taskQueue } = useTestConnection('timer-can');

const SLEEP_SECONDS = 8;
const eventMs = (e: temporal.api.history.v1.IHistoryEvent) => Number(e.eventTime!.seconds) * 1000 + Math.floor((e.eventTime!.nanos ?? 0) / 1e6);

test('a sleep survives continue-as-new and wakes at its original time', async () => {
  const scripted = new ScriptedModelProvider({
    napper: (req) =>
      req.step === 0 ? { toolCalls: [{ name: 'sleep', args: { seconds: SLEEP_SECONDS } }] } : req.step === 1 ? { text: 'woke up' } : echoStep(req),
  });
  const agentId = uniqueId('napper');
  await withWorker({ taskQueue, models: [scripted] }, async () => {
    await t.agents.start(agentId, { model: 'scripted:napper', historyBudgetBytes: 30_000 });
    const firstRunId = (await t.agents.handle(agentId).describe()).runId;
    const { inputSeq } = await t.agents.send(agentId, 'take a nap');
    const first = t.client.workflow.getHandle(agentId, firstRunId);
    const timerStarted = await eventually(
      async () => ((await first.fetchHistory()).events ?? []).find((e) => e.timerStartedEventAttributes),
      20_000,
      'the sleep timer',
    );

    // 8 KB inputs keep arriving while it sleeps: the run passes its 30 KB budget and must give way now.
    const notes: string[] = [];
    let secondRunId: string | undefined;
    while (!secondRunId) {
      expect(notes.length).toBeLessThan(20);
      notes.push(`note ${notes.length}`);
      await t.agents.signal(agentId, `${notes[notes.length - 1]}: ${'x'.repeat(8_000)}`);
      await new Promise((r) => setTimeout(r, 300));
      const runId = (await t.agents.handle(agentId).describe()).runId;
      if (runId !== firstRunId) secondRunId = runId;
    }

    const firstEvents = (await first.fetchHistory()).events ?? [];
    expect(firstEvents.some((e) => e.timerFiredEventAttributes)).toBe(false);
    expect(firstEvents.some((e) => e.timerCanceledEventAttributes)).toBe(true);
    expect(eventMs(firstEvents[firstEvents.length - 1]) - eventMs(timerStarted)).toBeLessThan(SLEEP_SECONDS * 1000);

    // Lossless: the new run starts from exactly the agent the old one ended with, timer and inbox included.
    const before = await first.query(snapshotQuery);
    const second = t.client.workflow.getHandle(agentId, secondRunId);
    const secondEvents = (await second.fetchHistory()).events!;
    const payloads = secondEvents[0].workflowExecutionStartedEventAttributes!.input!.payloads!;
    const carried = (await decodeFromPayloadsAtIndex<AgentWorkflowInput>(t.client.workflow.options.loadedDataConverter, 0, payloads)) as {
      snapshot: AgentSnapshot;
    };
    expect(JSON.stringify(carried.snapshot)).toBe(JSON.stringify(before));
    expect(Object.values(carried.snapshot.timers ?? {})).toHaveLength(1);
    await maybeRecordHistory(first, 'timer-continue-as-new_v1.json'); // recorded before the build mark
    await maybeRecordHistory(first, 'timer-continue-as-new-marked_v1.json'); // its run took the changes by the worker's build mark
    expect(carried.snapshot.inbox.length).toBeGreaterThanOrEqual(3);

    // The next run waits only what was left, and the tool result counts the whole sleep once.
    await expect(t.agents.waitForAnswer(agentId, inputSeq)).resolves.toMatchObject({ status: 'answered', answer: { contents: ['woke up'] } });
    const wakeAt = Date.parse(Object.values(carried.snapshot.timers!)[0].wakeAt);
    const events = (await t.agents.handle(agentId).fetchHistory()).events ?? [];
    const fired = events.find((e) => e.timerFiredEventAttributes);
    expect(fired).toBeDefined();
    expect(eventMs(fired!)).toBeGreaterThanOrEqual(wakeAt - 50); // server clock granularity
    expect(eventMs(fired!) - eventMs(timerStarted)).toBeLessThan((SLEEP_SECONDS + 4) * 1000);
    const results = (await t.agents.history(agentId)).find((e) => e.kind === 'tool_results') as ToolResultsEntry;
    expect(results.results[0]).toMatchObject({ toolName: 'sleep', status: 'Success', metadata: { waited_ms: SLEEP_SECONDS * 1000 } });
    expect(results.results[0].elapsedMs).toBeGreaterThanOrEqual(SLEEP_SECONDS * 1000);

    // The inputs that arrived during the sleep are answered after it, in order, once.
    await expect(t.agents.waitForAnswer(agentId, notes.length + 1)).resolves.toMatchObject({ status: 'answered' });
    const answers = (await t.agents.history(agentId)).filter((e) => e.kind === 'model_output' && e.toolCalls.length === 0);
    expect(answers.map((e) => (e.kind === 'model_output' ? e.contents[0].split(':').slice(0, 2).join(':') : ''))).toEqual([
      'woke up',
      ...notes.map((n) => `echo: ${n}`),
    ]);
  });
});

test('stop interrupts a sleep instead of waiting it out', async () => {
  const scripted = new ScriptedModelProvider({ longnap: [{ toolCalls: [{ name: 'sleep', args: { seconds: 3600 } }] }] });
  const agentId = uniqueId('longnap');
  await withWorker({ taskQueue, models: [scripted] }, async () => {
    await t.agents.start(agentId, { model: 'scripted:longnap' });
    await t.agents.send(agentId, 'sleep an hour');
    const handle = t.agents.handle(agentId);
    await eventually(async () => ((await handle.fetchHistory()).events ?? []).find((e) => e.timerStartedEventAttributes), 20_000, 'the sleep timer');
    await t.agents.stop(agentId, 'enough');
    await expect(handle.result()).resolves.toMatchObject({ stopped: true, reason: 'enough' });
    // The call is still pending (not a fake result) and the timer is kept: an export could resume it.
    const snapshot = await handle.query(snapshotQuery);
    expect(snapshot.pendingToolResults).toEqual([]);
    expect(Object.keys(snapshot.timers ?? {})).toHaveLength(1);
  });
});
