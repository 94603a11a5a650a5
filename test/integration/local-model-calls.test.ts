/**
 * `modelCalls: 'local'`: model calls as local activities. A plain turn is one workflow task (the call runs
 * inside it: no activity task, its result a marker), tool calls still run as activities, an interrupt
 * cancels a running local call, and no partial output is offered while one runs (the answer arrives
 * whole). Agents without the option schedule their calls as before. The recorded history replays.
 */
import { z } from 'zod';
import { temporal } from '@temporalio/proto';
import { EntryCache } from '../../activities/entry-cache';
import { defineTool } from '../../activities/index';
import { LOCAL_MODEL_CALL_CHANGE } from '../../workflows/activity-options';
import { useProviderServers } from '../support/provider-servers';
import { maybeRecordHistory } from '../support/record-history';
import { eventually, uniqueId, withWorker } from '../support/temporal';

jest.setTimeout(120_000);

const { t, p, taskQueue } = useProviderServers('local-model-calls');
const OPENAI = 'openai:gpt-4.1-mini';

type Event = temporal.api.history.v1.IHistoryEvent;
const kinds = (events: Event[]) => events.map((e) => temporal.api.enums.v1.EventType[e.eventType ?? 0].replace('EVENT_TYPE_', ''));
const count = (events: Event[], kind: string) => kinds(events).filter((k) => k === kind).length;
const localMarkers = (events: Event[]) => events.filter((e) => e.markerRecordedEventAttributes?.markerName === 'core_local_activity').length;
const patchIds = (events: Event[]) =>
  events.flatMap((e) => {
    const data = e.markerRecordedEventAttributes?.details?.['patch-data']?.payloads?.[0]?.data;
    return data ? [(JSON.parse(Buffer.from(data).toString()) as { id: string }).id] : [];
  });
const scheduledTypes = (events: Event[]) =>
  events.flatMap((e) => (e.activityTaskScheduledEventAttributes ? [e.activityTaskScheduledEventAttributes.activityType?.name] : []));

const noteTool = defineTool({
  name: 'take_note',
  description: 'Notes a thing.',
  parameters: z.object({ text: z.string() }),
  execute: ({ text }) => `noted ${text}`,
});

test("a local agent hands the worker's entry cache its whole working set once, then only what is new, and is held there", async () => {
  const feeds = jest.spyOn(EntryCache.prototype, 'feed');
  try {
    await withWorker({ taskQueue, models: p.models() }, async () => {
      const agentId = uniqueId('local-feeds');
      await t.agents.start(agentId, { model: OPENAI, modelCalls: 'local' });
      for (let i = 1; i <= 4; i++) {
        p.openai.enqueue({ kind: 'stream', text: `Answer ${i}.` });
        await expect(t.agents.ask(agentId, `question ${i}`)).resolves.toMatchObject({ status: 'answered', answer: { contents: [`Answer ${i}.`] } });
      }
      const mine = feeds.mock.calls.filter(([id]) => id === agentId).map(([, feed]) => feed);
      expect(mine).toHaveLength(4);
      expect(mine.every((f) => f.hold === true)).toBe(true);
      expect(mine[0].afterSeq).toBe(0);
      // Each later call: the previous answer and the new input, after what the cache already ends with.
      for (const [i, feed] of mine.entries()) if (i > 0) expect(feed).toMatchObject({ afterSeq: mine[i - 1].entries.at(-1)!.seq, entries: [{}, {}] });
    });
  } finally {
    feeds.mockRestore();
  }
});

test('a plain turn with local model calls is one workflow task with no activity task; a tool turn runs its tool as an activity', async () => {
  await withWorker({ taskQueue, models: p.models(), tools: [noteTool] }, async () => {
    const agentId = uniqueId('local-calls');
    const handle = await t.agents.start(agentId, { model: OPENAI, modelCalls: 'local' });
    p.openai.enqueue({ kind: 'stream', text: 'Hello.' }, { kind: 'stream', text: 'Hello again.' });
    await expect(t.agents.ask(agentId, 'hello')).resolves.toMatchObject({ status: 'answered', answer: { contents: ['Hello.'] } });

    const before = (await handle.fetchHistory()).events ?? [];
    await expect(t.agents.ask(agentId, 'hello again')).resolves.toMatchObject({ status: 'answered', answer: { contents: ['Hello again.'] } });
    const turn = ((await handle.fetchHistory()).events ?? []).slice(before.length);
    expect(scheduledTypes(turn)).toEqual([]);
    expect(localMarkers(turn)).toBe(1); // the local call's result
    expect(count(turn, 'WORKFLOW_TASK_COMPLETED')).toBe(1);
    expect(kinds(turn).filter((k) => k.startsWith('WORKFLOW_EXECUTION_UPDATE'))).toEqual([
      'WORKFLOW_EXECUTION_UPDATE_ACCEPTED',
      'WORKFLOW_EXECUTION_UPDATE_COMPLETED',
    ]);

    // A tool turn: the tool is an activity as ever; both model calls are local.
    p.openai.enqueue({ kind: 'stream', toolCalls: [{ name: 'take_note', arguments: JSON.stringify({ text: 'milk' }) }] }, { kind: 'stream', text: 'Noted.' });
    const mark = (await handle.fetchHistory()).events?.length ?? 0;
    await expect(t.agents.ask(agentId, 'note milk')).resolves.toMatchObject({ status: 'answered', answer: { contents: ['Noted.'] } });
    const toolTurn = ((await handle.fetchHistory()).events ?? []).slice(mark);
    expect(scheduledTypes(toolTurn)).toEqual(['executeTool']);
    expect(localMarkers(toolTurn)).toBe(2);
    expect((await t.agents.history(agentId)).filter((e) => e.kind === 'tool_results')).toMatchObject([
      { results: [{ status: 'Success', result: 'noted milk' }] },
    ]);

    // The change is taken up by the worker's build mark (workflows/run-changes-by-build.ts): no marker asks for it.
    expect(patchIds((await handle.fetchHistory()).events ?? []).filter((id) => id === LOCAL_MODEL_CALL_CHANGE)).toEqual([]);

    // Back to regular activities by configure: the next call is scheduled as an activity.
    await t.agents.configure(agentId, { modelCalls: 'activity' });
    p.openai.enqueue({ kind: 'stream', text: 'Regular.' });
    const mark2 = (await handle.fetchHistory()).events?.length ?? 0;
    await expect(t.agents.ask(agentId, 'once more')).resolves.toMatchObject({ status: 'answered', answer: { contents: ['Regular.'] } });
    expect(scheduledTypes(((await handle.fetchHistory()).events ?? []).slice(mark2))).toEqual(['callModel']);
    await maybeRecordHistory(handle, 'local-model-call_v1.json');
  });
});

test('an agent without the option schedules its model calls as activities', async () => {
  await withWorker({ taskQueue, models: p.models() }, async () => {
    const agentId = uniqueId('regular-calls');
    const handle = await t.agents.start(agentId, { model: OPENAI });
    p.openai.enqueue({ kind: 'stream', text: 'Hi.' });
    await expect(t.agents.ask(agentId, 'hi')).resolves.toMatchObject({ status: 'answered' });
    const events = (await handle.fetchHistory()).events ?? [];
    expect(scheduledTypes(events)).toEqual(['callModel']);
    expect(localMarkers(events)).toBe(0);
    expect(patchIds(events)).not.toContain(LOCAL_MODEL_CALL_CHANGE);
  });
});

test('an interrupt cancels a running local model call; no partial output is offered meanwhile; the next turn answers', async () => {
  await withWorker({ taskQueue, models: p.models() }, async () => {
    const agentId = uniqueId('local-interrupt');
    p.openai.enqueue({ kind: 'stream', text: 'word '.repeat(400), chunkDelayMs: 50 });
    await t.agents.start(agentId, { model: OPENAI, modelCalls: 'local' });
    const sentBefore = p.openai.requests.length;
    const { inputSeq } = await t.agents.send(agentId, 'tell me a long story');
    await eventually(() => p.openai.requests.length > sentBefore, 60_000, 'the model call to reach the provider');
    expect(await t.agents.partialOutput(agentId)).toBeNull(); // a local call is no pending activity: the answer arrives whole

    // The interrupt reaches the workflow when the worker next heartbeats the workflow task the call holds (docs/cost.md).
    await expect(t.agents.interrupt(agentId, 'ana')).resolves.toMatchObject({ interrupted: true });
    await expect(t.agents.waitForAnswer(agentId, inputSeq)).resolves.toEqual({ inputSeq, status: 'interrupted', by: 'ana' });
    expect((await t.agents.history(agentId)).map((e) => e.kind)).toEqual(['model_input', 'turn_end']);

    p.openai.enqueue({ kind: 'stream', text: 'A short one.' });
    await expect(t.agents.ask(agentId, 'a short story instead')).resolves.toMatchObject({ status: 'answered', answer: { contents: ['A short one.'] } });
  });
});
