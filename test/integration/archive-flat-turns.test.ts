/**
 * An archived agent's turns cost the same in history however old it is: a model call names its archive
 * by how far it reaches (patch archive-by-reference), not by its segments, so the input the workflow
 * schedules does not grow as segments and rewinds pile up, and the activity still renders what archived
 * entries set (it reads the index itself). Sizes come from the agent's real history on the dev server.
 */
import { temporal } from '@temporalio/proto';
import { ScriptedModelProvider, type ScriptedRequest } from '../../activities/index';
import { unwrap } from '../../agent/index';
import { maybeRecordHistory } from '../support/record-history';
import { eventually, uniqueId, withWorker } from '../support/temporal';
import { useTestConnection } from '../support/test-connection';

const { t, taskQueue } = useTestConnection('archive-flat');

type Event = temporal.api.history.v1.IHistoryEvent;

/** The encoded input of each model call the run scheduled, in order: its bytes and its text. */
function modelCallInputs(events: Event[]): Array<{ bytes: number; text: string }> {
  return events
    .map((e) => e.activityTaskScheduledEventAttributes)
    .filter((a): a is temporal.api.history.v1.IActivityTaskScheduledEventAttributes => a?.activityType?.name === 'callModel')
    .map((a) => ({
      bytes: temporal.api.common.v1.Payloads.encode(a.input!).finish().length,
      text: (a.input!.payloads ?? []).map((p) => Buffer.from(p.data ?? []).toString('utf8')).join(''),
    }));
}

test("an archived agent's model-call input stays the same size as segments pile up, and its calls still see the archived instruction", async () => {
  const model = new ScriptedModelProvider({
    long: (req: ScriptedRequest) => {
      const last = unwrap(req.messages[req.messages.length - 1]);
      return { text: `${last.kind === 'model_input' ? last.sections[0].content : 'noted'}: ${'lorem ipsum '.repeat(340)}` };
    },
  });
  const agentId = uniqueId('flat');
  await withWorker({ taskQueue, models: [model] }, async () => {
    // ~4 KB a turn against a 16 KiB working set: a seal every few turns.
    await t.agents.start(agentId, { model: 'scripted:long', workingSetBytes: 16 * 1024, systemInstruction: 'Be long.' });
    for (let i = 0; i < 30; i++) expect(await t.agents.ask(agentId, `msg-${i}`)).toMatchObject({ status: 'answered' });
    await eventually(async () => (await t.agents.state(agentId)).blockedOn === 'input', 10_000, 'rest');
    const snapshot = await t.agents.snapshot(agentId);
    expect(snapshot.archive!.segments.length).toBeGreaterThan(3);

    const inputs = modelCallInputs((await t.agents.handle(agentId).fetchHistory()).events ?? []);
    expect(inputs).toHaveLength(30);
    const archived = inputs.filter((i) => i.text.includes('"archive"'));
    expect(archived.length).toBeGreaterThan(20);
    // No segment, hash or key enters the input: the archive is named by its reach alone.
    for (const { text } of archived) expect(text).not.toMatch(/segments|"key"|"hash"/);
    // The same size from the first archived call to the last, but for a seq's digits (msg-9 → msg-29, seq 2 → 3 digits).
    const sizes = archived.map((i) => i.bytes);
    expect(Math.max(...sizes) - Math.min(...sizes)).toBeLessThanOrEqual(4);
    // And about what a call cost before anything was archived: only `"archive":{"throughSeq":N}` more.
    expect(archived[archived.length - 1].bytes - inputs[0].bytes).toBeLessThanOrEqual(40);

    // The calls still render from the archive: the instruction set in an archived entry reaches the model.
    expect(model.requests[model.requests.length - 1].systemPrompt).toContain('Be long.');
    await maybeRecordHistory(t.agents.handle(agentId), 'archive-by-reference_v1.json');
    await t.agents.stop(agentId);
  });
});
