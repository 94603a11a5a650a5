/**
 * What a turn costs in Temporal history with the default client: one `ask` update per turn (accepted
 * with the input, completed with the answer — a short one inline, so the client sends no query), and
 * no search-attribute write for a turn that is one model call. A tool turn is still listed `Working`
 * while its tools run. An input whose idempotency key was seen is answered with the first turn's
 * outcome. A run whose first task a livecontext worker ran takes the behaviour changes its code has
 * without asking (its build ID's change mark); with a build ID of the user's own, it asks once, not per
 * change. The recorded history replays.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { temporal } from '@temporalio/proto';
import { AgentClient } from '../../client/agent-client';
import { RUN_STATE_ATTRIBUTE } from '../../workflows/messages';
import { maybeRecordHistory } from '../support/record-history';
import { eventually, uniqueId, withWorker } from '../support/temporal';
import { useTestConnection } from '../support/test-connection';

jest.setTimeout(120_000);

const { t, taskQueue } = useTestConnection('turn-events');

type Event = temporal.api.history.v1.IHistoryEvent;
const kinds = (events: Event[]) => events.map((e) => temporal.api.enums.v1.EventType[e.eventType ?? 0].replace('EVENT_TYPE_', ''));

test('a plain turn: one update, at most 12 events, no search-attribute write; a tool turn is listed Working while its tool runs', async () => {
  const workspaceRoot = mkdtempSync(path.join(tmpdir(), 'lc-ws-'));
  await withWorker({ taskQueue, workspaceRoot }, async () => {
    const agentId = uniqueId('turns');
    const handle = await t.agents.start(agentId, { model: 'demo:offline', tools: ['sleep'] });
    await expect(t.agents.ask(agentId, 'hello')).resolves.toMatchObject({ status: 'answered', inputSeq: 1 });

    const before = (await handle.fetchHistory()).events ?? [];
    await expect(t.agents.ask(agentId, 'hello again')).resolves.toMatchObject({ status: 'answered', inputSeq: 2 });
    const turn = ((await handle.fetchHistory()).events ?? []).slice(before.length);
    expect(kinds(turn).filter((k) => k.startsWith('WORKFLOW_EXECUTION_UPDATE'))).toEqual([
      'WORKFLOW_EXECUTION_UPDATE_ACCEPTED',
      'WORKFLOW_EXECUTION_UPDATE_COMPLETED',
    ]);
    // What was written, and among which events (so a failure says which write and when).
    const written = turn.flatMap((e, i) => {
      const fields = e.upsertWorkflowSearchAttributesEventAttributes?.searchAttributes?.indexedFields;
      return fields
        ? [
            `#${i} ${Object.entries(fields)
              .map(([k, v]) => `${k}=${Buffer.from(v.data ?? []).toString()}`)
              .join(' ')}`,
          ]
        : [];
    });
    expect({ written, events: written.length ? kinds(turn) : [] }).toEqual({ written: [], events: [] });
    expect(turn.length).toBeLessThanOrEqual(12);
    expect((await handle.describe()).searchAttributes[RUN_STATE_ATTRIBUTE.name]).toEqual(['WaitingInput']);

    // A turn that goes past its first model call (here: the demo model's "wait 3" sleeps 3 s in a tool).
    const waiting = t.agents.ask(agentId, 'wait 3');
    await eventually(async () => (await handle.describe()).typedSearchAttributes.get(RUN_STATE_ATTRIBUTE) === 'Working', 30_000, 'listed Working');
    await expect(waiting).resolves.toMatchObject({ status: 'answered', inputSeq: 3 });
    await eventually(
      async () => (await handle.describe()).typedSearchAttributes.get(RUN_STATE_ATTRIBUTE) === 'WaitingInput',
      30_000,
      'listed WaitingInput again',
    );

    // The same delivery again: the first turn's outcome, no new input.
    const delivery = { text: 'order 7', idempotencyKey: 'evt_7' };
    const first = await t.agents.ask(agentId, delivery);
    const again = await t.agents.ask(agentId, delivery);
    expect(again).toEqual(first);
    expect((await t.agents.state(agentId)).inboxLength).toBe(0);
    expect((await t.agents.history(agentId)).filter((e) => e.kind === 'model_input')).toHaveLength(4);

    await t.agents.stop(agentId);
    await handle.result();
    // The worker's build ID carries its change mark (worker/build-id.ts), recorded with each task: the run took
    // every change its code has without asking (each ask is a marker and a TemporalChangeVersion
    // search-attribute write) — not even for the fingerprint of a keyed input.
    const all = (await handle.fetchHistory()).events ?? [];
    expect(all.find((e) => e.workflowTaskCompletedEventAttributes)?.workflowTaskCompletedEventAttributes?.workerVersion?.buildId).toMatch(
      /^livecontext-changes-v4@\d+\.\d+\.\d+.*\+[0-9a-f]{64}$/,
    );
    expect(patchesOf(all)).toEqual([]);
    expect(all.filter((e) => e.upsertWorkflowSearchAttributesEventAttributes?.searchAttributes?.indexedFields?.TemporalChangeVersion)).toHaveLength(0);
    await maybeRecordHistory(handle, 'run-changes_v4.json'); // run-changes_v1/v2.json: recorded before the build mark, _v3 with level 3
  });
});

/** The ids of the patches a history's markers record, in order. */
function patchesOf(events: Event[]): string[] {
  return events.flatMap((e) => {
    const data = e.markerRecordedEventAttributes?.details?.['patch-data']?.payloads?.[0]?.data;
    return data ? [(JSON.parse(Buffer.from(data).toString()) as { id: string }).id] : [];
  });
}

test("a worker with a build ID of the user's own: the run asks once, with one marker, for all the changes its code has", async () => {
  await withWorker({ taskQueue: `${taskQueue}-own-build`, workerOptions: { buildId: 'my-agents-build-7' } }, async () => {
    const own = new AgentClient(t.client, `${taskQueue}-own-build`);
    const agentId = uniqueId('own-build');
    const handle = await own.start(agentId, { model: 'demo:offline' });
    const delivery = { text: 'hello', idempotencyKey: 'evt_8' };
    await expect(own.ask(agentId, delivery)).resolves.toMatchObject({ status: 'answered', inputSeq: 1 });
    await own.stop(agentId);
    await handle.result();
    const all = (await handle.fetchHistory()).events ?? [];
    // One marker for every change (a keyed input's fingerprint included), and its one TemporalChangeVersion write.
    expect(patchesOf(all)).toEqual(['run-changes-v4']);
    expect(all.filter((e) => e.upsertWorkflowSearchAttributesEventAttributes?.searchAttributes?.indexedFields?.TemporalChangeVersion)).toHaveLength(1);
    await maybeRecordHistory(handle, 'run-changes-own-build_v1.json');
  });
});
